"""`get_news`: "what's the news", "any sports headlines". The top headlines of the feeds the
household set up (the secret NEWS_FEEDS: comma-separated feed addresses, each optionally
`topic=address`), RSS or Atom read with feedparser, one short sentence each, the newest first across
every feed read (an entry's published or else updated date; undated entries after the dated ones,
taken from each feed in turn). A feed is untrusted: it
is fetched with a deadline and a size cap, parsed off the event loop, and kept a few minutes so a
second question does not fetch again. No feed is fetched that the household did not name
(docs/news.md suggests some)."""

from __future__ import annotations

import asyncio
import calendar
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import feedparser
from cachetools import TTLCache

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import ASKING, plain_speech, spoken_list
from voxd.commands.builtin.knowledge.calling_out import OutsideUnavailable, call_outside
from voxd.commands.phrasebook import phrasebook
from voxd.language.templates import normalize_utterance

FEEDS = "NEWS_FEEDS"
DEADLINE = 5.0
MAX_FEED_BYTES = 2 * 1024 * 1024
KEPT_SECONDS = 300
MAX_REDIRECTS = 3  # feeds move (http to https, a new path); a chain longer than this is broken
HEADLINES = 5
MAX_HEADLINE = 140  # characters of a title read aloud
NOT_CONFIGURED = ("No news feeds are set up yet. An administrator can add one with voxd secrets set NEWS_FEEDS "
                  "and the feed's address, or several separated by commas.")
NEWS_WORDS = re.compile(r"\b(?:news|headlines?|news bulletin|top stories|happening in the world)\b")
ABOUT_THE_NEWS = re.compile(r"^why\b|\bfake news\b|\b(?:site|paper|channel|website)s? (?:publish|print|report)|"
                            r"\bnews (?:on|about|of|regarding) (?:my|our)\b|\bnews for me\b|\b(?:requests?|approval|"
                            r"application|refund|claim|delivery|flight)\b")  # the asker's own affairs: no headline


@dataclass(frozen=True)
class Feed:
    url: str
    topic: str | None  # None: a general feed, read when no topic is asked


@dataclass(frozen=True)
class Headline:
    title: str  # one short spoken sentence
    published: float | None  # seconds since the epoch: the entry's published, else updated, date


@dataclass(frozen=True)
class Headlines:
    source: str  # the feed's own title, or its host
    titles: tuple[Headline, ...]


class FeedUnreadable(Exception):
    """The message is spoken: which feed could not be read."""


