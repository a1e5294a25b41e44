"""The language model is opt-in (issue 13 §5): with none configured an utterance no stage claims is
answered at once with what voxd can do; a model's answer has a token cap and stops when it repeats
itself; a reply the model takes too long to word is cut. (The embedded model refusing a GGUF with no
chat template is a slow test in test_llm_proxy.py.)"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from conftest import register_node, say
from pipeline_fakes import FakeModel, FakeStore, chose, make_pipeline, said
from test_pipeline import Lookup, run
from voxd.commands.api import Command
from voxd.commands.registry import built_in_commands
from voxd.services.command_center.pipeline.no_model import help_reply, summary
from voxd.services.command_center.pipeline.turn import Stage
from voxd.kit.settings import Settings
from voxd.services.llm.app import Serving, capped, follow
from voxd.services.llm.backends.llamacpp import arguments
from voxd.services.llm.repetition import Repetition
from voxd.services.llm.settings import load_settings
from voxd.wire.openai_chat import ChatRequest, Message


def test_with_no_model_configured_an_unclaimed_utterance_gets_what_voxd_can_do(make_daemon):
    daemon = make_daemon(["config", "auth", "llm", "command-center"], VOXD_LLM_BACKEND="")  # nothing configured
    node = register_node(daemon)
    answer = say(daemon, node, "why is the sky blue")
    assert answer.status_code == 503  # as before: nodes say the `text` of an llm_unavailable answer
    body = answer.json()
    assert body["error"]["code"] == "llm_unavailable"
    assert body["text"] == help_reply(built_in_commands())
    assert "tell the current time" in body["text"] and "voxd models pull" in body["text"]
    assert "llm backend none" in daemon.output()  # the default, though the packaged GGUF is installed
    assert "completion by" not in daemon.output()  # the proxy was not asked
    assert say(daemon, node, "what's 3 times 4").json()["routed_by"] == "pre_route"  # fast paths unchanged


class Greeter(Command):
    name = "greet_guests"
    description = "Greet the guests by name when they arrive at the front door of the house. Or sing."
    templates = ("greet {who}",)


class Thinker(Command):
    name = "deep_thought"
    description = "Think deeply."  # no templates: it needs the model, so it is not offered


def test_the_help_reply_is_built_from_the_loaded_commands():
    assert summary(Greeter.description) == "greet the guests by name"
    assert summary("Tell the current time, here or in another city or time zone. Use for 'x'.") == "tell the current time"
    reply = help_reply([Thinker(), Greeter(), *built_in_commands()])
    assert "greet the guests by name" in reply and "think deeply" not in reply
    assert reply.startswith("I didn't understand that") and "voxd models pull" in reply


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
