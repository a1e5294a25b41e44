"""Model files: the ones voxd knows how to fetch (`voxd models pull`), and where they go."""
