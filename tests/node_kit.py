"""Node test kit: the `voxd-node` command, espeak-ng speech clips, a stand-in command center on a free
port, node configs."""

from __future__ import annotations

import asyncio
import functools
import json
import socket
import subprocess
import sys
import time
import threading
import wave
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import numpy as np
from aiohttp import WSMsgType, web

from spoken import espeak
from mosquitto import free_port
from voxd_node.chimes import Chime, chime_samples
from voxd_node.pcm import decode_wav, encode_wav

RATE = 16000
NODE = Path(sys.executable).parent / "voxd-node"  # the console script, beside this Python


@functools.cache
def speech(text: str, voice: str = "en-us") -> np.ndarray:
    """`text` spoken by espeak-ng as 16 kHz int16 samples (cached: espeak is the slow part)."""
    samples, rate = decode_wav(espeak(text, voice=voice, rate=RATE))
    assert rate == RATE
    return samples


def clip(*parts: str | float, voice: str = "en-us") -> np.ndarray:
    """Speech and silences in order: a string is spoken, a number is that many seconds of silence."""
    return np.concatenate([np.zeros(int(part * RATE), np.int16) if isinstance(part, (int, float))
                           else speech(part, voice) for part in parts])


def write_clip(path: Path, samples: np.ndarray) -> Path:
    path.write_bytes(encode_wav(samples, RATE))
    return path


def wav_samples(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path), "rb") as wav:
        assert (wav.getnchannels(), wav.getsampwidth()) == (1, 2)
        return np.frombuffer(wav.readframes(wav.getnframes()), np.int16), wav.getframerate()


def tone_wav(frequency: float, seconds: float, rate: int = 22050) -> bytes:
    t = np.arange(int(seconds * rate)) / rate
    return encode_wav((np.sin(2 * np.pi * frequency * t) * 8000).astype(np.int16), rate)


@dataclass
class Received:
    body: bytes
    query: dict[str, str]
    headers: dict[str, str]


def spoken_answer(wav: bytes, text: str = "It is noon.", transcript: str = "what time is it",
                  listen: bool = False, understood: bool = True) -> Callable[[], web.Response]:
    headers = {"X-Voxd-Text": quote(text), "X-Voxd-Transcript": quote(transcript)}
    if listen:
        headers["X-Voxd-Listen"] = "true"
    if not understood:
        headers["X-Voxd-Understood"] = "false"
    return lambda: web.Response(body=wav, content_type="audio/wav", headers=headers)


@dataclass
class StreamSocket:
    """The stand-in's side of one turn stream: what the node sent (JSON dicts, PCM bytes), in order."""

    socket: web.WebSocketResponse
    received: list[dict | bytes] = field(default_factory=list)

    async def next(self) -> dict | bytes | None:
        """The node's next frame; None once it closed."""
        message = await self.socket.receive()
        if message.type is WSMsgType.TEXT:
            self.received.append(json.loads(message.data))
        elif message.type is WSMsgType.BINARY:
            self.received.append(message.data)
        else:
            return None
        return self.received[-1]

    async def next_message(self, kind: str) -> dict | None:
        """Skip audio (and anything else) up to the node's next `kind` message."""
        while (frame := await self.next()) is not None:
            if isinstance(frame, dict) and frame["type"] == kind:
                return frame
        return None

    async def until_speech_ended(self, quiet_frames: int = 3) -> bool:
        """A stand-in for the server's end of turn: loud frames, then `quiet_frames` quiet ones."""
        voiced, quiet = False, 0
        while (frame := await self.next()) is not None:
            if isinstance(frame, bytes):
                loud = np.abs(np.frombuffer(frame, np.int16)).mean() > 300
                voiced, quiet = voiced or loud, 0 if loud else quiet + 1
                if voiced and quiet >= quiet_frames:
                    return True
        return False

    async def send(self, kind: str, **fields: object) -> None:
        await self.socket.send_json({"type": kind, **fields})

    async def reply(self, text: str, *sentences: bytes, listen: bool = False) -> None:
        await self.send("transcript", text="what time is it")
        await self.send("reply", text=text, listen=listen, understood=True, command="get_time", routed_by="pre_route")
        for wav in sentences:
            await self.socket.send_bytes(wav)
        await self.send("done")

    @property
    def audio(self) -> bytes:
        return b"".join(frame for frame in self.received if isinstance(frame, bytes))

    @property
    def messages(self) -> list[dict]:
        return [frame for frame in self.received if isinstance(frame, dict)]


@dataclass
class CommandCenter:
    """A stand-in for the command center's node API, in its own thread so a node subprocess or an
    in-test event loop can talk to it. `answers` are used in order, then `default`. With `stream`
    set, GET /api/v0/command/stream is a WebSocket that `stream` plays the server's part on (without,
    a 404, as from a server that does not stream)."""

    answers: list[Callable[[], web.Response]] = field(default_factory=list)
    default: Callable[[], web.Response] = field(default_factory=lambda: spoken_answer(tone_wav(300, 0.5)))
    received: list[Received] = field(default_factory=list)
    url: str = ""
    stream: Callable[[StreamSocket], Awaitable[None]] | None = None
    streams: list[StreamSocket] = field(default_factory=list)

    async def _command(self, request: web.Request) -> web.Response:
        self.received.append(Received(await request.read(), dict(request.query), dict(request.headers)))
        return (self.answers.pop(0) if self.answers else self.default)()

    async def _stream(self, request: web.Request) -> web.StreamResponse:
        if self.stream is None:
            raise web.HTTPNotFound()
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self.streams.append(StreamSocket(socket))
        self.streams[-1].received.append({"type": "connect", "key": request.headers.get("X-API-Key")})
        await self.stream(self.streams[-1])
        await socket.close()
        return socket

    async def _broker(self, request: web.Request) -> web.Response:
        return web.json_response({"error": {"code": "no_broker", "message": "no broker here"}}, status=404)

    @contextmanager
    def serving(self) -> Iterator[CommandCenter]:
        loop = asyncio.new_event_loop()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        app = web.Application()
        app.router.add_post("/api/v0/command", self._command)
        app.router.add_get("/api/v0/broker", self._broker)
        app.router.add_get("/api/v0/command/stream", self._stream)
        runner = web.AppRunner(app)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.SockSite(runner, sock).start())
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result()
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()


