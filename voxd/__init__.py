"""voxd: a self-hosted household voice assistant."""

__version__ = "0.1.0"
