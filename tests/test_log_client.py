"""The log client on its own: it never blocks or fails the caller, and its buffer is bounded."""

from __future__ import annotations

import logging

from voxd.kit.log_client import LogShipper
from voxd.kit.redact import Redactor
from voxd.kit.settings import Settings


def test_logging_never_blocks_and_the_buffer_stays_bounded():
    shipper = LogShipper(Redactor(["s3cret-value-xyz"]), buffer_size=1000)
    logger = logging.getLogger("voxd.auth.unit")
    logger.addHandler(shipper)
    logger.setLevel(logging.INFO)
    try:
        # no event loop runs and no logs service exists: emit must still return at once, every time
        for i in range(20_000):
            logger.info("entry %d with s3cret-value-xyz", i, extra={"context": {"api_key": "k", "n": i}})
    finally:
        logger.removeHandler(shipper)
    assert shipper.pending == 1000 and shipper.dropped == 19_000
    newest = shipper.entry(logging.LogRecord("voxd.auth.x", logging.WARNING, __file__, 1, "key s3cret-value-xyz", (), None))
    assert newest["service"] == "auth" and newest["level"] == "warning"
    assert "s3cret-value-xyz" not in newest["message"]


def test_entries_name_their_service_level_and_context():
    shipper = LogShipper(Redactor())
    record = logging.LogRecord("voxd.command_center.nodes.nodes", 25, __file__, 1, "hello %s", ("there",), None)
    record.request_id = "abc"
    record.context = {"password": "hunter22", "room": "kitchen"}
    entry = shipper.entry(record)
    assert entry["service"] == "command-center"
    assert entry["level"] == "warning"  # a custom level between info and warning rounds up
    assert entry["message"] == "hello there" and entry["request_id"] == "abc"
    assert entry["context"] == {"logger": "voxd.command_center.nodes.nodes", "password": "[redacted]", "room": "kitchen"}


def test_passwords_inside_configured_urls_are_scrubbed(tmp_path):
    settings = Settings.load({"VOXD_HOME": str(tmp_path), "LOG_STORE_URL": "http://loki:store-pass-123@logs/",
                              "VOXD_BROKER_URL": "mqtt://command-center:broker%40pass-456@127.0.0.1:1883",
                              "VOXD_LLM_URL": "http://127.0.0.1:11434"})
    redactor = Redactor(settings.secret_values())
    scrubbed = redactor.text("connecting with broker@pass-456 and store-pass-123 to 127.0.0.1:11434")
    assert "pass-456" not in scrubbed and "store-pass-123" not in scrubbed
    assert scrubbed.endswith("to 127.0.0.1:11434")  # a URL without a password is no secret
