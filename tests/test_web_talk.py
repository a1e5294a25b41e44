"""The talk page in Chromium against `voxd serve` with the real speech services (issue 22 §5): the
browser's fake microphone plays espeak-ng saying "what time is it"; the page records it through its
AudioWorklet, encodes a 16 kHz mono 16-bit WAV in JavaScript, sends it to the command center as the
logged-in user through /ui-api; whisper hears it, the command runs, piper speaks the reply, and the
page shows the transcript, the command and the timings and plays the reply in an <audio> element.
Over plain HTTP from another machine the page explains the HTTPS steps instead (that branch is
reached here by making `window.isSecureContext` false, since the test runs on loopback)."""

from __future__ import annotations

import io
import wave
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from browser import chromium, logged_in_tab, new_web_user, page_url  # noqa: F401
from conftest import Daemon, run_voxd
from daemons import serving
from spoken import espeak
from web_shots import screens

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SERVICES = ["config", "auth", "logs", "settings", "stt", "tts", "command-center"]
SILENCE_BEFORE = 0.5  # seconds of quiet before the words: the recording may join the microphone a moment late
SILENCE_AFTER = 1.0  # seconds of quiet after the words, so a hold a little long adds no second "what"


@pytest.fixture(scope="module")
def spoken_command(tmp_path_factory) -> Path:
    """espeak-ng saying the command, 16 kHz mono, with quiet around it (the fake microphone loops the file)."""
    words = espeak("what time is it")
    with wave.open(io.BytesIO(words)) as reader:
        frames, rate = reader.readframes(reader.getnframes()), reader.getframerate()
    path = tmp_path_factory.mktemp("microphone") / "what-time-is-it.wav"
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(b"\0\0" * int(rate * SILENCE_BEFORE) + frames + b"\0\0" * int(rate * SILENCE_AFTER))
    return path


@pytest.fixture(scope="module")
def chromium_args(spoken_command: Path) -> list[str]:
    return ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={spoken_command}"]


@pytest.fixture(scope="module")
def web_daemon(tmp_path_factory) -> Iterator[Daemon]:
    """The page's server and the speech services, warm (the models loaded) before the test talks. No
    semantic stage: the commands here are claimed by their templates, and a sentence no template
    claims must reach the missing model, whatever the embeddings would make of it."""
    with serving(tmp_path_factory, SERVICES, warm=True, VOXD_SEMANTIC="false") as daemon:
        yield daemon


def spoken_seconds(path: Path) -> float:
    with wave.open(str(path)) as reader:
        return reader.getnframes() / reader.getframerate()


def test_push_to_talk_is_heard_answered_and_played(logged_in_tab, web_daemon, spoken_command):
    talker = new_web_user(web_daemon)
    page = logged_in_tab(talker, "talk").page
    button = page.get_by_role("button", name="Hold to talk")
    button.hover()
    page.mouse.down()
    page.get_by_text("Listening.").wait_for()
    page.wait_for_timeout(int(spoken_seconds(spoken_command) * 1000))  # holding the button while speaking
    page.mouse.up()

    answer = page.locator("#talk-answer")
    try:
        answer.locator("dd[data-field=heard]").wait_for(timeout=120_000)  # whisper and piper on a loaded machine
    except Exception as error:
        raise AssertionError(f"no answer; the page says: {page.locator('main').inner_text()}") from error
    assert "time" in answer.locator("dd[data-field=heard]").inner_text().lower()
    assert answer.locator("dd[data-field=command]").inner_text() == "get_current_time"
    assert answer.locator("dd[data-field=speaker]").inner_text() == "Robin"  # the logged-in user
    stages = page.locator("#talk-timings th").all_inner_texts()
    assert {"stt", "tts", "total"} <= set(stages)
    page.locator("#reply-audio[data-played=ended]").wait_for(state="attached", timeout=60_000)  # played to its end
    assert page.locator("#reply-audio").evaluate("audio => audio.duration") > 0.3
    screens(page, "talk")


