"""The recipe commands (issue 14 §5): `find_recipe`, `read_recipe`, `whats_for_dinner` and
`add_recipe_to_shopping_list`, over the recipes service's API (recipe_book.py).

Reading a recipe is a conversation: the ingredients first, then one step per turn. Each answer
asks the node to listen again (`wait_for_input`), so "next step", "repeat that" or "previous
step" follow without the wake word; they are templates of `read_recipe`, so they also work with
the wake word long after. Where the reading is is kept per node in the command's storage.
"""

from __future__ import annotations

import re
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import plural, spoken_day, spoken_list
from voxd.commands.builtin.kitchen.list_items import ListItems
from voxd.commands.builtin.kitchen.recipe_book import UNREACHABLE, RecipeBook, RecipesUnreachable
from voxd.commands.phrasebook import phrasebook

STEPS = ("ingredients", "next", "repeat", "previous")
SHOPPING_LIST = "shopping_list"  # the shopping list command's documents, shared (storage_scope)
SAID_TITLES = 3  # recipes named aloud when a search finds more




def dish(words: str) -> str:
    """'the lasagne recipe' -> 'lasagne': what a template's text slot caught, as a search."""
    words = re.sub(r"^(?:the|a|an|our|my)\s+", "", words.strip(), flags=re.IGNORECASE)
    return re.sub(r"\s+(?:recipe|recipes)$", "", words, flags=re.IGNORECASE)


# ... or a way to make a dish: "how do you cook meatloaf", "the best way to roast a chicken".
RECIPE_WORD = re.compile(r"\b(?:recipes?|make|making|bake|baking|instructions)\b"
                         r"|\b(?:how (?:do|would|should|can) (?:i|you|we)|way to|procedure to) (?:cook|fry|roast|grill|prepare|create)\b")
# What a recipe is made of, not how: nutrition facts are a question for the model (or no one).
NUTRITION = re.compile(r"\b(?:nutri\w*|calories?|how much (?:fat|protein|sugar|salt|sodium)|"
                       r"grams of (?:fat|protein|sugar|carbs))\b")
# What voxd itself said, or how a word is spelt: "what was that last thing you said", "spell dessert".
# Words of reading a recipe: a dish's, its steps, going on or back. A sentence with none ("what's the
# most popular cuisine in the world") reads no recipe.
READING_WORDS = re.compile(r"\b(?:recipes?|steps?|next|again|repeat|back|before|previous|last|first|ingredients?|"
                           r"method|instructions?|read|make|making|cook\w*|bake|baking|roast\w*|start|begin|go on|"
                           r"keep going|continue|carry on|then|after that|now|how|directions?|goes in|one more time)\b")
# A recipe's shopping asked for: its ingredients or all a dish needs ("the stuff for the risotto", "we're
# making lasagne"). Items alone ("make sure walnuts are on my shopping list") are the list's.
FOR_A_DISH = re.compile(r"\b(?:recipes?|ingredients?|everything|all (?:of )?it|it all|stuff|things|bits|whatever|needs|"
                        r"needed|what (?:i|we|you) (?:will |would |)?need|making|make(?! sure)|cook\w*|doing|shop(?:ping)? for)\b")
VOXDS_OWN_WORDS = re.compile(r"\b(?:spell\w*|you said|you just said|(?:last|your) (?:response|answer))\b")


class RecipeCommand(Command):
    """A failure to reach the recipes service is one sentence, whatever the command. A dish named
    by a template, a follow-up answer ("the lasagne") or a model is searched for as `dish` words."""

    topic = "recipes"

    def declines(self, text: str) -> bool:
        """Nutrition facts ("the nutrition info of a mcdouble") are no recipe's."""
        return super().declines(text) or NUTRITION.search(text.lower()) is not None

    async def execute(self, request: CommandRequest, **arguments: Any) -> CommandResponse:
        arguments = {name: dish(value) if name in ("title", "query") and isinstance(value, str) else value
                     for name, value in arguments.items()}
        try:
            return await self.run(request, RecipeBook(request), **arguments)
        except RecipesUnreachable:
            return CommandResponse(UNREACHABLE, success=False, data={"error": "recipes_unavailable"})

    async def run(self, request: CommandRequest, book: RecipeBook, **arguments: Any) -> CommandResponse:
        raise NotImplementedError


