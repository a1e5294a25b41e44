"""A perfect language model for bench/routing.py (`--backend scripted`): an OpenAI-compatible server
(tests/scripted_llm.py) that answers each routing request from the corpus labels. For an utterance
labelled with a command it calls that command with the labelled arguments (a case that lists
`missing` leaves those out, so the command asks); for a must-not-claim utterance it answers in
words; any other request (wording a command's reply) gets a short sentence.

It shows what the pipeline does with a model behind it: how many utterances each stage takes before
the model sees them, and which of those a stage took wrongly that the model would have got right.
The utterance the model is sent may differ from the corpus text (fillers dropped, slips repaired), so
it is looked up by its words, then by the nearest corpus text.
"""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from scripted_llm import ScriptedModel, text, tool_call  # noqa: E402


def key(words: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", words.lower().replace("'", "")))


class PerfectModel:
    def __init__(self, cases: list[dict]) -> None:
        self.by_text = {key(case["text"]): case for case in cases}
        self.routed = 0  # routing requests answered
        self.server = ScriptedModel(respond=self.respond)
        self.url = self.server.url

    def case_for(self, utterance: str) -> dict | None:
        found = self.by_text.get(key(utterance))
        if found is None:
            near = difflib.get_close_matches(key(utterance), list(self.by_text), n=1, cutoff=0.6)
            found = self.by_text[near[0]] if near else None
        return found

    def respond(self, body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("tools"):
            return text("Done.")
        self.routed += 1
        said = next((m.get("content") or "" for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
        case = self.case_for(said)
        if case is None or case["command"] is None:
            return text("I can't help with that, but I can answer questions and run your commands.")
        missing = set(case.get("missing") or [])
        return tool_call(case["command"], {k: v for k, v in (case.get("arguments") or {}).items() if k not in missing})

    def close(self) -> None:
        self.server.close()