def stand_in_command_center(
        stream: Callable[[StreamSocket], Awaitable[None]] | None = None) -> AbstractContextManager[CommandCenter]:
    return CommandCenter(stream=stream).serving()


def refused_url() -> str:
    """A URL where nothing listens."""
    return f"http://127.0.0.1:{free_port()}"


@dataclass
class StreamCutter:
    """A TCP relay in front of a server that cuts a turn stream once the node has sent `cut_after`
    bytes on it, as a dropped Wi-Fi would (only the first with `cut_once`); every other request passes."""

    target: str  # http://host:port
    cut_after: int = 24000  # about 0.7 s of audio
    cut_once: bool = False
    cuts: int = 0
    url: str = ""

    async def _relay(self, node_reader: asyncio.StreamReader, node_writer: asyncio.StreamWriter) -> None:
        host, port = self.target.removeprefix("http://").rsplit(":", 1)
        server_reader, server_writer = await asyncio.open_connection(host, int(port))

        async def node_to_server() -> None:
            streamed = None  # bytes sent since the upgrade request, on a stream
            while data := await node_reader.read(65536):
                if streamed is None and b"GET /api/v0/command/stream" in data and not (self.cut_once and self.cuts):
                    streamed = 0
                server_writer.write(data)
                await server_writer.drain()
                if streamed is not None:
                    streamed += len(data)
                    if streamed > self.cut_after:
                        self.cuts += 1
                        return

        async def server_to_node() -> None:
            while data := await server_reader.read(65536):
                node_writer.write(data)
                await node_writer.drain()

        try:
            await asyncio.wait([asyncio.ensure_future(node_to_server()), asyncio.ensure_future(server_to_node())],
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            for writer in (node_writer, server_writer):
                writer.transport.abort()

    @contextmanager
    def relaying(self) -> Iterator[StreamCutter]:
        loop = asyncio.new_event_loop()
        server = loop.run_until_complete(asyncio.start_server(self._relay, "127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            loop.call_soon_threadsafe(server.close)
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()


@dataclass
class RunningNode:
    """`voxd-node` in the background; its log is a file so a test can wait for a line."""

    process: subprocess.Popen
    log_path: Path
    output: Path

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for(self, line: str, count: int = 1, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while self.log.count(line) < count:
            assert self.process.poll() is None, f"the node stopped:\n{self.log}"
            assert time.monotonic() < deadline, f"no {line!r} x{count} in the node's log:\n{self.log}"
            time.sleep(0.05)
        return self.log

    def finish(self, timeout: float = 90) -> str:
        """Wait for --exit-after to stop it; it must stop cleanly."""
        assert self.process.wait(timeout=timeout) == 0, self.log
        return self.log

    def stop(self) -> str:
        """SIGTERM, as systemd sends it, must end it cleanly."""
        self.process.terminate()
        return self.finish(timeout=20)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def start_node(folder: Path, config: Path, source: str, *options: str, stdin: int | None = None) -> RunningNode:
    """`voxd-node --config CONFIG --input SOURCE --output folder/speaker.wav OPTIONS...`."""
    output, log_path = folder / "speaker.wav", folder / "node.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen([str(NODE), "--config", str(config), "--input", source, "--output", str(output),
                                    *options], stdin=stdin, stdout=subprocess.DEVNULL, stderr=log_file)
    return RunningNode(process, log_path, output)


MARGIN_SECONDS = 3.0  # beyond the clip (which pauses while the node is busy): model loading, replies


def run_node(tmp_path: Path, server_url: str, samples: np.ndarray, margin: float = MARGIN_SECONDS,
             stdin: bool = False, **config: object) -> tuple[np.ndarray, str]:
    """Run the node over the clip (a WAV file, or raw PCM on stdin) until it has surely finished;
    what it played, and its log."""
    source = "-" if stdin else str(write_clip(tmp_path / "mic.wav", samples))
    config_file = write_config(tmp_path / "node.toml", "http://unused.invalid", **config)
    node = start_node(tmp_path, config_file, source, "--server", server_url,
                      "--exit-after", str(len(samples) / RATE + margin), stdin=subprocess.PIPE if stdin else None)
    if stdin:
        node.process.stdin.write(samples.tobytes())
        node.process.stdin.close()
    stderr = node.finish(timeout=60)
    assert "secret-key-123" not in stderr
    played, rate = wav_samples(node.output)
    assert rate == 22050
    return played, stderr


def heard(*parts) -> np.ndarray:
    return np.concatenate([chime_samples(part) if isinstance(part, Chime) else decode_wav(part)[0] for part in parts])


def write_config(path: Path, server_url: str, node_id: str = "node-1", api_key: str = "secret-key-123",
                 **extra: object) -> Path:
    lines = [f'node_id = "{node_id}"', f'api_key = "{api_key}"', 'household_id = "home"', 'room = "kitchen"',
             'name = "kitchen-pi"', f'command_center_url = "{server_url}"']
    lines += [f"{key} = {str(value).lower() if isinstance(value, bool) else repr(value)}".replace("'", '"')
              for key, value in extra.items()]
    path.write_text("\n".join(lines) + "\n")
    return path
