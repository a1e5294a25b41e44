"""Never claim what voxd cannot do (issue 23 §2): with no language model configured, an utterance a
stage routes to a command that can only answer through the model (`Command.needs_model`:
answer_question, or a plug-in's) is not understood - 200, `routed_by` "none", `understood` false,
the command's own sentence and `needs_model` naming it - rather than claimed; with a model
configured the command claims it as before. Through `voxd serve` with a plug-in whose template
claims at once (the semantic stage's general questions are in test_semantic_serve.py)."""

from __future__ import annotations

from conftest import register_node, say
from daemons import plugin_path, serving, serving_with_model
from pipeline_fakes import FakeModel, make_pipeline
from scripted_llm import text
from test_pipeline import run
from voxd.commands.registry import built_in_commands

POET = '''
from voxd.commands.api import Command, CommandResponse, Parameter


class WritePoem(Command):
    name = "write_poem"
    description = "Write a short poem about a subject."
    parameters = (Parameter("subject", "string", "what the poem is about", required=True),)
    templates = ("write me a poem about {subject}",)
    needs_model = "I can't write poems without a language model."

    async def execute(self, request, subject):
        poem = await request.ask_model(f"Write two lines about {subject}.")
        return CommandResponse(poem or self.needs_model, success=bool(poem))
'''
SERVICES = ["config", "auth", "command-center"]
ASKED = "write me a poem about the sea"


def test_without_a_model_a_command_that_needs_one_claims_nothing_and_says_why(tmp_path_factory):
    plugin = plugin_path(tmp_path_factory.mktemp("plugin"), "write_poem", POET, "WritePoem")
    with serving(tmp_path_factory, SERVICES, PYTHONPATH=plugin) as daemon:
        node = register_node(daemon)
        answer = say(daemon, node, ASKED)
        assert answer.status_code == 200
        body = answer.json()
        assert (body["routed_by"], body["understood"], body["command"], body["result"]) == ("none", False, None, None)
        assert body["needs_model"] == "write_poem"
        assert body["text"] == "I can't write poems without a language model."
        assert "write_poem needs a language model" in daemon.output()
        sums = say(daemon, node, "what's 3 times 4").json()  # what works without a model is unchanged
        assert (sums["command"], sums["understood"], sums["needs_model"]) == ("calculate", True, None)


def test_with_a_model_configured_the_command_claims_as_before(tmp_path_factory):
    plugin = plugin_path(tmp_path_factory.mktemp("plugin"), "write_poem", POET, "WritePoem")
    with serving_with_model(tmp_path_factory, SERVICES, PYTHONPATH=plugin) as daemon:
        daemon.model.script[:] = [text("The sea is wide, the sea is deep.")]
        body = say(daemon, register_node(daemon), ASKED).json()
        assert (body["command"], body["routed_by"], body["understood"]) == ("write_poem", "pre_route", True)
        assert body["arguments"] == {"subject": "the sea"} and body["needs_model"] is None
        assert body["text"] == "The sea is wide, the sea is deep."


def test_the_pipeline_asks_the_model_port_whether_one_is_configured():
    """A configured model that is down still gets the claim: the command says so itself (an
    utterance nothing claims is the 503 of test_llm_opt_in.py)."""
    question = next(command for command in built_in_commands() if command.name == "answer_question")
    assert question.needs_model and "voxd models pull" in question.needs_model  # the one copy of its sentence
    plugin: dict = {}
    exec(POET, plugin)
    poet = [plugin["WritePoem"]()]
    absent = run(make_pipeline(model=FakeModel(present=False), commands=poet), ASKED)
    assert (absent.command, absent.tool, absent.needs_model, absent.understood) == (None, None, "write_poem", False)
    down = run(make_pipeline(model=FakeModel(down=True), commands=poet), ASKED)
    assert (down.tool, down.needs_model, down.understood) == ("write_poem", None, True)
    assert down.reply == "I can't write poems without a language model." and not down.response.success
