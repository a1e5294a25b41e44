"""One streamed turn's timeline (docs/performance.md, issue 24): where the time from the last word
to the first reply audio goes, written once a turn at INFO, so a bench run can be read turn by turn.
Audio times are counted in the turn's samples (the node sends them as they are heard), wall times
with time.monotonic()."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from voxd.services.command_center.streaming.judging import Judgement
from voxd.services.command_center.streaming.pauses import SpeechTracker
from voxd.services.command_center.streaming.protocol import SAMPLE_RATE

log = logging.getLogger("voxd.command-center.stream")


def held_for_ms(held_at: float | None, now: float) -> int:
    """How long before `now` the server cut the audio of the turn's final transcript (0: it is cut now)."""
    return 0 if held_at is None else max(0, round((now - held_at) * 1000))


@dataclass
class Timeline:
    """The marks of one turn, from the end of its speech to its first reply WAV sent."""

    node_id: str
    loud_end: int  # samples: after the last loud chunk (the last word, as a listener hears it)
    speech_end: int  # samples: after Silero's last voiced chunk
    judged: Judgement | None  # the pause whose words are the final transcript (None: transcribed at the end)
    held_for_ms: int  # when end_of_turn was sent
    ended_at: float = field(default_factory=time.monotonic)  # end_of_turn sent
    marks: dict[str, float] = field(default_factory=dict)  # "routed", "synthesised", "sent": monotonic

    @classmethod
    def of(cls, node_id: str, tracker: SpeechTracker, judged: Judgement | None, held_for: int) -> Timeline:
        return cls(node_id, tracker.loud_end, tracker.speech_end, judged, held_for)

    def mark(self, name: str) -> None:
        self.marks.setdefault(name, time.monotonic())

    def after_end(self, name: str) -> str:
        at = self.marks.get(name)
        return "-" if at is None else f"{(at - self.ended_at) * 1000:.0f}"

    def log(self) -> None:
        hold = (self.speech_end - self.loud_end) * 1000 / SAMPLE_RATE
        judged = self.judged
        if judged is None:
            cut = "the words still being heard at the end" if self.held_for_ms else "transcribed at the end"
        else:
            own = judged.heard.timings
            cut = (f"audio cut {(judged.cut_samples - self.speech_end) * 1000 / SAMPLE_RATE:.0f} ms of audio after "
                   f"it; transcription {judged.transcribe_ms:.0f} ms (the stt service's own: decode {own.decode:.0f} "
                   f"+ whisper {own.transcribe:.0f} ms, on {judged.heard.duration_ms} ms of audio), words checked "
                   f"{judged.check_ms:.0f} ms")
        log.info("stream turn timeline of %s: last loud sample -> Silero's end of speech %.0f ms of audio; %s; "
                 "end_of_turn sent %d ms after the cut; after end_of_turn: routed %s ms, first sentence "
                 "synthesised %s ms, its WAV sent %s ms", self.node_id, hold, cut, self.held_for_ms,
                 self.after_end("routed"), self.after_end("synthesised"), self.after_end("sent"))
