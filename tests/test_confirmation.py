"""Asking before anything destructive (issue 23 §3), through `voxd serve` with a scripted model:
clearing a list, cancelling every timer, forgetting a memory and a plug-in's own destructive
command, each chosen by the model, are asked about first; "no" (in its many words) leaves the
stored data exactly as it was, anything else is a new request and changes nothing either, and
only a yes acts. Said word for word in a template, they act at once. (The semantic stage's side is
in test_semantic_serve.py.) The same daemon, with its plug-in, says what voxd can do (issue 23 §4)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from conftest import COMMAND, Daemon, household_member
from daemons import plugin_path, serving_with_model
from pipeline_fakes import FakeModel, chose, make_pipeline, said
from scripted_llm import tool_call
from voxd.language.consent import Consent, consent
from voxd.services.command_center.pipeline.turn import Turn

SHREDDER = '''
from voxd.commands.api import Command, CommandResponse


class ShredNotes(Command):
    name = "shred_notes"
    description = "Shred every note on the household's fridge board. For good."
    destructive = True
    templates = ("shred the fridge notes",)

    async def execute(self, request):
        await request.storage.put("notes", [])
        return CommandResponse("Shredded.")
'''


@pytest.fixture(scope="module")
def confirming(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    plugin = plugin_path(tmp_path_factory.mktemp("plugin"), "shred_notes", SHREDDER, "ShredNotes")
    with serving_with_model(tmp_path_factory, ["config", "auth", "command-center"], PYTHONPATH=plugin) as daemon:
        yield daemon


@pytest.fixture
def person(confirming: Daemon) -> dict:
    """A user of a new household, sending their own commands (the speaker is known: memories)."""
    return household_member(confirming)


def command(daemon: Daemon, person: dict, words: str, follow_up: bool = False) -> dict:
    answer = httpx.post(daemon.url("command-center") + COMMAND, json={"text": words}, headers=person["headers"],
                        params={"follow_up": "true"} if follow_up else None, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def chosen_by_model(daemon: Daemon, person: dict, words: str, tool: str, arguments: dict) -> dict:
    daemon.model.script[:] = [tool_call(tool, arguments)]
    return command(daemon, person, words)


def shopping(daemon: Daemon, person: dict) -> list[dict]:
    answer = httpx.get(daemon.url("command-center") + "/api/v0/lists/shopping/items", headers=person["headers"])
    assert answer.status_code == 200, answer.text
    return answer.json()["items"]


def memories(daemon: Daemon, person: dict) -> list[dict]:
    answer = httpx.get(daemon.url("command-center") + "/api/v0/memories", headers=person["headers"])
    assert answer.status_code == 200, answer.text
    return answer.json()["memories"]


def asks(body: dict, question: str) -> None:
    assert (body["text"], body["routed_by"]) == (question, "llm"), body
    assert body["result"]["wait_for_input"] is True and body["result"]["data"] == {"confirm": True}


def test_clearing_a_list_the_model_chose_is_asked_about_and_only_a_yes_clears_it(confirming, person):
    command(confirming, person, "add milk, eggs and bread to the shopping list")
    before = shopping(confirming, person)
    assert [item["text"] for item in before] == ["milk", "eggs", "bread"]
    question = "Do you want me to clear the whole shopping list?"
    for no in ("no", "No thanks.", "don't", "cancel", "no, keep it", "nope"):
        asks(chosen_by_model(confirming, person, "bin the lot we wrote for the shops", "shopping_list",
                             {"action": "clear"}), question)
        left = command(confirming, person, no, follow_up=True)
        assert (left["text"], left["routed_by"], left["command"]) == ("Okay, I've left it as it was.", "follow_up",
                                                                      "shopping_list"), no
        assert shopping(confirming, person) == before, no  # exactly as stored: ids, times, who added
    asks(chosen_by_model(confirming, person, "bin the lot we wrote for the shops", "shopping_list",
                         {"action": "clear"}), question)
    cleared = command(confirming, person, "yes please", follow_up=True)
    assert (cleared["text"], cleared["routed_by"]) == ("Cleared your shopping list.", "follow_up")
    assert shopping(confirming, person) == []


def test_anything_but_yes_or_no_is_a_new_request_and_the_list_stays(confirming, person):
    command(confirming, person, "add milk to the shopping list")
    asks(chosen_by_model(confirming, person, "bin the lot we wrote for the shops", "shopping_list",
                         {"action": "clear"}), "Do you want me to clear the whole shopping list?")
    other = command(confirming, person, "add bread to the shopping list", follow_up=True)
    assert (other["command"], other["routed_by"], other["arguments"]) == ("shopping_list", "pre_route",
                                                                         {"action": "add", "items": ["bread"]})
    assert [item["text"] for item in shopping(confirming, person)] == ["milk", "bread"]
    late = command(confirming, person, "yes", follow_up=True)  # the question was dropped: nothing to say yes to
    assert late["command"] != "shopping_list"
    assert [item["text"] for item in shopping(confirming, person)] == ["milk", "bread"]
    # Without ?follow_up=true the caller was not answering: the question is dropped too.
    asks(chosen_by_model(confirming, person, "bin the lot", "shopping_list", {"action": "clear"}),
         "Do you want me to clear the whole shopping list?")
    confirming.model.script[:] = []
    assert command(confirming, person, "yes")["command"] != "shopping_list"
    assert [item["text"] for item in shopping(confirming, person)] == ["milk", "bread"]


def test_said_word_for_word_in_a_template_it_acts_at_once(confirming, person):
    command(confirming, person, "add milk to the shopping list")
    cleared = command(confirming, person, "clear the shopping list")
    assert (cleared["routed_by"], cleared["text"]) == ("pre_route", "Cleared your shopping list.")
    assert shopping(confirming, person) == []


def test_cancelling_every_timer_is_asked_about(confirming, person):
    command(confirming, person, "set a pasta timer for 10 minutes")
    command(confirming, person, "set an egg timer for 5 minutes")
    asks(chosen_by_model(confirming, person, "shut down all the countdowns", "cancel_timer", {"label": "all"}),
         "Do you want me to cancel all your timers?")
    assert command(confirming, person, "don't", follow_up=True)["text"] == "Okay, I've left it as it was."
    left = command(confirming, person, "how much time is left")["text"].lower()
    assert "pasta" in left and "egg" in left
    one = chosen_by_model(confirming, person, "stop the egg one", "cancel_timer", {"label": "egg"})
    assert one["text"] == "Cancelled the egg timer."  # one timer is not asked about
    asks(chosen_by_model(confirming, person, "shut down all the countdowns", "cancel_timer", {"label": "all"}),
         "Do you want me to cancel all your timers?")
    assert command(confirming, person, "go ahead", follow_up=True)["text"] == "Cancelled the pasta timer."
    assert "don't have any timers" in command(confirming, person, "how much time is left")["text"]


def test_forgetting_a_memory_is_asked_about(confirming, person):
    command(confirming, person, "remember that my birthday is in may")
    before = memories(confirming, person)
    assert [memory["content"] for memory in before] == ["my birthday is in may"]
    asks(chosen_by_model(confirming, person, "scrub the birthday thing", "forget", {"content_match": "my birthday"}),
         "Do you want me to forget what you told me about your birthday?")
    assert command(confirming, person, "no, wait", follow_up=True)["routed_by"] == "follow_up"
    assert memories(confirming, person) == before
    asks(chosen_by_model(confirming, person, "scrub the birthday thing", "forget", {"content_match": "my birthday"}),
         "Do you want me to forget what you told me about your birthday?")
    assert command(confirming, person, "Okay.", follow_up=True)["text"] == "Okay, I've forgotten that."
    assert memories(confirming, person) == []


def test_a_plug_in_that_declares_itself_destructive_is_asked_about_too(confirming, person):
    asks(chosen_by_model(confirming, person, "get rid of all the fridge notes", "shred_notes", {}),
         "Do you want me to shred every note on the household's fridge board?")
    assert command(confirming, person, "no", follow_up=True)["text"] == "Okay, I've left it as it was."
    assert chosen_by_model(confirming, person, "get rid of all the fridge notes", "shred_notes", {})["command"] == "shred_notes"
    assert command(confirming, person, "sure", follow_up=True)["text"] == "Shredded."
    assert command(confirming, person, "shred the fridge notes")["text"] == "Shredded."  # its template: at once


def test_what_can_you_do_is_said_from_the_loaded_commands_and_listed_for_the_admin_page(confirming, person):
    """Issue 23 §4: the spoken help names one example a topic, the household's plug-in first, and is
    short enough to hear; GET /api/v0/commands gives the same list with each command's examples."""
    said = command(confirming, person, "what can you do")
    assert (said["command"], said["routed_by"]) == ("help", "pre_route")
    assert said["text"].startswith('You can ask me things like "shred the fridge notes", "what\'s the time now"')
    assert "the commands page lists them all" in said["text"] and len(said["text"].split()) < 70
    topics = [entry["topic"] for entry in said["result"]["data"]["topics"]]
    assert topics[:2] == ["shred notes", "the time and date"] and "timers" in topics and "stop" not in topics
    listed = httpx.get(confirming.url("command-center") + "/api/v0/commands", headers=person["headers"]).json()
    assert listed["spoken_help"] == said["text"]
    by_name = {entry["name"]: entry for entry in listed["commands"]}
    assert by_name["shred_notes"]["destructive"] is True and by_name["shred_notes"]["origin"] == "plug-in"
    assert by_name["get_date"]["topic"] == "the time and date" and len(by_name["get_date"]["examples"]) == 3
    assert [name for name, entry in by_name.items() if entry["destructive"]] == [
        "cancel_alarm", "cancel_reminder", "cancel_timer", "remove_event", "shopping_list", "todo_list", "forget", "shred_notes"]