class FindRecipe(RecipeCommand):
    name = "find_recipe"
    description = "Look for a recipe in the household's recipe collection by dish, ingredient or tag."
    # Asked for when missing: "I need to know the dish, ingredient or tag to look for."
    parameters = (Parameter("query", "string", "dish, ingredient or tag to look for", required=True),)
    templates = (
        "(do|have) we (have|got) [a|any] (recipe|recipes) (for|with) {query}",
        "is there a recipe (for|with) {query}",
        "(find|search for|look for) [a|any] (recipe|recipes) (for|with) {query}",
        "(find|search for|look for) [a|any|the] {query} (recipe|recipes)",
    )
    examples = phrasebook("find_recipe")

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A semantic claim needs a dish to look for, the word recipe or a way to make something
        ("how do you make dumplings"): a cooking question with none ("can i use ketchup instead of mustard", "how many calories are in a donut") is
        not a search of the household's recipes."""
        return bool(arguments.get("query")) or RECIPE_WORD.search(text.lower()) is not None

    async def run(self, request: CommandRequest, book: RecipeBook, query: str) -> CommandResponse:
        found = await book.search(query)
        titles = [recipe["title"] for recipe in found]
        data = {"recipes": [{"id": recipe["id"], "title": recipe["title"]} for recipe in found]}
        if not titles:
            return CommandResponse(f"I couldn't find a recipe for {query}.", success=False, data=data)
        if len(titles) == 1:
            return CommandResponse(f"Yes, there's {titles[0]}.", data=data)
        named = titles[:SAID_TITLES]
        more = len(titles) - len(named)
        tail = f" and {more} more" if more else ""
        return CommandResponse(f"I found {len(titles)} recipes for {query}: {spoken_list(named)}{tail}.", data=data)


class ReadRecipe(RecipeCommand):
    name = "read_recipe"
    description = (
        "Read a recipe aloud: its ingredients, then one step at a time (next step, repeat that, "
        "previous step). Without a title, tonight's dinner from the meal plan."
    )
    parameters = (
        Parameter("title", "string", "the recipe's title or dish"),
        Parameter("step", "enum", "while reading: next step, repeat the step, previous step, or the ingredients",
                  choices=STEPS),
    )
    templates = (
        "[please] read [me] the recipe (for|of) {title}",
        "[please] read [me] the {title} recipe",
        "[please] read [me] [the] recipe",
        "[please] [read] [me] [the] {step:choice(next=next)} step [please]",
        "what is the {step:choice(next=next)} step",
        "{step:choice(repeat=repeat)} (the step|that step|the last step) [please]",  # "repeat that": repeat's
        "[go] [back] [to] [the] {step:choice(previous=previous)} step",
        "[please] (read|tell) [me] the {step:choice(ingredients=ingredients)} [again] [please]",
    )
    examples = phrasebook("read_recipe")

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A semantic claim needs a title read or a word of reading a recipe (`READING_WORDS`); one
        about voxd's own words or a spelling (`VOXDS_OWN_WORDS`) is no recipe to read."""
        said = text.lower()
        return ((bool(arguments.get("title")) or READING_WORDS.search(said) is not None)
                and VOXDS_OWN_WORDS.search(said) is None)

    def reading_key(self, request: CommandRequest) -> str:
        """Each node, and each user reading from a phone, is at its own step."""
        return f"reading:{request.conversation or request.node_id}"

    async def run(self, request: CommandRequest, book: RecipeBook, title: str | None = None,
                  step: str | None = None) -> CommandResponse:
        if step is not None:
            reading = await request.storage.get(self.reading_key(request))
            if reading is None:
                return CommandResponse("I'm not reading a recipe right now. Say read me the recipe for, and its name.",
                                       success=False)
            if title:  # an answer no template knew, filling the title after a step: not a recipe name
                return CommandResponse("Say next step, repeat that, or previous step.", wait_for_input=True)
            recipe = await book.recipe(reading["recipe_id"])
            if recipe is None:
                await request.storage.delete(self.reading_key(request))
                return CommandResponse("That recipe isn't there any more.", success=False)
            return await self.navigate(request, recipe, reading["step"], step)
        if not title:
            planned = await book.planned(request.now.date(), "dinner")
            if planned is None:
                return CommandResponse("Which recipe should I read?", wait_for_input=True)
            title = planned["title"] or ""
            recipe = await book.recipe(planned["recipe_id"])
        else:
            recipe = await book.find(title)
        if recipe is None:
            return CommandResponse(f"I couldn't find a recipe for {title}.", success=False)
        return await self.navigate(request, recipe, -1, "ingredients")

    async def navigate(self, request: CommandRequest, recipe: dict[str, Any], at: int, step: str) -> CommandResponse:
        """Say the ingredients (position -1) or a step, and remember where the reading is: moved
        from where it is stored now, in one atomic change, so "next step" said twice is two steps."""
        steps: list[str] = recipe.get("steps") or []

        def move(reading: Any) -> tuple[dict[str, Any] | None, int]:
            here = reading["step"] if reading and reading.get("recipe_id") == recipe["id"] else at
            position = {"ingredients": -1, "next": here + 1, "repeat": here, "previous": max(here - 1, -1)}[step]
            return (None if position >= len(steps) else {"recipe_id": recipe["id"], "step": position}), position

        position = await request.storage.update(self.reading_key(request), move)
        data = {"recipe_id": recipe["id"], "title": recipe["title"], "step": position + 1, "steps": len(steps)}
        if position >= len(steps):
            return CommandResponse(f"That was the last step of {recipe['title']}. Enjoy!", data=data)
        if position < 0:
            lines = [ingredient["text"] for ingredient in recipe.get("ingredients") or []]
            said = f"{recipe['title']}. You need {spoken_list(lines)}." if lines else f"{recipe['title']}."
            follow = f" It has {len(steps)} {plural(len(steps), 'step')}. Say next step when you're ready." if steps else ""
            return CommandResponse(said + follow, data=data, wait_for_input=bool(steps))
        last = position == len(steps) - 1
        section = next((part["name"] for part in recipe.get("sections") or [] if part["start"] == position), None)
        said = f"{section.rstrip('.')}. " if section else ""
        said += f"Step {position + 1} of {len(steps)}: {steps[position]}"
        ending = " That's the last step." if last else ""
        return CommandResponse(said.rstrip() + ending, data=data, wait_for_input=True)


