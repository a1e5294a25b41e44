"""`voxd ask` against the real daemon (issue 20, "Talking to it"): a typed command as the logged-in
user or with --household and the admin key, what it prints (the reply, the command, how it was
routed, the stage timings), --json, a follow-up answer, and the errors: not logged in, the daemon
not running, no spoken reply. The spoken round trip (--wav, the reply played or saved) loads the
speech models: marked slow."""

from __future__ import annotations

import json
import stat
import sys

import httpx
import pytest

from conftest import household_member
from daemons import serving
from spoken import piper

SERVICES = ["config", "auth", "logs", "command-center"]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A daemon of its own: `voxd login` keeps its session in the daemon's VOXD_HOME."""
    with serving(tmp_path_factory, SERVICES) as running:
        yield running


def ask(voxd_cli, home, *args: str):
    return voxd_cli("ask", *args, target=home)


def log_in(voxd_cli, home, who: dict) -> None:
    result = voxd_cli("login", "--email", who["email"], "--password-stdin", input=who["password"] + "\n", target=home)
    assert result.exit_code == 0, result.output


def test_ask_as_the_logged_in_user(voxd_cli, home):
    voxd_cli("logout", target=home)
    refused = ask(voxd_cli, home, "what time is it")
    assert refused.exit_code == 1 and "not logged in: run `voxd login" in refused.output

    kim = household_member(home)
    log_in(voxd_cli, home, kim)
    kept = ask(voxd_cli, home, "remember that I take my tea black")
    assert kept.exit_code == 0, kept.output
    lines = kept.output.splitlines()
    assert lines[0] == "Okay, I'll remember that."
    assert "command: remember (content='I take my tea black')" in lines
    assert "routed by: templates" in lines and "speaker: Kim" in lines
    timings = next(line for line in lines if line.startswith("timings: "))
    assert "pre_route" in timings and "execute" in timings and timings.endswith(" ms")
    memories = httpx.get(home.url("command-center") + "/api/v0/memories", headers=kim["headers"]).json()
    assert [m["content"] for m in memories["memories"]] == ["I take my tea black"]

    asked = ask(voxd_cli, home, "set a timer")
    assert asked.exit_code == 0 and "voxd ask --follow-up" in asked.output, asked.output
    answered = ask(voxd_cli, home, "--follow-up", "five minutes")
    assert answered.exit_code == 0, answered.output
    assert answered.output.startswith("Timer set for 5 minutes. It will ring on every voice node in your household.")
    assert "routed by: follow-up answer" in answered.output

    voxd_cli("logout", target=home)


def test_ask_for_a_household_with_the_admin_key(voxd_cli, home):
    kim = household_member(home)
    added = ask(voxd_cli, home, "--household", kim["household_id"], "add apples to the shopping list")
    assert added.exit_code == 0, added.output
    assert "command: shopping_list" in added.output and "speaker:" not in added.output
    items = httpx.get(home.url("command-center") + "/api/v0/lists/shopping/items", headers=kim["headers"]).json()
    assert "apples" in json.dumps(items)
    nowhere = ask(voxd_cli, home, "--household", "no-such-household", "what time is it")
    assert nowhere.exit_code == 1 and nowhere.output.startswith("Error: there is no household no-such-household")


def test_ask_json_prints_the_raw_answer(voxd_cli, home):
    kim = household_member(home)
    answer = ask(voxd_cli, home, "--household", kim["household_id"], "--json", "what's 6 times 7")
    assert answer.exit_code == 0, answer.output
    body = json.loads(answer.output)
    assert (body["command"], body["routed_by"]) == ("calculate", "pre_route") and "42" in body["text"]
    assert body["timings"]["total"] >= body["timings"]["pre_route"]


def test_ask_errors_are_one_line(voxd_cli, home, make_daemon, tmp_path):
    both = ask(voxd_cli, home, "what time is it", "--wav", __file__)
    assert both.exit_code == 2 and "not both" in both.output
    kim = household_member(home)
    unspoken = ask(voxd_cli, home, "--household", kim["household_id"], "what time is it",
                   "--save-reply", str(tmp_path / "reply.wav"))
    assert unspoken.exit_code == 1 and "the text-to-speech service did not answer" in unspoken.output
    assert not (tmp_path / "reply.wav").exists()

    no_model = ask(voxd_cli, home, "--household", kim["household_id"], "who painted the mona lisa")
    assert no_model.exit_code == 0 and no_model.output.startswith("Sorry, I didn't understand that.")
    assert "routed by: none (not understood: `voxd commands` lists what voxd can do)" in no_model.output

    stopped = make_daemon(start=False)
    voxd_cli("init", target=stopped)
    down = voxd_cli("ask", "--household", kim["household_id"], "what time is it", target=stopped)
    assert down.exit_code == 1 and "the voxd daemon is not running" in down.output


@pytest.mark.slow
def test_ask_with_a_recording_plays_or_saves_the_reply(voxd_cli, make_daemon, tmp_path, monkeypatch):
    """piper's voice says the command, whisper hears it; the reply is synthesized, then saved,
    played by the first player on PATH (here a stand-in aplay that keeps what it was given), or
    neither, said plainly."""
    daemon = make_daemon(["config", "auth", "logs", "stt", "tts", "command-center"])
    kim = household_member(daemon)
    log_in(voxd_cli, daemon, kim)
    recording = tmp_path / "command.wav"
    recording.write_bytes(piper("what is twelve times seven"))

    saved = voxd_cli("ask", "--wav", str(recording), "--save-reply", str(tmp_path / "reply.wav"), target=daemon)
    assert saved.exit_code == 0, saved.output
    assert saved.output.startswith("heard: ") and "command: calculate" in saved.output and "84" in saved.output
    assert "stt" in saved.output and "tts" in saved.output  # the speech stages' timings
    assert (tmp_path / "reply.wav").read_bytes()[:4] == b"RIFF"
    assert "speaker: Kim" in saved.output  # the user is known: no voice enrolled, none compared

    players = tmp_path / "bin"
    players.mkdir()
    aplay = players / "aplay"
    keep = str(tmp_path / "played.wav")
    aplay.write_text(f"#!{sys.executable}\nimport shutil, sys\nshutil.copy(sys.argv[-1], {keep!r})\n")
    aplay.chmod(aplay.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(players))
    played = voxd_cli("ask", "--wav", str(recording), target=daemon)
    assert played.exit_code == 0 and "reply played with aplay" in played.output, played.output
    assert (tmp_path / "played.wav").read_bytes()[:4] == b"RIFF"
    (tmp_path / "played.wav").unlink()
    typed = voxd_cli("ask", "--speak", "what time is it", target=daemon)  # typed words, spoken back
    assert typed.exit_code == 0 and "reply played with aplay" in typed.output, typed.output
    assert "tts" in typed.output and (tmp_path / "played.wav").read_bytes()[:4] == b"RIFF"

    aplay.unlink()
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # no sounddevice either
    unplayed = voxd_cli("ask", "--wav", str(recording), target=daemon)
    assert unplayed.exit_code == 1 and "84" in unplayed.output
    assert "Error: no audio player found" in unplayed.output and "--save-reply OUT.wav" in unplayed.output
    voxd_cli("logout", target=daemon)
