"""Arguments read right through a real `voxd serve` (issue 13 §2): a city that a greedy template slot
took with a time phrase gives the time back, a city no time zone is named after is found in the
places table, a shared sum is claimed by its template; and with the semantic stage, a topic after
"about" past the template's own words ("any good jokes"), a timer named after "left for", and a
conversion that names one unit asking for the other, the answer completing it; a timer's name that
ends at its clause or passes over a word of size, and a place said after "weather" without "in"."""

from __future__ import annotations

from collections.abc import Iterator
import httpx
import pytest

from conftest import COMMAND, Daemon, node_headers, register_node, say
from daemons import serving


def test_template_arguments_through_serve(daemon):
    node = register_node(daemon)
    weather = say(daemon, node, "how is the weather for tomorrow afternoon in San Antonio").json()
    assert (weather["command"], weather["routed_by"]) == ("get_weather", "pre_route")
    assert weather["arguments"] == {"city": "san antonio", "resolved_datetimes": ["tomorrow afternoon"]}

    clock = say(daemon, node, "what time is it in Guadalajara right now").json()
    assert (clock["command"], clock["arguments"]) == ("get_current_time", {"location": "guadalajara"})
    assert clock["text"].endswith(" in Guadalajara.") and clock["result"]["data"]["timezone"] == "America/Mexico_City"

    shared = say(daemon, node, "sixty quid split between three of us").json()
    assert (shared["command"], shared["text"]) == ("calculate", "60 divided by 3 is 20.")


@pytest.fixture(scope="module")
def semantic_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """The stage on, at tests/test_semantic_serve.py's threshold, so these paraphrases stay routed
    as the examples change."""
    with serving(tmp_path_factory, ["config", "auth", "command-center"], startup_timeout=300.0, warm=True,
                 VOXD_SEMANTIC="true", VOXD_SEMANTIC_THRESHOLD="0.5") as daemon:
        yield daemon


@pytest.mark.slow
def test_semantic_arguments_through_serve(semantic_daemon):
    node = register_node(semantic_daemon)
    joke = say(semantic_daemon, node, "you know any good jokes about cowboys").json()
    assert (joke["command"], joke["routed_by"]) == ("tell_joke", "semantic")
    assert joke["arguments"] == {"topic": "cowboys"}

    converting = say(semantic_daemon, node, "can you convert 500 grams for me").json()
    assert (converting["command"], converting["routed_by"]) == ("convert_measurement", "semantic")
    assert converting["arguments"] == {"value": 500, "from_unit": "grams"}
    assert converting["result"]["wait_for_input"] and "convert to" in converting["text"]
    answered = httpx.post(semantic_daemon.url("command-center") + COMMAND, params={"follow_up": "true"},
                          json={"text": "Into ounces."}, headers=node_headers(node), timeout=30).json()
    assert answered["routed_by"] == "follow_up"
    assert answered["text"] == "500 grams is 17.64 ounces."

    porridge = say(semantic_daemon, node, "wee timer for 90 seconds for the porridge").json()
    assert (porridge["command"], porridge["routed_by"]) == ("set_timer", "semantic")
    assert porridge["arguments"] == {"duration_seconds": 90, "label": "porridge"}  # "wee" names no timer
    hamburg = say(semantic_daemon, node, "weather hamburg sunday").json()
    assert (hamburg["command"], hamburg["routed_by"]) == ("get_weather", "semantic")
    assert hamburg["arguments"]["city"] == "hamburg"  # a place the table knows, without "in"


def follow_up(daemon: Daemon, node: dict, words: str) -> dict:
    return httpx.post(daemon.url("command-center") + COMMAND, params={"follow_up": "true"}, json={"text": words},
                      headers=node_headers(node), timeout=30).json()


def test_names_end_at_their_clause_and_a_missing_length_or_amount_is_asked(daemon):
    """dev4's timer names and sums through the templates: a timer put on for a name asks its length
    and keeps the name; a name said before a clause of its own ("it is no longer needed") is cut
    there; "take X off Y" takes X from Y; a conversion with no amount asks for it."""
    node = register_node(daemon)
    asked = say(daemon, node, "Put a timer on for the Welsh cakes.").json()
    assert (asked["command"], asked["arguments"]) == ("set_timer", {"label": "welsh cakes"})
    assert asked["result"]["wait_for_input"]
    answered = follow_up(daemon, node, "twenty minutes")
    assert (answered["command"], answered["text"]) == ("set_timer", "Welsh cakes timer set for 20 minutes.")

    left = say(daemon, node, "how many minutes more for the welsh cakes").json()
    assert (left["command"], left["arguments"]) == ("check_timers", {"label": "welsh cakes"})
    assert left["text"].startswith("The welsh cakes timer has ")

    cancelled = say(daemon, node, "Please delete the timer for the welsh cakes, it is no longer needed.").json()
    assert (cancelled["command"], cancelled["text"]) == ("cancel_timer", "Cancelled the welsh cakes timer.")

    assert say(daemon, node, "take 38 off 150").json()["text"] == "150 minus 38 is 112."

    converting = say(daemon, node, "convert cups to mils").json()
    assert (converting["arguments"]["to_unit"], converting["arguments"].get("value")) == ("milliliters", None)
    assert converting["result"]["wait_for_input"]
    assert follow_up(daemon, node, "two")["text"] == "2 cups is 473.2 milliliters."
