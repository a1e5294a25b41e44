"""What voxd says to an utterance no stage understood when no language model is configured.

The model is opt-in (docs/llm.md): without one, an utterance no fast stage claims is a normal
outcome, answered at once (200, `understood: false`) with a short spoken help built from the
loaded commands (voxd.commands.overview: a few examples, the household's plug-ins first) and how
to add a model, instead of a slow wrong answer or an error.
"""

from __future__ import annotations

from voxd.commands.api import ADD_A_MODEL, Command
from voxd.commands.overview import quoted_list, topics

OFFERED = 3  # examples: the reply is spoken, and "what can you do" says more


def not_understood_reply(commands: list[Command]) -> str:
    examples = [example for _, example in topics(commands)[:OFFERED]]
    offer = f" You can ask me things like {quoted_list(examples)}, or ask what I can do." if examples else ""
    return "Sorry, I didn't understand that." + offer + " " + ADD_A_MODEL
