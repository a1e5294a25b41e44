"""The semantic stage without the real model: choosing and abstaining with a tiny bag-of-words
embedder, the router cache (vectors and fitted weights), the phrasebook reader, the typed scanners
(voxd/language/scanners.py) that fill a chosen command's arguments, templates' expansions as
examples, and the stage inside the pipeline with a follow-up question for what the scanners did
not find."""

from __future__ import annotations

import asyncio
import json
import re
import stat
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from pipeline_fakes import make_pipeline
from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter, RouteContext
from voxd.commands.phrasebook import OUT_OF_SCOPE, phrasebook
from voxd.commands.registry import built_in_commands
from voxd.commands.scanning import refined_arguments, scanned_arguments
from voxd.language.compounds import is_compound
from voxd.language.expansions import expansions
from voxd.language.scanners import (
    scan_choice,
    scan_date,
    scan_datetime,
    scan_duration,
    scan_items,
    scan_numbers,
    scan_topic,
)
from voxd.services.command_center.pipeline.language_model import ModelUnavailable
from voxd.services.command_center.pipeline.semantic import SemanticRouter
from voxd.services.command_center.pipeline.turn import RoutedBy, Stage, Turn

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 11, 22, 15, 0, tzinfo=LONDON)  # a Sunday afternoon
CONTEXT = RouteContext(now=NOW, timezone=LONDON)


class WordsEmbedder:
    """Bag of words over a fixed vocabulary: similar sentences share words. Counts its calls."""

    name = "test-words"
    VOCABULARY = ("timer", "countdown", "minutes", "seconds", "list", "shopping", "add", "put", "buy", "out",
                  "weather", "rain", "sunny", "joke", "funny", "laugh")

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, sentences: list[str]) -> np.ndarray:
        self.calls += 1
        rows = []
        for sentence in sentences:
            words = re.findall(r"[a-z]+", sentence.lower())
            row = np.array([float(words.count(word)) for word in self.VOCABULARY] + [0.01])
            rows.append(row / np.linalg.norm(row))
        return np.array(rows)


class Example(Command):
    description = "test"

    def __init__(self, name: str, examples: tuple[str, ...]) -> None:
        self.name, self.examples = name, examples
        super().__init__()


TIMER = Example("timer", ("start a countdown timer", "timer for ten minutes", "a countdown of seconds"))
SHOPPING = Example("shopping", ("add it to the shopping list", "put it on the list", "we need to buy it"))
WEATHER = Example("weather", ("will it rain", "is it sunny", "weather today"))


def router(threshold: float = 0.5, margin: float = 0.1, cache_dir: Path | None = None,
           embedder: WordsEmbedder | None = None) -> SemanticRouter:
    return SemanticRouter([TIMER, SHOPPING, WEATHER], embedder or WordsEmbedder(), threshold, margin, cache_dir)


def test_the_nearest_example_chooses_a_command():
    routing = router()
    assert routing.choose("get a countdown going for ninety seconds").name == "timer"
    assert routing.choose("we are out of butter, put it on the list").name == "shopping"
    assert routing.choose("is rain likely").name == "weather"


def test_it_abstains_below_the_threshold():
    assert router().choose("what is the capital of france") is None  # no word in common with any example
    choice = router().nearest("rain timer")
    assert choice is not None and 0.5 <= choice.similarity
    assert router(threshold=choice.similarity + 0.01).choose("rain timer") is None


def test_it_abstains_when_two_commands_are_too_close():
    choice = router().nearest("sunny weather timer countdown")  # two words of each
    assert choice is not None and 0 < choice.probability - choice.runner_up < 0.3
    assert router(threshold=0.5, margin=0.3).choose("sunny weather timer countdown") is None
    assert router(threshold=0.5, margin=0.0).choose("sunny weather timer countdown") is not None


