"""`remember` and `forget`: what voxd keeps about the person speaking, given to the routing prompt
of their later commands (docs/architecture.md, Memory tools).

They reach the memories through `CommandRequest.memories`, which the command center fills only
when the speaker is known; the templates take "remember that ..." and "forget that ..." and keep
the words as they were said."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter, SpeakerMemories
from voxd.commands.builtin.clock.reminders import MEANT_TO_REMEMBER, NOT_TO_FORGET
from voxd.commands.builtin.kitchen.lists import as_written, on_a_list
from voxd.commands.phrasebook import phrasebook
from voxd.language.items import is_placeholder
from voxd.language.templates import normalize_utterance

# What follows "remember" or "forget" when it is not a fact about the speaker.
NOT_A_FACT = re.compile(r"(?:to|when|what|where|who|how|why|if|whether|it|that|this|me|about it)(?: |$)")
# "can you remember ..." without "that": a question about what voxd knows ("can you remember my
# name") unless it only stands for a fact to come ("can you remember something for me").
RECALLING = re.compile(r"^(?:please )?(?:can|could|would|will) you (?:please )?remember (?!that )")
UNKNOWN_SPEAKER = "I don't know who is speaking, so I can't keep memories for you."
# The request itself dropped, not a memory: "forget my previous command", "actually forget that i don't
# need it", "forget what i just said" are stop's (CLINC's cancel); "forget what i told you about my
# sister" and "forget that i'm vegetarian" name a memory.
DROPS_THE_REQUEST = re.compile(
    r"^(?:(?:actually|oh|no|okay|ok|please|just|you can|can you) )*forget (?:about )?"
    r"(?:(?:it|that|this)(?: (?:i|we) (?:do not|dont|no longer) (?:need|want) (?:it|that|this)| any ?more| now)*$"
    r"|(?:my|the|that|this|your) (?:previous |last |earlier |current )?(?:command|request|question|order|instruction)s?\b"
    r"|(?:what|everything) i (?:just )?(?:said|asked)(?: for| you)?$)")


class MemoryCommand(Command):
    """A command on the speaker's memories with one text parameter, named by `slot`. `asking`
    matches the words around the fact that only ask to keep or drop it ("please remember ...",
    "..., remember that"): without a template's slot (the semantic stage), the fact is what is
    left when they are taken away; an utterance without them is asked about."""

    slot: ClassVar[str]
    asking: ClassVar[re.Pattern[str]]
    topic = "memories"

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """Words that are no fact give the utterance up: "remember to buy milk" is a reminder,
        "forget about it" means stop. Words that only stand for a fact not yet said ("remember
        something for me") leave it to be asked for. A sentence another command takes (`hands_to`)
        is given up by a template too."""
        if self.hands_to(text):
            return None
        words = arguments.get(self.slot)
        if words is not None and NOT_A_FACT.match(words):
            return None
        if words is not None and RECALLING.match(normalize_utterance(text)) and not is_placeholder(words):
            return None  # "can you remember my name": a question; "can you remember something for me" asks
        if words is None:
            said = normalize_utterance(text)
            fact = self.asking.sub("", said).strip()
            if fact == said or not fact:
                return {}
            words = fact
        return {} if is_placeholder(words) else {self.slot: as_written(words, text)}

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A semantic claim needs the words that ask to keep or drop a fact ("i prefer to be called
        jason", "list the things i wanted to remember" ask for neither), and a fact that is not a
        question ("what was it i wanted to remember")."""
        words = arguments.get(self.slot)
        asked = self.asking.search(normalize_utterance(text)) is not None
        return asked and not (isinstance(words, str) and NOT_A_FACT.match(normalize_utterance(words)))

    async def execute(self, request: CommandRequest, **arguments: Any) -> CommandResponse:
        if request.memories is None:
            return CommandResponse(UNKNOWN_SPEAKER, success=False)
        return CommandResponse(await self.change(request.memories, str(arguments[self.slot]).strip()))

    async def change(self, memories: SpeakerMemories, words: str) -> str:
        """Change the memories; what to say."""
        raise NotImplementedError


class Remember(MemoryCommand):
    name = "remember"
    description = "Remember a fact about the speaker for later conversations."
    examples = phrasebook("remember")
    slot = "content"
    asking = re.compile(
        r"^(?:please )?(?:(?:can|could|would|will) you )?(?:please )?(?:remember|note|keep in mind|bear in mind|"
        r"do not forget|make a note|for future reference|just so you know|for the record)(?: that)?(?: |$)"
        r"|(?: please)?(?: (?:remember|note|keep in mind|do not forget))(?: that| this| it)?(?: please| for me)?$")
    parameters = (Parameter(slot, "string", "fact to remember, as a short sentence", required=True),)
    templates = (
        "remember that {content}",
        "[please] (remember|note|keep in mind|do not forget) [that] {content}",
        "[please] (can|could|would|will) you [please] (remember|note|keep in mind) [that] {content}",
        "{content} [please] remember that",
        "(for future reference|just so you know) {content}",
    )

    def hands_to(self, text: str) -> str | None:
        """A task put on a named household list ("remember to add the laundry to my to do list",
        "note that we need milk on the shopping list") is the list's, as set_reminder hands it; only
        when asked with remember's words, which `stands` needs for a claim anyway."""
        said = normalize_utterance(text)
        return on_a_list(said) if self.asking.search(said) else None

    async def change(self, memories: SpeakerMemories, words: str) -> str:
        await memories.add(words)
        return "Okay, I'll remember that."


class Forget(MemoryCommand):
    name = "forget"
    description = "Forget what was remembered about the speaker that matches some words."
    examples = phrasebook("forget")
    slot = "content_match"
    destructive = True  # a forgotten memory cannot be got back: asked about first (confirmation)
    asking = re.compile(
        r"^(?:please )?(?:(?:you can|can you|could you|will you) )?(?:please )?(?:forget|wipe|erase|delete|drop|"
        r"stop remembering|do not remember|(?:you )?(?:do not need to|no need to|need not) remember)(?: (?:what|everything|anything) (?:i told you|i said|you know|"
        r"you remember))?(?: about| that)?(?: |$)|(?: now| please| any more| anymore)+$")
    parameters = (Parameter(slot, "string", "words of the memory to forget", required=True),)
    # "forget it" and "forget about it" are `stop`'s; "forget that" needs words after it.
    templates = (
        "[please] forget that {content_match}",
        "[please] [you can] forget [that] {content_match} (now|any more|anymore)",
        "[please] [you can] (forget|wipe|erase|delete) (what|everything) (i told you|i said|you know) about "
        "{content_match}",
    )

    def hands_to(self, text: str) -> str | None:
        """What the person wanted not to forget is a reminder, not a memory to drop: "what things did
        i not want to forget" reads them, "don't let me forget to check the steak" sets one; the
        request itself dropped (DROPS_THE_REQUEST) is stop's."""
        said = normalize_utterance(text)
        if DROPS_THE_REQUEST.search(said):
            return "stop"
        if MEANT_TO_REMEMBER.search(said):
            return "list_reminders"
        return "set_reminder" if NOT_TO_FORGET.search(said) else None

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        return f"Do you want me to forget what you told me about {as_heard(str(arguments.get(self.slot)))}?"

    async def change(self, memories: SpeakerMemories, words: str) -> str:
        forgotten = await memories.forget_matching(words)
        return "Okay, I've forgotten that." if forgotten else "I had nothing like that to forget."


SAID_BACK = {"my": "your", "i": "you", "me": "you", "mine": "yours", "am": "are", "myself": "yourself"}


def as_heard(words: str) -> str:
    """The speaker's words said back to them: "my birthday" -> "your birthday"."""
    return " ".join(SAID_BACK.get(word.lower(), word) for word in words.split())


COMMANDS = [Remember, Forget]
