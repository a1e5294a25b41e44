"""Voice commands: the public command API (`voxd.commands.api`), argument coercion, the loader and
the built-in commands. The English they parse lives in `voxd.language`."""