def test_a_broad_command_is_held_to_its_own_lower_bar():
    """answer_question's examples can only sample questions on any subject, so a new question is
    seldom very near one of them: such a command has its own similarity bar."""
    class Questions(Example):
        broad = True

    questions = Questions("questions", ("who wrote the funny play", "why is the sky blue"))
    timer = Example("timer", ("start a countdown timer",))
    routing = SemanticRouter([questions, timer], WordsEmbedder(), 0.9, 0.3, broad_threshold=0.3)
    choice = routing.nearest("a funny laugh")
    assert choice.command.name == "questions" and 0.3 <= choice.similarity < 0.9
    assert routing.choose("a funny laugh").name == "questions"
    routing.broad_threshold = 0.9
    assert routing.choose("a funny laugh") is None


def test_the_out_of_scope_sentences_turn_a_claim_into_an_abstention():
    """Sentences no command may claim (voxd/commands/builtin/phrasebook/out_of_scope.txt) are a
    class of their own: when they are the likeliest, the stage abstains."""
    assert router().choose("is it sunny out").name == "weather"
    guarded = SemanticRouter([TIMER, SHOPPING, WEATHER], WordsEmbedder(), 0.5, 0.1,
                             out_of_scope=("sunny out", "is it sunny out there", "out in the sunny"))
    assert guarded.nearest("is it sunny out").command is None
    assert guarded.choose("is it sunny out") is None
    assert guarded.choose("will it rain").name == "weather"


def test_a_sibling_named_by_the_verb_takes_the_sentence_from_the_nearest_command():
    """`Command.hands_to`: when the examples of two commands share their words, the verb the
    chosen one reads in the sentence hands it to the other (and its own verbs keep it)."""
    class Adding(Example):
        def hands_to(self, text: str) -> str | None:
            return "removing" if "out" in text.split() else None

    adding = Adding("adding", ("add it to the shopping list", "put it on the shopping list"))
    removing = Example("removing", ("take it out of the list",))
    routing = SemanticRouter([adding, removing, WEATHER], WordsEmbedder(), 0.3, 0.0)
    assert routing.nearest("put the shopping on the list").command.name == "adding"
    handed = routing.nearest("shopping list out")  # nearest adding's examples, but the verb is removing's
    assert handed.command.name == "removing"
    assert routing.choose("shopping list out").name == "removing"


def test_it_abstains_on_two_requests_in_one_utterance():
    assert is_compound("cancel the pasta timer and start one for the rice")
    assert not is_compound("add milk and eggs to the shopping list")
    assert is_compound("turn my alarm off and wake me at 9 instead")  # "wake" opens a request
    assert router().choose("start a countdown timer and add milk to the list") is None


def test_the_router_is_cached_by_the_examples_their_commands_and_the_model(tmp_path: Path):
    first = WordsEmbedder()
    built = router(cache_dir=tmp_path, embedder=first)
    [cached] = tmp_path.glob("router-*.npz")
    assert stat.S_IMODE(cached.stat().st_mode) == 0o600 and first.calls == 1
    again = WordsEmbedder()
    read = router(cache_dir=tmp_path, embedder=again)
    assert again.calls == 0  # vectors and classifier read from the cache
    assert np.allclose(read.classifier.weights, built.classifier.weights)
    (tmp_path / "examples-0123.npy").write_bytes(b"an older voxd's cache")
    SemanticRouter([TIMER, WEATHER], again, 0.5, 0.1, tmp_path)
    [other] = tmp_path.glob("router-*.npz")  # other examples, other file, in place of the old ones
    assert again.calls == 1 and other != cached and not list(tmp_path.glob("examples-*.npy"))
    swapped = [Example("weather", TIMER.examples), Example("timer", WEATHER.examples), SHOPPING]
    SemanticRouter(swapped, again, 0.5, 0.1, tmp_path)
    [third] = tmp_path.glob("router-*.npz")
    assert again.calls == 2 and third not in (cached, other)  # same sentences, other owners
    assert read.choose("is rain likely").name == "weather"


def test_templates_contribute_their_expansions():
    assert expansions("[please] (set|start) [me] [a|an] timer for {duration_seconds:duration} [please]") == (
        "set timer for five minutes", "please set me a timer for five minutes please")
    assert expansions("what is (on|in) [my|the] {list:choice(shopping|todo=to do)} list") == (
        "what is on shopping list", "what is on my shopping list")
    set_timer = next(c for c in built_in_commands() if c.name == "set_timer")
    assert "put a timer on for ten minutes" in set_timer.semantic_examples()
    assert "timer for five minutes" in set_timer.semantic_examples()


