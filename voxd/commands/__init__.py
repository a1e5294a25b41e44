"""Voice commands: the public command API (`voxd.commands.api`), the built-in commands, and the
language helpers (templates, numbers, durations, dates) they use to claim utterances quickly."""
