"""`voxd ask`: talk to voxd from a terminal (docs/cli.md, "Talking to voxd"), with no node and no
curl: a typed command, or a WAV recording, sent to the command center's `POST /api/v0/command` as
the logged-in user (user_session.py: they are the speaker, in their household) or, with
`--household`, with the admin key. It prints what voxd answered and how it got there; the spoken
reply of a recording is played or saved."""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
import tempfile
import wave
from pathlib import Path
from typing import Any

import aiohttp
import click

from voxd.cli.admin_client import run_admin
from voxd.cli.output import CliError, console, print_json
from voxd.cli.settings_option import load_settings
from voxd.cli.user_session import as_user
from voxd.kit.errors import UpstreamError
from voxd.kit.service_client import ServiceClient

COMMAND = "/api/v0/command"
ASK_TIMEOUT = aiohttp.ClientTimeout(total=180)  # a first spoken command may wait for models to load
# How each stage that can choose the command is called here (the answer's `routed_by`).
ROUTES = {"pre_route": "templates", "follow_up": "follow-up answer", "semantic": "semantic",
          "llm": "model", "none": "none"}
# Players tried in order for the spoken reply: ALSA, PulseAudio/PipeWire, macOS, ffmpeg.
PLAYERS = (("aplay", "-q"), ("paplay",), ("afplay",), ("ffplay", "-nodisp", "-autoexit", "-loglevel", "quiet"))
NO_PLAYER = ("no audio player found (aplay, paplay, afplay or ffplay on PATH, or a working sounddevice): "
             "save the reply with --save-reply OUT.wav")


@click.command("ask")
@click.argument("words", required=False)
@click.option("--wav", type=click.Path(exists=True, dir_okay=False, readable=True, path_type=Path),
              help="Send this WAV recording instead of typed words; the spoken reply is played.")
@click.option("--household", "household_id",
              help="Ask for this household with the admin key, instead of as the logged-in user.")
@click.option("--save-reply", type=click.Path(dir_okay=False, path_type=Path),
              help="Save the spoken reply to this WAV file instead of playing it (typed words too).")
@click.option("--speak", is_flag=True, help="Play the spoken reply to typed words too.")
@click.option("--follow-up", is_flag=True, help="This answers the question voxd just asked you.")
@click.option("--json", "as_json", is_flag=True, help="Print the command center's answer as JSON.")
def ask(words: str | None, wav: Path | None, household_id: str | None, save_reply: Path | None,
        speak: bool, follow_up: bool, as_json: bool) -> None:
    """Say something to voxd: WORDS typed, or a recording with --wav. As the user `voxd login`
    logged in (their memories, their household), or with --household and the admin key."""
    if (words is None) == (wav is None):
        raise click.UsageError("give the words to say, or --wav FILE (not both)")
    if words is not None and not words.strip():
        raise click.UsageError("the words to say are empty")
    play_reply = (wav is not None or speak) and not as_json
    answer = send(words, wav, household_id, follow_up, speak=play_reply or save_reply is not None)
    if as_json:
        print_json(answer)
    else:
        print_answer(answer)
    if save_reply is not None or play_reply:
        deliver(reply_audio(answer), save_reply)


def send(words: str | None, wav: Path | None, household_id: str | None, follow_up: bool, speak: bool) -> dict:
    params = {**({"household_id": household_id} if household_id else {}), **({"follow_up": "true"} if follow_up else {})}
    if wav is not None:
        request: dict[str, Any] = {"data": wav.read_bytes(), "content_type": "audio/wav"}
    else:
        request = {"json": {"text": words, "speak": speak}}

    async def post(client: ServiceClient) -> dict:
        try:
            return await client.call("command-center", "POST", COMMAND, params=params or None, timeout=ASK_TIMEOUT,
                                     **request)
        except UpstreamError as failure:
            if failure.code == "llm_unavailable":  # a configured model down: a terminal wants the way on
                raise CliError(f"{failure.message}; `voxd commands` lists what voxd understands without one") from None
            raise

    settings = load_settings()
    return run_admin(settings, post) if household_id else as_user(settings, post)


def line(text: str, style: str | None = None) -> None:
    """One line as typed (no markup), left to the terminal to wrap."""
    console.print(text, markup=False, highlight=False, soft_wrap=True, style=style)


def print_answer(answer: dict) -> None:
    if answer.get("transcript") is not None:
        line(f"heard: \u201c{answer['transcript']}\u201d", "dim")
    line(answer["text"], "bold")
    command = answer.get("command") or "none"
    arguments = ", ".join(f"{name}={value!r}" for name, value in (answer.get("arguments") or {}).items())
    line(f"command: {command}" + (f" ({arguments})" if arguments else ""))
    understood = "" if answer.get("understood", True) else " (not understood: `voxd commands` lists what voxd can do)"
    line(f"routed by: {ROUTES.get(answer['routed_by'], answer['routed_by'])}{understood}")
    if answer.get("speaker"):
        line(f"speaker: {answer['speaker']['name']}")
    line("timings: " + timings_line(answer.get("timings") or {}), "dim")
    if (answer.get("result") or {}).get("wait_for_input"):
        line('voxd is waiting for an answer: reply with `voxd ask --follow-up "..."`')


def timings_line(timings: dict[str, float]) -> str:
    """Each stage in the order it ran (as the answer lists them), the total last."""
    stages = [f"{stage} {ms:.1f} ms" for stage, ms in timings.items() if stage != "total"]
    if "total" in timings:
        stages.append(f"total {timings['total']:.1f} ms")
    return " \u00b7 ".join(stages) or "none"


def reply_audio(answer: dict) -> bytes:
    encoded = answer.get("audio")
    if not encoded:
        raise CliError("the answer has no spoken reply: the text-to-speech service did not answer "
                       "(`voxd serve` with it, and the voice extra installed)")
    return base64.b64decode(encoded)


def deliver(audio: bytes, save_to: Path | None) -> None:
    """Save the reply where asked, else play it; say plainly when neither can be done."""
    if save_to is not None:
        try:
            save_to.write_bytes(audio)
        except OSError as error:
            raise CliError(f"cannot save the reply to {save_to}: {error.strerror}") from None
        line(f"reply saved to {save_to}")
        return
    player = play(audio)
    if player is None:
        raise CliError(NO_PLAYER)
    line(f"reply played with {player}", "dim")


def play(audio: bytes) -> str | None:
    """Play the WAV with the first player on PATH, else sounddevice; the one used, or None."""
    for command in PLAYERS:
        if shutil.which(command[0]) is None:
            continue
        with tempfile.NamedTemporaryFile(suffix=".wav") as file:
            file.write(audio)
            file.flush()
            if subprocess.run([*command, file.name], check=False).returncode == 0:
                return command[0]
    return "sounddevice" if play_with_sounddevice(audio) else None


def play_with_sounddevice(audio: bytes) -> bool:
    """The node's own way to play sound (node/voxd_node/audio_sinks.py), when it is installed and
    there is a device to play on."""
    try:
        import numpy
        import sounddevice
    except (ImportError, OSError):  # not installed, or no PortAudio library
        return False
    try:
        with wave.open(io.BytesIO(audio)) as reader:
            samples = numpy.frombuffer(reader.readframes(reader.getnframes()), dtype=numpy.int16)
            sounddevice.play(samples.reshape(-1, reader.getnchannels()), reader.getframerate(), blocking=True)
    except (sounddevice.PortAudioError, wave.Error, ValueError):  # no output device, or not 16-bit PCM
        return False
    return True