def test_every_built_in_command_has_examples():
    for command in built_in_commands():
        # The phrasebook's writers (voxd/commands/builtin/phrasebook/) gave each corpus command about 40.
        assert 5 <= len(phrasebook(command.name, crowd=False)) <= 150, command.name


def test_no_hand_written_example_is_an_utterance_of_the_corpus_test_split():
    """bench/corpus/README.md: the test split is never used to choose examples, so its figures
    measure phrasings the examples did not see."""
    corpus = Path(__file__).parent.parent / "bench" / "corpus" / "utterances.jsonl"
    plain = lambda text: " ".join(re.sub(r"[^a-z0-9 ]", " ", text.lower()).split())  # noqa: E731
    tested = {plain(row["text"]) for row in map(json.loads, corpus.read_text().splitlines()) if row["split"] == "test"}
    books = [(command.name, command.examples) for command in built_in_commands()]
    books.append((OUT_OF_SCOPE, phrasebook(OUT_OF_SCOPE)))
    copied = [(name, example) for name, examples in books for example in examples if plain(example) in tested]
    assert copied == []


@pytest.mark.parametrize("text, seconds", [
    ("could you get a countdown going that lasts ninety seconds", 90),
    ("give me two and a half minutes on the clock", 150),
    ("an hour and a half of countdown, please", 5400),
    ("put the timer on", None),
])
def test_the_duration_scanner(text, seconds):
    assert scan_duration(text) == seconds


def test_the_number_scanner_leaves_lengths_of_time_out():
    assert scan_numbers("what do you get if you divide ninety by three") == [90, 3]
    assert scan_numbers("two timers of five minutes") == [2]


def test_the_time_scanners_resolve_against_the_household_clock():
    assert scan_datetime("will it be warm tomorrow afternoon", NOW) == {  # a stretch stays one
        "start": "2026-11-23T12:00:00+00:00", "end": "2026-11-23T17:59:59+00:00"}
    assert scan_datetime("will it rain at 9am", NOW) == "2026-11-23T09:00:00+00:00"  # a moment: the next 9am
    assert scan_date("is it going to be chilly on wednesday", NOW) == "2026-11-25"
    assert scan_datetime("is it going to be chilly", NOW) is None


def test_the_choice_scanner_reads_an_enums_words_and_its_templates_synonyms():
    shopping = next(c for c in built_in_commands() if c.name == "shopping_list")
    action = shopping.parameters[0]
    spoken = shopping.spoken_choices(action)
    assert spoken["put"] == "add" and spoken["add"] == "add"
    assert scan_choice("we're out of butter, put it on the list", spoken) == "add"
    assert scan_choice("could you take the bananas off my list", spoken) == "remove"
    assert scan_choice("we are out of butter", spoken) is None


@pytest.mark.parametrize("text, items", [
    ("we're out of butter, put it on the list", ["butter"]),
    ("could you buy eggs and flour", ["eggs", "flour"]),
    ("could you take the bananas off my shopping list please", ["bananas"]),
    ("could you add hoover the stairs to my to-do list please", ["hoover the stairs"]),
    ("I want to add to the shopping list", None),
    ("put it on the list", None),
])
def test_the_items_scanner(text, items):
    assert scan_items(text) == items


def test_the_topic_scanner():
    assert scan_topic("got anything funny about penguins") == "penguins"
    assert scan_topic("make me laugh") is None


def test_a_chosen_commands_arguments_come_from_the_scanners():
    commands = {c.name: c for c in built_in_commands()}
    assert scanned_arguments(commands["set_timer"], "could you get a countdown going that lasts ninety seconds",
                             CONTEXT) == {"duration_seconds": 90}
    assert scanned_arguments(commands["shopping_list"], "we're out of butter, put it on the list",
                             CONTEXT) == {"action": "add", "items": "butter"}
    assert scanned_arguments(commands["shopping_list"], "could you buy eggs and flour", CONTEXT) == {
        "items": "eggs and flour"}
    assert scanned_arguments(commands["calculate"], "take nineteen away from fifty", CONTEXT) == {
        "num1": 19, "num2": 50, "operation": "subtract"}  # in the order said; refine turns them round
    # A required free-text argument is never cut out of the sentence: validate asks for it.
    assert scanned_arguments(commands["remember"], "keep in mind that I like tea", CONTEXT) == {}


