"""`shopping_list` and `todo_list`: household lists that anyone in the house adds to and reads.

Both keep the same shape of document, so one class does the work and each list only says its name;
the items themselves are read and changed through `list_items.ListItems`, which the command center's
list routes share, so voice and HTTP see one list.
Templates always name the list, so "add a reminder" or "add this song to my playlist" never land here.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import sentence_case, spoken_list
from voxd.commands.builtin.kitchen.list_items import Added, ListItems, Removed, item_key
from voxd.commands.phrasebook import phrasebook
from voxd.language.items import is_every_item, is_placeholder, split_items, words_of
from voxd.language.scanners import clauses, scan_item_phrase
from voxd.language.tasks import task_said_done
from voxd.language.templates import normalize_utterance

ACTIONS = ("add", "remove", "read", "clear")
# Buying for delivery, which voxd has no command for: "order more bin bags from amazon", "get it delivered".
ORDERING = re.compile(r"\b(?:order|reorder)\b|\b(?:online|amazon|delivered)\b")
NAMES_A_LIST = re.compile(r"\blist\b")
# Wanting the whole list bought ("i need everything on my shopping list", "i want all the things on the
# shopping list"): an order of all of it, which is no change to the list and no reading of it.
ALL_OF_IT_WANTED = re.compile(r"\b(?:i|we) (?:need|want|would like) (?:to (?:buy|get|order) )?(?:everything|all (?:of )?"
                              r"(?:the )?(?:things|items|stuff))\b")
# Not the household's lists: sights of a place ("things to do in orlando"), or, with no list named, a
# swap in a recipe ("i need to sub sugar for salt").
SIGHTS = re.compile(r"\b(?:things|stuff|places?)(?: (?:are|is) there)? to (?:do|see|visit) (?:in|around|near) (?!the |my |our )\w+")
SWAP = re.compile(r"\b(?:swap|sub|substitute|substitution|instead of|in place of)\b")
LIST_WORDS = re.compile(r"\b(?:lists?|tasks?|to ?dos?|chores|shopping|shops?|groceries|grocery|errands)\b")
# "list" as a verb names no list: "list all recent transactions", "can you list off different restaurants".
LIST_AS_VERB = re.compile(r"\blist (?=(?:off|out|all|every|each|some|different|the|my|me|them|any)\b)")
# A thing to buy is no deed: with no list named, a shopping item that starts with one of these verbs
# ("i need to transfer my 401k", "i need to know your name", "help me get an uber") was not an item.
DEED = re.compile(r"^(?:know|make|talk|speak|locate|find|wait|say|pay|go|see|tell|ask|cancel|schedule|send|move|do|"
                  r"be|have|learn|understand|hear|listen|turn|switch|give|let|reset|update|freeze|unfreeze|reserve|"
                  r"apply|request|use|leave|visit|travel|fly|drive|meet|contact|figure|search|read|write|remember|"
                  r"forget|start|stop|open|close|share|sleep|transfer|report|book|change|call|check|get|take|put)\b")
# Which list a sentence names, for the semantic stage's choice between the two (`hands_to`): tasks
# and chores are the to-do list's; shopping, the shop, buying, running out, and "the list" alone
# (the household's shopping list, as in the templates) are the shopping list's. Checked against
# every in-domain list sentence of CLINC train and val, the phrasebook and the issue-13 dev rows:
# none names only the other list.
# A reminder asked for ("add a reminder to pick milk up at the store", "remind me to call the vet"):
# set_reminder's when no list is named (LIST_WORDS). Of the 871 in-domain list sentences above, one
# ("if you could remind me about doing laundry") is handed over; 112 of CLINC's and the dev rows'
# reminders are of this shape.
REMINDER_ASKED = re.compile(r"\b(?:(?:add|set|create|make|put|schedule|need|want|new)(?: me)? (?:a |another |one more )?"
                            r"reminders?|remind me)\b")
# What voxd can do asked after, not a list read: "what tasks can you complete for me", "what are my list
# of commands" (CLINC what_can_i_ask_you; no other sentence of CLINC train or val or the dev rows matches).
ABILITIES_ASKED = re.compile(r"^(?:what|which) (?:\w+ ){0,3}(?:can|could|will) you (?:do|complete|perform|handle|"
                             r"help(?: me)?(?: with)?|carry out|take care of)\b|\b(?:list of|your|what) commands\b")
TASKS_NAMED = re.compile(r"\b(?:to ?dos?|tasks?|chores?|jobs?|errands?|housework|agenda)\b")
SHOPPING_NAMED = re.compile(r"\b(?:shopping|grocery|groceries|shops?|store|supermarket|buy|out of|"
                            r"run(?:ning)? (?:low|out)|ran out|(?:have|got) no|the list)\b")
# A reason said after the list that goes on to more changes ("... we're out, and add milk too"):
# the template that read it as a reason gives it up to the stages that read the whole sentence.
MORE_CHANGES = re.compile(r"\b(?:and|also|plus|add|put|remove|take|then)\b")
# Words that say the whole list is meant: "delete everything on the list", "clear the shopping list
# we've done the big shop" clear it, while "delete the milk from the list" (items named after a verb
# that also clears) removes the milk. A verb of taking off said of the list itself ("get rid of the
# to do list", "remove the shopping list") clears it too.
LIST_ITSELF = re.compile(r"\b(?:clear|empty|wipe|delete|erase|scrap|remove|get rid of)(?: out)? (?:the |my |our )?"
                         r"(?:household |family )?(?:(?:shopping|grocery|groceries|to do|todo|task|tasks) )?list\b(?! items?\b)")
# Removing the list itself, said alone or with why: not "remove the shopping list reminder".
LIST_ITSELF_ALONE = re.compile(LIST_ITSELF.pattern + r"(?: (?:please|now|thanks|thank you|we|i|because|cos|since)\b.*)?$")
WHOLE_LIST = re.compile(r"\b(?:whole|entire|everything|all (?:of )?(?:it|the items|the things))\b|" + LIST_ITSELF.pattern)


def as_written(phrase: str, original: str) -> str:
    """`phrase`, a template slot's normalised words, as the utterance wrote them: the commas that
    separate items ('milk, eggs and bread') and apostrophes ("children's") come back. An "and" that
    joined items the utterance separated with a comma (clauses read together by the scanners:
    "plantain and maggi cubes" for "plantain, Maggi cubes") is not looked for."""
    words = [word for word in phrase.split() if word != "and"]
    tokens = [(token, [word for word in normalize_utterance(token).split() if word != "and"])
              for token in original.split()]
    for start in range(len(tokens)):
        if not tokens[start][1]:
            continue
        taken: list[str] = []
        said: list[str] = []
        for token, normal in tokens[start:]:
            taken.append(token)
            said += normal
            if said == words:
                return " ".join(taken).strip(" ,;:.!?")
            if said != words[: len(said)]:
                break
    return phrase


def join_known(items: list[str], known: set[str]) -> list[str]:
    """Parts that the splitter cut at "and" joined again where the list knows the whole as one
    item: ['mac', 'cheese', 'milk'] with 'mac and cheese' known -> ['mac and cheese', 'milk'].
    `known` holds item_keys; the longest known run wins."""
    joined: list[str] = []
    start = 0
    while start < len(items):
        end = next((end for end in range(len(items), start + 1, -1)
                    if item_key(" and ".join(items[start:end])) in known), start + 1)
        joined.append(" and ".join(items[start:end]))
        start = end
    return joined


_SMALL_WORDS = {"the", "a", "an", "my", "our", "your", "of", "for", "to", "some"}


def content(item: str) -> set[str]:
    """An item's words that name it, plural or not: 'the gas bills' -> {'gas', 'bill'}."""
    return {word.removesuffix("s") for word in words_of(item) if word not in _SMALL_WORDS}


