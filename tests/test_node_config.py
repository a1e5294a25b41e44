"""A bad config stops the node at once with one line that names the key and the file."""

from __future__ import annotations

import subprocess

import pytest
from click.testing import CliRunner

from node_kit import NODE, write_config
from voxd_node.cli import main
from voxd_node.config import ConfigError, load_config



def test_defaults_fill_in_the_node_keys(tmp_path):
    config = load_config(write_config(tmp_path / "node.toml", "http://cc:7703", wake_threshold=0.6))
    assert (config.node_id, config.command_center_url, config.wake_word, config.wake_threshold,
            config.silence_seconds, config.debug_recording_dir) == ("node-1", "http://cc:7703", "hey_jarvis", 0.6, 0.8, None)
    assert (config.stream, config.stream_silence_seconds) == (True, 2.0)
    assert load_config(write_config(tmp_path / "wav.toml", "http://cc:7703", stream=False)).stream is False
    assert "secret-key-123" not in repr(config)


@pytest.mark.parametrize("content, complaint", [
    ('node_id = "n"\napi_key = "k"\n', "has no command_center_url"),
    ('node_id = "n"\ncommand_center_url = "http://x"\n', "has no api_key"),
    ('node_id = "n"\napi_key = "k"\ncommand_center_url = "http://x"\nsilence_seconds = "long"\n', "silence_seconds"),
    ('node_id = "n"\napi_key = "k"\ncommand_center_url = "http://x"\ninput_device = true\n', "input_device"),
    ('node_id = "n"\napi_key = "k"\ncommand_center_url = "http://x"\nstream = "yes"\n', "must be true or false"),
    ('node_id = "n"\napi_key = "k"\ncommand_center_url = "http://x"\nstream_silence_seconds = 0\n', "stream_silence_seconds"),
    ("node_id = \n", "not valid TOML"),
])
def test_bad_config_names_the_key_and_file(tmp_path, content, complaint):
    path = tmp_path / "node.toml"
    path.write_text(content)
    with pytest.raises(ConfigError, match=complaint) as error:
        load_config(path)
    assert str(path) in str(error.value)


def test_cli_exits_with_one_line(tmp_path):
    missing = tmp_path / "nowhere.toml"
    result = subprocess.run([str(NODE), "--config", str(missing)], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [f"voxd-node: config file {missing} does not exist "
                                                  f"(create it with `voxd node register --config {missing}`)"]


def test_cli_rejects_an_unknown_wake_word(tmp_path):
    config = write_config(tmp_path / "node.toml", "http://cc:7703", wake_word="hey_computer")
    result = subprocess.run([str(NODE), "--config", str(config), "--input", "-", "--output", "null"],
                            capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert result.returncode != 0
    assert result.stderr.strip().startswith("voxd-node: unknown wake_word 'hey_computer'")


def test_list_devices_needs_no_config():
    result = subprocess.run([str(NODE), "--list-devices"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "input devices:" in result.stdout and "output devices:" in result.stdout


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_short_and_long_help(flag):
    """`voxd-node -h` works like `voxd -h` (a Pi's user types the short one first)."""
    result = CliRunner().invoke(main, [flag])
    assert result.exit_code == 0 and "--config" in result.output