def test_the_scanned_values_go_through_the_commands_refine():
    commands = {c.name: c for c in built_in_commands()}
    assert refined_arguments(commands["shopping_list"], "we need milk, bread and cheese", CONTEXT) == {
        "action": "add", "items": ["milk", "bread", "cheese"]}  # as written: the commas split them
    assert refined_arguments(commands["shopping_list"], "anything on the grocery list", CONTEXT) == {
        "action": "read"}
    # remember's refine takes the fact from what is left when the words asking to keep it go.
    assert refined_arguments(commands["remember"], "keep in mind that I like tea", CONTEXT) == {
        "content": "I like tea"}
    assert refined_arguments(commands["remember"], "I like tea", CONTEXT) == {}  # nothing asked: ask
    assert refined_arguments(Countdown(), "a countdown of eggs and flour", CONTEXT) == {}


def run(pipeline, text: str, **options) -> Turn:
    return asyncio.run(pipeline.run(Turn("kitchen", "home", text=text, **options)))


class Countdown(Command):
    name = "countdown"
    description = "A countdown."
    parameters = (Parameter("seconds", "duration", "length of the countdown", required=True),)
    examples = ("start a countdown", "a countdown of ten minutes")

    async def execute(self, request: CommandRequest, seconds: int) -> CommandResponse:
        return CommandResponse(f"Counting down {seconds} seconds.")


def test_the_stage_routes_what_the_templates_left_and_asks_for_what_is_missing():
    pipeline = make_pipeline(commands=[Countdown(), *built_in_commands()])
    pipeline.semantic = SemanticRouter(pipeline.commands[:1], WordsEmbedder(), 0.5, 0.1)
    turn = run(pipeline, "get a countdown going for ninety seconds")
    assert (turn.tool, turn.routed_by, turn.reply) == ("countdown", RoutedBy.SEMANTIC, "Counting down 90 seconds.")
    assert Stage.SEMANTIC in turn.timings
    asked = run(pipeline, "get a countdown going")
    assert asked.routed_by is RoutedBy.SEMANTIC and asked.response.wait_for_input
    assert asked.reply == "I need to know the length of the countdown."
    answered = run(pipeline, "two minutes", follow_up=True)
    assert (answered.tool, answered.routed_by, answered.reply) == (
        "countdown", RoutedBy.FOLLOW_UP, "Counting down 120 seconds.")


def test_the_stage_does_not_run_when_a_template_claimed_or_abstains_to_the_model():
    pipeline = make_pipeline(commands=[Countdown(), *built_in_commands()])
    pipeline.semantic = SemanticRouter(pipeline.commands[:1], WordsEmbedder(), 0.5, 0.1)
    claimed = run(pipeline, "set a timer for five minutes")
    assert claimed.routed_by is RoutedBy.PRE_ROUTE and Stage.SEMANTIC not in claimed.timings
    with pytest.raises(ModelUnavailable):
        run(pipeline, "why is the sky blue")


def test_regional_words_are_embedded_in_their_common_form():
    """"mins" is not in the fake embedder's vocabulary, "minutes" is: the router embeds the common form."""
    plain, casual = router().nearest("a countdown of minutes"), router().nearest("a countdown of mins")
    assert casual.command.name == "timer" and casual.similarity == pytest.approx(plain.similarity)


def test_a_phrasebook_file_is_its_sentences_without_comments_or_repeats(tmp_path: Path):
    (tmp_path / "bin_day.txt").write_text("# who wrote these\nwhich bin goes out\n\n  is it recycling week  \n"
                                          "which bin goes out\n")
    assert phrasebook("bin_day", tmp_path) == ("which bin goes out", "is it recycling week")
    with pytest.raises(FileNotFoundError):
        phrasebook("bin_days", tmp_path)  # a misspelt name fails at import, not silently
    assert len(phrasebook(OUT_OF_SCOPE)) > 100  # the built-ins' out-of-scope sentences ship
