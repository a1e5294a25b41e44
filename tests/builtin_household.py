"""One household talking to the built-in commands through the real pipeline, with no daemon and no
network (tests/pipeline_fakes.py's in-memory store, a scripted model): shared by the tests of the
built-in commands."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from pipeline_fakes import LONDON, FakeModel, FakeStore, chose, make_pipeline
from voxd.commands.api import CommandResponse, RouteContext
from voxd.commands.registry import built_in_commands
from voxd.services.command_center.pipeline.pipeline import Pipeline, claims as pipeline_claims
from voxd.services.command_center.storage.store import DocumentStorage
from voxd.services.command_center.pipeline.turn import RoutedBy, Turn

NOW = datetime(2026, 3, 7, 15, 5, tzinfo=LONDON)  # a Saturday afternoon, GMT
COMMANDS = built_in_commands()
BY_NAME = {command.name: command for command in COMMANDS}
HOME, NODE = "home", "kitchen"
FOR_THE_MODEL = "do what the model chose"  # no template claims it, so the scripted model routes


async def no_model(question: str) -> str | None:
    return None


def context(now: datetime = NOW) -> RouteContext:
    return RouteContext(now=now, timezone=LONDON)


def claims(text: str, now: datetime = NOW) -> list[tuple[str, dict[str, Any]]]:
    """Every command that would claim `text`, in registry order, as the pre_route stage sees them."""
    return [(command.name, claim.arguments) for command, claim in pipeline_claims(COMMANDS, text, context(now))]


class Household:
    """One household talking to voxd over time, through one pipeline: shared storage, a clock that
    can move on. `storage` is the timers' documents."""

    def __init__(self, secrets: dict[str, str] | None = None, http: Any = None, ask_model=no_model) -> None:
        self.store = FakeStore(secrets)
        self.storage = DocumentStorage(self.store, HOME, "timers")
        self.now = NOW
        self.model = FakeModel(ask=ask_model)
        self.pipeline: Pipeline = make_pipeline(self.store, self.model, commands=COMMANDS, http=http,
                                                clock=lambda zone: self.now.astimezone(zone))

    def turn(self, text: str) -> Turn:
        return asyncio.run(self.pipeline.run(Turn(NODE, HOME, text=text)))

    def say(self, text: str) -> str:
        turn = self.turn(text)
        assert turn.routed_by is RoutedBy.PRE_ROUTE, f"nothing claimed {text!r}"
        return turn.reply

    def execute(self, name: str, raw: dict[str, Any]) -> CommandResponse:
        """The model chooses `name` with `raw` arguments; the pipeline validates and executes."""
        self.model.script.append(chose(name, raw))
        turn = self.turn(FOR_THE_MODEL)
        assert turn.routed_by is RoutedBy.MODEL and turn.tool == name and turn.response is not None
        return turn.response

    def wait(self, **elapsed: float) -> None:
        self.now += timedelta(**elapsed)


def execute(name: str, raw: dict[str, Any], now: datetime = NOW, secrets: dict[str, str] | None = None,
            ask_model=no_model, http: Any = None) -> CommandResponse:
    home = Household(secrets, http, ask_model)
    home.now = now
    return home.execute(name, raw)
