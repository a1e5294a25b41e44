"""The public command API: what a voice command declares and what it is given.

A command is a class with a `name`, a `description`, typed `parameters`, the `required_secrets` it
needs, optional sentence `templates` that claim short utterances without a language model (with
`refine` to tidy or refuse what a template matched), example sentences for the semantic stage
(`examples`, with `declines` for what the command must leave alone), and `execute`. voxd
validates secrets and arguments before `execute` runs, so `execute` receives clean, typed keyword
arguments. See docs/commands.md for a worked example.

Third-party commands are found through the entry-point group `voxd.commands`: each entry point
names a `Command` subclass (or a callable returning a list of instances).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Literal, Protocol, TypeVar
from zoneinfo import ZoneInfo

from voxd.language.expansions import expansions
from voxd.language.reminders import reminder_at_a_time
from voxd.language.templates import Template, normalize_utterance, slot_anchors
from voxd.commands.wording import summary

# How a household adds a language model (docs/llm.md), for every answer that says none is set up:
# the no-model help reply, and a command whose `ask_model` answered None.
ADD_A_MODEL = "To add a model, an administrator can run voxd models pull."

ParameterType = Literal["string", "integer", "number", "boolean", "enum", "date", "datetime", "duration"]
PARAMETER_TYPES: tuple[str, ...] = ParameterType.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Parameter:
    """One typed argument. `many=True` makes it a list of that type."""

    name: str
    type: ParameterType
    description: str = ""
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()  # for "enum"
    many: bool = False

    def __post_init__(self) -> None:
        if self.type not in PARAMETER_TYPES:
            raise ValueError(f"parameter {self.name!r}: unknown type {self.type!r}")
        if self.type == "enum" and not self.choices:
            raise ValueError(f"parameter {self.name!r}: an enum needs choices")


@dataclass(frozen=True)
class RequiredSecret:
    """A third-party secret (an API key) a command needs; installed with `voxd secrets`.

    Scope "user" is each person's own (their calendar), given as `CommandRequest.speaker_secrets`
    when the speaker is known. voxd checks a secret before `execute` only when it is `required` and
    not a user's: a command that works with one of several (a person's calendar or the household's)
    says itself what is missing."""

    key: str
    description: str
    scope: Literal["household", "node", "user"] = "household"
    required: bool = True


@dataclass(frozen=True)
class PreRouteResult:
    """A command's claim on an utterance: its arguments, and optionally the reply to speak."""

    arguments: dict[str, Any] = field(default_factory=dict)
    spoken_response: str | None = None


@dataclass(frozen=True)
class CommandResponse:
    """What `execute` answers. With `spoken_response` set, no second model call is made."""

    spoken_response: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    success: bool = True
    wait_for_input: bool = False  # the node should listen again without a wake word


@dataclass(frozen=True)
class Speaker:
    user_id: str
    name: str


@dataclass(frozen=True)
class RouteContext:
    """What a fast matcher may look at: no I/O happens during pre-routing."""

    now: datetime  # aware, in the household's time zone
    timezone: ZoneInfo
    speaker: Speaker | None = None
    country: str | None = None  # the household's ISO 3166 code ("GB"), when known


class SpeakerMemories(Protocol):
    """What voxd remembers about the person speaking (`CommandRequest.memories`); the command
    center implements it over its memories table, so commands never see its storage."""

    async def add(self, content: str) -> None: ...

    async def forget_matching(self, fragment: str) -> int:
        """Forget every memory containing `fragment`; how many were forgotten."""
        ...


T = TypeVar("T")
# A change of one stored document: given what it holds (None when nothing), answers the document to
# store instead (None deletes it) and what `CommandStorage.update` should answer.
Change = Callable[[Any], tuple[Any, T]]


class CommandStorage(Protocol):
    """Small persistent JSON documents per household and command (timers, lists...).

    Each call is atomic and, once it returns, on disk. A change that depends on what a document
    holds (add to a list, remove a timer) goes through `update`, never `get` then `put`: between
    those two awaits another request may write the document, and `put` would undo its change.
    """

    async def get(self, key: str) -> Any: ...

    async def put(self, key: str, value: Any) -> None: ...

    async def delete(self, key: str) -> None: ...

    async def update(self, key: str, change: Change[T]) -> T:
        """Read, change and write the document in one write transaction: no other write to it (or
        to any document) lands in between. `change` is a plain function, not a coroutine: it runs
        with the storage's writer held, so keep it quick and do any I/O before or after. An
        unchanged document is not written; if `change` raises, nothing is."""
        ...


