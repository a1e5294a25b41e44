"""From the last word to the first reply sound (issue 24), run by hand: real `NodeAgent`s in this process,
fed recorded turns ("hey jarvis" + a command spoken by espeak-ng voices and piper's joe) paced like a
microphone, against a real `voxd serve`. The old WAV path (`stream = false`) and the streamed turn are
measured in the same run, turn by turn, with the engines' own time for each turn beside them.

    .venv/bin/python bench/turn_latency.py [--rounds 1] [--pause-turns 100] [--trials 50]

- wait: the last voiced input sample -> the server holds the turn's final audio. The stream: the
  moment the server cut the audio its final transcript is made of (it started the speculative
  transcription it keeps; `end_of_turn` says how many ms before sending it: `held_for_ms`, taken
  from the moment the node received it, so loopback's delay counts against the stream); the WAV
  path: the node sends its WAV after `silence_seconds`;
- wait to end_of_turn: the last voiced input sample -> `end_of_turn` reaches the node (the stream;
  this is one speculative transcription and the words' check longer than the wait; the WAV path:
  the same as its wait);
- reply: the last voiced input sample -> the first reply sample the node plays;
- engines: the STT service on the command's audio (decode + whisper) with the household prompt the
  command center sends with every turn on both paths (its commands' sentences; the list items left
  out) + TTS to the first audio of the reply's text, both asked right after the turn: "engines, prompt",
  the engines' own time of issue 24's ratios; printed apart (stt, tts), and whisper once more without
  the prompt ("engines", the ratios' engines until stop 32, printed beside them);
- the ratios over all timed turns, and again over the turns a pre-routed or semantic command answered
  (the stream's `routed_by`; issue 24's figure is for those: a turn whisper misheard that no stage
  claims is answered "not understood"), the two printed one under the other (turn_figures.py);
- cut off early: turns with a 300-600 ms pause inside the sentence whose end came before their last word;
- two nodes: both hear the same command (the second 6 dB quieter); exactly one may answer. A node
  answers when it logs the server's `reply` (not any sound it plays: a timer ringing is no answer),
  and each trial prints how far apart the two nodes heard the wake word (turns opened more than the
  0.4 s arbitration window apart are not arbitrated: both answer).

Timers the bench's own turns set ("set a timer for ten minutes") are cancelled right after each such
turn, so none rings into a later turn or trial.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "node"))
from common import daemon, machine, warm  # noqa: E402
from node_kit import clip, speech  # noqa: E402
from voxd_node.audio_sources import SAMPLE_RATE  # noqa: E402
from voxd_node.command_client import CommandClient  # noqa: E402
from voxd_node.config import NodeConfig  # noqa: E402
from voxd_node.pcm import decode_wav, encode_wav, resample  # noqa: E402
from voxd_node.wake_word import WakeWordDetector  # noqa: E402
from turn_figures import Engines, new_rows, print_rows, record  # noqa: E402
from turn_kit import NODE, BenchNode, Heard, Stamps, TimedSink, Turn, TurnSource  # noqa: E402
from voxd.commands.registry import load_commands  # noqa: E402
from voxd.services.command_center.pipeline.vocabulary import build_prompt, command_sentences  # noqa: E402

SERVICES = ["config", "auth", "logs", "command-center", "stt", "tts"]
VOICES = ["en-us", "en-us+m3", "en-gb+f3", "joe"]  # espeak-ng voices, and piper's joe through the TTS service
COMMANDS = ["what time is it", "set a timer for ten minutes", "add eggs and butter to the shopping list",
            "what is twelve times seven"]
ONE_WORD = ["stop", "cancel"]  # ("yes" only means something as the answer to a question)
PAUSED = [("set a timer for", "ten minutes"), ("add eggs", "and butter to the shopping list"),
          ("what is twelve", "times seven"), ("set a timer for", "five minutes")]
LOUD = 500  # a sample above this is voiced (speech peaks at 10,000-30,000)
WAKE = (0.4, "hey jarvis", 0.3)
WINDOW_MS = 400  # the server's arbitration window: turns opened further apart are not one command
PROMPT = build_prompt(command_sentences(load_commands()), [], [])  # the command center's, less the list items


def spoken(text: str, voice: str, tts: httpx.Client) -> np.ndarray:
    """The words alone (the engines' silence before and after cut to 30 ms), so a pause is as long as said."""
    if voice == "joe":
        answer = tts.post("/synthesize", json={"text": text}, params={"stream": "false"})
        answer.raise_for_status()
        samples, rate = decode_wav(answer.content)
        samples = resample(samples, rate, SAMPLE_RATE)
    else:
        samples = speech(text, voice)
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > LOUD)
    margin = int(0.03 * SAMPLE_RATE)
    return samples[max(0, loud[0] - margin):loud[-1] + margin]


