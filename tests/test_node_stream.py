"""The node's streamed turn (issue 24), `voxd-node` with a WAV for a microphone and a WAV for a speaker,
against a stand-in command center that plays the server's part of GET /api/v0/command/stream: what the
node sends, what it plays, and how it falls back to the WAV path."""

from __future__ import annotations

import numpy as np

from node_kit import RATE, StreamSocket, clip, heard, run_node, spoken_answer, stand_in_command_center, tone_wav
from voxd_node.audio_sources import FRAME_BYTES
from voxd_node.chimes import Chime
from voxd_node.command_client import Reply
from voxd_node.pcm import decode_wav
from voxd_node.stream_client import ServerMessage
from voxd_node.streamed_turn import Answer

COMMAND = clip(0.5, "hey jarvis", 0.3, "what time is it", 2.0)
FIRST, SECOND = tone_wav(300, 0.4), tone_wav(500, 0.3)


async def answer_when_speech_ends(stream: StreamSocket) -> None:
    """The server's part: the turn is this node's, it ends after the speech, two sentences come back."""
    await stream.next_message("start")
    await stream.send("listening")
    if await stream.until_speech_ended():
        await stream.send("end_of_turn", reason="smart_turn")
        await stream.reply("It is noon. Have a nice lunch.", FIRST, SECOND)
        await stream.next_message("bye")


def test_a_streamed_turn_is_answered_sentence_by_sentence(tmp_path):
    with stand_in_command_center(answer_when_speech_ends) as command_center:
        played, log = run_node(tmp_path, command_center.url, COMMAND)

        [stream] = command_center.streams
        connect, start, bye = stream.messages
        assert connect["key"] == "node-1:secret-key-123"
        assert start["type"] == "start" and start["follow_up"] is False and start["sample_rate"] == RATE
        assert 0.5 <= start["wake_score"] <= 1.0
        assert bye == {"type": "bye"}
        assert all(len(frame) == FRAME_BYTES for frame in stream.received if isinstance(frame, bytes))
        assert 1.0 < len(stream.audio) / 2 / RATE < 3.0  # the command, not the silence after it
        assert command_center.received == []  # no WAV was posted
        assert np.array_equal(played, heard(Chime.LISTENING, Chime.END, FIRST, SECOND))
        for line in ("end of turn (smart_turn): ", "heard: what time is it", "reply: It is noon. Have a nice lunch."):
            assert line in log


def test_a_node_that_another_node_beat_stands_down_and_plays_nothing(tmp_path):
    async def stand_down_then_answer(stream: StreamSocket) -> None:
        if len(command_center.streams) == 1:
            await stream.next_message("start")
            await stream.send("stand_down")
            await stream.next_message("bye")
        else:
            await answer_when_speech_ends(stream)

    with stand_in_command_center(stand_down_then_answer) as command_center:
        played, log = run_node(tmp_path, command_center.url, clip(0.5, "hey jarvis", 0.3, "what time is it", 2.0,
                                                                  "hey jarvis", 0.3, "what time is it", 2.0))
        assert np.array_equal(played, heard(Chime.LISTENING, Chime.LISTENING, Chime.END, FIRST, SECOND))
        assert "stood down: another node heard this command" in log
        assert command_center.received == []
        assert [m["type"] for m in command_center.streams[0].messages] == ["connect", "start", "bye"]
        assert len(command_center.streams) == 2  # back to the wake word, and the next turn is its own


def test_a_follow_up_turn_uses_the_same_socket(tmp_path):
    async def ask_then_confirm(stream: StreamSocket) -> None:
        for listen in (True, False):
            await stream.next_message("start")
            await stream.send("listening")
            await stream.until_speech_ended()
            await stream.send("end_of_turn", reason="complete_command")
            await stream.reply("For how long?" if listen else "Timer set.", FIRST if listen else SECOND, listen=listen)
        await stream.next_message("bye")

    with stand_in_command_center(ask_then_confirm) as command_center:
        played, log = run_node(tmp_path, command_center.url,
                               clip(0.5, "hey jarvis", 0.3, "set a timer", 1.5, "ten minutes", 2.0))
        [stream] = command_center.streams
        assert [(m["type"], m.get("follow_up")) for m in stream.messages[1:]] == [
            ("start", False), ("start", True), ("bye", None)]
        assert np.array_equal(played, heard(Chime.LISTENING, Chime.END, FIRST, Chime.LISTENING, Chime.END, SECOND))
        assert "reply: Timer set." in log


