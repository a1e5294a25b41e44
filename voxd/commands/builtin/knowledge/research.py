"""`deep_research`: "look into heat pumps for me" answers at once and leaves a job for the command
center's research desk (voxd/commands/research/), which searches, reads the top pages, writes a short
report with numbered sources and files it in the asker's inbox with a push.

Before a job is stored the command checks what would make it fail for certain: no search instance
set up (it says which setting to set), the notifications service not answering (the result could not
be delivered), and an asker it does not know (a voice nobody enrolled: whose inbox would it go to? It
is not sent to someone else's, such as an administrator's, instead). In each case it says so and
starts nothing."""

from __future__ import annotations

import re
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import without_politeness
from voxd.commands.builtin.kitchen.lists import as_written
from voxd.commands.phrasebook import phrasebook
from voxd.commands.research.delivery import reachable
from voxd.commands.research.desk import ResearchDesk
from voxd.commands.research.jobs import SCOPE, Job, add_job
from voxd.language.items import is_placeholder
from voxd.language.templates import normalize_utterance

NO_SEARCH = ("I can't research things yet: an administrator needs to set VOXD_SEARCH_URL to the address "
             "of a SearXNG search server.")
UNKNOWN_ASKER = ("I don't know who's asking, so I don't know whose inbox to send it to. Ask me from the app, "
                 "or enrol your voice first.")
UNDELIVERABLE = ("Sorry, I can't reach the notifications service right now, so I couldn't deliver the "
                 "results. Please ask again later.")

LONGEST_TOPIC = 150  # characters: a topic is a title in the inbox and the push (at most 200 there)
ASKING = "[please] [can you|could you|would you|will you] [please]"
# The words that ask for research. A sentence without one is never claimed by a template or by the
# semantic stage (`declines`): the job reaches outside the house, so it must be asked for plainly.
RESEARCH_VERBS = (r"(?:research|investigate|look(?:ing)? into|read up on|dig into|find out|search (?:the web|"
                  r"online|the internet)|(?:web|online|internet) search|report (?:on|about))")
RESEARCH_WORDS = re.compile(rf"\b{RESEARCH_VERBS}\b")
# "find out" asks for research only about something, or how, why, whether: "find out what time it is" not.
FIND_OUT_MORE = re.compile(r"\bfind out (?:more )?(?:about|how|why|whether|if|which|the best|what the best|"
                           r"what is the best)\b")
LEAD_IN = re.compile(rf"^.*?\b(?:do (?:some|a bit of|a little) research|{RESEARCH_VERBS})(?: more)?"
                     r"(?: (?:about|on|into|for))?\s+")
# What another command does: "look into the pasta timer", "find out about the weather tomorrow".
OTHER_COMMANDS = re.compile(r"\b(?:timers?|shopping list|to ?do list|my recipes?|our recipes?|weather|forecast|"
                            r"how (?:to|do (?:i|you|we)) (?:make|cook|bake))\b")
# How things are at this moment: a report that arrives later is stale ("the current wait times at
# chili's right now", "how busy ihop is around 5 pm", "if rooms are free from 1 to 2"), and whether a
# place takes a booking is a question for the place; so are today's prices, tickets, flights and hotels
# and cars to book, and what is near the asker ("search online for pizza near me"); rates, scores,
# traffic and delays as they stand, and a country's visa rules and travel alerts (they change).
THE_PRESENT = re.compile(r"\b(?:right now|currently|current|at the moment|today|tonight|busy|wait(?:ing)? times?|"
                         r"open|free|available|reservations?|bookings?|prices?|deals?|on sale|for sale|in stock|"
                         r"tickets?|flights?|hotels?|near me|nearby|nearest|closest|exchange rates?|interest rates?|"
                         r"stocks?|share prices?|scores?|traffic|delayed|on time|visas?|passports?|"
                         r"travel (?:alerts?|advisor\w*)|car rentals?|rental cars?|rent a car)\b")


def asks_for_research(said: str) -> bool:
    """Whether the (normalized) utterance asks for research in so many words, about no other
    command's things."""
    verbs = {match.group(0) for match in RESEARCH_WORDS.finditer(said)}
    if not verbs or verbs == {"find out"} and not FIND_OUT_MORE.search(said):
        return False
    return not OTHER_COMMANDS.search(said)


def research_topic(words: str | None, text: str) -> str | None:
    """The topic as asked, without the words leading into it or the thanks after it; None when it
    names none ("look into it")."""
    said = words if words is not None else LEAD_IN.sub("", normalize_utterance(text), count=1)
    topic = re.sub(r"^(?:(?:more )?about|on|into) ", "", without_politeness(said.strip()) or "").strip(" ,.?!")
    return None if not topic or is_placeholder(topic) or topic in ("it", "that", "this") else topic

