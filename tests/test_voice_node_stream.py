"""Streamed turns (issue 24) as a person has them, against the real daemon and its speech models: `voxd-node`
reads a WAV for a microphone, streams the turn after the wake word over GET /api/v0/command/stream, and
the command center decides when the sentence is over. One daemon for the module."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from conftest import Daemon, free_port_offset, register_node
from node_kit import RATE, RunningNode, StreamCutter, clip, start_node, write_clip, write_config
from voxd_node.audio_sources import FRAME_SAMPLES

pytestmark = pytest.mark.slow

SPEECH = ["config", "auth", "logs", "command-center", "stt", "tts"]
MARGIN = 12.0  # seconds beyond the clip: the node's models, whisper's first load, the reply
STREAMED = "end of turn ("  # the node's line when the server ended a streamed turn
AS_WAV = "end of speech -> request sent"  # the node's line when it sent a WAV


@pytest.fixture(scope="module")
def voxd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    instance = Daemon(tmp_path_factory.mktemp("voxd-home"), free_port_offset(), SPEECH).start()
    yield instance
    instance.stop()


def node_config(voxd: Daemon, folder: Path, household: dict | None = None, server: str | None = None,
                **extra: object) -> tuple[Path, dict]:
    folder.mkdir(parents=True, exist_ok=True)
    node = register_node(voxd, household=household, room=folder.name)
    config = write_config(folder / "node.toml", server or voxd.url("command-center"), node["node_id"],
                          node["api_key"], **extra)
    return config, node


def hear(folder: Path, config: Path, samples: np.ndarray) -> RunningNode:
    """`voxd-node` with `samples` for its microphone, until the clip and MARGIN are over at most."""
    microphone = write_clip(folder / "mic.wav", samples)
    return start_node(folder, config, str(microphone), "--exit-after", str(len(samples) / RATE + MARGIN))


def until(nodes: list[RunningNode], done, timeout: float) -> list[str]:
    """Poll the nodes' logs until `done(logs)` or their --exit-after (a deadline, not a fixed wait),
    then stop them (SIGTERM must end each cleanly): their logs."""
    deadline = time.monotonic() + timeout
    while not done([running.log for running in nodes]) and time.monotonic() < deadline \
            and all(running.process.poll() is None for running in nodes):
        time.sleep(0.1)
    return [running.stop() if running.process.poll() is None else running.finish() for running in nodes]


def converse(voxd: Daemon, folder: Path, samples: np.ndarray, replies: int = 1, **extra: object) -> str:
    """The node hears `samples` until it has logged `replies` replies (or its time is up)."""
    config, node = node_config(voxd, folder, **extra)
    [log] = until([hear(folder, config, samples)], lambda logs: logs[0].count("reply: ") >= replies,
                  len(samples) / RATE + MARGIN)
    assert node["api_key"] not in log and "Traceback" not in log
    return log


def speak_to(nodes: list[RunningNode], heard: list[np.ndarray]) -> None:
    """Each node's stdin gets its samples at the pace of speech, frame by frame, at the same moments."""
    started = time.monotonic()
    for frame in range(0, len(heard[0]), FRAME_SAMPLES):
        for running, samples in zip(nodes, heard):
            running.process.stdin.write(samples[frame:frame + FRAME_SAMPLES].tobytes())
            running.process.stdin.flush()
        time.sleep(max(0.0, started + (frame + FRAME_SAMPLES) / RATE - time.monotonic()))
    for running in nodes:
        running.process.stdin.close()


def test_a_streamed_turn_is_answered(voxd, tmp_path):
    log = converse(voxd, tmp_path / "kitchen", clip(0.5, "hey jarvis", 0.3, "what time is it", 3.0))
    assert STREAMED in log and AS_WAV not in log
    assert "heard: What time is it" in log and "reply: It's " in log


def test_a_pause_inside_the_sentence_does_not_end_the_turn(voxd, tmp_path):
    log = converse(voxd, tmp_path / "kitchen",
                   clip(0.5, "hey jarvis", 0.3, "set a timer for", 0.45, "ten minutes", 3.0))
    assert STREAMED in log
    assert "reply: Timer set for 10 minutes." in log


def test_a_one_word_turn_is_answered(voxd, tmp_path):
    log = converse(voxd, tmp_path / "kitchen", clip(0.5, "hey jarvis", 0.3, "stop", 3.0))
    assert STREAMED in log and "reply: Okay." in log


def test_a_node_with_stream_false_sends_a_wav(voxd, tmp_path):
    log = converse(voxd, tmp_path / "kitchen", clip(0.5, "hey jarvis", 0.3, "what time is it", 3.0), stream=False)
    assert AS_WAV in log and STREAMED not in log
    assert "reply: It's " in log


def test_a_stream_dropped_half_way_is_sent_again_as_a_wav(voxd, tmp_path):
    with StreamCutter(voxd.url("command-center"), cut_after=20000, cut_once=True).relaying() as cutter:
        log = converse(voxd, tmp_path / "kitchen", clip(0.5, "hey jarvis", 0.3, "what time is it", 3.0,
                                                        "hey jarvis", 0.3, "what time is it", 3.0),
                       replies=2, server=cutter.url)
    assert cutter.cuts == 1
    assert "the turn stream dropped while recording" in log and log.count(AS_WAV) == 1
    assert log.count("reply: It's ") == 2
    assert log.count(STREAMED) == 1  # the next turn streams again: the server let the dropped one go


def test_two_nodes_hearing_one_command_give_one_answer(voxd, tmp_path):
    kitchen, node = node_config(voxd, tmp_path / "kitchen")
    hall, _ = node_config(voxd, tmp_path / "hall", household=node["household"])
    said = clip(0.5, "hey jarvis", 0.3, "what time is it", 3.0)
    nodes = [start_node(tmp_path / room, config, "-", "--exit-after", str(len(said) / RATE + 2 * MARGIN),
                        stdin=subprocess.PIPE) for room, config in (("kitchen", kitchen), ("hall", hall))]
    for running in nodes:
        running.wait_for("listening for")  # both ready: they hear the command at the same moment
    speak_to(nodes, [said, (said * 0.5).astype(np.int16)])  # the hall's microphone is further away
    logs = until(nodes, lambda logs: any("reply: " in log for log in logs)
                 and any("stood down: " in log for log in logs), 2 * MARGIN)
    assert sum("reply: It's " in log for log in logs) == 1
    assert sum("stood down: another node heard this command" in log for log in logs) == 1