def test_typed_words_are_answered_and_spoken_too(logged_in_tab, web_daemon):
    page = logged_in_tab(new_web_user(web_daemon), "talk").page
    page.get_by_label("Or type it").fill("what is twelve times seven")
    page.get_by_role("button", name="Ask").click()
    page.locator("dd[data-field=reply]").wait_for(timeout=60_000)
    assert "84" in page.locator("dd[data-field=reply]").inner_text()
    assert page.locator("dd[data-field=command]").inner_text() == "calculate"
    page.locator("#reply-audio[data-played]").wait_for(state="attached", timeout=60_000)  # playing or played

    # No model here, and nothing claims it: not understood is an answer, shown and said (issue 23 §5).
    page.get_by_label("Or type it").fill("do I need to put anything out tonight")
    page.get_by_role("button", name="Ask").click()
    page.locator("dd[data-field=command]", has_text="none (not understood)").wait_for(timeout=60_000)
    assert "didn't understand" in page.locator("dd[data-field=reply]").inner_text()
    assert page.locator("dd[data-field='routed by']").inner_text() == "none"


def test_over_plain_http_from_another_machine_the_page_says_how_to_get_https(logged_in_tab, web_daemon):
    with ThreadPoolExecutor(1) as thread:  # the verb runs its own event loop; Playwright's is in this thread
        made = thread.submit(run_voxd, web_daemon.env, "tls", "init").result()
    assert made.exit_code == 0, made.output
    tab = logged_in_tab(new_web_user(web_daemon))
    page = tab.page
    page.context.add_init_script("Object.defineProperty(window, 'isSecureContext', { value: false });")
    page.goto(page_url(web_daemon, "talk"))
    page.reload()  # the script applies to a new document, not to a change of the hash
    page.get_by_role("heading", name="The microphone needs HTTPS").wait_for()
    assert page.get_by_role("button", name="Hold to talk").count() == 0
    for platform in ("iPhone and iPad", "Android", "Windows", "macOS", "Linux"):
        assert page.locator("summary", has_text=platform).count() == 1
    page.locator("summary", has_text="iPhone and iPad").click()
    assert "full trust" in page.locator("#https-needed").inner_text()
    link = page.get_by_role("button", name="Download voxd's certificate")
    assert link.get_attribute("href") == "/ca.crt"
    certificate = httpx.get(page_url(web_daemon) + "ca.crt")
    assert certificate.status_code == 200 and certificate.headers["Content-Type"] == "application/x-x509-ca-cert"
    assert certificate.content.startswith(b"-----BEGIN CERTIFICATE-----")
    screens(page, "talk-https")


def test_the_keyboard_starts_and_stops_talking(logged_in_tab, web_daemon, spoken_command):
    page = logged_in_tab(new_web_user(web_daemon), "talk").page
    page.get_by_role("button", name="Hold to talk").focus()
    page.keyboard.press("Space")  # press to start
    page.get_by_text("Listening.").wait_for()
    page.wait_for_timeout(int(spoken_seconds(spoken_command) * 1000))
    page.keyboard.press("Space")  # and again to send
    page.locator("dd[data-field=command]").wait_for(timeout=120_000)
    assert page.locator("dd[data-field=command]").inner_text() == "get_current_time"


def test_a_service_that_is_down_is_said_on_its_page_and_the_rest_work(logged_in_tab, web_daemon):
    """This daemon runs neither the recipes nor the notifications service."""
    tab = logged_in_tab(new_web_user(web_daemon), "recipes")
    page = tab.page
    page.get_by_text("Recipes could not be loaded").wait_for()
    assert "recipes" in page.get_by_role("alert").inner_text()
    page.goto(page_url(web_daemon, "inbox"))
    page.get_by_role("alert").wait_for()
    assert "notifications" in page.get_by_role("alert").inner_text()
    page.goto(page_url(web_daemon, "lists"))
    page.get_by_text("Nothing on this list.").wait_for()  # the command center still answers
    assert tab.console_csp_violations() == []