# A quick question of fact asked as research ("find out how many people live in china", "research who
# won the world cup"): answered at once, with a model, by answer_question; a report days later is no
# answer to it. What is best, how to and why are research.
QUICK_QUESTION = re.compile(r"^(?:who|when|where|what(?! (?:is |are )?the best)|how (?:many|much|old|tall|far|long|"
                            r"big|fast|often|high|deep|large|heavy|hot|cold))\b")
# The asker's own things in a topic: "my account", "our booking", "i applied", "i owe"; and what only
# the asker's bank, employer or card issuer knows, said without "my" ("options to order more checks",
# "how to cash out card points"): no web page holds it. Banks, cards and jobs as such stay research
# topics ("research the best credit cards for travel").
OWN_AFFAIRS = re.compile(r"\b(?:my|our|mine|ours)\b|\b(?:i|we) (?!(?:want|would|need|wonder)\b)\w+|"
                         r"\b(?:card points|rewards? points|checks|cheques|checkbook|credit (?:score|limit|rating)|"
                         r"routing number|pin|direct deposit|paycheck|payday)\b")
# What words mean, and how they are spelt or said in another language: a quick answer, not a report.
WORDS_ASKED = re.compile(r"\b(?:meaning of|definition of|defin(?:e|es|ed)|synonyms?|antonyms?|rhymes? with|"
                         r"spell(?:ed|t|ing)?|translat\w*|in (?:french|spanish|german|italian|chinese|japanese))\b")

# The kinds of topic a report days later answers for nobody (`declines`).
NO_REPORT_ANSWERS = (OWN_AFFAIRS, THE_PRESENT, QUICK_QUESTION, WORDS_ASKED)

class DeepResearch(Command):
    name = "deep_research"
    topic = "research"
    storage_scope = SCOPE
    description = (
        "Research a topic on the web in the background and send a short report with its sources to the "
        "asker's inbox ('look into heat pumps for me'). Not for quick questions that can be answered at once."
    )
    parameters = (Parameter("topic", "string", "what to research, in the user's words", required=True),)
    templates = (
        f"{ASKING} (research|investigate|look into|read up on|dig into) {{topic}}",
        f"{ASKING} do [some|a bit of|a little] research (on|into|about) {{topic}}",
        f"{ASKING} find out {{topic}}",
        f"{ASKING} (search|look) (the web|online|the internet) for {{topic}}",
        "i (want|would like|need) you to (research|look into|find out about|read up on) {topic}",
        f"{ASKING} (give|get|write|send) me a [short] report (on|about) {{topic}}",
    )
    examples = phrasebook("deep_research")
    # Set by the command center when it opens its research desk; None elsewhere (then the command
    # answers as if no search instance were set up).
    desk: ResearchDesk | None = None

    def declines(self, text: str) -> bool:
        """Not asked as research, or about the asker's own affairs ("find out why my card was
        declined", "look into the status of my application"), which no web search can know, or about
        how things are now (`THE_PRESENT`), which a report that comes later cannot tell, or a quick
        question of fact (`QUICK_QUESTION`), which is no research."""
        said = normalize_utterance(text)
        if super().declines(text) or not asks_for_research(said):
            return True
        topic = research_topic(None, text)
        return topic is not None and any(pattern.search(topic) for pattern in NO_REPORT_ANSWERS)

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """The topic as written; without one ("look into it") it is asked for."""
        topic = research_topic(arguments.get("topic"), text)
        return {} if topic is None else {"topic": as_written(topic, text).strip(" ,.?!")}

    async def execute(self, request: CommandRequest, topic: str) -> CommandResponse:
        topic = research_topic(topic, topic) or topic
        if len(topic) > LONGEST_TOPIC:  # a model's paraphrase of a long question
            topic = topic[:LONGEST_TOPIC].rsplit(" ", 1)[0]
        desk = self.desk
        if desk is None or not desk.settings.search_url:
            return CommandResponse(NO_SEARCH, success=False, data={"error": "no_search_url"})
        if not await reachable(request.services):
            return CommandResponse(UNDELIVERABLE, success=False, data={"error": "notifications_unavailable"})
        if request.speaker is None:
            return CommandResponse(UNKNOWN_ASKER, success=False, data={"error": "unknown_asker"})
        job = Job.new(topic, request.speaker.user_id, request.now)
        await add_job(request.storage, job)
        desk.wake()
        return CommandResponse(f"I'll look into {topic} and send it to your inbox.",
                               data={"job_id": job.id, "topic": topic})


COMMANDS = [DeepResearch]
