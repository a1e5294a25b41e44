"""The command center's routing settings that apply live (docs/architecture.md, Settings): the fast
path (the templates stage) on or off, the semantic stage on or off, and the semantic thresholds.
A stored change retunes the pipeline for the next utterance; the semantic stage is built (in the
background, kit/engines.py) the first time it is on, at start-up or when it is switched on."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from aiohttp import web

from voxd.kit.appkeys import LIVE
from voxd.kit.engines import ENGINES
from voxd.kit.settings import Settings
from voxd.services.command_center.pipeline.pipeline import Pipeline
from voxd.services.command_center.settings import (
    FAST_PATH, SEMANTIC, SEMANTIC_BROAD_THRESHOLD, SEMANTIC_MARGIN, SEMANTIC_THRESHOLD,
)

if TYPE_CHECKING:  # the semantic module needs numpy, which only the voice extra brings
    from voxd.services.command_center.pipeline.semantic import SemanticRouter

log = logging.getLogger("voxd.command_center")

SEMANTIC_ENGINE = "semantic stage"


def tune(router: SemanticRouter, settings: Settings) -> None:
    router.threshold = settings.value(SEMANTIC_THRESHOLD)
    router.margin = settings.value(SEMANTIC_MARGIN)
    router.broad_threshold = settings.value(SEMANTIC_BROAD_THRESHOLD)


def follow_routing_settings(app: web.Application, pipeline: Pipeline,
                            build: Callable[[Settings], SemanticRouter | None]) -> None:
    """Apply the routing settings now and after every stored change; `build` makes the semantic
    router (a thread's work: it loads the sentence model)."""
    live, engines = app[LIVE], app[ENGINES]

    async def load() -> bool:
        loaded = await pipeline.load_semantic(lambda: build(live.in_use))
        apply(live.in_use)  # a change stored while it was built
        return loaded

    def apply(settings: Settings) -> None:
        pipeline.fast_path, pipeline.semantic_on = settings.value(FAST_PATH), settings.value(SEMANTIC)
        if pipeline.semantic is not None:
            tune(pipeline.semantic, settings)
        if pipeline.semantic_on and SEMANTIC_ENGINE not in engines.states:
            engines.start(SEMANTIC_ENGINE, load)  # the service answers meanwhile

    apply(live.in_use)
    if not pipeline.semantic_on:
        log.info("semantic stage off (VOXD_SEMANTIC=false)")
    live.on_change(apply)
