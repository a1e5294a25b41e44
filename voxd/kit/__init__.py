"""What every voxd service shares: app factory, errors, auth guards, discovery, storage, settings."""