class VoxdServices(Protocol):
    """The other voxd services, for a command that works with one (the recipe commands ask the
    recipes service). `call` finds the service through discovery, sends the command center's app
    credentials and the request id, and answers the parsed JSON; any failure (down, refused, an
    error answer) raises `voxd.kit.errors.UpstreamError`, which the command turns into a sentence."""

    async def call(self, service: str, method: str, path: str, **kwargs: Any) -> Any: ...


@dataclass(frozen=True)
class CommandRequest:
    """Everything `execute` may use about the request, besides its arguments."""

    text: str
    node_id: str  # the node that heard it; "" for a typed command from a user or the admin key (no room)
    household_id: str
    now: datetime
    timezone: ZoneInfo
    speaker: Speaker | None
    secrets: Mapping[str, str]  # the household's, overridden by the node's
    storage: CommandStorage
    ask_model: Callable[[str], Awaitable[str | None]]  # a free-form question; None without a model
    http: Any = None  # an aiohttp.ClientSession for commands that call out (only where configured)
    request_id: str | None = None
    memories: SpeakerMemories | None = None  # None when the speaker is not known
    services: VoxdServices | None = None  # None where no other service can be reached (tests)
    # Whose conversation this is: the node's id, "user:<id>" for a user's own command (a phone,
    # `voxd ask`), "household:<id>" for the admin key. Keep state between utterances under it.
    conversation: str = ""
    country: str | None = None  # the household's ISO 3166 code ("GB"): its public holidays, its way with dates
    # The identified speaker's own secrets (RequiredSecret scope "user") the command declares; {} otherwise.
    speaker_secrets: Mapping[str, str] = field(default_factory=dict)