@pytest.mark.parametrize("answer, meant", [
    ("yes", Consent.YES), ("Yes please.", Consent.YES), ("yeah go on then", Consent.YES), ("go ahead", Consent.YES),
    ("sure, do it", Consent.YES), ("okay", Consent.YES), ("no", Consent.NO), ("No thanks.", Consent.NO),
    ("don't", Consent.NO), ("cancel", Consent.NO), ("no, keep it", Consent.NO), ("yes, no wait", Consent.NO),
    ("add milk to the list", Consent.UNCLEAR), ("yes add milk to the shopping list", Consent.UNCLEAR),
    ("what", Consent.UNCLEAR), ("", Consent.UNCLEAR)])
def test_yes_and_no_are_understood_broadly_and_only_a_plain_yes_consents(answer, meant):
    assert consent(answer) is meant


def test_a_yes_after_the_answer_window_changes_nothing():
    """The question waits one answer window (60 s); a yes after it is a new utterance (a unit test:
    the window is shortened instead of waited for)."""
    model = FakeModel([chose("shopping_list", {"action": "clear"}), said("Yes to what?")])
    pipeline = make_pipeline(model=model)

    def turn(words: str, follow_up: bool = False) -> Turn:
        return asyncio.run(pipeline.run(Turn("kitchen", "home", text=words, follow_up=follow_up)))

    turn("add milk to the shopping list")
    asked = turn("bin the lot we wrote for the shops")
    assert asked.reply == "Do you want me to clear the whole shopping list?" and asked.confirming
    pipeline.follow_ups.window = 0.0  # the window has passed
    late = turn("yes", follow_up=True)
    assert (late.command, late.reply) == (None, "Yes to what?")  # a new utterance, for the model
    assert "milk" in turn("what's on the shopping list").reply
