"""`answer_question`: the model's fallback for questions no other command handles.

Without a model the semantic stage still routes a general-knowledge question here (its
`examples`), so the answer is an honest "no model" with how to add one, at once, instead of the
generic help; a question needing live, local or personal information, or one about voxd itself, is
declined (voxd/language/questions.py and its table), so no stage claims it."""

from __future__ import annotations

from typing import Any

from voxd.commands.api import ADD_A_MODEL, Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import plain_speech
from voxd.language.questions import is_question, needs_information_voxd_lacks

NO_MODEL = f"I can't answer questions right now: no language model is available. {ADD_A_MODEL}"


class AnswerQuestion(Command):
    name = "answer_question"
    description = (
        "Answer a general-knowledge or everyday question that no other command covers, "
        "such as 'how far is the moon' or 'who wrote Hamlet'. Pass the question in the user's own words."
    )
    examples = (
        "why do onions make you cry",
        "who painted the ceiling of the sistine chapel",
        "what is the capital of canada",
        "how many bones are there in the human body",
        "how do you spell necessary",
        "what does the word ubiquitous mean",
        "when was the battle of hastings",
        "where is mount everest",
        "how tall is the eiffel tower",
        "what's the biggest animal in the world",
        "is a whale a fish",
        "how does a rainbow form",
        "why do leaves change colour in autumn",
        "who built the pyramids",
        "at what temperature does water boil",
        "how old is the universe",
        "which is the largest planet",
        "how long should I boil an egg for",
        "what can I use instead of buttermilk",
        "what's the plural of octopus",
        "can dogs eat grapes",
        "what language do they speak in brazil",
        "what do you call a group of crows",
        "how deep is the ocean",
        "how many strings does a violin have",
        "do penguins have knees",
        "explain how vaccines work",
        "how fast does light travel",
        "how do bees make honey",
        "what's another word for happy",
        "how many players are on a football team",
        "how far away is the sun",
        "how many weeks are there in a year",
        "what does democracy mean",
        "how long do you roast a chicken for",
        "what's the tallest mountain in africa",
        "how many continents are there",
        "why do we yawn",
        "is the sun a star",
        "who discovered penicillin",
    )
    broad = True  # any subject: the examples sample question shapes, `declines` keeps out the rest
    parameters = (Parameter("query", "string", "question to answer", required=True),)

    def declines(self, text: str) -> bool:
        """Not a question, or one that needs information voxd does not have."""
        return super().declines(text) or not is_question(text) or needs_information_voxd_lacks(text) is not None

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """The question is the whole utterance (fillers are gone before any stage looks)."""
        return {**arguments, "query": arguments.get("query") or text.strip()}

    async def execute(self, request: CommandRequest, query: str) -> CommandResponse:
        answer = await request.ask_model(query)
        if not answer or not answer.strip():
            return CommandResponse(NO_MODEL, data={"query": query}, success=False)
        return CommandResponse(plain_speech(answer), data={"query": query})


COMMANDS = [AnswerQuestion]
