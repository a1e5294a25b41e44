"""Streamed turns through `voxd serve` (issue 24; docs/api.md, Streamed turns): a node's WebSocket
on the command center. The protocol's checks run without speech models; the spoken turns (real
espeak-ng speech in 80 ms PCM frames, whisper, Smart Turn, piper) are the slow tests below."""

from __future__ import annotations

import asyncio
import io
import re
import time
import wave
from array import array

import aiohttp
import httpx
import pytest

from daemons import serving
from spoken import espeak, piper
from stream_client import STREAM, Heard, collect, pcm_of, receive_json, silence, speak, turn
from test_commands import node_headers, register_node


@pytest.fixture(scope="module")
def speechless(tmp_path_factory):
    """The command center without the speech services or the end-of-turn model: the protocol,
    the limits, the refusals, the fixed-silence rule."""
    with serving(tmp_path_factory, ["config", "auth", "command-center"],
                 VOXD_END_OF_TURN_MODEL="/nonexistent/smart-turn.onnx", VOXD_STREAM_IDLE_TIMEOUT="3") as daemon:
        yield daemon


def stream_url(daemon) -> str:
    return daemon.url("command-center").replace("http", "ws", 1) + STREAM


def run(coroutine):
    return asyncio.run(coroutine)


def test_bad_credentials_are_refused_before_the_upgrade(speechless):
    url = speechless.url("command-center") + STREAM
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    anonymous = httpx.get(url, headers=upgrade)
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"]
    node = register_node(speechless)
    wrong = httpx.get(url, headers={**upgrade, "X-API-Key": f"{node['node_id']}:not-the-key"})
    assert wrong.status_code == 401
    admin = httpx.get(url, headers={**upgrade, "X-Admin-Key": speechless.admin_key})
    assert admin.status_code == 403  # a node's stream: the admin key is not a node

    async def refused():
        async with aiohttp.ClientSession() as session:
            with pytest.raises(aiohttp.WSServerHandshakeError) as failure:
                await session.ws_connect(stream_url(speechless), headers={"X-API-Key": "nobody:nothing"})
            return failure.value.status
    assert run(refused()) == 401


def test_bad_frames_get_an_error_frame_and_the_stream_goes_on(speechless):
    node = register_node(speechless)

    async def exchange():
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(stream_url(speechless), headers=node_headers(node)) as ws:
            answers = []
            for bad in ("not json", '{"type": "sing"}', '{"type": "start", "sample_rate": 44100}',
                        '{"type": "end", "reason": "bored"}', '{"type": "end", "reason": "cancelled"}',
                        "x" * 5000):
                await ws.send_str(bad)
                answers.append(await receive_json(ws))
            await ws.send_bytes(b"\0\0\0")  # an odd number of bytes is no 16-bit audio
            answers.append(await receive_json(ws))
            await ws.send_bytes(b"\0" * (70 * 1024))  # past the frame cap
            answers.append(await receive_json(ws))
            await ws.send_bytes(b"\0" * 2560)  # audio before any start
            answers.append(await receive_json(ws))
            await ws.send_json({"type": "start", "wake_score": 0.8})
            answers.append(await receive_json(ws))
            await ws.send_json({"type": "end", "reason": "no_speech"})
            answers.append(await receive_json(ws))
            await ws.send_json({"type": "bye"})
            return answers
    answers = run(exchange())
    codes = [answer.get("code") for answer in answers[:9]]
    assert codes == ["malformed_json", "invalid_message", "invalid_message", "invalid_message", "no_turn",
                     "frame_too_large", "invalid_audio", "frame_too_large", "no_turn"]
    assert all(answer["type"] == "error" and answer["message"] for answer in answers[:9])
    assert [answer["type"] for answer in answers[9:]] == ["listening", "no_speech"]


def test_a_second_stream_of_a_node_replaces_the_first(speechless):
    node = register_node(speechless)

    async def twice():
        async with aiohttp.ClientSession() as session:
            first = await session.ws_connect(stream_url(speechless), headers=node_headers(node))
            second = await session.ws_connect(stream_url(speechless), headers=node_headers(node))
            closed = await asyncio.wait_for(first.receive(), 30)
            await second.send_json({"type": "start"})
            still = await receive_json(second)
            await second.close()
            return closed, still
    closed, still = run(twice())
    assert closed.type is aiohttp.WSMsgType.CLOSE and closed.data == 4000
    assert still["type"] == "listening"


