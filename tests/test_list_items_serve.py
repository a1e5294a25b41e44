"""The shopping and to-do lists' items through `voxd serve` (issue 13 §2-3): names with "and" in them
stored as one item, placeholders and an empty add asked for and the answer split with the same table,
tasks said done ticked off, slips of the lists' names, a reason after the list no item."""

from __future__ import annotations

import httpx

from conftest import COMMAND, node_headers, register_node, say


def test_and_names_and_a_placeholder_question_through_serve(daemon):
    """A name with "and" stays one item on the stored list; a placeholder task is asked for and the
    follow-up answer is split with the same table; a task said done is ticked off; "remember
    something" asks for the fact."""
    node = register_node(daemon)
    added = say(daemon, node, "put salt and vinegar crisps and a courgette on the shopping list").json()
    assert (added["routed_by"], added["arguments"]) == (
        "pre_route", {"action": "add", "items": ["salt and vinegar crisps", "courgette"]})
    assert added["text"] == "Added salt and vinegar crisps and courgette to your shopping list."
    asked = say(daemon, node, "add a task to the to do list").json()
    assert (asked["command"], asked["arguments"], asked["text"]) == ("todo_list", {"action": "add"}, "What should I add?")
    answered = httpx.post(daemon.url("command-center") + COMMAND + "?follow_up=true", headers=node_headers(node),
                          json={"text": "Cook mac and cheese and fix the fence."}, timeout=30).json()
    assert (answered["routed_by"], answered["arguments"]["items"]) == (
        "follow_up", ["Cook mac and cheese", "fix the fence"])
    read = say(daemon, node, "what's on the to do list").json()
    assert read["result"]["data"]["items"] == ["Cook mac and cheese", "fix the fence"]
    done = say(daemon, node, "I've fixed the fence, tick it off the to do list").json()
    assert (done["arguments"], done["text"]) == ({"action": "remove", "items": ["fix the fence"]},
                                                 "Removed fix the fence from your to-do list.")
    remember = say(daemon, node, "remember something for me").json()
    assert remember["command"] == "remember" and "content" not in remember["arguments"]
    assert remember["result"]["wait_for_input"]


def test_scots_lists_thrown_items_and_an_empty_add_through_serve(daemon):
    """Things put "on the messages" and thrown on the list are stored as said (a brand with "and"
    one item); "add to the shopping list" with nothing named asks, and the answer is split with the
    same table; politeness before a to-do list's verb keeps its tasks one request; "can you remember
    something for me" asks for the fact."""
    node = register_node(daemon)
    scots = say(daemon, node, "add tattie scones and square sausage to the messages").json()
    assert (scots["routed_by"], scots["command"], scots["arguments"]) == (
        "pre_route", "shopping_list", {"action": "add", "items": ["tattie scones", "square sausage"]})
    thrown = say(daemon, node, "throw some half and half and a dozen eggs on the list").json()
    assert thrown["arguments"] == {"action": "add", "items": ["half and half", "dozen eggs"]}
    asked = say(daemon, node, "Add to the shopping list please.").json()
    assert (asked["command"], asked["arguments"], asked["text"]) == (
        "shopping_list", {"action": "add"}, "What should I add?")
    answered = httpx.post(daemon.url("command-center") + COMMAND + "?follow_up=true", headers=node_headers(node),
                          json={"text": "Lea and Perrins and a tin of baked beans"}, timeout=30).json()
    assert answered["result"]["data"]["added"] == ["Lea and Perrins", "tin of baked beans"]
    assert answered["result"]["data"]["items"] == ["tattie scones", "square sausage", "half and half", "dozen eggs",
                                                   "Lea and Perrins", "tin of baked beans"]
    tasks = say(daemon, node, "Could you add water the plants and take out the recycling to the to-do list, please?").json()
    assert (tasks["routed_by"], tasks["command"], tasks["result"]["data"]["added"]) == (
        "pre_route", "todo_list", ["water the plants", "take out the recycling"])
    remember = say(daemon, node, "can you remember something for me").json()
    assert (remember["command"], remember["arguments"]) == ("remember", {})
    assert remember["result"]["wait_for_input"]


def test_a_request_a_reason_and_slips_of_the_list_names_through_serve(daemon):
    """"can you" after the items is no item; a reason after the list is none either; "the chopping
    list" is the shopping list and "the to do lift" the to-do list; getting rid of everything clears."""
    node = register_node(daemon)
    eggs = say(daemon, node, "we're out of eggs can you put them on the shopping list").json()
    assert (eggs["command"], eggs["result"]["data"]["added"]) == ("shopping_list", ["eggs"])
    say(daemon, node, "add dog food to the shopping list")
    removed = say(daemon, node, "remove dog food from the shopping list we've got loads in the garage").json()
    assert (removed["routed_by"], removed["arguments"]) == ("pre_route", {"action": "remove", "items": ["dog food"]})
    read = say(daemon, node, "read me the chopping list").json()
    assert (read["command"], read["result"]["data"]["items"]) == ("shopping_list", ["eggs"])
    task = say(daemon, node, "add water the plants to the to do lift").json()
    assert (task["command"], task["result"]["data"]["added"]) == ("todo_list", ["water the plants"])
    terse = say(daemon, node, "todo add renew car insurance").json()
    assert (terse["command"], terse["result"]["data"]["added"]) == ("todo_list", ["renew car insurance"])
    cleared = say(daemon, node, "get rid of everything on the to do list we're starting fresh").json()
    assert (cleared["command"], cleared["arguments"], cleared["text"]) == (
        "todo_list", {"action": "clear"}, "Cleared your to-do list.")