def last_voiced(samples: np.ndarray) -> int:
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > LOUD)
    return int(loud[-1]) if len(loud) else 0


def make_turn(label: str, parts: list[np.ndarray | float], **kind: bool) -> Turn:
    """"hey jarvis" (espeak-ng, which the wake word knows), 0.3 s, the command, 2.5 s of silence."""
    pieces = [clip(*WAKE)]
    for part in parts:
        pieces.append(np.zeros(int(part * SAMPLE_RATE), np.int16) if isinstance(part, float) else part)
    speech_end = sum(len(p) for p in pieces)
    command_end = speech_end - len(pieces[-1]) + last_voiced(pieces[-1])
    return Turn(label, np.concatenate(pieces + [np.zeros(int(2.5 * SAMPLE_RATE), np.int16)]), command_end, **kind)


def turns(tts: httpx.Client, rounds: int, pause_turns: int) -> tuple[list[Turn], list[Turn]]:
    timed = [make_turn(f"{voice}: {text}", [spoken(text, voice, tts)], one_word=text in ONE_WORD)
             for _ in range(rounds) for voice in VOICES for text in COMMANDS + ONE_WORD]
    rng = random.Random(24)
    paused = []
    for n in range(pause_turns):
        first, second = PAUSED[n % len(PAUSED)]
        voice, pause = VOICES[(n // len(PAUSED)) % len(VOICES)], round(rng.uniform(0.3, 0.6), 2)
        paused.append(make_turn(f"{voice}: {first} … ({pause} s) {second}",
                                [spoken(first, voice, tts), pause, spoken(second, voice, tts)], paused=True))
    return timed, paused


@dataclass
class Bench:
    agents: dict[str, BenchNode]
    sources: dict[str, TurnSource]
    stt: httpx.AsyncClient
    tts: httpx.AsyncClient
    center: httpx.AsyncClient  # the command center, as a node with no agent: cancels the bench's timers

    async def say(self, node: str, turn: Turn, volume: float = 1.0) -> Heard:
        return (await self.say_together([(node, volume)], turn))[0]

    async def say_together(self, nodes: list[tuple[str, float]], turn: Turn) -> list[Heard]:
        counts = {node: self.agents[node].conversations + 1 for node, _ in nodes}
        heard = [self.sources[node].say(turn, volume) for node, volume in nodes]
        await asyncio.gather(*(self.agents[node].wait_for(count) for node, count in counts.items()))
        await asyncio.sleep(0.7)  # a breath between turns (until stop 34 also the wake word's reset, in a thread)
        if "timer" in turn.label:
            await self.cancel_timers()
        return heard

    async def cancel_timers(self) -> None:
        """Every timer of the household cancelled, one at a time ("cancel all timers" asks first)."""
        for _ in range(20):
            answer = await self.center.post("/api/v0/command", json={"text": "cancel the timer"})
            if answer.status_code != 200 or "don't have any timers" in answer.json().get("text", ""):
                return

    async def stt_ms(self, wav: bytes, prompt: str | None = None) -> float | None:
        """decode + whisper, as the stt service timed them."""
        answer = await self.stt.post("/transcribe", content=wav, headers={"Content-Type": "audio/wav"},
                                     params={"prompt": prompt} if prompt else None)
        if answer.status_code != 200:
            return None
        timings = answer.json()["timings"]
        return timings["decode"] + max(timings["transcribe"], timings["speaker"])

    async def engines_ms(self, turn: Turn, reply: str | None) -> Engines | None:
        """decode + whisper on the command's audio, + piper to the first audio of the reply; and whisper
        again with the household prompt the command center sends (its commands' sentences; the list
        items it adds are left out), the engine's part of the turn on both paths."""
        start = len(clip(*WAKE))
        wav = encode_wav(turn.samples[start:turn.last_voiced + int(0.3 * SAMPLE_RATE)], SAMPLE_RATE)
        stt = await self.stt_ms(wav)
        if stt is None or not reply:
            return None
        started = time.perf_counter()
        async with self.tts.stream("POST", "/synthesize", json={"text": reply}) as spoken_reply:
            async for chunk in spoken_reply.aiter_raw():
                if chunk:
                    break
        tts = (time.perf_counter() - started) * 1000
        return Engines(stt, tts, await self.stt_ms(wav, PROMPT) or stt)


def end_reason(heard: Heard) -> str:
    """Why the server ended a streamed turn (smart_turn, complete_command, silence_ceiling, ...)."""
    for line in heard.lines:
        if line.startswith("end of turn ("):
            return line.split("(", 1)[1].split(")", 1)[0]
    return "the node"


def ms(later: float | None, earlier: float | None) -> float | None:
    return None if later is None or earlier is None else (later - earlier) * 1000


async def measure(bench: Bench, timed: list[Turn], paused: list[Turn], trials: int) -> None:
    rows, missed, reasons = new_rows(), 0, {}
    for n, turn in enumerate(timed):
        for path in ("wav", "stream") if n % 2 == 0 else ("stream", "wav"):  # neither always goes first
            heard = await bench.say(path, turn)
            wait, reply = ms(heard.held_at, heard.last_voiced_at), ms(heard.first_reply_at, heard.last_voiced_at)
            engines = await bench.engines_ms(turn, heard.reply_text)
            if wait is None or reply is None or engines is None:
                missed += 1
                print(f"  {path:6} {turn.label!r}: no reply ({heard.lines[-3:]})")
                continue
            row = rows[path]
            row["wait"].append(wait)
            row["wait to end_of_turn"].append(ms(heard.ended_at, heard.last_voiced_at))
            if path == "stream":
                reasons[end_reason(heard)] = reasons.get(end_reason(heard), 0) + 1
            record(row, turn.one_word, reply, engines, heard.routed_by)
            print(f"  {path:6} {turn.label!r}: wait {wait:.0f} ms ({end_reason(heard)}), reply {reply:.0f} ms, engines "
                  f"{engines.total:.0f} ms (stt {engines.stt:.0f}, with the prompt {engines.stt_prompted:.0f}; tts "
                  f"{engines.tts:.0f}) -> {heard.reply_text[:60]!r} (heard {heard.transcript!r}; routed by "
                  f"{heard.routed_by or '-'})")
    print(f"\nmachine: {machine()}; {len(timed)} turns per path, {missed} without a reply; "
          f"streamed turns ended by {reasons}")
    print_rows(rows)
    await cut_off(bench, paused)
    await two_nodes(bench, timed, trials)


async def cut_off(bench: Bench, paused: list[Turn]) -> None:
    early = unanswered = 0
    for turn in paused:
        heard = await bench.say("stream", turn)
        if heard.ended_at is None:
            unanswered += 1
        elif heard.last_voiced_at is None or heard.ended_at < heard.last_voiced_at:
            early += 1
            print(f"  cut off: {turn.label!r} -> {heard.lines[-3:]}")
    print(f"cut off early: {early} of {len(paused) - unanswered} turns with a 300-600 ms pause "
          f"({100 * early / max(1, len(paused) - unanswered):.1f} %, target <= 2 %); {unanswered} never ended")


async def two_nodes(bench: Bench, timed: list[Turn], trials: int) -> None:
    """Counts the nodes that logged a reply; a trial whose two turns opened further apart than the
    server's window is a miss of its own kind (the server saw two commands)."""
    exactly_one = apart = 0
    for n in range(trials):
        turn = timed[n % len(timed)]
        heard = await bench.say_together([("stream", 1.0), ("second", 0.5)], turn)
        answers = sum(h.reply_text is not None for h in heard)
        stood_down = sum(any(line.startswith("stood down") for line in h.lines) for h in heard)
        gap = ms(heard[1].woke_at, heard[0].woke_at)
        exactly_one += answers == 1
        apart += answers != 1 and gap is not None and abs(gap) > WINDOW_MS
        gap_text = "a node did not wake" if gap is None else f"second woke {gap:+.0f} ms after the first"
        print(f"  two nodes, {turn.label!r}: {answers} answered, {stood_down} stood down; {gap_text}")
    print(f"two nodes hearing one command: exactly one answer in {exactly_one} of {trials} trials (target "
          f"{trials} of {trials}); of the misses, {apart} woke more than {WINDOW_MS} ms apart")


def register(voxd, names: list[str]) -> dict[str, tuple[str, str]]:
    admin = {"X-Admin-Key": voxd.secrets["ADMIN_API_KEY"]}
    household = httpx.post(voxd.url("auth") + "/households", json={"name": "Bench", "timezone": "Europe/London"},
                           headers=admin, timeout=60).json()["household_id"]
    nodes = {}
    for name in names:
        node = httpx.post(voxd.url("command-center") + "/api/v0/nodes/register", headers=admin, timeout=60,
                          json={"household_id": household, "room": name, "name": name}).json()
        nodes[name] = (node["node_id"], node["api_key"])
    return nodes


async def run(voxd, args: argparse.Namespace) -> None:
    admin = {"X-Admin-Key": voxd.secrets["ADMIN_API_KEY"]}
    with httpx.Client(base_url=voxd.url("tts"), headers=admin, timeout=120) as tts:
        timed, paused = turns(tts, args.rounds, args.pause_turns)
    names = {"wav": False, "stream": True, "second": True}
    credentials = register(voxd, [*names, "timers"])
    sources = {name: TurnSource() for name in names}
    handler = Stamps(sources)
    logging.getLogger("voxd_node").addHandler(handler)
    logging.getLogger("voxd_node").setLevel(logging.INFO)
    logging.getLogger("voxd_node").propagate = False
    agents, tasks, clients = {}, [], []
    for name, stream in names.items():
        node_id, key = credentials[name]
        config = NodeConfig(node_id, key, voxd.url("command-center"), stream=stream)
        client = CommandClient(config.command_center_url, node_id, key)
        clients.append(client)
        agents[name] = BenchNode(config, sources[name], TimedSink(sources[name]), client,
                                 WakeWordDetector(config.wake_word, config.wake_threshold))
        NODE.set(name)
        tasks.append(asyncio.create_task(agents[name].run()))
    NODE.set("")
    stt_headers = {"X-Service-App-Id": "command-center", "X-Service-App-Key": voxd.secrets["APP_KEY_COMMAND_CENTER"]}
    async with httpx.AsyncClient(base_url=voxd.url("stt"), headers=stt_headers, timeout=120) as stt, \
            httpx.AsyncClient(base_url=voxd.url("tts"), headers=admin, timeout=120) as tts, \
            httpx.AsyncClient(base_url=voxd.url("command-center"), timeout=60,
                              headers={"X-API-Key": ":".join(credentials["timers"])}) as center:
        bench = Bench(agents, sources, stt, tts, center)
        await bench.say("wav", timed[0])  # load what loads at the first turn
        if any("does not stream" in line for line in (await bench.say("stream", timed[0])).lines):
            sys.exit("this voxd has no turn stream (GET /api/v0/command/stream is a 404)")
        try:
            await measure(bench, timed, paused, args.trials)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for client in clients:
                await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="times through the voices x commands")
    parser.add_argument("--pause-turns", type=int, default=100)
    parser.add_argument("--trials", type=int, default=50, help="two nodes hearing one command")
    parser.add_argument("--server-log", type=Path, help="the daemon's INFO log here: each streamed turn's "
                        "timeline (\"stream turn timeline of ...\": Silero's hold, the cut, transcription, routing, TTS)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    print(f"# bench/turn_latency.py, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    level = {"VOXD_LOG_LEVEL": "INFO"} if args.server_log else {}
    with daemon(SERVICES, args.server_log, VOXD_LLM_BACKEND="none", **level) as voxd:
        warm(voxd.url("command-center"))
        asyncio.run(run(voxd, args))
    if args.server_log:  # the two-node trials' late openers, as the server judged them (streaming/echo.py)
        late = [line for line in args.server_log.read_text().splitlines() if "opened late, while another node" in line]
        print(f"nodes that opened after the arbitration window: {sum('the same speech' in line for line in late)} "
              f"stood down on the same speech, {sum('served' in line for line in late)} served")


if __name__ == "__main__":
    main()
