"""The language model is opt-in (issue 13 §5): with none configured an utterance no stage claims is
answered at once, as a normal answer (200, understood false), with what voxd can do; a configured
model that does not answer is a 503; a model's answer has a token cap and stops when it repeats
itself; a reply the model takes too long to word is cut. (The embedded model refusing a GGUF with no
chat template is a slow test in test_llm_embedded.py.)"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
import socket
from types import SimpleNamespace
from typing import cast

import httpx

from conftest import node_headers, register_node, say
from pipeline_fakes import FakeModel, FakeStore, chose, make_pipeline, said
from test_pipeline import Lookup, run
from voxd.commands.api import Command, CommandRequest
from voxd.commands.builtin.help import Help
from voxd.commands.registry import built_in_commands
from voxd.commands.wording import summary
from voxd.services.command_center.pipeline.no_model import not_understood_reply
from voxd.services.command_center.pipeline.turn import Stage
from voxd.kit.settings import Settings
from voxd.services.llm.app import Serving, capped, follow
from voxd.services.llm.backends.llamacpp import arguments
from voxd.services.llm.repetition import Repetition
from voxd.services.llm.settings import load_settings
from voxd.wire.openai_chat import ChatRequest, Message


def test_with_no_model_configured_an_unclaimed_utterance_is_a_normal_answer(make_daemon):
    """Not understood is an answer, not an outage (issue 23 §5): 200, routed by none, the short help."""
    daemon = make_daemon(["config", "auth", "llm", "command-center"], VOXD_LLM_BACKEND="")  # nothing configured
    node = register_node(daemon)
    answer = say(daemon, node, "why is the sky blue")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["routed_by"], body["understood"], body["command"], body["result"]) == ("none", False, None, None)
    assert body["text"] == not_understood_reply(built_in_commands())
    assert "what I can do" in body["text"] and "voxd models pull" in body["text"]
    assert "llm backend none" in daemon.output()  # the default, though the packaged GGUF is installed
    assert "completion by" not in daemon.output()  # the proxy was not asked
    understood = say(daemon, node, "what's 3 times 4").json()  # fast paths unchanged
    assert (understood["routed_by"], understood["understood"]) == ("pre_route", True)
    # Issue 23 §4: with no model, help offers nothing that needs one (questions), nor does the list
    helped = say(daemon, node, "what can you do").json()
    offered = [entry["topic"] for entry in helped["result"]["data"]["topics"]]
    assert helped["command"] == "help" and "timers" in offered and "questions" not in offered
    listed = httpx.get(daemon.url("command-center") + "/api/v0/commands", headers=node_headers(node)).json()
    assert listed["spoken_help"] == helped["text"]


def test_help_offers_questions_only_when_a_model_is_configured():
    helper = next(command for command in built_in_commands() if isinstance(command, Help))
    helper.commands = built_in_commands()
    request = cast(CommandRequest, SimpleNamespace())
    offered = {}
    for configured in (True, False):
        async def presence(configured: bool = configured) -> bool:
            return configured
        helper.model_configured = presence
        answer = asyncio.run(helper.execute(request))
        offered[configured] = [entry["topic"] for entry in answer.data["topics"]]
    assert "questions" in offered[True] and "questions" not in offered[False]
    assert set(offered[False]) == set(offered[True]) - {"questions"}


def test_a_configured_model_that_does_not_answer_is_still_a_503(make_daemon):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    daemon = make_daemon(["config", "auth", "llm", "command-center"], VOXD_LLM_BACKEND="openai",
                         VOXD_LLM_URL=f"http://127.0.0.1:{closed}/v1", VOXD_LLM_MODEL="house-model")
    node = register_node(daemon)
    answer = say(daemon, node, "why is the sky blue")
    assert answer.status_code == 503
    body = answer.json()
    assert body["error"]["code"] == "llm_unavailable" and "language model is not available" in body["text"]


class Greeter(Command):
    name = "greet_guests"
    description = "Greet the guests by name when they arrive at the front door of the house. Or sing."
    examples = ("greet the guests at the door",)


class Thinker(Command):
    name = "deep_thought"
    description = "Think deeply."  # no templates or examples: it needs the model, so it is not offered


def test_the_not_understood_reply_is_built_from_the_loaded_commands():
    assert summary(Greeter.description) == "greet the guests by name"
    assert summary("Tell the current time, here or in another city or time zone. Use for 'x'.") == "tell the current time"
    reply = not_understood_reply([Thinker(), *built_in_commands(), Greeter()])
    assert '"greet the guests at the door"' in reply and "deep" not in reply  # a plug-in is offered first
    assert reply.startswith("Sorry, I didn't understand that.") and "voxd models pull" in reply
    assert len(reply.split()) < 45  # short enough to hear


def test_a_repeating_answer_is_seen_as_it_is_generated():
    sentence = "I'm not sure if it's a bug or not. "
    answer = sentence * 5
    pieces = (answer[i:i + 3] for i in range(0, len(answer), 3))  # token-like pieces that split words
    seen, fed = Repetition(), 0
    for piece in pieces:
        fed += len(piece)
        if seen.feed(piece):
            break
    assert seen.repeated and len(sentence) < fed < 2 * len(sentence)  # stopped within the first repeat
    honest = Repetition()
    assert not any(honest.feed(word + " ") for word in (
        "The sky is blue because air scatters blue light more than red light, "
        "and the blue light reaches our eyes from every part of the sky.").split())
    assert not Repetition().feed("Yes. " * 3)  # shorter than a run of words: ordinary


def test_every_answer_has_a_token_cap():
    request = ChatRequest([Message("user", "hi")])
    assert capped(request, 256).max_tokens == 256
    assert capped(dataclasses.replace(request, max_tokens=64), 256).max_tokens == 64
    assert capped(dataclasses.replace(request, max_completion_tokens=4000), 256).token_limit == 256
    assert arguments(dataclasses.replace(request, max_tokens=4000), 128)["max_tokens"] == 128
    assert arguments(request, 128)["max_tokens"] == 128


class SlowModel(FakeModel):
    """Routes at once, then takes `delay` seconds to word the reply."""

    def __init__(self, delay: float, *script) -> None:
        super().__init__(list(script))
        self.delay = delay

    async def chat(self, messages, tools=None):
        if tools is None:
            await asyncio.sleep(self.delay)
        return await super().chat(messages, tools)


def test_a_reply_past_its_budget_is_cut_and_the_command_answers():
    store = FakeStore({"DICTIONARY_KEY": "k"})
    pipeline = make_pipeline(store, SlowModel(30, chose("lookup", {"word": "voxd"}), said("A small test.")),
                             commands=[Lookup()])
    pipeline.reply_budget = 0.05
    turn = run(pipeline, "what is voxd")
    assert turn.tool == "lookup" and turn.reply == "Done." and Stage.MODEL_REPLY in turn.timings
    quick = make_pipeline(store, SlowModel(0, chose("lookup", {"word": "voxd"}), said("A small test.")),
                          commands=[Lookup()])
    assert run(quick, "what is voxd").reply == "A small test."


def test_a_live_change_builds_the_next_backend_and_an_incomplete_one_keeps_the_current():
    """The settings API's changes (app.py `follow`): a new backend from the settings now; settings
    that are not a whole yet (openai without its URL and model) leave the current one answering."""
    values = {"VOXD_LLM_BACKEND": "none"}
    base = Settings(Path("/nowhere"), values, dict.fromkeys(values, "voxd.env")).with_overrides("llm", {})

    async def story() -> None:
        serving = Serving(load_settings(base))
        first = serving.backend
        follow(serving, base.with_overrides("llm", {"VOXD_LLM_TIMEOUT": "5"}))
        assert serving.config.timeout == 5 and serving.backend is not first and serving.retired == [first]
        follow(serving, base.with_overrides("llm", {"VOXD_LLM_BACKEND": "openai"}))
        assert serving.backend.name == "none" and serving.config.timeout == 5  # unchanged
        await serving.close()

    asyncio.run(story())