def test_an_error_plays_the_error_chime(tmp_path):
    async def fail(stream: StreamSocket) -> None:
        await stream.next_message("start")
        await stream.until_speech_ended()
        await stream.send("end_of_turn", reason="smart_turn")
        await stream.send("error", code="stt_unavailable", message="Give me a moment.")
        await stream.next_message("bye")

    with stand_in_command_center(fail) as command_center:
        played, log = run_node(tmp_path, command_center.url, COMMAND)
        assert np.array_equal(played, heard(Chime.LISTENING, Chime.END, Chime.ERROR))
        assert "reply error (stt_unavailable): Give me a moment." in log


def test_a_server_that_says_nothing_meets_the_nodes_own_silence_ceiling(tmp_path):
    async def silent_until_the_node_ends(stream: StreamSocket) -> None:
        await stream.next_message("start")
        end = await stream.next_message("end")
        await stream.send("reply", text=f"ended: {end['reason']}", listen=False, understood=True)
        await stream.socket.send_bytes(FIRST)
        await stream.send("done")
        await stream.next_message("bye")

    with stand_in_command_center(silent_until_the_node_ends) as command_center:
        played, log = run_node(tmp_path, command_center.url, COMMAND, stream_silence_seconds=1.2)
        assert "recording stopped by the node: speech ended" in log and "reply: ended: max_length" in log
        assert np.array_equal(played, heard(Chime.LISTENING, FIRST))
        assert 2.0 < len(command_center.streams[0].audio) / 2 / RATE < 4.0  # the command and the 1.2 s ceiling


def test_a_stream_dropped_half_way_sends_the_turn_as_a_wav(tmp_path):
    async def drop_after_a_few_frames(stream: StreamSocket) -> None:
        await stream.next_message("start")
        for _ in range(6):
            await stream.next()

    with stand_in_command_center(drop_after_a_few_frames) as command_center:
        command_center.default = spoken_answer(FIRST, text="It is noon.")
        played, log = run_node(tmp_path, command_center.url, COMMAND)

        [request] = command_center.received
        utterance, rate = decode_wav(request.body)
        assert rate == RATE and 1.0 < len(utterance) / RATE < 3.0  # all of it, recorded on after the drop
        assert "the turn stream dropped while recording" in log and "reply: It is noon." in log
        assert np.array_equal(played, heard(Chime.LISTENING, Chime.DONE, FIRST))


def test_a_node_with_stream_false_posts_a_wav(tmp_path):
    with stand_in_command_center(answer_when_speech_ends) as command_center:
        command_center.default = spoken_answer(FIRST, text="It is noon.")
        played, log = run_node(tmp_path, command_center.url, COMMAND, stream=False)
        assert command_center.streams == [] and len(command_center.received) == 1
        assert np.array_equal(played, heard(Chime.LISTENING, Chime.DONE, FIRST))


def test_a_server_without_the_stream_is_asked_once(tmp_path):
    with stand_in_command_center() as command_center:  # GET /api/v0/command/stream is a 404
        played, log = run_node(tmp_path, command_center.url, clip(0.5, "hey jarvis", 0.3, "what time is it", 2.0,
                                                                  "hey jarvis", 0.3, "what time is it", 2.0))
        assert len(command_center.received) == 2
        assert log.count("the command center does not stream turns") == 1
        assert log.count("reply: It is noon.") == 2


def test_the_reply_keeps_the_stage_that_chose_its_command():
    """The reply frame's `routed_by` (bench/turn_latency.py reports the turns a command answered apart)."""
    for fields, routed_by in (({"routed_by": "pre_route"}, "pre_route"), ({}, None)):
        answer = Answer(None, None, None, None)  # only the frames are read here
        assert answer._handle(ServerMessage("reply", {"text": "Okay.", "listen": False, **fields})) is answer
        assert answer._handle(ServerMessage("done")) == Reply(audio=b"", text="Okay.", transcript=None, listen=False,
                                                              routed_by=routed_by)
