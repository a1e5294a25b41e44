"""The passages of the pages read that bear most on the topic: each page's main text cut into
paragraphs, scored by Okapi BM25 against the topic's words, over all pages at once (so a word every
page uses weighs little). Small and dependency-free: a few dozen paragraphs per job."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

K1 = 1.5  # BM25's usual term-frequency saturation
B = 0.75  # and its length normalisation
SHORTEST_PASSAGE = 6  # words: headings, captions and menu lines are no passage
LONGEST_PASSAGE = 600  # characters said of one passage; a longer one is cut at a sentence

STOPWORDS = frozenset("""
a about above after again all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he
her here hers him his how i if in into is it its itself just me more most my no nor not now of off on
once only or other our out over own same she should so some such than that the their them then there
these they this those through to too under until up very was we were what when where which while who
whom why will with would you your yours
""".split()) | frozenset("""
please tell find look research dig read report something best better good way ways
""".split())  # the words that ask, rather than say what about: "the best way to descale a kettle"


def words(text: str) -> list[str]:
    """Lower-case word stems, stopwords dropped: 'Descaling kettles' -> ['descaling', 'kettle']."""
    found = re.findall(r"[a-z0-9]+", text.lower())
    return [stem(word) for word in found if word not in STOPWORDS]


def stem(word: str) -> str:
    """A plural folded to its singular, the only inflection worth the risk here ('pumps' = 'pump')."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def paragraphs(text: str) -> list[str]:
    """The page's paragraphs (the extraction service's main text has one a line), short lines dropped."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return [line for line in lines if len(line.split()) >= SHORTEST_PASSAGE]


def bm25_scores(query: Sequence[str], documents: Sequence[Sequence[str]]) -> list[float]:
    """Okapi BM25 of each document (its words) for the query words."""
    if not documents:
        return []
    average = sum(map(len, documents)) / len(documents) or 1.0
    holding = Counter(word for document in documents for word in set(document))
    total = len(documents)
    idf = {word: math.log(1 + (total - holding[word] + 0.5) / (holding[word] + 0.5)) for word in set(query)}
    scores = []
    for document in documents:
        counts = Counter(document)
        norm = K1 * (1 - B + B * len(document) / average)
        scores.append(sum(idf[word] * counts[word] * (K1 + 1) / (counts[word] + norm)
                          for word in set(query) if counts[word]))
    return scores


def best_passages(topic: str, texts: Sequence[str], per_text: int) -> list[list[str]]:
    """For each text, up to `per_text` of its paragraphs that share words with the topic, best
    first; a text none of whose paragraphs do gets none."""
    query = words(topic)
    cut = [paragraphs(text) for text in texts]
    flat = [(index, paragraph) for index, found in enumerate(cut) for paragraph in found]
    scores = bm25_scores(query, [words(paragraph) for _, paragraph in flat])
    ranked: list[list[tuple[float, str]]] = [[] for _ in texts]
    for (index, paragraph), score in zip(flat, scores):
        if score > 0:
            ranked[index].append((score, paragraph))
    return [[shortened(paragraph) for _, paragraph in sorted(found, key=lambda pair: -pair[0])[:per_text]]
            for found in ranked]


def shortened(passage: str, limit: int = LONGEST_PASSAGE) -> str:
    """The passage, or its first sentences up to `limit` characters (a word boundary at worst)."""
    if len(passage) <= limit:
        return passage
    cut = passage[:limit]
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    return cut[:end + 1] if end > limit // 3 else cut.rsplit(" ", 1)[0] + " ..."
