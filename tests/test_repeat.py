"""`repeat` ("say that again"): the last reply of the conversation said again, through the real
daemon; a reply that asked something asks it again and its answer still completes the first
command; each node (and each user's own commands) has its own last reply."""

from __future__ import annotations

import httpx

from conftest import COMMAND, node_headers, register_node, say
from voxd.commands.builtin.repeat import NOTHING_SAID
from voxd.services.command_center.pipeline.follow_ups import FollowUps, PendingQuestion
from voxd.services.command_center.pipeline.last_replies import LastReplies
from voxd.services.command_center.pipeline.turn import Turn


def follow_up(daemon, node: dict, words: str) -> dict:
    answer = httpx.post(daemon.url("command-center") + COMMAND, json={"text": words}, headers=node_headers(node),
                        params={"follow_up": "true"}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_last_reply_is_said_again_in_its_own_room_only(daemon):
    kitchen = register_node(daemon)
    lounge = register_node(daemon, household=kitchen["household"], room="lounge")
    assert say(daemon, lounge, "say that again").json()["text"] == NOTHING_SAID
    sum_said = say(daemon, kitchen, "what is 12 times 7").json()["text"]
    assert "84" in sum_said
    again = say(daemon, kitchen, "sorry, what did you say").json()
    assert again["text"] == sum_said and again["command"] == "repeat"
    assert say(daemon, kitchen, "can you repeat that please").json()["text"] == sum_said  # a repeat is no new reply
    assert say(daemon, lounge, "repeat that").json()["text"] == NOTHING_SAID  # the kitchen's reply is not the lounge's


def test_a_question_said_again_is_still_answered(daemon):
    node = register_node(daemon)
    asked = say(daemon, node, "set a timer").json()
    assert asked["result"]["wait_for_input"]
    again = follow_up(daemon, node, "say that again")
    assert again["text"] == asked["text"] and again["result"]["wait_for_input"]
    done = follow_up(daemon, node, "five minutes")
    assert done["command"] == "set_timer" and "5 minutes" in done["text"], done


def test_last_replies_keep_what_was_asked_and_forget_after_a_while():
    now = [0.0]
    replies, follow_ups = LastReplies(kept_seconds=600, clock=lambda: now[0]), FollowUps()
    turn = Turn(text="set a timer", node_id="kitchen", household_id="h")
    turn.tool, turn.reply = "set_timer", "For how long?"
    question = PendingQuestion(command=object(), text="set a timer", arguments={})  # type: ignore[arg-type]
    follow_ups.ask("kitchen", question)
    replies.after(turn, follow_ups)
    assert replies.text("kitchen") == ("For how long?", True)
    follow_ups.take("kitchen")  # the repeat turn takes the open question at its start
    repeat = Turn(text="say that again", node_id="kitchen", household_id="h")
    repeat.tool, repeat.reply = "repeat", "For how long?"
    replies.after(repeat, follow_ups)
    reopened = follow_ups.take("kitchen")
    assert reopened is not None and reopened.text == "set a timer"  # asked again, answerable afresh
    now[0] += 601  # ten minutes on, "that" means nothing
    assert replies.text("kitchen") is None


def test_a_confirmation_said_again_still_waits_for_its_yes():
    """"Do you want me to clear the whole shopping list?" - "say that again": the same question, still
    the confirmation (confirmation.py), so the yes after it runs the command."""
    replies, follow_ups = LastReplies(), FollowUps()
    asked = Turn(text="clear the list", node_id="kitchen", household_id="h")
    asked.tool, asked.reply = "shopping_list", "Do you want me to clear the whole shopping list?"
    follow_ups.ask("kitchen", PendingQuestion(command=object(), text="clear the list",  # type: ignore[arg-type]
                                              arguments={"action": "clear"}, confirming=True))
    replies.after(asked, follow_ups)
    follow_ups.take("kitchen")
    repeat = Turn(text="say that again", node_id="kitchen", household_id="h")
    repeat.tool, repeat.reply = "repeat", asked.reply
    replies.after(repeat, follow_ups)
    reopened = follow_ups.take("kitchen")
    assert reopened is not None and reopened.confirming and reopened.arguments == {"action": "clear"}