def as_stored(items: list[str], stored: list[str]) -> list[str]:
    """Each item to remove as the list holds it: itself when the list has it, else the one entry
    whose words hold all of its words ("science project" -> "finish my science project": people
    tick off a task by its object); as said when none or several do, so the answer says it is not
    on the list rather than removing a guess."""
    keys = {item_key(entry) for entry in stored}
    named = []
    for item in items:
        holding = [entry for entry in stored if content(item) and content(item) <= content(entry)]
        named.append(holding[0] if item_key(item) not in keys and len(holding) == 1 else item)
    return named


# Verbs of putting things on a list, and of taking them off, as the templates' choice slots say them.
ADDING_VERBS = "add|put|pop|stick|chuck|bung|throw|toss"
REMOVING_VERBS = "remove|delete|take|cross|scratch|strike|cross off|take off|scratch off|tick off|get rid of"


def list_templates(noun: str, also: str = "", carrying: str = "") -> tuple[str, ...]:
    """The same sentences for every list; `noun` is a template part naming the list, `also` other
    ways to point at it ("|the list"), `carrying` names said only of a list that things go on or
    come off ("|the messages": "add tattie scones to the messages", never "read the messages"). The
    verbs of the choice slots are also what the semantic stage reads an action from
    (voxd.commands.scanning): "scratch butter off the list" removes, "pop some courgettes on the list" adds."""
    the_list = f"([my|the|our] [household|family] {noun}{also})"
    carried = f"([my|the|our] [household|family] {noun}{also}{carrying})"
    asking = "[please|kindly] [(can|could|would|will) you|(i|we) (need|want|would like) to] [please|kindly]"
    # After the list, thanks, or why the change is wanted: "remove dog food from the shopping list
    # we've got loads in the garage" (the reason is no item: the list's name has ended them).
    thanks = "[please|thank you [kindly]|thanks|(because|cause|cos|since|(we|i) (have|had|are|am|do not|did not)) {reason}]"
    adding, removing = f"{{action:choice(add={ADDING_VERBS})}}", f"{{action:choice(remove={REMOVING_VERBS})}}"
    return (
        f"{asking} {adding} {{items}} (to|on|onto|in|into) {carried} {thanks}",
        # The list named first, as a heading: "to do list, add change the air filter".
        f"{the_list} [and] {{action:choice(add=add)}} {{items}}",
        f"{asking} {removing} {{items}} (from|off) [of] {carried} {thanks}",
        # Things taken off where they are: "delete the eggs on the shopping list", "get rid of
        # everything on the to do list" (every item: it is cleared).
        f"{asking} {removing} {{items}} (on|in) {carried} {thanks}",
        # Nothing named: "add to the shopping list please" asks what.
        f"{asking} {adding} (to|on|onto) {the_list} {thanks}",
        f"{asking} {removing} (from|off) [of] {the_list} {thanks}",
        f"[please] {{action:choice(remove=mark|tick)}} {{items}} as (done|finished|complete) "
        f"(on|in|from) {the_list}",
        # The items said first, then a pointer: "we're out of butter, put it on the shopping list".
        f"{{named}} {adding} (it|them|that|those) (to|on|onto) {carried} [please]",
        f"{{named}} {{action:choice(remove=remove|take|cross|scratch|tick)}} (it|them|that|those) off [of] {carried}",
        f"{asking} {{action:choice(clear=clear|clear out|empty|wipe|delete|erase|scrap|throw away|throw out)}} [the whole] {the_list} {thanks}",
        f"[please] {{action:choice(clear=start a new|start a fresh|start a clean)}} {noun} [please]",
        f"what is (on|in) {the_list}",
        f"[please] (read|show|tell) [me] {the_list} [please]",
        f"what do (i|we) have on {the_list}",
    )


