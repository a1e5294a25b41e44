"""`answer_question`: the model's fallback for questions no other command handles."""

from __future__ import annotations

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import plain_speech

NO_MODEL = "I can't answer questions right now: no language model is available."


class AnswerQuestion(Command):
    name = "answer_question"
    description = (
        "Answer a general-knowledge or everyday question that no other command covers, "
        "such as 'how far is the moon' or 'who wrote Hamlet'. Pass the question in the user's own words."
    )
    # No examples: the semantic stage could not tell a question this command may take from one it
    # must leave alone ("what's the news today"), and without a model both get the same answer.
    parameters = (Parameter("query", "string", "question to answer", required=True),)

    async def execute(self, request: CommandRequest, query: str) -> CommandResponse:
        answer = await request.ask_model(query)
        if not answer or not answer.strip():
            return CommandResponse(NO_MODEL, data={"query": query}, success=False)
        return CommandResponse(plain_speech(answer), data={"query": query})


COMMANDS = [AnswerQuestion]
