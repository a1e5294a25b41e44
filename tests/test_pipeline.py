"""The voice pipeline as an object (voxd/services/command_center/pipeline/pipeline.py), built with in-memory
fakes (tests/pipeline_fakes.py): the order of its stages, follow-ups, the secrets check, a command
that raises, a model that is down, the memory commands and the speech services failing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pipeline_fakes import FakeModel, FakeSpeech, FakeStore, chose, make_pipeline, said
from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter, RequiredSecret, Speaker
from voxd.commands.registry import built_in_commands
from voxd.services.command_center.pipeline.language_model import ModelUnavailable
from voxd.services.command_center.pipeline.pipeline import Pipeline
from voxd.services.command_center.pipeline.speech import SpeechUnavailable
from voxd.services.command_center.pipeline.turn import EngineTime, RoutedBy, Stage, Turn

ANN = Speaker("u-ann", "Ann")


class Lookup(Command):
    """Leaves the wording to the model (no spoken reply) and needs a secret."""

    name = "lookup"
    description = "Look a word up."
    parameters = (Parameter("word", "string", "the word", required=True),)
    required_secrets = (RequiredSecret("DICTIONARY_KEY", "the dictionary's API key"),)
    templates = ("look up {word}",)

    async def execute(self, request: CommandRequest, word: str) -> CommandResponse:
        return CommandResponse(data={"word": word, "meaning": "a small test"})


class Broken(Command):
    name = "broken_thing"
    description = "Always fails."
    templates = ("break it",)

    async def execute(self, request: CommandRequest) -> CommandResponse:
        raise RuntimeError("boom")


def run(pipeline: Pipeline, text: str = "", audio: bytes | None = None, **options: Any) -> Turn:
    return asyncio.run(pipeline.run(Turn("kitchen", "home", text=text, audio=audio, **options)))


def stages(turn: Turn) -> list[Stage]:
    return [Stage(key) for key in turn.timings if key in Stage.__members__.values()]


def test_a_spoken_command_passes_every_stage_in_order():
    model = FakeModel([chose("lookup", {"word": "voxd"}), said("Voxd means a small test.")])
    speech = FakeSpeech(heard="what does voxd mean", voice=ANN)
    pipeline = make_pipeline(FakeStore({"DICTIONARY_KEY": "k"}), model, speech, commands=[Lookup()])
    turn = run(pipeline, audio=b"RIFF")
    assert stages(turn) == [Stage.TRANSCRIBE, Stage.SPEAKER, Stage.CONTEXT, Stage.PRE_ROUTE, Stage.MODEL_ROUTE,
                            Stage.VALIDATE, Stage.EXECUTE, Stage.MODEL_REPLY, Stage.SYNTHESIZE, Stage.TOTAL]
    assert turn.timings[EngineTime.TRANSCRIBE] == 3.5 and turn.timings[EngineTime.SYNTHESIZE] == 3.0
    assert (turn.transcript, turn.speaker, turn.routed_by) == ("what does voxd mean", ANN, RoutedBy.MODEL)
    assert turn.reply == "Voxd means a small test." and turn.reply_audio == b"WAV:Voxd means a small test."
    tool_message = model.chats[1][0][-1]
    assert tool_message.role == "tool" and "a small test" in tool_message.content


def test_a_pre_routed_text_command_skips_the_model_and_speech():
    model = FakeModel(down=True)
    turn = run(make_pipeline(model=model), "what's 12 times 7")
    assert (turn.tool, turn.routed_by, turn.reply) == ("calculate", RoutedBy.PRE_ROUTE, "12 times 7 is 84.")
    assert stages(turn) == [Stage.CONTEXT, Stage.PRE_ROUTE, Stage.VALIDATE, Stage.EXECUTE, Stage.TOTAL]
    assert model.chats == [] and turn.reply_audio is None


def test_an_answer_completes_the_question_the_last_command_asked():
    pipeline = make_pipeline()
    asked = run(pipeline, "set a timer")
    assert asked.reply == "I need to know the length of the timer." and asked.response.wait_for_input
    answered = run(pipeline, "Five minutes.", follow_up=True)
    assert (answered.tool, answered.routed_by, answered.reply) == (
        "set_timer", RoutedBy.FOLLOW_UP, "Timer set for 5 minutes.")
    assert Stage.FOLLOW_UP in answered.timings
    with pytest.raises(ModelUnavailable):  # the question was answered: "ten minutes" alone is not a command
        run(pipeline, "ten minutes", follow_up=True)


def test_an_answer_without_the_follow_up_flag_is_a_new_command():
    pipeline = make_pipeline()
    run(pipeline, "set a timer")
    with pytest.raises(ModelUnavailable):
        run(pipeline, "five minutes")


def test_a_command_needs_its_secrets_installed_and_readable():
    model = FakeModel([chose("lookup", {"word": "voxd"})])
    missing = run(make_pipeline(FakeStore(), model, commands=[Lookup()]), "look up voxd")
    assert missing.reply == ("The lookup command needs the secret DICTIONARY_KEY. "
                             "An administrator can set it with voxd secrets set.")
    assert missing.response.success is False and Stage.EXECUTE not in missing.timings
    unreadable = run(make_pipeline(FakeStore(unreadable={"DICTIONARY_KEY"}), commands=[Lookup()]), "look up voxd")
    assert "can't be decrypted with this server's key" in unreadable.reply


def test_a_command_that_raises_is_answered_with_an_apology():
    turn = run(make_pipeline(commands=[Broken()]), "break it")
    assert turn.reply == "Sorry, something went wrong with the broken thing command."
    assert turn.response.success is False and Stage.EXECUTE in turn.timings


def test_a_model_that_is_down():
    with pytest.raises(ModelUnavailable):  # nothing claimed the utterance, so the model was needed
        run(make_pipeline(model=FakeModel(down=True)), "who painted the mona lisa")
    model = FakeModel([chose("lookup", {"word": "voxd"})])  # then down for the reply
    turn = run(make_pipeline(FakeStore({"DICTIONARY_KEY": "k"}), model, commands=[Lookup()]), "what is voxd")
    assert turn.reply == "Done." and Stage.MODEL_REPLY in turn.timings


def test_the_model_may_answer_in_words():
    turn = run(make_pipeline(model=FakeModel([said("It was Leonardo.")])), "who painted the mona lisa")
    assert (turn.tool, turn.routed_by, turn.reply, turn.response) == (None, RoutedBy.MODEL, "It was Leonardo.", None)


def test_every_command_is_offered_to_the_model_remember_and_forget_included():
    model = FakeModel([said("Hello.")])
    run(make_pipeline(model=model), "hello there")
    offered = [tool.function.name for tool in model.chats[0][1]]
    assert offered == [command.name for command in built_in_commands()]
    remember = next(tool for tool in model.chats[0][1] if tool.function.name == "remember")
    assert remember.function.parameters == {
        "type": "object", "required": ["content"],
        "properties": {"content": {"type": "string", "description": "fact to remember, as a short sentence"}}}


def test_remember_and_forget_keep_the_speakers_memories():
    store = FakeStore()
    model = FakeModel([chose("remember", {"content": "likes oat milk"}), said("Sure.")])
    pipeline = make_pipeline(store, model, FakeSpeech(voice=ANN))
    heard = FakeSpeech(heard="keep it in mind that I like oat milk", voice=ANN)  # no template: the model
    pipeline.speech = heard
    assert run(pipeline, audio=b"RIFF").reply == "Okay, I'll remember that."
    heard.heard = "Remember that I work night shifts."
    templated = run(pipeline, audio=b"RIFF")
    assert (templated.routed_by, templated.arguments) == (RoutedBy.PRE_ROUTE, {"content": "I work night shifts"})
    assert [(m.user_id, m.content) for m in store.saved] == [("u-ann", "likes oat milk"), ("u-ann", "I work night shifts")]
    heard.heard = "what do you know"
    run(pipeline, audio=b"RIFF")
    assert "About Ann: likes oat milk" in model.chats[-1][0][0].content  # memories reach the routing prompt
    heard.heard = "forget that I like oat milk"
    assert run(pipeline, audio=b"RIFF").reply == "I had nothing like that to forget."
    heard.heard = "forget that night shifts"
    assert run(pipeline, audio=b"RIFF").reply == "Okay, I've forgotten that."
    assert [m.content for m in store.saved] == ["likes oat milk"]


def test_remember_needs_a_known_speaker():
    turn = run(make_pipeline(), "remember that I like jazz")
    assert turn.tool == "remember" and turn.reply == "I don't know who is speaking, so I can't keep memories for you."
    assert turn.response.success is False


def test_speech_services_down():
    with pytest.raises(SpeechUnavailable):
        run(make_pipeline(speech=FakeSpeech(stt_down=True)), audio=b"RIFF")
    spoken = Turn("kitchen", "home", audio=b"RIFF")
    with pytest.raises(SpeechUnavailable):  # a node that spoke must hear the answer
        asyncio.run(make_pipeline(speech=FakeSpeech(heard="stop", tts_down=True)).run(spoken))
    assert spoken.transcript == "stop" and spoken.reply == "Okay."
    typed = run(make_pipeline(speech=FakeSpeech(tts_down=True)), "stop", speak=True)
    assert typed.reply == "Okay." and typed.reply_audio is None and Stage.SYNTHESIZE in typed.timings


def test_nothing_heard_is_said_without_the_text_stages():
    turn = run(make_pipeline(model=FakeModel(down=True), speech=FakeSpeech(heard="")), audio=b"RIFF")
    assert (turn.reply, turn.routed_by, turn.transcript) == ("Sorry, I didn't catch that.", RoutedBy.NONE, "")
    assert stages(turn) == [Stage.TRANSCRIBE, Stage.SPEAKER, Stage.SYNTHESIZE, Stage.TOTAL]


def test_remember_without_words_asks_for_them():
    speech = FakeSpeech(heard="remember this", voice=ANN)
    turn = run(make_pipeline(model=FakeModel([chose("remember", {})]), speech=speech), audio=b"RIFF")
    assert turn.reply == "I need to know the fact to remember, as a short sentence." and turn.response.wait_for_input


def test_a_users_own_command_is_theirs_and_so_are_its_follow_ups():
    """A user's command (their token: `Turn.user_id`) is spoken by them whatever voice the audio
    has (no voice is compared); their follow-up question is theirs, not the node's nor another
    user's, which all have no node (`node_id` "")."""
    model = FakeModel([said("Five minutes of what?"), said("Five minutes of what?")])
    pipeline = make_pipeline(model=model, speech=FakeSpeech(heard="remember that I like jazz", voice=ANN))
    spoken = run(pipeline, audio=b"RIFF", user_id="u-pat")
    assert spoken.speaker == Speaker("u-pat", "Pat") and spoken.reply == "Okay, I'll remember that."
    assert run(pipeline, "set a timer", user_id="u-pat").response.wait_for_input
    other = asyncio.run(pipeline.run(Turn("", "home", text="five minutes", follow_up=True, user_id="u-sam")))
    assert other.routed_by is not RoutedBy.FOLLOW_UP
    node = run(pipeline, "five minutes", follow_up=True)
    assert node.routed_by is not RoutedBy.FOLLOW_UP
    answered = asyncio.run(pipeline.run(Turn("", "home", text="five minutes", follow_up=True, user_id="u-pat")))
    assert (answered.routed_by, answered.arguments["duration_seconds"]) == (RoutedBy.FOLLOW_UP, 300)