# A household list named as where the task goes: "remind me to mop later by putting it on my to do
# list" is the list's (none of CLINC's reminder_update sentences, nor the dev rows', names one).
ON_A_LIST = re.compile(r"\b(?:on|to|onto|in|into) (?:my|the|our) (?:current |daily |weekly )?(?:(?P<shopping>shopping|"
                       r"grocery|groceries)|to do|todo|tasks?|chores?) list\b"
                       r"|\b(?:on|to|onto|in|into) (?:my|the|our|a) list of (?:things to do|chores|tasks|housework|jobs)\b")


def on_a_list(said: str) -> str | None:
    """The list command a task put on a named household list is for (ON_A_LIST), else None."""
    listed = ON_A_LIST.search(said)
    return None if listed is None else "shopping_list" if listed["shopping"] else "todo_list"


class HouseholdList(Command):
    """Subclasses give `name`, `description`, `templates` and the words for the list."""

    spoken_name: ClassVar[str]
    tasks: ClassVar[bool] = False  # items are tasks, ticked off by saying what was done
    named: ClassVar[re.Pattern[str]]  # words that name this list (TASKS_NAMED, SHOPPING_NAMED)
    sibling: ClassVar[str]  # the other list, and the words that name it
    sibling_named: ClassVar[re.Pattern[str]]
    topic = "lists"
    destructive = True  # clearing the whole list: asked about first (confirmation)
    parameters = (
        Parameter("action", "enum", "action: add or remove items, read the list, or clear it",
                  required=True, choices=ACTIONS),
        Parameter("items", "string", "items to add or remove, one per entry ('milk and eggs' is two)",
                  many=True),
    )

    def declines(self, text: str) -> bool:
        """Ordering for delivery ("order more bin bags from amazon") is no list's, unless a list is
        named ("put printer ink to order on the to-do list"), nor the whole list wanted (`ALL_OF_IT_WANTED`);
        nor sights or a recipe's swap (`SIGHTS`, `SWAP`)."""
        said = normalize_utterance(text)
        return (super().declines(text) or (ORDERING.search(said) is not None and not NAMES_A_LIST.search(said))
                or ALL_OF_IT_WANTED.search(said) is not None
                or SIGHTS.search(said) is not None or (SWAP.search(said) is not None and not LIST_WORDS.search(said)))

    def hands_to(self, text: str) -> str | None:
        """The help when voxd's abilities are asked after (ABILITIES_ASKED); a reminder when one is
        asked for and no list named (REMINDER_ASKED); the other list when the sentence names it and
        not this one: the two lists' examples share their verbs ("put ... on my list"), so "i'm out
        of cleaning supplies, remind me on my list" was nearest the to-do list's. A list named as
        where the task goes (`on_a_list`) wins over an item's words ("add grocery shopping to my list
        of things to do")."""
        said = normalize_utterance(text)
        if ABILITIES_ASKED.search(said):
            return "help"
        if REMINDER_ASKED.search(said) and not LIST_WORDS.search(said):
            return "set_reminder"
        if (listed := on_a_list(said)) is not None:  # the list named as where it goes: "to my list of things to do"
            return None if listed == self.name else listed
        return self.sibling if self.sibling_named.search(said) and not self.named.search(said) else None

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        if arguments.get("reason") and MORE_CHANGES.search(arguments["reason"]):
            return None
        # Items said before a pointer ("we're out of butter, put it on the list") are read from
        # the words `named` holds, as the semantic stage reads them; none there: not claimed.
        if arguments.get("named"):
            arguments = {**arguments, "named": None, "items": self.items_named(arguments["named"])}
            if not arguments["items"]:
                return None
        elif arguments.get("action") == "remove" and not arguments.get("items") and self.tasks:
            arguments = {**arguments, "items": next(filter(None, map(task_said_done, clauses(text))), None)}
        said = split_items(as_written(arguments["items"], text)) if arguments.get("items") else []
        # Words that stand for items not yet said ("add a task to the to-do list") are asked for.
        items = [item for item in said if not is_placeholder(item) and not is_every_item(item)]
        # No verb: items named alone are to be added ("we need dish soap"), else the list is read
        # ("the things on the shopping list").
        refined: dict[str, Any] = {"action": arguments.get("action") or ("add" if items else "read")}
        if said:
            if refined["action"] in ("remove", "clear") and all(map(is_every_item, said)):
                return {"action": "clear"}  # "take everything off the shopping list"
            if refined["action"] == "remove" and LIST_ITSELF_ALONE.search(normalize_utterance(text)):
                return {"action": "clear"}
            if refined["action"] == "clear" and items and WHOLE_LIST.search(normalize_utterance(text)):
                items = []  # "delete everything on the list", "clear out the whole list, I got back"
            if refined["action"] == "clear" and items:
                refined["action"] = "remove"
            if items:
                refined["items"] = items
        return refined

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A list named (or its things: tasks, the shopping) or an item read: "erase all" or "clear
        my calendar" names neither, nor does "list" as a verb ("list my meetings for today"); on the
        shopping list a deed (`DEED`: "i need to transfer my 401k") is no item."""
        if LIST_WORDS.search(LIST_AS_VERB.sub("", normalize_utterance(text))) is not None:
            return True
        return any(self.tasks or DEED.match(normalize_utterance(item)) is None for item in arguments.get("items") or ())

    def items_named(self, said: str) -> str | None:
        """The items in words said before a pointer; on a list of tasks also a task said done
        ("I've paid the gas bill, tick it off": "pay the gas bill")."""
        return scan_item_phrase(said) or (task_said_done(said) if self.tasks else None)

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        """Clearing the whole list is asked about; adding, removing named items and reading are not."""
        return f"Do you want me to clear the whole {self.spoken_name}?" if arguments.get("action") == "clear" else None

    def items_of(self, request: CommandRequest) -> ListItems:
        return ListItems(request.storage, self.name)

    async def execute(self, request: CommandRequest, action: str, items: list[str] | None = None) -> CommandResponse:
        the_list = self.items_of(request)
        items = [item.strip() for item in items or [] if item.strip()]
        items = join_known(items, await the_list.known())
        if action in ("add", "remove") and not items:
            return CommandResponse(f"What should I {action}?", wait_for_input=True)
        if action == "add":
            return self.said_added(await the_list.add(items, request.now, request.speaker.name if request.speaker else None))
        if action == "remove":
            stored = [item.text for item in await the_list.items()]
            return self.said_removed(await the_list.remove(as_stored(items, stored)))
        if action == "clear":
            had_items = await the_list.clear()
            said = f"Cleared your {self.spoken_name}." if had_items else f"Your {self.spoken_name} was already empty."
            return CommandResponse(said, data={"items": []})
        names = [item.text for item in await the_list.items()]
        if not names:
            return CommandResponse(f"Your {self.spoken_name} is empty.", data={"items": []})
        return CommandResponse(f"Your {self.spoken_name} has {spoken_list(names)}.", data={"items": names})

    def said_added(self, outcome: Added) -> CommandResponse:
        added, already = outcome.added, outcome.already_there
        sentences = []
        if added:
            sentences.append(f"Added {spoken_list(added)} to your {self.spoken_name}.")
        if already:
            verb = "is" if len(already) == 1 else "are"
            sentences.append(f"{sentence_case(spoken_list(already))} {verb} already on it." if added else
                             f"{sentence_case(spoken_list(already))} {verb} already on your {self.spoken_name}.")
        return CommandResponse(" ".join(sentences), data={"added": added, "already_there": already,
                                                          "items": [item.text for item in outcome.items]})

    def said_removed(self, outcome: Removed) -> CommandResponse:
        removed, missing = outcome.removed, outcome.not_found
        sentences = []
        if removed:
            sentences.append(f"Removed {spoken_list(removed)} from your {self.spoken_name}.")
        if missing:
            verb = "isn't" if len(missing) == 1 else "aren't"
            sentences.append(f"{sentence_case(spoken_list(missing))} {verb} on your {self.spoken_name}.")
        return CommandResponse(" ".join(sentences), success=bool(removed),
                               data={"removed": removed, "not_found": missing,
                                     "items": [item.text for item in outcome.items]})


class ShoppingList(HouseholdList):
    name = "shopping_list"
    spoken_name = "shopping list"
    description = (
        "The household shopping list: add items, remove items, read it out, or clear it. "
        "Not for reminders at a time ('remind me to buy milk tomorrow') or playlists."
    )
    examples = phrasebook("shopping_list")
    named, sibling, sibling_named = SHOPPING_NAMED, "todo_list", TASKS_NAMED
    # "The list" alone is the shopping list (bench/corpus/README.md: what a kitchen means by it; the
    # to-do list is always named), British speakers add things "to the shopping", and Scots put them
    # "on the messages" (only where things go on or come off: "read the messages" is not the list).
    templates = list_templates("(shopping|grocery|groceries) list", also="|[my|the|our] (shopping|groceries)|the list",
                               carrying="|the messages")


class TodoList(HouseholdList):
    name = "todo_list"
    spoken_name = "to-do list"
    tasks = True
    description = (
        "The household to-do list of tasks: add tasks, remove finished ones, read it out, or clear it. "
        "Not for reminders at a time; not for the shopping list."
    )
    examples = phrasebook("todo_list")
    named, sibling, sibling_named = TASKS_NAMED, "shopping_list", SHOPPING_NAMED
    # A task marked done needs no list named: only tasks are done ("mark pay the gas bill as done").
    # Terse, the list named without "list" as a heading: "todo add renew car insurance".
    templates = list_templates("(to do|todo|task|tasks) list") + (
        "(to do|todo) {action:choice(add=add)} {items}",
        "[please] {action:choice(remove=mark|tick)} {items} as (done|finished|complete|completed)",
    )


COMMANDS = [ShoppingList, TodoList]
