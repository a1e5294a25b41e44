"""Web extraction service (7709): the one place voxd fetches pages from the outside web."""
