"""One package per service; each exposes `create_app(settings)` as named in `voxd.catalog`."""
