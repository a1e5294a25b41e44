"""`tell_joke`: a clean joke from a built-in collection, so it works with no model at all.

A model, when there is one, is asked only for topics the collection has nothing on.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import plain_speech, without_politeness
from voxd.commands.phrasebook import phrasebook


@dataclass(frozen=True)
class Joke:
    text: str
    topics: tuple[str, ...] = ()  # a subject ("animals") and any narrower words ("cats")


JOKES = (
    Joke("What do you call a fake noodle? An impasta.", ("food", "pasta")),
    Joke("Why did the cookie go to the doctor? Because it was feeling crummy.", ("food", "cookies")),
    Joke("What do you call cheese that isn't yours? Nacho cheese.", ("food", "cheese")),
    Joke("Why did the tomato blush? Because it saw the salad dressing.", ("food", "vegetables")),
    Joke("Why don't cats play poker in the jungle? Too many cheetahs.", ("animals", "cats")),
    Joke("What do you call a dog that does magic tricks? A labracadabrador.", ("animals", "dogs")),
    Joke("What do you call a sleeping bull? A bulldozer.", ("animals", "cows")),
    Joke("What do you call a bear with no teeth? A gummy bear.", ("animals", "bears", "food")),
    Joke("Why do fish live in salt water? Because pepper makes them sneeze.", ("animals", "fish")),
    Joke("Why did the computer go to the doctor? It had a virus.", ("computers",)),
    Joke("Why do programmers prefer dark mode? Because light attracts bugs.", ("computers", "programming")),
    Joke("How many programmers does it take to change a light bulb? None, that's a hardware problem.",
         ("computers", "programming")),
    Joke("Why can't you trust an atom? Because they make up everything.", ("science", "chemistry", "atoms")),
    Joke("I'm reading a book about anti-gravity. It's impossible to put down.", ("science", "physics")),
    Joke("What did one tectonic plate say when it bumped into the other? Sorry, my fault.", ("science", "geology")),
    Joke("What is a skeleton's favorite instrument? The trombone.", ("music", "skeletons")),
    Joke("How do you fix a broken tuba? With a tuba glue.", ("music",)),
    Joke("Why did the pianist keep banging his head against the keys? He was playing by ear.", ("music", "piano")),
    Joke("Why did the scarecrow win an award? Because he was outstanding in his field.", ()),
    Joke("Why don't skeletons fight each other? They don't have the guts.", ("skeletons",)),
    Joke("I used to hate facial hair, but then it grew on me.", ()),
)
# Words people use for a subject the collection is tagged with.
SUBJECTS = {
    "food": ("cooking", "eating", "fruit", "dinner", "kitchen"),
    "animals": ("animal", "pets", "pet", "kittens", "puppies", "zoo"),
    "computers": ("computer", "programmers", "programmer", "coding", "software", "tech", "technology"),
    "science": ("scientists", "scientist", "math", "maths", "space"),
    "music": ("songs", "musicians", "musician", "instruments", "bands"),
}
NOT_TOPICS = {"dad", "funny", "good", "short", "clean", "silly", "random", "new", "another", "bad", "great"}
LAST_TOLD = "last_joke"


def wanted_topic(topic: str | None) -> str | None:
    """None for words that describe the joke rather than its subject ('a dad joke', 'a funny joke')."""
    return None if not topic or topic.lower().strip() in NOT_TOPICS else topic


def topic_key(word: str) -> str:
    return word.lower().strip().removeprefix("the ").removesuffix("s")


def jokes_about(topic: str) -> list[Joke]:
    """Jokes tagged with the word itself ('cats'), else with its subject ('animals')."""
    key = topic_key(topic)
    exact = [joke for joke in JOKES if key in {topic_key(tag) for tag in joke.topics}]
    if exact:
        return exact
    subjects = {subject for subject, words in SUBJECTS.items() if key in {topic_key(w) for w in words}}
    return [joke for joke in JOKES if subjects & set(joke.topics)]


FACT_ASKED = re.compile(r"\b(?:facts?|interesting|trivia|tidbit|did you know|learn|teach|true|amazing|cool|neat|fun|"
                        r"intriguing|unique|awesome|(?:don't|do not|might not|wouldn't) know)\b")
JOKE_ASKED = re.compile(r"\b(?:jokes?|funny|laugh|pun|puns|humou?r|silly|joking)\b")


class TellJoke(Command):
    name = "tell_joke"
    topic = "jokes"
    description = "Tell a short, clean joke, on a topic when the user asks for one ('a joke about cats')."
    examples = phrasebook("tell_joke")
    parameters = (Parameter("topic", "string", "topic of the joke, only when the user asks for one"),)
    templates = (
        "[please] [can you] (tell|give) me [a|another] [funny|good] joke [please]",
        "[please] [can you] (tell|give) me [a|another] [funny|good] joke about {topic} [please]",
        "[please] [can you] (tell|give) me [a|an|another] {topic:word} joke [please]",
        "[do you] know any [good|funny] jokes [about {topic}]",
        "[do you] know any [good|funny] {topic:word} jokes",
        "i (want to|would like to) hear a joke [about {topic}]",
        "[have you|you] got (a|any) [good|funny] (joke|jokes) [about {topic}] [for me]",
        "[please] make me laugh [please]",
        "say something funny",
    )

    def declines(self, text: str) -> bool:
        """A fact is no joke: "tell me something interesting about elephants", "a fun fact", trivia."""
        return super().declines(text) or (FACT_ASKED.search(text.lower()) is not None
                                           and JOKE_ASKED.search(text.lower()) is None)

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        return {"topic": wanted_topic(without_politeness(arguments.get("topic")))}

    async def execute(self, request: CommandRequest, topic: str | None = None) -> CommandResponse:
        topic = wanted_topic(topic)
        candidates = jokes_about(topic) if topic else list(JOKES)
        if topic and not candidates:
            written = await request.ask_model(f"Tell one short, clean, family-friendly joke about {topic}. "
                                              "Reply with the joke only.")
            if written:
                return CommandResponse(plain_speech(written), data={"topic": topic, "source": "model"})
        def tell(last: Any) -> tuple[str, Joke]:
            """Not the joke told last, chosen and noted in one update: two asked at once differ."""
            fresh = [joke for joke in candidates or JOKES if joke.text != last] or list(candidates or JOKES)
            joke = random.choice(fresh)
            return joke.text, joke

        joke = await request.storage.update(LAST_TOLD, tell)
        said = joke.text if candidates else f"I don't know one about {topic}, but here's one. {joke.text}"
        return CommandResponse(said, data={"topic": topic, "source": "collection", "joke": joke.text})


COMMANDS = [TellJoke]
