"""The node's volume (issue 25 §6): unit tests of node/voxd_node/volume.py with a clock of the test's,
then the real `voxd-node` against `voxd serve`: "volume 4" said as the node scales what it plays,
the level is kept across a restart of the agent, a mute silences it but the timer bell keeps its
floor, and a mute for a while ends by itself, also across a restart."""

from __future__ import annotations

import asyncio
import json
import stat
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import numpy as np
import pytest

from conftest import register_node, say
from daemons import serving
from node_kit import start_node, wav_samples
from test_announcements import SPEAKING_SERVICES
from voxd_node.announcements import Announcement
from voxd_node.audio_sinks import AudioSink, scaled
from voxd_node.chimes import Chime, chime_samples
from voxd_node.volume import (BadVolume, NodeVolume, VolumeAnnouncements, VolumeSetting, gain_of)

START = datetime(2026, 11, 26, 19, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


class ArraySink(AudioSink):
    def __init__(self) -> None:
        super().__init__()
        self.played: list[np.ndarray] = []

    async def _output(self, samples: np.ndarray, rate: int) -> None:
        self.played.append(samples)


def volume_message(**volume: object) -> Announcement:
    return Announcement("v1", "volume", "volume", None, volume=volume)


def test_levels_are_three_decibels_apart_and_zero_is_silence():
    assert gain_of(10) == 1.0 and gain_of(0) == 0.0
    assert gain_of(4) == pytest.approx(10 ** (-18 / 20))
    assert all(gain_of(level) < gain_of(level + 1) for level in range(10))


def test_a_volume_is_kept_in_the_state_file_and_a_timed_mute_ends_by_itself(tmp_path):
    clock, path = Clock(), tmp_path / "node.state.json"
    volume = NodeVolume(path, clock=clock)
    sink = ArraySink()
    sink.volume = volume
    tone = chime_samples(Chime.NOTICE)
    heard = []

    async def scenario() -> None:
        take = VolumeAnnouncements(volume, lambda announcement: sink.play_pcm(tone, 22050))
        await take(volume_message(level=4))
        await sink.play_pcm(tone, 22050)
        await take(volume_message(level=4, muted=True, muted_until=(START + timedelta(minutes=30)).isoformat()))
        await sink.play_pcm(tone, 22050)  # muted: nothing
        await take(Announcement("t1", "timer", "Your tea timer is done.", None))  # the bell's floor
        heard.extend(sink.played)

    asyncio.run(scenario())
    assert [len(part) for part in heard] == [len(tone), len(tone)]
    assert np.array_equal(heard[0], scaled(tone, gain_of(4)))
    assert np.array_equal(heard[1], scaled(tone, gain_of(5)))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    again = NodeVolume(path, clock=clock)  # a restart of the agent
    assert (again.setting.level, again.level()) == (4, 0)
    clock.now = START + timedelta(minutes=30)
    assert again.level() == 4


def test_a_bad_volume_is_refused_and_a_bad_state_file_is_full_volume(tmp_path):
    for bad in ({"level": 11}, {"level": "4"}, {"level": True}, {"level": 3, "muted": "yes"},
                {"level": 3, "muted": True, "muted_until": "soon"}, {"level": 3, "muted_until": "2026-11-26T19:00"}, None):
        with pytest.raises(BadVolume):
            VolumeSetting.parse(bad)
    path = tmp_path / "node.state.json"
    path.write_text("{not json")
    assert NodeVolume(path).level() == 10


# The real node against voxd serve.

@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    with serving(tmp_path_factory, SPEAKING_SERVICES, VOXD_SEMANTIC="false") as running:
        yield running


def node_config(path: Path, daemon, node: dict) -> Path:
    path.write_text(f'node_id = "{node["node_id"]}"\napi_key = "{node["api_key"]}"\n'
                    f'command_center_url = "{daemon.url("command-center")}"\nroom = "study"\n')
    return path


def announce(daemon, node: dict, text: str, kind: str = "notification") -> None:
    answer = httpx.post(daemon.url("command-center") + f"/api/v0/nodes/{node['node_id']}/announce",
                        json={"text": text, "kind": kind}, headers={"X-Admin-Key": daemon.admin_key})
    assert answer.status_code == 202, answer.text


def test_the_node_plays_at_the_volume_it_is_told_and_keeps_it(daemon, tmp_path):
    node = register_node(daemon, room="study")
    config = node_config(tmp_path / "node.toml", daemon, node)
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    running = start_node(first, config, "-", stdin=subprocess.PIPE)
    try:
        running.wait_for("broker connected")
        assert say(daemon, node, "volume 4").json()["text"] == "Volume 4."
        running.wait_for("volume set: 4")
        announce(daemon, node, "One.")  # no text-to-speech here: the notice chime
        running.wait_for("announcement (notification): One.")
        say(daemon, node, "mute")
        running.wait_for("volume set: 4, muted")
        announce(daemon, node, "Two.")
        announce(daemon, node, "Three.", kind="timer")
        running.wait_for("announcement (timer): Three.")
        assert say(daemon, node, "mute for three seconds").json()["text"] == "Muted for 3 seconds."
        running.wait_for("volume set: 4, muted until")
        running.stop()
    finally:
        running.kill()
    played, _ = wav_samples(first / "speaker.wav")
    expected = [scaled(chime_samples(Chime.NOTICE), gain_of(4)), scaled(chime_samples(Chime.ALARM), gain_of(5))]
    assert np.array_equal(played, np.concatenate(expected))

    until = datetime.fromisoformat(json.loads((tmp_path / "node.state.json").read_text())["muted_until"])
    running = start_node(second, config, "-", stdin=subprocess.PIPE)
    try:
        running.wait_for("broker connected")
        assert "volume 4, muted until" in running.log  # read back at start
        while datetime.now(timezone.utc) <= until:  # the mute's end passes, with nobody unmuting
            time.sleep(0.1)
        announce(daemon, node, "Four.")
        running.wait_for("announcement (notification): Four.")
        running.stop()
    finally:
        running.kill()
    played, _ = wav_samples(second / "speaker.wav")
    assert np.array_equal(played, scaled(chime_samples(Chime.NOTICE), gain_of(4)))
