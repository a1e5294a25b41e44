"""What voxd says to an utterance it cannot answer because no language model is configured.

The model is opt-in (docs/llm.md): without one, an utterance no fast stage claims is a normal
outcome, answered at once (200, `understood: false`) with a short spoken help built from the
loaded commands (voxd.commands.overview: a few examples, the household's plug-ins first) and how
to add a model, instead of a slow wrong answer or an error. So is an utterance a stage routed to a
command that can only answer through the model (`Command.needs_model`: answer_question): voxd
cannot do what was asked, so no command claims it; the reply is the command's own sentence (for a
question: questions need a model, and how to add one) and the answer's `needs_model` names the
command, for logs and monitoring.
"""

from __future__ import annotations

import logging

from voxd.commands.api import ADD_A_MODEL, Command
from voxd.commands.overview import quoted_list, topics
from voxd.services.command_center.pipeline.turn import RoutedBy, Turn

log = logging.getLogger("voxd.command-center.pipeline")

OFFERED = 3  # examples: the reply is spoken, and "what can you do" says more


def not_understood_reply(commands: list[Command]) -> str:
    examples = [example for _, example in topics(commands, with_model=False)[:OFFERED]]
    offer = f" You can ask me things like {quoted_list(examples)}, or ask what I can do." if examples else ""
    return "Sorry, I didn't understand that." + offer + " " + ADD_A_MODEL


def not_understood(turn: Turn, commands: list[Command]) -> None:
    """No stage claimed the utterance and no model is configured: a normal answer, not an outage
    (the 503 stays for a configured model that does not answer)."""
    log.info("%s: not understood without a model; answered with what voxd can do", turn.conversation)
    turn.reply, turn.understood = not_understood_reply(commands), False


def beyond_reach(turn: Turn) -> None:
    """A stage chose a command that needs the model, and none is configured: nothing is claimed
    (`understood: false`); the reply says why, `needs_model` names the command."""
    command = turn.command
    assert command is not None and command.needs_model is not None
    log.info("%s: %s needs a language model and none is configured; not understood",
             turn.conversation, command.name)
    turn.needs_model = command.name
    turn.command, turn.tool, turn.arguments, turn.response = None, None, {}, None
    turn.routed_by, turn.reply, turn.understood = RoutedBy.NONE, command.needs_model, False
