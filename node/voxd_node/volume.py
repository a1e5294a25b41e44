"""The node's volume (issue 25): a level from 0 to 10 for everything it plays, a mute on top that
may end by itself, and a floor under the timer and alarm bells so they are never silent.

The command center sends it as a `volume` announcement ({"level", "muted", "muted_until"}, absolute
values, so a message delivered twice changes nothing); `VolumeAnnouncements` takes those before the
agent sees any announcement and keeps the setting in the node's state file (JSON, 0600), so it
survives a restart, and a timed mute ends when its time comes whether the node was running or not.
Each level is 3 dB below the next (10 is full scale, as before volumes existed; 0 is silence).

The bells: while a timer or alarm announcement plays (its alarm chime and its words), the level is
at least `bell_floor` (5 by default, 15 dB below full), muted or not. The agent plays announcements
in the listener's task, so a context variable set around that call marks them; the sink reads it."""

from __future__ import annotations

import contextvars
import json
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from .announcements import Announcement

log = logging.getLogger(__name__)

LOUDEST = 10
STEP_DB = 3.0
BELL_FLOOR = 5
BELLS = ("timer", "alarm")  # the kinds that keep the floor
VOLUME_KIND = "volume"
RINGING: contextvars.ContextVar[bool] = contextvars.ContextVar("voxd_node_bell_ringing", default=False)


class BadVolume(ValueError):
    pass


@dataclass(frozen=True)
class VolumeSetting:
    level: int = LOUDEST
    muted: bool = False
    muted_until: datetime | None = None  # aware; None with muted: until unmuted

    @classmethod
    def parse(cls, data: object) -> VolumeSetting:
        """From a volume announcement or the state file; BadVolume for anything else."""
        if not isinstance(data, dict):
            raise BadVolume("a volume must be an object")
        level, muted, until = data.get("level"), data.get("muted", False), data.get("muted_until")
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= LOUDEST:
            raise BadVolume(f"level must be a whole number from 0 to {LOUDEST}, not {level!r}")
        if not isinstance(muted, bool):
            raise BadVolume(f"muted must be true or false, not {muted!r}")
        try:
            ends = datetime.fromisoformat(until) if until is not None else None
        except (TypeError, ValueError):
            raise BadVolume(f"muted_until must be an ISO time, not {until!r}") from None
        if ends is not None and ends.tzinfo is None:
            raise BadVolume("muted_until needs its offset")
        return cls(level, muted, ends)

    def as_data(self) -> dict[str, object]:
        return {**asdict(self), "muted_until": self.muted_until.isoformat() if self.muted_until else None}


def gain_of(level: int) -> float:
    """Level 10 is 1.0, each step down 3 dB, 0 silent."""
    return 0.0 if level <= 0 else 10 ** (-(LOUDEST - min(level, LOUDEST)) * STEP_DB / 20)


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class NodeVolume:
    """The volume now; `path` None keeps it in memory only (a node built without a config file)."""

    def __init__(self, path: Path | None, bell_floor: int = BELL_FLOOR, clock: Callable[[], datetime] = utc_now) -> None:
        self.path = path
        self.bell_floor = bell_floor
        self.clock = clock
        self.setting = self._load()

    def _load(self) -> VolumeSetting:
        if self.path is None or not self.path.exists():
            return VolumeSetting()
        try:
            setting = VolumeSetting.parse(json.loads(self.path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as error:
            log.warning("ignoring the volume in %s (%s); full volume", self.path, error)
            return VolumeSetting()
        log.info("volume %s", self.describe(setting))
        return setting

    def set(self, setting: VolumeSetting) -> None:
        self.setting = setting
        log.info("volume set: %s", self.describe(setting))
        if self.path is not None:
            self._save()

    def _save(self) -> None:
        """Written whole then renamed, 0600: a crash leaves the old setting or the new one."""
        partial = self.path.with_name(self.path.name + ".partial")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(self.setting.as_data(), file)
        os.replace(partial, self.path)

    def level(self) -> int:
        """The level now: 0 while muted (until the mute's end), at least the floor for a bell."""
        setting = self.setting
        muted = setting.muted and (setting.muted_until is None or self.clock() < setting.muted_until)
        level = 0 if muted else setting.level
        return max(level, self.bell_floor) if RINGING.get() else level

    def gain(self) -> float:
        return gain_of(self.level())

    @staticmethod
    def describe(setting: VolumeSetting) -> str:
        if not setting.muted:
            return str(setting.level)
        until = f" until {setting.muted_until.isoformat()}" if setting.muted_until else ""
        return f"{setting.level}, muted{until}"


class VolumeAnnouncements:
    """Between the MQTT listener and the agent: takes volume announcements, marks the bells."""

    def __init__(self, volume: NodeVolume, announce: Callable[[Announcement], Awaitable[None]]) -> None:
        self.volume = volume
        self.announce = announce

    async def __call__(self, announcement: Announcement) -> None:
        if announcement.kind == VOLUME_KIND:
            try:
                self.volume.set(VolumeSetting.parse(announcement.volume))
            except BadVolume as error:
                log.warning("skipping a bad volume announcement %s: %s", announcement.id, error)
            return
        ringing = RINGING.set(announcement.kind in BELLS)
        try:
            await self.announce(announcement)
        finally:
            RINGING.reset(ringing)
