"""The family calendar over CalDAV."""
