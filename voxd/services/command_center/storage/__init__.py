"""What the command center keeps: its database (command documents, memories, sealed secrets) and
the HTTP routes over it for the household lists, memories and command secrets."""
