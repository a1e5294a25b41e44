"""The home and its rooms: Home Assistant, announcements, the nodes' volume."""
