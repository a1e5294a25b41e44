"""`smart_home`: a request about the home's devices ("turn off the kitchen lights", "is the front
door locked", "set the heating to 20") passed as said to Home Assistant's conversation API
(`POST /api/conversation/process`, developers.home-assistant.io/docs/intent_conversation_api), whose
spoken answer is the reply. Home Assistant does the understanding and owns the devices; voxd adds
only the room: its API has no area field, so a request about a kind of device ("the lights", "the
heating") that names no place gets " in the <node's room>" added, as a person in that room would
mean it. A device named on its own ("the front door") is sent as said: it is one device wherever
it is, and a room added to it would make Home Assistant look for it there only (docs/home-assistant.md).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Any, Protocol

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import plain_speech
from voxd.commands.builtin.knowledge.calling_out import OutsideUnavailable, call_outside
from voxd.commands.builtin.home.speakers import NodesUnknown
from voxd.commands.phrasebook import phrasebook
from voxd.language.templates import normalize_utterance

URL, TOKEN, LANGUAGE = "HOME_ASSISTANT_URL", "HOME_ASSISTANT_TOKEN", "HOME_ASSISTANT_LANGUAGE"
PROCESS = "/api/conversation/process"
ASKING = "[please] [can you|could you|would you]"
DEADLINE = 5.0  # seconds: a reply is waiting
MAX_ANSWER_BYTES = 64 * 1024  # HA's answer to one sentence is well under 2 KiB
MAX_SPOKEN = 300  # characters of HA's speech read aloud
CONVERSATION_KEPT = timedelta(minutes=5)  # HA forgets a conversation after 5 idle minutes
NOT_CONNECTED = ("Home Assistant isn't connected yet. An administrator can connect it with voxd secrets set "
                 "HOME_ASSISTANT_URL and voxd secrets set HOME_ASSISTANT_TOKEN, a long-lived access token "
                 "from your Home Assistant profile.")
UNREACHABLE = "I can't reach Home Assistant right now."
TOKEN_REFUSED = "Home Assistant turned down voxd's access token. An administrator can set a new one with voxd secrets set HOME_ASSISTANT_TOKEN."
UNCLEAR_ANSWER = "Home Assistant gave me an answer I couldn't read."
NO_SPEECH = {"action_done": "Done.", "query_answer": "Home Assistant had nothing to say about that.",
             "error": "Home Assistant couldn't do that."}

DEVICES = (r"lights?|lamps?|bulbs?|heating|heater|radiators?|thermostat|temperature|boiler|furnace|fans?|ac|"
           r"air con\w*|blinds|curtains|shades|shutters|doors?|locks?|gate|garage|windows?|tv|telly|television|"
           r"music|speakers?|radio|kettle|coffee machine|plugs?|sockets?|(?:the|a|light|wall) switch|"
           r"switch(?=(?: \w+)*? (?:on|off)\b)|oven|dishwasher|washing machine|"
           r"dryer|vacuum|hoover|robot|sprinklers?|camera|fireplace|humidifier|dehumidifier|purifier|vents?|"
           r"christmas tree|leds?|fairy lights")
DEVICE = re.compile(rf"\b(?:{DEVICES})\b")
DEVICE_VERB = re.compile(r"\b(?:(?:turn|switch) (?:\w+ )*?(?:on|off)|dim|brighten|lock|unlock)\b")
# Not the home's devices: voxd's own voice ("switch to whisper mode", "a female voice"), a plug to
# take abroad (a plug is the home's when it is turned on or off), a car, a flight ("when is my
# flight landing"), a table booked, a bill to pay, "are you a robot", a song asked about ("what song is on the
# speaker"), a bank account or card ("switch the pin on my visa account"), a device bought or on its way
# ("i ordered new light bulbs, when will they get here").
NOT_THE_HOME = re.compile(r"\b(?:whisper|accent|voice|language|(?:plug|socket|outlet)s? (?:type|converter|adapter|"
                          r"adaptor)s?|(?:type|kind|sort) of (?:electrical )?(?:plug|socket|outlet)|converter|adapter|"
                          r"adaptor|voltage|engine|mechanic|tyres?|tires?|brakes?|oil change|flights?|plane|airport|"
                          r"airline|reservations?|reserve|table for|bills?|subscriptions?|payments?|you (?:are )?(?:a )?robot|"
                          r"or a robot|cars?|trucks?|vehicles?|automobiles?|(?:cell|mobile|smart) ?phones?|iphones?|"
                          r"android|(?:my|the|your) phones?|songs?|playlists?|(?:bank|savings|checking) accounts?|"
                          r"(?:my|the|your) accounts?|pin|(?:credit|debit|bank) cards?|deposits?|buy|buying|bought|purchas\w*|ordered|"
                          r"shipped|afford)\b")
# A temperature is the home's when it is set or changed, or is the house's own: "set the temperature to
# 70", "what is it in here"; "how hot is the sun" or "what temperature do i bake bread at" is not.
SETTING = re.compile(r"\b(?:set|setting|make|raise|lower|turn|put|increase|decrease|bump|change|keep|adjust|up|down)\b|"
                     r"\bto \d|\b(?:in here|inside|indoors|room|house|home|flat|apartment)\b")
# A plug or socket is the home's when it is turned on or off; else it is one to take abroad.
PLUG_ABROAD = re.compile(r"^(?!.*\b(?:on|off)\b).*\b(?:plugs?|sockets?)\b")
# A kind of device, not one named device: said in a room, it means that room's.
KIND_OF_DEVICE = re.compile(r"\b(?:lights?|lamps?|heating|heater|radiators?|thermostat|temperature|fans?|ac|"
                            r"air con\w*|blinds|curtains|shades|shutters|tv|telly|television|music|speakers?|radio)\b")
# The rooms inside a house (the weather hands warmth asked of one to this command: weather.py, INDOORS).
INDOOR_ROOMS = (r"kitchen|lounge|living room|bedroom|bathroom|hall|hallway|landing|office|study|den|dining room|"
                r"nursery|loft|attic|basement|cellar|conservatory")
ROOMS = rf"upstairs|downstairs|everywhere|whole house|garden|porch|utility|{INDOOR_ROOMS}"
ROOM = re.compile(rf"\b(?:{ROOMS})\b")
# A room of the home, said as one: "the kitchen", "in my office", "upstairs"; not a room word in
# another place's name ("olive garden", "the post office", "city hall") or a workplace ("at the office").
HOME_ROOM = re.compile(rf"\b(?:upstairs|downstairs|everywhere|whole house)\b|"
                       rf"(?<!\bat )\b(?:the|my|our|this|every|each|all) (?:{ROOMS})\b(?! of\b)")
# Where a request is for: a room's name, or any "in the ..." ("in the kids' room", "in Emma's room").
PLACE = re.compile(rf"\b(?:in (?:the |my |our )?\w+|all the|every|{ROOMS})\b")


class Rooms(Protocol):
    """The room of the node that heard a request (the command center's NodeDirectory)."""

    async def room_of(self, node_id: str, household_id: str) -> str | None: ...


class SmartHome(Command):
    name = "smart_home"
    topic = "the smart home"
    description = (
        "Control or ask about the home's devices through Home Assistant: lights, heating, locks, "
        "doors, blinds, plugs, music in a room."
    )
    examples = phrasebook("smart_home")
    parameters = (Parameter("request", "string", "the request about the devices, as the user said it"),)
    templates = (
        f"{ASKING} (turn|switch) (on|off) [the|my|all the] {{request}}",
        f"{ASKING} (turn|switch|put) [the|my|all the] {{request}} (on|off) [please]",
        "(is|are) [the|my] {request} (on|off|locked|unlocked|open|closed|shut) [right now]",
        f"{ASKING} (set|turn|put) the (heating|thermostat|temperature) (to|up to|down to) {{request:integer}} [degrees] [please]",
        f"{ASKING} dim the {{request}}",
        f"{ASKING} (lock|unlock) the {{request}}",
        f"{ASKING} (open|close) the {{request:choice(blinds|curtains|shades|shutters|garage door|garage|gate)}} [please]",
        f"{ASKING} play [some] music in the {{request}}",
    )
    rooms: Rooms | None = None  # set by the command center (nodes/rooms.py)

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """The whole request as said, when it speaks of a device or a room: "turn off the timer"
        or "is the chemist open in the village" is not Home Assistant's; a question about a state
        names a device ("is the town hall open" is about no room of the home)."""
        said = normalize_utterance(text)
        asks_a_state = said.startswith(("is ", "are "))
        if DEVICE.search(said) is None and (asks_a_state or HOME_ROOM.search(said) is None):
            return None
        return {"request": text.strip()}

    def declines(self, text: str) -> bool:
        """What is not the home's devices (`NOT_THE_HOME`), whatever device word it has."""
        said = normalize_utterance(text)
        return super().declines(text) or NOT_THE_HOME.search(said) is not None or PLUG_ABROAD.search(said) is not None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A device, a room or a device verb named: "turn the music up" is HA's, "make me a coffee" is no
        one's; a temperature only when it is set or the house's (`SETTING`): "how hot is the sun" is not."""
        said = normalize_utterance(text)
        if any(pattern.search(said) for pattern in (DEVICE_VERB, HOME_ROOM)):
            return True
        devices = {match.group(0) for match in DEVICE.finditer(said)}
        return bool(devices - {"temperature"}) or bool(devices) and SETTING.search(said) is not None

    async def execute(self, said: CommandRequest, request: str | None = None) -> CommandResponse:
        """`request` is the utterance as the model or a template took it; what is sent is what was said."""
        url, token = said.secrets.get(URL, "").strip(), said.secrets.get(TOKEN, "").strip()
        if not url or not token:
            return CommandResponse(NOT_CONNECTED, success=False)
        body: dict[str, Any] = {"text": await self.in_this_room(said),
                                "language": said.secrets.get(LANGUAGE) or "en"}
        kept = await said.storage.get(conversation_key(said))
        if kept and said.now - datetime.fromisoformat(kept["at"]) < CONVERSATION_KEPT:
            body["conversation_id"] = kept["id"]
        try:
            answer = await call_outside(said.http, "POST", url.rstrip("/") + PROCESS, MAX_ANSWER_BYTES, DEADLINE,
                                        json=body, headers={"Authorization": f"Bearer {token}"})
        except OutsideUnavailable as problem:
            return CommandResponse(UNCLEAR_ANSWER if problem.too_large else UNREACHABLE, success=False)
        if answer.status in (401, 403):
            return CommandResponse(TOKEN_REFUSED, success=False)
        if answer.status != 200:
            return CommandResponse(UNREACHABLE, success=False, data={"status": answer.status})
        spoken, kind, conversation_id = read_answer(answer.body)
        if conversation_id:
            await said.storage.put(conversation_key(said), {"id": conversation_id, "at": said.now.isoformat()})
        return CommandResponse(spoken, success=kind in ("action_done", "query_answer"),
                               data={"response_type": kind, "sent": body["text"]})

    async def in_this_room(self, request: CommandRequest) -> str:
        """The request, with the node's room added when it speaks of a kind of device and names no place."""
        text = request.text.strip()
        said = normalize_utterance(text)
        if self.rooms is None or not request.node_id or not KIND_OF_DEVICE.search(said) or PLACE.search(said):
            return text
        try:
            room = await self.rooms.room_of(request.node_id, request.household_id)
        except NodesUnknown:
            return text
        if not room or normalize_utterance(room) in said:
            return text
        return f"{text.rstrip('.?! ')} in the {room}"


def conversation_key(request: CommandRequest) -> str:
    return f"conversation:{request.conversation or request.node_id}"


def read_answer(body: bytes) -> tuple[str, str, str | None]:
    """HA's speech (plain, capped), its response_type and conversation_id; an answer of another
    shape is a sentence saying so."""
    try:
        answer = json.loads(body)
        response = answer["response"]
        kind = str(response.get("response_type", ""))
        speech = ((response.get("speech") or {}).get("plain") or {}).get("speech") or ""
        conversation_id = answer.get("conversation_id")
    except (ValueError, KeyError, TypeError, AttributeError):
        return UNCLEAR_ANSWER, "unreadable", None
    if kind not in NO_SPEECH:
        return UNCLEAR_ANSWER, "unreadable", None
    spoken = capped(plain_speech(str(speech))) or NO_SPEECH[kind]
    return spoken, kind, conversation_id if isinstance(conversation_id, str) else None


def capped(text: str) -> str:
    """At most MAX_SPOKEN characters, cut after a whole sentence (or word) where one ends."""
    if len(text) <= MAX_SPOKEN:
        return text
    cut = text[:MAX_SPOKEN]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    return cut[:end + 1] if end > 0 else cut.rsplit(" ", 1)[0] + "."


COMMANDS = [SmartHome]