class WhatsForDinner(RecipeCommand):
    name = "whats_for_dinner"
    description = "Say what the household's meal plan has for dinner today or on another day."
    parameters = (Parameter("date", "date", "the day asked about; today when not said"),)
    templates = (
        "what is for (dinner|tea|supper) [{date:time}]",
        "what (are|am) (we|i) (having|eating) for (dinner|tea|supper) [{date:time}]",
        "what is on the menu [for dinner] [{date:time}]",
    )
    examples = phrasebook("whats_for_dinner")

    async def run(self, request: CommandRequest, book: RecipeBook, date: str | None = None) -> CommandResponse:
        today = request.now.date()
        day = type(today).fromisoformat(date) if date else today
        planned = await book.planned(day, "dinner")
        when = spoken_day(day, today)
        if planned is None:
            return CommandResponse(f"There's no dinner planned for {when}." if when in ("today", "tomorrow")
                                   else f"There's no dinner planned {when}.", success=False,
                                   data={"date": day.isoformat()})
        title = planned.get("title") or "a recipe that has since been deleted"
        said = f"Tonight it's {title}." if when == "today" else f"{when.capitalize()} it's {title}."
        return CommandResponse(said, data={"date": day.isoformat(), **planned})


class AddRecipeToShoppingList(RecipeCommand):
    name = "add_recipe_to_shopping_list"
    description = "Put the ingredients of one of the household's recipes on the shopping list."
    parameters = (Parameter("title", "string", "recipe to shop for (its title or dish)", required=True),)
    storage_scope = SHOPPING_LIST  # the shopping list's own documents: one list for voice and HTTP
    templates = (
        "[please] (add|put) [all] the ingredients (for|of) [the] {title} [recipe] (to|on|onto) [my|the|our] (shopping|grocery) list",
        "[please] (add|put) [the] {title} (ingredients|recipe) (to|on|onto) [my|the|our] (shopping|grocery) list",
    )
    examples = phrasebook("add_recipe_to_shopping_list")

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A semantic claim needs a recipe's shopping asked for (FOR_A_DISH): "add pasta sauce to my
        shopping list" near "add the pasta ingredients to the list" is one item, the list's."""
        return FOR_A_DISH.search(text.lower()) is not None

    async def run(self, request: CommandRequest, book: RecipeBook, title: str) -> CommandResponse:
        recipe = await book.find(title)
        if recipe is None:
            return CommandResponse(f"I couldn't find a recipe for {title}.", success=False)
        lines = [ingredient["text"] for ingredient in recipe.get("ingredients") or []]
        if not lines:
            return CommandResponse(f"{recipe['title']} has no ingredients to add.", success=False)
        speaker = request.speaker.name if request.speaker else None
        outcome = await ListItems(request.storage, SHOPPING_LIST).add(lines, request.now, speaker)
        count = len(outcome.added)
        said = f"Added {count} {plural(count, 'ingredient')} of {recipe['title']} to your shopping list."
        if outcome.already_there:
            already = len(outcome.already_there)
            said += f" {already} {plural(already, 'was', 'were')} already on it."
        return CommandResponse(said, data={"recipe_id": recipe["id"], "added": outcome.added,
                                           "already_there": outcome.already_there})


COMMANDS = [FindRecipe, ReadRecipe, WhatsForDinner, AddRecipeToShoppingList]
