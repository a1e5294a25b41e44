"""Settings service (7708): every service's runtime settings behind one API, and the admin web page
with the one origin it talks to (docs/settings-service.md)."""