def test_a_stream_with_no_frame_for_the_idle_time_out_is_closed(speechless):
    node = register_node(speechless)

    async def idle():
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(stream_url(speechless), headers=node_headers(node)) as ws:
            told = await receive_json(ws)  # after VOXD_STREAM_IDLE_TIMEOUT (3 s here) of nothing
            closed = await asyncio.wait_for(ws.receive(), 30)
            return told, closed.type
    told, closed = run(idle())
    assert told["type"] == "error" and told["code"] == "idle_timeout"
    assert closed is aiohttp.WSMsgType.CLOSE


def test_without_the_end_of_turn_model_a_fixed_silence_ends_the_turn(speechless):
    """Said in /health and the log; the turn still ends (here speech-to-text is not running, so
    the end is followed by its error frame, which the node answers with its error chime)."""
    health = httpx.get(speechless.url("command-center") + "/api/v0/health").json()
    assert health["engines"]["smart turn"] == "unavailable"
    assert "streamed turns end after 0.8 s of silence" in speechless.output()
    node = register_node(speechless)

    async def spoken():
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(stream_url(speechless), headers=node_headers(node)) as ws:
            return await turn(ws, pcm_of(espeak("turn on the lights")))
    heard = run(spoken())
    assert heard.types() == ["listening", "end_of_turn", "error"], heard.frames
    assert heard.first("end_of_turn")["reason"] == "silence_ceiling"
    assert heard.first("error")["code"] == "stt_unavailable"


@pytest.fixture(scope="module")
def voice(tmp_path_factory):
    """The command center with the real speech engines and the end-of-turn model, loaded before
    the first turn; no language model (spoken fast-path commands)."""
    with serving(tmp_path_factory, ["config", "auth", "command-center", "stt", "tts"], startup_timeout=300,
                 warm=True, VOXD_STT_PRELOAD="true", VOXD_TTS_PRELOAD="true") as daemon:
        warm_end_of_turn(daemon)
        yield daemon


def warm_end_of_turn(daemon) -> None:
    """The end-of-turn model loads when the first node opens a stream: open one, wait until it is in."""
    node = register_node(daemon)
    health = daemon.url("command-center") + "/api/v0/health"

    async def first_stream():
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(stream_url(daemon), headers=node_headers(node)):
            deadline = time.monotonic() + 120
            while httpx.get(health).json()["engines"]["smart turn"] != "warm" and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
    run(first_stream())
    assert httpx.get(health).json()["engines"]["smart turn"] == "warm"


async def one_stream(daemon, node: dict, *clips: bytes) -> list[Heard]:
    """The turns of `clips` on one stream, each a follow-up of the one before."""
    async with aiohttp.ClientSession() as session, \
            session.ws_connect(stream_url(daemon), headers=node_headers(node)) as ws:
        turns = [await turn(ws, clip, follow_up=index > 0) for index, clip in enumerate(clips)]
        await ws.send_json({"type": "bye"})
        return turns


def wav_seconds(data: bytes) -> float:
    with wave.open(io.BytesIO(data)) as reader:
        return reader.getnframes() / reader.getframerate()


@pytest.mark.slow
def test_a_streamed_turn_is_answered_sentence_by_sentence_and_a_follow_up_uses_the_same_stream(voice):
    node = register_node(voice)
    timer, sum_ = run(one_stream(voice, node, pcm_of(espeak("set a timer for five minutes")),
                                 pcm_of(espeak("what is seven times twelve"))))
    assert timer.types() == ["listening", "end_of_turn", "transcript", "reply", "done"], timer.frames
    assert timer.first("end_of_turn")["reason"] in {"smart_turn", "complete_command", "silence_ceiling"}
    assert timer.first("end_of_turn")["held_for_ms"] >= 0  # the final audio held before the end (issue 24's wait)
    assert "timer" in timer.first("transcript")["text"].lower()
    reply = timer.first("reply")
    assert reply["command"] == "set_timer" and reply["routed_by"] == "pre_route" and reply["understood"]
    assert timer.audio and all(clip[:4] == b"RIFF" and wav_seconds(clip) > 0.3 for clip in timer.audio)
    assert "84" in sum_.first("reply")["text"] and sum_.audio, sum_.frames


