"""The voxd voice node: listens for the wake word, sends what follows to the command center and
plays the answer. Installs without the server."""
