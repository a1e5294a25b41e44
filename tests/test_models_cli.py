"""`voxd models pull` against a hub that speaks the Hugging Face listing and download shape, on
loopback: files arrive with a progress bar, are verified, and a bad file leaves nothing behind."""

from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner

from loopback import LoopbackServer, QuietHandler

from voxd.cli import main as cli_main

WEIGHTS = bytes(range(256)) * 4096  # 1 MiB, stored "in LFS"
CONFIG = b'{"alignment_heads": []}\n'  # a small file, identified by its Git blob hash


def git_blob_sha1(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


class FakeHub:
    def __init__(self, served_weights: bytes) -> None:
        listing = [
            {"type": "file", "path": "model.bin", "size": len(WEIGHTS), "oid": "x",
             "lfs": {"oid": hashlib.sha256(WEIGHTS).hexdigest(), "size": len(WEIGHTS)}},
            {"type": "file", "path": "config.json", "size": len(CONFIG), "oid": git_blob_sha1(CONFIG)},
            {"type": "directory", "path": "docs"},
        ]
        files = {"model.bin": served_weights, "config.json": CONFIG}

        class Handler(QuietHandler):
            def do_GET(self):  # noqa: N802
                if self.path.startswith("/api/models/Systran/faster-whisper-tiny.en/tree/main"):
                    body = json.dumps(listing).encode()
                elif self.path.startswith("/Systran/faster-whisper-tiny.en/resolve/main/"):
                    body = files.get(self.path.rsplit("/", 1)[1])
                else:
                    body = None
                if body is None:
                    self.reply(404)
                else:
                    self.reply(200, body)

        self._server = LoopbackServer(Handler)
        self.url = self._server.url

    def close(self) -> None:
        self._server.close()


@pytest.fixture
def hub_env(tmp_path):
    def make(weights: bytes) -> tuple[FakeHub, dict]:
        hub = FakeHub(weights)
        return hub, {"VOXD_HOME": str(tmp_path / "home"), "VOXD_MODELS_HUB_URL": hub.url}
    return make


def test_pull_downloads_and_verifies(hub_env, tmp_path):
    hub, env = hub_env(WEIGHTS)
    try:
        result = CliRunner().invoke(cli_main, ["models", "pull", "whisper-tiny.en"], env=env)
    finally:
        hub.close()
    assert result.exit_code == 0, result.output
    folder = tmp_path / "home" / "models" / "whisper" / "tiny.en"
    assert (folder / "model.bin").read_bytes() == WEIGHTS and (folder / "config.json").read_bytes() == CONFIG
    assert "VOXD_STT_MODEL=" in result.output
    assert not list(folder.glob("*.part"))


def test_a_corrupted_download_leaves_nothing(hub_env, tmp_path):
    tampered = bytearray(WEIGHTS)
    tampered[1000] ^= 0xFF
    hub, env = hub_env(bytes(tampered))
    try:
        result = CliRunner().invoke(cli_main, ["models", "pull", "whisper-tiny.en"], env=env)
    finally:
        hub.close()
    assert result.exit_code == 1 and "checksum mismatch" in result.output
    folder = tmp_path / "home" / "models" / "whisper" / "tiny.en"
    assert not (folder / "model.bin").exists() and not list(folder.glob("*.part"))


def test_unknown_names_and_an_unreachable_hub_are_one_line_errors(tmp_path):
    env = {"VOXD_HOME": str(tmp_path), "VOXD_MODELS_HUB_URL": "http://127.0.0.1:9"}
    unknown = CliRunner().invoke(cli_main, ["models", "pull", "gpt-17"], env=env)
    assert unknown.exit_code == 1 and "unknown model" in unknown.output
    down = CliRunner().invoke(cli_main, ["models", "pull", "whisper-tiny.en"], env=env)
    assert down.exit_code == 1 and down.output.startswith("Error: whisper-tiny.en could not be downloaded")
    listed = CliRunner().invoke(cli_main, ["models", "list", "--json"], env=env)
    roles = [c["role"] for c in json.loads(listed.output)["configured"]]
    assert roles == ["speech-to-text", "text-to-speech", "speaker identification", "language model"]
