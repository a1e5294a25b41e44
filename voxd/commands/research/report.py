"""The report a job delivers: written by the language model from the most relevant passages of each
source, citing them by number, or without a model those passages themselves, source by source. Either
way it ends with the numbered sources and their links."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from voxd.commands.builtin import sentence_case
from voxd.commands.research.passages import best_passages, shortened
from voxd.commands.research.sources import Source

# Asks the model: (the material, the instructions) -> its answer, None without a model.
Writer = Callable[[str, str], Awaitable[str | None]]

LONGEST_WRITING = 20_000  # characters of the model's report kept (the inbox takes 100,000)
PASSAGES_PER_SOURCE = 2  # in a report without a model
PASSAGES_FOR_THE_MODEL = 4  # per source: a small local model reads a few thousand words at most
INSTRUCTIONS = (
    "You write short research reports for a household. Use only the numbered sources you are given. "
    "Write plain text, no markdown, at most about 250 words: first a direct answer in two or three "
    "sentences, then the key points. Cite the sources you use by their numbers in square brackets, "
    "like [1] or [2][3]. If the sources do not answer the question, say so. Do not list the sources "
    "at the end: they are added for you."
)


@dataclass(frozen=True)
class Report:
    title: str
    body: str  # the whole text delivered: the findings, then the numbered sources
    sources: list[dict[str, Any]] = field(default_factory=list)  # {"number", "title", "url"}
    written_by: Literal["model", "passages", "none"] = "passages"


def numbered(sources: list[Source]) -> list[dict[str, Any]]:
    return [{"number": n, "title": source.title, "url": source.url} for n, source in enumerate(sources, 1)]


def source_list(sources: list[Source]) -> str:
    return "Sources:\n" + "\n".join(f"[{n}] {source.title} - {source.url}" for n, source in enumerate(sources, 1))


def title_of(topic: str) -> str:
    return f"Research: {sentence_case(topic)}"


async def write_report(topic: str, sources: list[Source], ask: Writer) -> Report:
    """The model's report when a model answers; else (none set up, or it gave nothing) the passages."""
    if not sources:
        return nothing_found(topic)
    material = best_passages(topic, [source.text for source in sources], PASSAGES_FOR_THE_MODEL)
    written = await ask(model_material(topic, sources, material), INSTRUCTIONS)
    if written and written.strip():
        body = f"{written.strip()[:LONGEST_WRITING]}\n\n{source_list(sources)}"
        return Report(title_of(topic), body, numbered(sources), "model")
    return passages_report(topic, sources, [found[:PASSAGES_PER_SOURCE] for found in material])


def model_material(topic: str, sources: list[Source], material: list[list[str]]) -> str:
    parts = [f"Question: {topic}", ""]
    for n, (source, passages) in enumerate(zip(sources, material), 1):
        said = passages or ([source.snippet] if source.snippet else [])
        parts += [f"[{n}] {source.title} ({source.url})", *said, ""]
    return "\n".join(parts).strip()


def passages_report(topic: str, sources: list[Source], passages: list[list[str]]) -> Report:
    """Each source in turn: its number, title and link, then its most relevant passages (its search
    snippet when none of its text bears on the topic or it could not be read)."""
    parts = [f"The most relevant passages I found about {topic}:"]
    for n, (source, found) in enumerate(zip(sources, passages), 1):
        said = found or ([shortened(source.snippet)] if source.snippet else ["(nothing on this page matched)"])
        parts.append(f"[{n}] {source.title}\n{source.url}\n" + "\n".join(f"- {passage}" for passage in said))
    return Report(title_of(topic), "\n\n".join(parts), numbered(sources), "passages")


def nothing_found(topic: str) -> Report:
    return Report(title_of(topic), f"I searched for {topic} but found no pages about it.", [], "none")


def search_failed(topic: str, why: str) -> Report:
    """What the asker gets when the search could not be done: a reply rather than silence."""
    return Report(title_of(topic), f"I couldn't research {topic}: {why}.", [], "none")
