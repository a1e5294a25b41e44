"""The household's vocabulary sent to speech-to-text as the prompt (command_center/pipeline/vocabulary.py):
built from the commands' templates (or examples), the household's list items and speakers' names,
within the stt service's limit, and cached per household."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from voxd.commands.registry import built_in_commands
from voxd.services.command_center.pipeline.vocabulary import (
    CACHE_SECONDS, MAX_PROMPT_CHARS, Vocabulary, build_prompt, command_sentences, example_sentence,
)
from voxd.services.stt.app import MAX_PROMPT_CHARS as STT_LIMIT


@pytest.mark.parametrize(("pattern", "sentence"), [
    ("[please] [can you] {action:choice(add=add|put)} {items} (to|on|onto) [my|the|our] (shopping|grocery) list",
     "add milk to the shopping list"),
    ("what is (on|in) [my|the|our] (shopping|grocery|groceries) list", "what is on the shopping list"),
    ("[please] [set|start] [me] [a|an] timer for {duration_seconds:duration} [please]",
     "set me a timer for five minutes"),
    ("[please] convert [a|an|one] [{value:number}] {from_unit} (to|into|in) {to_unit} [please]",
     "convert five miles to kilometers"),
    ("how (much time|long) is left [on [the|my] (timer|timers)]", "how much time is left"),
    ("[please|okay] (stop|stop it|cancel) [please|thanks]", "stop"),
    ("[what is|how much is] {num1:number} {operation:choice(add=plus, subtract=minus)} {num2:number}",
     "what is five plus five"),
])
def test_an_example_sentence_is_written_from_a_template(pattern, sentence):
    assert example_sentence(pattern) == sentence


def test_every_builtin_command_with_templates_says_something():
    commands = built_in_commands()
    sentences = command_sentences(commands)
    assert len(sentences) == sum(1 for command in commands if command.templates or command.examples)
    assert "add milk to the shopping list" in sentences and "set me a timer for five minutes" in sentences
    assert all("{" not in s and "[" not in s and "(" not in s for s in sentences)


def test_a_command_without_templates_is_said_by_its_examples():
    class Templated:
        templates = ("(add|put) {items} to the list",)
        examples = ("put the kettle on the list",)

    class ExamplesOnly:
        templates = ()
        examples = ("ring the doorbell",)

    class Unsaid:
        templates = ()

    assert command_sentences([Templated(), ExamplesOnly(), Unsaid()]) == [
        "add milk to the list", "ring the doorbell"]


def test_the_prompt_holds_sentences_items_and_names_in_the_limit():
    prompt = build_prompt(["add milk to the shopping list", "what time is it"], ["oat milk", "eggs", "eggs"],
                          ["Kim", "Ana"])
    assert prompt == "Add milk to the shopping list. What time is it. On the list: oat milk, eggs. Kim, Ana."
    long = build_prompt([f"sentence number {n}" for n in range(200)], ["milk"], ["Kim"], limit=120)
    assert len(long) <= 120 and long.endswith("On the list: milk. Kim.") and "Sentence number 199." in long
    assert build_prompt([], [], []) == ""
    assert MAX_PROMPT_CHARS <= STT_LIMIT


class Documents:
    def __init__(self) -> None:
        self.lists: dict[tuple[str, str], Any] = {}
        self.reads = 0

    async def get(self, household_id: str, command: str, key: str) -> Any:
        self.reads += 1
        assert command == key
        return self.lists.get((household_id, command))


def test_the_prompt_is_built_per_household_and_cached():
    now = [0.0]
    documents = Documents()
    documents.lists["home", "shopping_list"] = [{"item": "oat milk"}, {"item": "rye bread"}]
    documents.lists["home", "todo_list"] = [{"item": "call the plumber"}, "not an entry"]
    documents.lists["home", "set_timer"] = [{"item": "not a list command"}]
    vocabulary = Vocabulary(built_in_commands(), documents.get, clock=lambda: now[0])
    vocabulary.heard_speaker("home", "Kim")

    async def scenario() -> None:
        home = await vocabulary.prompt("home")
        assert "Add milk to the shopping list." in home
        assert home.endswith("On the list: oat milk, rye bread, call the plumber. Kim.")
        assert "not a list command" not in home
        away = await vocabulary.prompt("away")
        assert "On the list" not in away and "Kim" not in away
        reads = documents.reads
        documents.lists["home", "shopping_list"].append({"item": "capers"})
        assert await vocabulary.prompt("home") == home and documents.reads == reads  # cached
        vocabulary.heard_speaker("home", "Ana")  # a new name is in the very next prompt
        assert "capers" in (renewed := await vocabulary.prompt("home")) and renewed.endswith(". Kim, Ana.")
        now[0] += CACHE_SECONDS + 1
        documents.lists["home", "shopping_list"] = []
        assert (await vocabulary.prompt("home")).endswith("On the list: call the plumber. Kim, Ana.")

    asyncio.run(scenario())