class GetNews(Command):
    name = "get_news"
    topic = "the news"
    description = "Read the top headlines of the household's news feeds, on a topic such as sport when one is named."
    examples = phrasebook("get_news")
    parameters = (Parameter("topic", "string", "the subject of the news, only when the user names one, such as sport"),)
    templates = (
        f"{ASKING} (what is|what are|tell me|give me|read me|read) [the] [latest] (news|headlines) [today|this morning|tonight|please]",
        f"{ASKING} (what is|what are|tell me|give me|read me|read) the [latest] {{topic}} (news|headlines) [today|please]",
        "(is there|are there) any [new] (news|headlines) [today]",
        "[are there] any {topic} (news|headlines) [today]",
        f"{ASKING} (what is|tell me|give me) the [latest] news (about|on) {{topic}}",
        "[the] news [please]",
    )

    def __init__(self) -> None:
        super().__init__()
        self.kept: TTLCache[str, Headlines] = TTLCache(maxsize=64, ttl=KEPT_SECONDS)

    def declines(self, text: str) -> bool:
        """A question about the news rather than a request for it ("why is there fake news"), or
        news of the asker's own affairs ("the news on my vacation request"), is not for headlines."""
        return super().declines(text) or ABOUT_THE_NEWS.search(normalize_utterance(text)) is not None

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """News asked for by name: "what happened in the match" is no headline."""
        return NEWS_WORDS.search(normalize_utterance(text)) is not None

    async def execute(self, request: CommandRequest, topic: str | None = None) -> CommandResponse:
        feeds = configured_feeds(request.secrets.get(FEEDS, ""))
        if not feeds:
            return CommandResponse(NOT_CONFIGURED, success=False)
        asked = topic_key(topic) if topic else None
        chosen = [feed for feed in feeds if asked and feed.topic == asked] or \
            [feed for feed in feeds if feed.topic is None] or feeds
        read, broken = [], []
        for feed in chosen:
            try:
                read.append(await self.headlines(request.http, feed.url))
            except FeedUnreadable as problem:
                broken.append(str(problem))
        if asked and not any(feed.topic == asked for feed in chosen):
            read = [about(headlines, asked) for headlines in read]
        said = headline_sentences(read)
        if not said:
            missing = f"I found no headlines about {topic}." if asked and read else " ".join(broken)
            return CommandResponse(missing or "The news feeds have no headlines just now.", success=False)
        return CommandResponse(" ".join([said, *broken]), data={"sources": [h.source for h in read]})

    async def headlines(self, http: Any, url: str) -> Headlines:
        if url in self.kept:
            return self.kept[url]
        host = urlsplit(url).hostname or url
        try:
            answer = await call_outside(http, "GET", url, MAX_FEED_BYTES, DEADLINE, allow_redirects=True,
                                        max_redirects=MAX_REDIRECTS)
        except OutsideUnavailable:  # aiohttp.TooManyRedirects is a ClientError
            raise FeedUnreadable(f"I couldn't reach the news feed at {host}.") from None
        if answer.status != 200:
            raise FeedUnreadable(f"The news feed at {host} isn't answering properly.")
        parsed = await asyncio.to_thread(feedparser.parse, answer.body)
        titles = tuple(Headline(title, published(entry)) for entry in parsed.entries
                       if (title := spoken_title(entry.get("title", ""))))
        if not titles:
            raise FeedUnreadable(f"I couldn't read the news feed at {host}.")
        source = spoken_title(parsed.feed.get("title", "")).rstrip(".") or host
        self.kept[url] = Headlines(source, titles)
        return self.kept[url]


def configured_feeds(setting: str) -> list[Feed]:
    """'https://a/rss, sport=https://b/rss' -> a general feed and a sport feed; anything but an
    http(s) address is left out."""
    feeds = []
    for item in (part.strip() for part in setting.split(",")):
        topic, _, url = item.rpartition("=") if "=" in item.split("://")[0] else ("", "", item)
        if urlsplit(url.strip()).scheme in ("http", "https"):
            feeds.append(Feed(url.strip(), topic_key(topic) if topic.strip() else None))
    return feeds


def topic_key(topic: str) -> str:
    """'Sports' and 'the sport' are one topic."""
    return re.sub(r"^(?:the|my|our) ", "", normalize_utterance(topic)).removesuffix("s")


def about(headlines: Headlines, topic: str) -> Headlines:
    words = re.compile(rf"\b{re.escape(topic)}\w*\b", re.IGNORECASE)
    return Headlines(headlines.source, tuple(line for line in headlines.titles if words.search(line.title)))


def spoken_title(title: str) -> str:
    """A feed's title as one short spoken sentence: no markup, at most MAX_HEADLINE characters."""
    text = plain_speech(re.sub(r"<[^>]*>", " ", title))
    if len(text) > MAX_HEADLINE:
        text = text[:MAX_HEADLINE].rsplit(" ", 1)[0]
    return text if not text or text[-1] in ".!?" else text + "."


def published(entry: Any) -> float | None:
    """When a feed entry came out (feedparser gives UTC), or None when the feed does not say."""
    moment = entry.get("published_parsed") or entry.get("updated_parsed")
    return float(calendar.timegm(moment)) if moment else None


def headline_sentences(read: list[Headlines]) -> str:
    """The HEADLINES newest titles of all the feeds, after the names of their sources. Taken from
    each feed in turn first, so headlines of the same moment, and undated ones, share the feeds."""
    in_turn = [(h.source, h.titles[position]) for position in range(max((len(h.titles) for h in read), default=0))
               for h in read if position < len(h.titles)]
    picked = sorted(in_turn, key=lambda pair: (pair[1].published is None, -(pair[1].published or 0)))[:HEADLINES]
    if not picked:
        return ""
    sources = spoken_list(list(dict.fromkeys(source for source, _ in picked)))
    return f"From {sources}: " + " ".join(headline.title for _, headline in picked)


COMMANDS = [GetNews]