@pytest.mark.slow
@pytest.mark.parametrize("speaker", [espeak, piper], ids=["espeak-ng", "piper"])
def test_a_pause_inside_the_sentence_does_not_cut_the_turn_off(voice, speaker):
    node = register_node(voice)
    clip = pcm_of(speaker("set a timer for")) + silence(0.4) + pcm_of(speaker("ten minutes"))
    [heard] = run(one_stream(voice, node, clip))
    assert heard.first("reply")["command"] == "set_timer", heard.frames
    words = heard.first("transcript")["text"].lower()
    assert "ten minutes" in words or "10 minutes" in words, words


@pytest.mark.slow
def test_words_no_command_claims_end_after_the_fixed_silence_not_the_ceiling(voice):
    """whisper's hearing of espeak-ng's "what is twelve times seven" in the bench: no command, and the
    end-of-turn model calls it unfinished (0.04-0.3), so it waited for the 1.5 s ceiling."""
    node = register_node(voice)
    [heard] = run(one_stream(voice, node, pcm_of(espeak("what is well time is seven"))))
    assert heard.first("end_of_turn")["reason"] == "silence_ceiling" and heard.first("reply"), heard.frames
    ended = re.search(rf"stream turn of {node['node_id']} ended \(silence_ceiling\) after [\d.]+ s of audio, "
                      r"([\d.]+) s of it silence.*", voice.output())
    assert ended is not None, voice.output()[-2000:]
    silence, took = float(ended.group(1)), re.search(r"transcription (\d+) ms", ended.group(0))
    if silence >= 1.49 and (took is None or float(took.group(1)) > 1100):  # the words may have come in late
        pytest.skip(f"the machine is too busy to tell: {ended.group(0)}")
    # Ended once the words were in and 0.8 s (VOXD_STREAM_FIXED_SILENCE) had passed: before the ceiling's 1.50 s.
    assert silence < 1.49, ended.group(0)


@pytest.mark.slow
def test_a_one_word_turn_is_answered(voice):
    node = register_node(voice)
    [heard] = run(one_stream(voice, node, pcm_of(espeak("stop"))))
    assert heard.types()[:2] == ["listening", "end_of_turn"]
    assert heard.first("reply")["command"] == "stop", heard.frames


