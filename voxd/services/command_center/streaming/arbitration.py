"""One room answers (issue 24 §4): turns that nodes of one household open within the arbitration
window of each other are one command; the node with the strongest wake score answers (the loudest
speech where scores tie) and the others stand down. A node that opens after the window, while the
household's answering turn is young (echo.py's LATE_SECONDS), is marked with that turn's audio: it
stands down if it hears the same speech (echo.py), else it is served."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from voxd.services.command_center.streaming.echo import LATE_SECONDS, Answered

log = logging.getLogger("voxd.command-center.stream")


@dataclass
class Entrant:
    node_id: str
    wake_score: float
    loudness: Callable[[], float]  # read when the window closes: the speech heard by then
    envelope: Callable[[], Sequence[float]] = list  # its audio's contour (a late node compares with it)
    arrivals: Callable[[], Sequence[float]] = list  # when each chunk of that contour came in
    won: asyncio.Future[bool] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    first: bool = False  # it opened the contest: told `listening` at once
    late: Answered | None = None  # it opened while another node's turn was answered: that turn's audio


@dataclass
class Answering:
    """The household's latest winner, and when its turn opened (time.monotonic())."""

    entrant: Entrant
    opened: float


@dataclass
class Contest:
    entrants: list[Entrant] = field(default_factory=list)
    opened: float = field(default_factory=time.monotonic)
    late: Answered | None = None  # opened while another node's turn of the household was young: its audio


def winner(entrants: list[Entrant]) -> Entrant:
    return max(entrants, key=lambda entrant: (entrant.wake_score, entrant.loudness()))


class Arbiter:
    """The open contests, one per household at most; `window` (seconds) is read at each contest."""

    def __init__(self, window: Callable[[], float]) -> None:
        self.window = window
        self._contests: dict[str, Contest] = {}
        self._answering: dict[str, Answering] = {}
        self._closing: set[asyncio.Task[None]] = set()

    def enter(self, household_id: str, entrant: Entrant) -> Entrant:
        """Join the household's open contest, or open one (the opener is `first`); a node opening a
        contest while another node's turn of the household is young is marked `late` with its audio."""
        contest = self._contests.get(household_id)
        if contest is None:
            window = self.window()
            if window <= 0:  # no arbitration: every node is served
                entrant.first = True
                entrant.won.set_result(True)
                return entrant
            contest = self._contests[household_id] = Contest(late=self._hearing(household_id, entrant))
            entrant.first = True
            task = asyncio.get_running_loop().create_task(self._close(household_id, contest, window))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        entrant.late = contest.late  # every node of a late contest is compared (it may be one more microphone)
        contest.entrants.append(entrant)
        return entrant

    def _hearing(self, household_id: str, entrant: Entrant) -> Answered | None:
        answering = self._answering.get(household_id)
        if answering is None or time.monotonic() - answering.opened > LATE_SECONDS:
            self._answering.pop(household_id, None)
            return None
        if answering.entrant.node_id == entrant.node_id:
            return None  # the same node's next turn (a follow-up)
        return Answered(answering.entrant.envelope(), answering.entrant.arrivals())

    def leave(self, household_id: str, entrant: Entrant) -> None:
        """A node that ends its turn (or drops) before the window closes takes no part."""
        contest = self._contests.get(household_id)
        if contest is not None and entrant in contest.entrants:
            contest.entrants.remove(entrant)

    async def _close(self, household_id: str, contest: Contest, window: float) -> None:
        await asyncio.sleep(window)
        del self._contests[household_id]
        if not contest.entrants:
            return
        best = winner(contest.entrants)
        if best.late is None:  # a late node is compared with the turn it may be hearing, not with another late one
            self._answering[household_id] = Answering(best, contest.opened)
        for entrant in contest.entrants:
            if not entrant.won.done():
                entrant.won.set_result(entrant is best)
        if len(contest.entrants) > 1:
            others = ", ".join(f"{e.node_id} ({e.wake_score:.2f})" for e in contest.entrants if e is not best)
            log.info("one command heard by %d nodes: %s answers (wake score %.2f); %s stand down",
                     len(contest.entrants), best.node_id, best.wake_score, others)

    async def stop(self) -> None:
        for task in list(self._closing):
            task.cancel()
        await asyncio.gather(*self._closing, return_exceptions=True)
