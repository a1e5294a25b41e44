"""The whole node, run as `voxd-node` with a WAV for a microphone and a WAV for a speaker, against a
stand-in command center: what the server receives and what the user would hear."""

from __future__ import annotations

import numpy as np
from aiohttp import web

from node_kit import MARGIN_SECONDS, RATE, clip, heard, refused_url, run_node, spoken_answer, stand_in_command_center, tone_wav
from voxd_node.agent import LONGEST_SEND_RETRY
from voxd_node.chimes import Chime
from voxd_node.pcm import decode_wav


def test_command_after_the_wake_word_is_sent_and_answered(tmp_path):
    with stand_in_command_center() as command_center:
        answer = tone_wav(300, 0.6)
        command_center.default = spoken_answer(answer, text="It is noon.", transcript="what time is it")
        played, log = run_node(tmp_path, command_center.url, clip(0.5, "hey jarvis", 0.3, "what time is it", 2.0),
                               debug_recording_dir=str(tmp_path / "kept"))

        [request] = command_center.received
        utterance, rate = decode_wav(request.body)
        assert rate == RATE and 1.0 < len(utterance) / RATE < 3.0
        assert request.query == {}
        assert request.headers["X-API-Key"] == "node-1:secret-key-123"
        assert [p.read_bytes() for p in (tmp_path / "kept").iterdir()] == [request.body]
        assert np.array_equal(played, heard(Chime.LISTENING, Chime.DONE, answer))
        for line in ("wake word detected (score 0.", "sent ", "end of speech -> request sent: ",
                     "heard: what time is it", "reply: It is noon."):
            assert line in log


def test_nothing_is_sent_without_the_wake_word(tmp_path):
    with stand_in_command_center() as command_center:
        played, log = run_node(tmp_path, command_center.url, clip(0.5, "what time is it", 0.5, "turn on the lights", 1.0))
        assert command_center.received == []
        assert len(played) == 0
        assert "wake word detected" not in log


def test_a_question_is_answered_without_the_wake_word(tmp_path):
    with stand_in_command_center() as command_center:
        question, confirmation = tone_wav(500, 0.4), tone_wav(700, 0.3)
        command_center.answers.append(spoken_answer(question, text="For how long?", transcript="set a timer", listen=True))
        command_center.default = spoken_answer(confirmation, text="Timer set for ten minutes.", transcript="ten minutes")
        played, log = run_node(tmp_path, command_center.url,
                               clip(0.5, "hey jarvis", 0.3, "set a timer", 1.5, "ten minutes", 2.0), stdin=True)

        assert [r.query for r in command_center.received] == [{}, {"follow_up": "true"}]
        assert np.array_equal(played, heard(Chime.LISTENING, Chime.DONE, question, Chime.LISTENING, Chime.DONE, confirmation))
        assert "reply: Timer set for ten minutes." in log


def test_a_bad_reply_is_logged_and_the_node_carries_on(tmp_path):
    with stand_in_command_center() as command_center:
        answer = tone_wav(300, 0.4)
        command_center.answers.append(lambda: web.Response(body=b"not a wav at all", content_type="audio/wav"))
        command_center.default = spoken_answer(answer, text="It is noon.")
        played, log = run_node(tmp_path, command_center.url,
                               clip(0.5, "hey jarvis", 0.3, "what time is it", 2.0, "hey jarvis", 0.3, "what time is it", 2.0))

        assert len(command_center.received) == 2
        assert np.array_equal(played, heard(Chime.LISTENING, Chime.DONE, Chime.ERROR, Chime.LISTENING, Chime.DONE, answer))
        assert "bad reply from the server" in log and "reply: It is noon." in log and "Traceback" not in log


def test_an_unreachable_server_is_reported_once(tmp_path):
    retries = LONGEST_SEND_RETRY
    played, log = run_node(tmp_path, refused_url(), clip(0.5, "hey jarvis", 0.3, "what time is it", 2.0),
                           margin=MARGIN_SECONDS + retries)
    assert np.array_equal(played, heard(Chime.LISTENING, Chime.DONE, Chime.SERVER_DOWN))
    assert log.count("server unavailable") == 1
