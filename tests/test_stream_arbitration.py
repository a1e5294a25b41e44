"""The arbitration between the nodes of one household that open a turn together (issue 24 §4): the
strongest wake score answers, the loudest speech breaks a tie, a node that leaves takes no part."""

from __future__ import annotations

import asyncio

from voxd.services.command_center.streaming.arbitration import Arbiter, Entrant


def entrant(node: str, score: float, loudness: float = 0.0) -> Entrant:
    return Entrant(node, score, lambda: loudness)


def test_the_strongest_wake_score_answers_and_the_others_stand_down():
    async def contest():
        arbiter = Arbiter(lambda: 0.05)
        first = arbiter.enter("home", entrant("kitchen", 0.6))
        second = arbiter.enter("home", entrant("hall", 0.9))
        elsewhere = arbiter.enter("other home", entrant("attic", 0.1))
        return first.first, second.first, await first.won, await second.won, await elsewhere.won
    assert asyncio.run(contest()) == (True, False, False, True, True)


def test_the_loudest_speech_breaks_a_tie_and_a_leaver_takes_no_part():
    async def contest():
        arbiter = Arbiter(lambda: 0.05)
        quiet = arbiter.enter("home", entrant("kitchen", 0.8, loudness=300))
        loud = arbiter.enter("home", entrant("hall", 0.8, loudness=900))
        gone = arbiter.enter("home", entrant("attic", 0.99))
        arbiter.leave("home", gone)
        return await quiet.won, await loud.won, gone.won.done()
    assert asyncio.run(contest()) == (False, True, False)


def test_a_window_of_zero_serves_every_node():
    async def contest():
        arbiter = Arbiter(lambda: 0)
        return [await arbiter.enter("home", entrant(node, 0.5)).won for node in ("a", "b")]
    assert asyncio.run(contest()) == [True, True]
