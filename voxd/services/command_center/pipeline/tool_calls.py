"""Reading the model's choice: native tool calls, or the same written as text (small models do
that: a JSON object, `<tool_call>{...}</tool_call>`, or `name(key="value", ...)`). The result is a
`ChosenTool`: the name and the decoded arguments, ready for argument coercion (the wire's
`ToolCall`, with arguments as JSON text, is in voxd/wire/openai_chat.py)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from voxd.wire.openai_chat import ANSWERED_MESSAGE, AnsweredMessage


@dataclass(frozen=True)
class ChosenTool:
    name: str
    arguments: dict[str, Any]


def decode_arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw.strip():
        try:
            decoded = json.loads(raw)
        except ValueError:
            return {}
        return decoded if isinstance(decoded, dict) else {}
    return {}


def from_message(message: AnsweredMessage | Mapping[str, Any], known: set[str]) -> ChosenTool | None:
    """The first call to a known tool, native or written in the content. `message` is the
    assistant message as read from the wire, or its JSON object."""
    if isinstance(message, Mapping):
        message = ANSWERED_MESSAGE.validate_python(message)
    for call in message.tool_calls or ():
        if call.function.name in known:
            return ChosenTool(call.function.name, decode_arguments(call.function.arguments))
    return from_text(message.content, known) if message.content else None


JSON_OBJECT = re.compile(r"\{.*\}", re.S)
PYTHON_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\((.*?)\)", re.S)


def from_text(text: str, known: set[str]) -> ChosenTool | None:
    match = JSON_OBJECT.search(text)
    if match:
        try:
            data = json.loads(match.group(0))
        except ValueError:
            data = None
        if isinstance(data, dict):
            name = data.get("name") or data.get("tool") or data.get("function")
            if isinstance(name, dict):  # {"function": {"name": ..., "arguments": ...}}
                data, name = name, name.get("name")
            if name in known:
                arguments = data.get("arguments", data.get("parameters", {}))
                return ChosenTool(name, decode_arguments(arguments))
    for match in PYTHON_CALL.finditer(text):
        if match.group(1) in known:
            return ChosenTool(match.group(1), python_keywords(match.group(2)))
    return None


def python_keywords(source: str) -> dict[str, Any]:
    """`a=1, b="x"` as a dict; anything that is not plain literals gives what could be read."""
    try:
        call = ast.parse(f"f({source})", mode="eval").body
    except SyntaxError:
        return {}
    arguments = {}
    for keyword in getattr(call, "keywords", []):
        try:
            arguments[keyword.arg] = ast.literal_eval(keyword.value)
        except ValueError:
            continue
    return arguments
