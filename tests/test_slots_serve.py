"""Arguments read right through a real `voxd serve` (issue 13 §2): a city that a greedy template slot
took with a time phrase gives the time back, a city no time zone is named after is found in the
places table, a shared sum is claimed by its template; and with the semantic stage, a topic after
"about" past the template's own words ("any good jokes"), a timer named after "left for", and a
conversion that names one unit asking for the other, the answer completing it."""

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
    with serving(tmp_path_factory, ["config", "auth", "command-center"], startup_timeout=180.0,
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
