"""Asking before a destructive command runs (docs/commands.md, Destructive commands).

A command that declares `destructive` (forget, clearing a list, cancelling every timer, a plug-in's
own) is asked about first unless a template claimed the utterance word for word: a paraphrase read
by the semantic stage or a model's choice may be a guess, and what it deletes cannot be got back.
The question waits in the conversation's follow-ups; the next turn (with ?follow_up=true, inside
the answer window) runs the command on a yes, says that nothing changed on a no, and on anything
else drops the question and is understood as a new request. A time-out drops it too."""

from __future__ import annotations

import logging

from voxd.commands.api import CommandResponse
from voxd.language.consent import Consent, consent
from voxd.services.command_center.pipeline.follow_ups import PendingQuestion
from voxd.services.command_center.pipeline.turn import RoutedBy, Turn

log = logging.getLogger("voxd.command-center.pipeline")

LEFT_AS_IT_WAS = "Okay, I've left it as it was."


def ask_first(turn: Turn) -> bool:
    """Whether the turn's command must be asked about before it runs with its checked arguments;
    if so the question is the turn's answer (`turn.confirming`). Not when nothing is destroyed for
    these arguments, when a template claimed the words as said, or when the caller said yes."""
    command = turn.command
    if command is None or not command.destructive or turn.confirmed or turn.routed_by is RoutedBy.PRE_ROUTE:
        return False
    question = command.confirmation(turn.arguments)
    if not question:
        return False
    turn.response = CommandResponse(question, data={"confirm": True}, wait_for_input=True)
    turn.reply, turn.confirming = question, True
    log.info("%s: asked before %s (routed by %s)", turn.conversation, command.name, turn.routed_by)
    return True


def answer_confirmation(turn: Turn, question: PendingQuestion, answer: str) -> bool:
    """Read the caller's answer to a confirmation: a yes gives the turn the command and its
    arguments (confirmed), a no answers that nothing changed; True when the answer was one of them.
    `answer` is what was said, before fillers go ("okay" is a yes)."""
    said = consent(answer)
    if said is Consent.UNCLEAR:
        log.info("%s: no yes or no to %s; left as it was", turn.conversation, question.command.name)
        return False
    command = question.command
    turn.command, turn.tool, turn.routed_by = command, command.name, RoutedBy.FOLLOW_UP
    turn.arguments = dict(question.arguments)
    if said is Consent.YES:
        turn.confirmed = True
    else:
        turn.response = CommandResponse(LEFT_AS_IT_WAS, data={"confirm": False})
    return True
