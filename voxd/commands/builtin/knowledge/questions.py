"""`answer_question`: the model's fallback for questions no other command handles.

Without a model configured voxd cannot answer a general question, so the pipeline does not let
this command claim one: the semantic stage still finds it here (its `examples`), and the answer is
"not understood" saying that questions need a model and how to add one (`needs_model`), at once,
instead of the generic help; when a configured model does not answer, `execute` says the same. A
question needing live, local or personal information, or one about voxd itself, is
declined (voxd/language/questions.py and its table), so no stage claims it."""

from __future__ import annotations

from typing import Any

from voxd.commands.api import ADD_A_MODEL, Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import plain_speech
from voxd.commands.phrasebook import phrasebook
from voxd.language.questions import is_question, needs_information_voxd_lacks, without_lead_in

NO_MODEL = f"I can't answer questions right now: no language model is available. {ADD_A_MODEL}"


class AnswerQuestion(Command):
    name = "answer_question"
    topic = "questions"
    description = (
        "Answer a general-knowledge or everyday question that no other command covers, "
        "such as 'how far is the moon' or 'who wrote Hamlet'. Pass the question in the user's own words."
    )
    examples = phrasebook("answer_question")
    needs_model = NO_MODEL  # with no model configured a question is not understood: this says why
    broad = True  # any subject: the examples sample question shapes, `declines` keeps out the rest
    parameters = (Parameter("query", "string", "question to answer", required=True),)

    def declines(self, text: str) -> bool:
        """Not a question, or one that needs information voxd does not have."""
        return super().declines(text) or not is_question(text) or needs_information_voxd_lacks(text) is not None

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """The question is the utterance (fillers are gone before any stage looks) without the
        words that led into it ("grandad wants to know who won the 1966 world cup")."""
        return {**arguments, "query": arguments.get("query") or without_lead_in(text)}

    async def execute(self, request: CommandRequest, query: str) -> CommandResponse:
        answer = await request.ask_model(query)
        if not answer or not answer.strip():
            return CommandResponse(NO_MODEL, data={"query": query}, success=False)
        return CommandResponse(plain_speech(answer), data={"query": query})


COMMANDS = [AnswerQuestion]
