"""News headlines end to end through `voxd serve` (issue 25 §7): the household's feeds (RSS and
Atom, served on loopback) read as one sentence a headline, the newest first across the feeds, a
topic's own feed or the headlines naming it, a broken feed and no feed at all said in a sentence."""

from __future__ import annotations

import pytest

from conftest import Daemon, register_node
from daemons import serving
from home_assistant_fake import HomeAssistant
from test_smart_home_serve import ask, set_secret
from voxd.commands.builtin.knowledge.news import NOT_CONFIGURED, GetNews, configured_feeds, spoken_title

RSS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>Town Crier</title><link>http://x/</link>
<description>d</description>
<item><title>Bridge reopens after repairs</title></item>
<item><title>Council approves &lt;b&gt;new&lt;/b&gt; library</title></item>
<item><title>Football club signs local striker</title></item>
<item><title>Rain expected all week</title></item>
<item><title>Bakery wins national prize</title></item>
<item><title>Sixth story is never read</title></item>
</channel></rss>"""
ATOM = b"""<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Sport Desk</title>
<id>urn:x</id><updated>2026-11-26T10:00:00Z</updated>
<entry><title>Rovers win the derby</title><id>urn:1</id><updated>2026-11-26T10:00:00Z</updated></entry>
<entry><title>Tennis final goes to five sets</title><id>urn:2</id><updated>2026-11-26T09:00:00Z</updated></entry>
</feed>"""



def dated_rss(title: str, *items: tuple[str, str | None]) -> bytes:
    """An RSS feed of (headline, RFC 822 pubDate or None) items, in the order given."""
    entries = "".join(f"<item><title>{headline}</title>{f'<pubDate>{date}</pubDate>' if date else ''}</item>"
                      for headline, date in items)
    return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>{title}</title><link>http://x/</link>'
            f"<description>d</description>{entries}</channel></rss>").encode()


# Each feed lists an older story first; between them, the newest are the other feed's.
MORNING = dated_rss("Morning Post", ("Undated story", None),
                    ("Ferry strike called off", "Thu, 26 Nov 2026 06:00:00 GMT"),
                    ("Market opens higher", "Thu, 26 Nov 2026 09:00:00 GMT"))
EVENING = dated_rss("Evening Star", ("Old story from Monday", "Mon, 23 Nov 2026 18:00:00 GMT"),
                    ("Storm warning for the coast", "Thu, 26 Nov 2026 08:00:00 +0100"),
                    ("Late train cancelled", "Thu, 26 Nov 2026 10:30:00 GMT"))


@pytest.fixture(scope="module")
def daemon(tmp_path_factory) -> Daemon:
    with serving(tmp_path_factory, ["config", "auth", "command-center"], VOXD_SEMANTIC="false") as running:
        yield running


@pytest.fixture(scope="module")
def site():
    with HomeAssistant() as serving_feeds:
        serving_feeds.feeds = {"/news.rss": ("application/rss+xml", RSS), "/sport.atom": ("application/atom+xml", ATOM),
                               "/broken.rss": ("application/rss+xml", b"<html>this is no feed</html>"),
                               "/morning.rss": ("application/rss+xml", MORNING),
                               "/evening.rss": ("application/rss+xml", EVENING)}
        serving_feeds.moved = {"/old.rss": "/news.rss", "/loop.rss": "/loop.rss"}
        yield serving_feeds


@pytest.fixture(scope="module")
def node(daemon, site) -> dict:
    """Its general feed moved (followed), its sport feed is Atom."""
    node = register_node(daemon, room="kitchen")
    set_secret(daemon, node["household_id"], "NEWS_FEEDS", f"{site.url}/old.rss, sport={site.url}/sport.atom")
    return node


def test_the_headlines_are_read_one_sentence_each(daemon, site, node):
    news = ask(daemon, node, "what's the news")
    assert news["command"] == "get_news"
    assert news["text"] == ("From Town Crier: Bridge reopens after repairs. Council approves new library. "
                            "Football club signs local striker. Rain expected all week. Bakery wins national prize.")
    fetched = len(site.fetched)
    assert ask(daemon, node, "what are the headlines")["text"] == news["text"]
    assert len(site.fetched) == fetched  # kept a few minutes, not fetched again


def test_the_newest_headlines_come_first_across_the_feeds_and_undated_ones_last(daemon, site):
    both = register_node(daemon, room="study")
    set_secret(daemon, both["household_id"], "NEWS_FEEDS", f"{site.url}/morning.rss, {site.url}/evening.rss")
    assert ask(daemon, both, "what's the news")["text"] == (
        "From Evening Star and Morning Post: Late train cancelled. Market opens higher. Storm warning for the coast. "
        "Ferry strike called off. Old story from Monday.")


def test_a_topic_reads_its_feed_or_the_headlines_naming_it(daemon, node):
    sport = ask(daemon, node, "any sports headlines")
    assert sport["text"] == "From Sport Desk: Rovers win the derby. Tennis final goes to five sets."
    football = ask(daemon, node, "tell me the latest football news")
    assert football["text"] == "From Town Crier: Football club signs local striker."
    assert ask(daemon, node, "any gardening news")["text"] == "I found no headlines about gardening."


def test_a_broken_feed_and_no_feed_are_said(daemon, site):
    broken = register_node(daemon, room="hall")
    set_secret(daemon, broken["household_id"], "NEWS_FEEDS", f"{site.url}/broken.rss")
    host = "127.0.0.1"
    assert ask(daemon, broken, "what's the news")["text"] == f"I couldn't read the news feed at {host}."
    missing = register_node(daemon, room="hall")
    set_secret(daemon, missing["household_id"], "NEWS_FEEDS", f"{site.url}/gone.rss, {site.url}/news.rss")
    partly = ask(daemon, missing, "what's the news")["text"]
    assert partly.startswith("From Town Crier: Bridge reopens") and partly.endswith(
        f"The news feed at {host} isn't answering properly.")
    looping = register_node(daemon, room="hall")
    set_secret(daemon, looping["household_id"], "NEWS_FEEDS", f"{site.url}/loop.rss")
    assert ask(daemon, looping, "what's the news")["text"] == f"I couldn't reach the news feed at {host}."
    unset = ask(daemon, register_node(daemon, room="hall"), "what's the news")
    assert (unset["command"], unset["text"]) == ("get_news", NOT_CONFIGURED)


def test_the_feed_setting_and_a_title_read_aloud():
    feeds = configured_feeds("https://a.example/rss, Sports=https://b.example/atom, file:///etc/passwd, nonsense")
    assert [(feed.url, feed.topic) for feed in feeds] == [("https://a.example/rss", None), ("https://b.example/atom", "sport")]
    assert spoken_title("**Big** <i>news</i> today") == "Big news today."
    assert len(spoken_title("word " * 60)) <= 141
    news = GetNews()
    assert news.stands({}, "what are today's top stories") and not news.stands({}, "tell me a bedtime story")
    assert news.declines("why is there fake news") and news.declines("which site publishes the most fake news")
    assert not news.declines("can you tell me the latest georgia news")
    # the asker's own affairs are no headline
    assert news.declines("what is the news on my vacation request") and news.declines("is there any news on flight dl123")
    assert not news.declines("any headlines from my area")
