"""The routing prompt says the household's date and time, and who is speaking with their memories."""

from datetime import datetime
from zoneinfo import ZoneInfo

from voxd.commands.api import Speaker
from voxd.services.command_center.pipeline.prompt import routing_prompt
from voxd.services.command_center.pipeline.tool_calls import from_message


def test_prompt_carries_clock_speaker_and_memories():
    now = datetime(2026, 3, 29, 9, 30, tzinfo=ZoneInfo("Europe/Berlin"))
    prompt = routing_prompt(now, Speaker("u1", "Ann"), ["likes oat milk", "works night shifts"])
    assert "Sunday" in prompt and "29 March 2026" in prompt and "09:30" in prompt and "CEST" in prompt
    assert "The speaker is Ann." in prompt
    assert "About Ann: likes oat milk" in prompt and "About Ann: works night shifts" in prompt
    assert "not known" in routing_prompt(now, None, [])


def test_tool_calls_written_as_text_are_read():
    known = {"set_timer", "get_weather"}
    cases = {
        '{"name": "set_timer", "arguments": {"duration_seconds": 60}}': ("set_timer", {"duration_seconds": 60}),
        'Sure! <tool_call>{"name": "get_weather", "parameters": {"city": "Oslo"}}</tool_call>': ("get_weather", {"city": "Oslo"}),
        '{"function": {"name": "set_timer", "arguments": "{\\"label\\": \\"tea\\"}"}}': ("set_timer", {"label": "tea"}),
        'get_weather(city="Paris")': ("get_weather", {"city": "Paris"}),
    }
    for content, (name, arguments) in cases.items():
        call = from_message({"content": content}, known)
        assert call is not None and (call.name, call.arguments) == (name, arguments), content
    assert from_message({"content": 'launch_rockets(now=True)'}, known) is None
    assert from_message({"content": "It is sunny."}, known) is None
    native = {"tool_calls": [{"function": {"name": "set_timer", "arguments": '{"duration_seconds": 5}'}}]}
    assert from_message(native, known).arguments == {"duration_seconds": 5}