@pytest.mark.slow
def test_a_stream_dropped_half_way_is_cleaned_up(voice):
    node = register_node(voice)
    clip = pcm_of(espeak("add eggs and butter to the shopping list"))

    async def drop():
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(stream_url(voice), headers=node_headers(node))
            await ws.send_json({"type": "start", "wake_score": 0.9})
            assert (await receive_json(ws))["type"] == "listening"
            heard = Heard()
            await speak(ws, clip[:len(clip) // 2], heard, trailing=0)
            await ws.close()  # mid-sentence: the node lost its network
    run(drop())
    # The server says so, and the node's next stream is served as if nothing had happened.
    [heard] = run(one_stream(voice, node, pcm_of(espeak("stop"))))
    assert heard.first("reply")["command"] == "stop"
    assert f"stream of {node['node_id']} closed during a turn" in voice.output()


@pytest.mark.slow
def test_two_nodes_of_one_household_hear_one_command_and_one_answers(voice):
    kitchen = register_node(voice)
    hall = register_node(voice, household=kitchen["household"], room="hall")
    clip = pcm_of(espeak("stop"))

    async def both():
        async with aiohttp.ClientSession() as session:
            near = await session.ws_connect(stream_url(voice), headers=node_headers(hall))
            far = await session.ws_connect(stream_url(voice), headers=node_headers(kitchen))
            heard_far, heard_near = Heard(), Heard()
            await far.send_json({"type": "start", "wake_score": 0.6})  # opens first, hears it worse
            # The two sockets are served apart: the far node's turn is the server's before the near one opens.
            heard_far.frames.append(await receive_json(far))
            await near.send_json({"type": "start", "wake_score": 0.95})
            readers = [asyncio.create_task(collect(ws, heard)) for ws, heard in ((far, heard_far), (near, heard_near))]
            await asyncio.gather(speak(far, clip, heard_far), speak(near, clip, heard_near), *readers)
            await far.close()
            await near.close()
            return heard_far, heard_near
    far, near = run(both())
    assert far.types() == ["listening", "stand_down"] and not far.audio
    assert near.types()[0] == "listening" and near.first("reply")["command"] == "stop" and near.audio
    assert "stand down" in voice.output()


async def late_pair(daemon, near_clip: bytes, far_clip: bytes, late_by: float,
                    burst: float = 0.0) -> tuple[Heard, Heard]:
    """The near node opens a turn and speaks; `late_by` s of its speech later (past the arbitration
    window) the far node of the same household opens one and streams `far_clip`, the first `burst` s
    of it at once (heard while it woke and opened its socket)."""
    kitchen = register_node(daemon)
    hall = register_node(daemon, household=kitchen["household"], room="hall")
    async with aiohttp.ClientSession() as session:
        near = await session.ws_connect(stream_url(daemon), headers=node_headers(hall))
        far = await session.ws_connect(stream_url(daemon), headers=node_headers(kitchen))
        heard_near, heard_far = Heard(), Heard()
        await near.send_json({"type": "start", "wake_score": 0.9})
        heard_near.frames.append(await receive_json(near))  # the near node's turn is open

        async def far_node():
            await asyncio.sleep(late_by)  # the far node heard the wake word late
            await far.send_json({"type": "start", "wake_score": 0.9})
            backlog = int(burst * 16000) * 2
            await speak(far, far_clip[:backlog], heard_far, trailing=0, paced=False)
            await asyncio.gather(speak(far, far_clip[backlog:], heard_far), collect(far, heard_far))

        await asyncio.gather(speak(near, near_clip, heard_near), collect(near, heard_near), far_node())
        await near.close()
        await far.close()
        return heard_near, heard_far


def quieter(pcm: bytes) -> bytes:
    samples = array("h", pcm)
    return array("h", (s // 3 for s in samples)).tobytes()


@pytest.mark.slow
def test_a_node_that_opens_late_on_the_same_speech_stands_down(voice):
    clip = pcm_of(espeak("add eggs and butter to the shopping list"))
    late_by = 0.64  # past the 0.4 s window: before, both nodes answered
    near, far = run(late_pair(voice, clip, quieter(clip[int(late_by * 16000) * 2:]), late_by))
    assert far.types() == ["stand_down"] and not far.audio, far.frames
    assert near.first("reply")["command"] == "shopping_list" and near.audio
    assert "opened late, while another node of the household answered: the same speech" in voice.output()


@pytest.mark.slow
def test_a_late_node_whose_first_audio_comes_in_a_burst_stands_down(voice):
    """It woke 0.3 s into the turn and opened 0.7 s in: its first 0.4 s arrive at once after its start.
    Lined up by when it opened, its audio was 0.4 s off and it was served: both answered (the bench's
    one two-node miss, a node 434 ms late)."""
    clip = pcm_of(espeak("add eggs and butter to the shopping list"))
    woke, late_by = 0.3, 0.7
    near, far = run(late_pair(voice, clip, quieter(clip[int(woke * 16000) * 2:]), late_by, burst=late_by - woke))
    assert far.types() == ["stand_down"] and not far.audio, far.frames
    assert near.first("reply")["command"] == "shopping_list" and near.audio


@pytest.mark.slow
def test_a_node_that_opens_late_on_another_persons_speech_is_served(voice):
    near, far = run(late_pair(voice, pcm_of(espeak("add eggs and butter to the shopping list")),
                              pcm_of(espeak("what time is it", voice="en-gb+f3")), 0.64))
    assert near.first("reply")["command"] == "shopping_list", near.frames
    assert far.types()[0] == "listening" and far.first("reply")["command"] == "get_current_time", far.frames
