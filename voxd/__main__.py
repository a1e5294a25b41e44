from voxd.cli import main

main()