class Command:
    """Subclass this. Class attributes declare the command; `execute` does the work."""

    name: ClassVar[str]
    description: ClassVar[str]
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    required_secrets: ClassVar[tuple[RequiredSecret, ...]] = ()
    # Sentence templates (voxd.language.templates syntax) whose slots are named like parameters.
    templates: ClassVar[tuple[str, ...]] = ()
    # Sentences that mean this command, said in different ways: the semantic stage compares an
    # utterance no template matched with them (and with the templates' own expansions).
    examples: ClassVar[tuple[str, ...]] = ()
    # True when the examples can only sample what the command takes (questions on any subject): the
    # semantic stage then holds it to the lower VOXD_SEMANTIC_BROAD_THRESHOLD, and `declines` must
    # say what it must not take.
    broad: ClassVar[bool] = False
    # Commands that share documents (set_timer, check_timers, cancel_timer) name one scope.
    storage_scope: ClassVar[str | None] = None
    # True when the command deletes what cannot be got back (memories, a whole list, every timer):
    # unless a template claimed the utterance word for word, voxd asks `confirmation` first and
    # runs the command only on a yes in the follow-up turn (docs/commands.md, Destructive commands).
    destructive: ClassVar[bool] = False
    # What the spoken help ("what can you do") groups the command under (one example a topic);
    # None: its own name. `in_help = False` leaves it out (stop, help itself).
    topic: ClassVar[str | None] = None
    in_help: ClassVar[bool] = True
    # What voxd says, for a command that can only answer through the language model (answer_question),
    # when none is configured: voxd cannot do what was asked, so a claim on it is answered as not
    # understood with these words (`needs_model` in the answer) instead of being claimed. None: the
    # command works without a model.
    needs_model: ClassVar[str | None] = None

    def __init__(self) -> None:
        self._templates = [Template(pattern) for pattern in self.templates]

    def pre_route(self, text: str, context: RouteContext) -> PreRouteResult | None:
        """Claim `text` when a template matches it exactly and `refine` keeps the match. Override
        only for a matcher that templates cannot express."""
        for template in self._templates:
            slots = template.match(text)
            if slots is not None:
                refined = self.refine(slots, text)
                return None if refined is None else PreRouteResult(arguments=refined)
        return None

    def declines(self, text: str) -> bool:
        """Whether this command must leave `text` to the model (or to no one) whatever its templates
        or examples say: neither the templates nor the semantic stage claim it for this command. By
        default, a reminder at a clock time or on a date ("remind me to buy milk tomorrow") when no
        date or datetime parameter can hold the time. Override to add what else the command cannot
        do; keep the default by calling it."""
        return reminder_at_a_time(text) and not any(p.type in ("date", "datetime") for p in self.parameters)

    def hands_to(self, text: str) -> str | None:
        """The name of a sibling command that takes `text` when the semantic stage chose this one:
        siblings whose examples share their words ("add the party to my calendar", "remove the party
        from my calendar") are told apart by the verb, not by nearness. None by default."""
        return None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """Whether the semantic stage's claim stands once the arguments are read from `text`: a
        sentence near a command's examples that names none of what the command acts on is more
        often a request for something else ("make me a coffee" is no timer). Override to say what
        must be found (a length or the word "timer"; a list or an item); by default any claim does."""
        return True

    def semantic_examples(self) -> tuple[str, ...]:
        """`examples`, then a typical sentence or two of each template (voxd.language.expansions)."""
        expanded = (sentence for pattern in self.templates for sentence in expansions(pattern))
        return tuple(dict.fromkeys([*self.examples, *expanded]))

    def spoken_choices(self, parameter: Parameter) -> dict[str, str]:
        """An enum's spoken forms -> choices: each choice itself, and the synonyms the templates'
        choice slots of the same name give ("put" means "add"); for another type, what its
        templates' choice slots give (cancel_timer's label "all": "every")."""
        spoken = {normalize_utterance(choice): choice for choice in parameter.choices}
        for template in self._templates:
            spoken.update({form: value for form, value in template.choices(parameter.name).items()
                           if value in parameter.choices or not parameter.choices})
        return spoken

    def slot_anchors(self, parameter: Parameter) -> tuple[frozenset[str], frozenset[str]]:
        """The words the templates' text slots of this name sit next to: (before, after), as
        voxd.language.templates.slot_anchors gives them for each template."""
        before: set[str] = set()
        after: set[str] = set()
        for pattern in self.templates:
            words_before, words_after = slot_anchors(pattern, parameter.name)
            before |= words_before
            after |= words_after
        return frozenset(before), frozenset(after)

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """The matched template slots as `execute`'s arguments, given the utterance as written.
        Override to tidy them (a default value, a cleaned label) or to give the utterance up (answer
        None) when it may be meant for another command: claim only what cannot be. The default
        keeps the slots as matched."""
        return arguments

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        """The question to ask before a destructive command runs with these (checked) arguments,
        or None when they destroy nothing. The default asks about the first words of the
        description ("Do you want me to delete a recipe from the household's book?"); override it
        to name what goes, or to ask only for some arguments (a list asks before it is cleared,
        not before one item is removed)."""
        return f"Do you want me to {summary(self.description)}?" if self.destructive else None

    async def execute(self, request: CommandRequest, **arguments: Any) -> CommandResponse:
        raise NotImplementedError

    def tool_schema(self) -> dict[str, Any]:
        """The command as an OpenAI tool."""
        properties = {p.name: parameter_schema(p) for p in self.parameters}
        required = [p.name for p in self.parameters if p.required]
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {"type": "object", "properties": properties, "required": required},
            },
        }


JSON_TYPES = {
    "string": {"type": "string"},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "enum": {"type": "string"},
    "date": {"type": "string", "description": "a date (YYYY-MM-DD) or words such as 'tomorrow'"},
    "datetime": {"type": "string", "description": "a date and time (ISO 8601) or words such as 'in 20 minutes'"},
    "duration": {"type": "integer", "description": "seconds"},
}


def parameter_schema(parameter: Parameter) -> dict[str, Any]:
    schema = dict(JSON_TYPES[parameter.type])
    if parameter.type == "enum":
        schema["enum"] = list(parameter.choices)
    hint = schema.pop("description", None)
    description = " ".join(part for part in (parameter.description, f"({hint})" if hint else "") if part)
    if description:
        schema["description"] = description
    if parameter.many:
        schema = {"type": "array", "items": schema, **({"description": description} if description else {})}
        schema["items"].pop("description", None)
    return schema
