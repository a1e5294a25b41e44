"""Deep research's pieces with stand-ins (issue 21 §6): the passage ranking, the report, the job's
way through the research desk (a SearXNG-shaped site on loopback, the other services faked) and the
command's answers. Through `voxd serve`: tests/test_research_serve.py."""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
import pytest

from pipeline_fakes import FakeSpeech, FakeStore, make_pipeline
from search_site import SearchSite
from voxd.commands.api import Change, CommandRequest, RouteContext, Speaker, T
from voxd.commands.builtin.knowledge.research import DeepResearch, NO_SEARCH, UNDELIVERABLE, UNKNOWN_ASKER
from voxd.commands.research.desk import GIVE_UP_AFTER, SEARCH_ATTEMPTS, ResearchDesk, ResearchSettings
from voxd.commands.research.jobs import SCOPE, STORAGE_KEY, Job, add_job
from voxd.commands.research.passages import best_passages, shortened, words
from voxd.commands.research.report import nothing_found, write_report
from voxd.commands.research.sources import Source
from voxd.commands.registry import built_in_commands
from voxd.kit.errors import UpstreamError
from voxd.services.command_center.pipeline.pipeline import claims
from voxd.services.command_center.storage.store import DocumentStorage
from voxd.services.command_center.pipeline.turn import RoutedBy, Turn

HOUSEHOLD = "h1"
KIM = Speaker("u-kim", "Kim")
KETTLE = [
    "Our shop sells kettles, toasters and coffee machines at the best prices in town, every day.",
    "To descale a kettle, fill it halfway with equal parts water and white vinegar and let it stand for an hour.",
    "Citric acid also descales a kettle: boil a tablespoon of it in a full kettle, then rinse it twice.",
    "Sign up to our newsletter for offers on small appliances and seasonal recipes each month.",
]
LIMESCALE = [
    "Limescale builds up fastest in hard water areas, where the water is rich in calcium and magnesium.",
    "A filter jug slows the build up of limescale in a kettle but does not remove what is already there.",
]


def test_words_fold_plurals_and_drop_stopwords():
    assert words("How do I descale the kettles?") == ["descale", "kettle"]
    assert words("heat pumps and batteries") == ["heat", "pump", "battery"]


def test_the_passages_that_bear_on_the_topic_come_first():
    found = best_passages("the best way to descale a kettle", ["\n".join(KETTLE), "\n".join(LIMESCALE)], 2)
    assert found[0] == [KETTLE[1], KETTLE[2]] or found[0] == [KETTLE[2], KETTLE[1]]
    assert found[1] == [LIMESCALE[1]]  # the other paragraph shares no word with the topic
    assert best_passages("descale a kettle", ["Home\nShop\nAbout"], 2) == [[]]  # menus are no passages


def test_a_long_passage_is_cut_at_a_sentence():
    passage = "One sentence that is long enough. " * 40
    cut = shortened(passage, 100)
    assert len(cut) <= 100 and cut.endswith(".")


def sources() -> list[Source]:
    return [Source("https://a.example/kettle", "Descaling a kettle", "Vinegar works.", "\n".join(KETTLE)),
            Source("https://b.example/scale", "Limescale explained", "Hard water.", "\n".join(LIMESCALE)),
            Source("https://c.example/gone", "A page that could not be read", "Lemon juice works too.", "")]


def test_without_a_model_the_report_is_each_sources_passages_with_links():
    async def no_model(material: str, instructions: str) -> str | None:
        return None

    report = asyncio.run(write_report("the best way to descale a kettle", sources(), no_model))
    assert report.written_by == "passages" and report.title == "Research: The best way to descale a kettle"
    body = report.body
    assert "[1] Descaling a kettle\nhttps://a.example/kettle" in body and KETTLE[1] in body
    assert "[3] A page that could not be read\nhttps://c.example/gone\n- Lemon juice works too." in body
    assert KETTLE[0] not in body and KETTLE[3] not in body
    assert [source["number"] for source in report.sources] == [1, 2, 3]


def test_the_models_report_gets_the_numbered_sources_added():
    asked: list[tuple[str, str]] = []

    async def model(material: str, instructions: str) -> str | None:
        asked.append((material, instructions))
        return "Use white vinegar or citric acid [1], and a filter jug to slow it down [2]."

    report = asyncio.run(write_report("descale a kettle", sources(), model))
    assert report.written_by == "model"
    assert report.body.startswith("Use white vinegar")
    assert report.body.endswith("Sources:\n[1] Descaling a kettle - https://a.example/kettle\n"
                                "[2] Limescale explained - https://b.example/scale\n"
                                "[3] A page that could not be read - https://c.example/gone")
    material, instructions = asked[0]
    assert "[1] Descaling a kettle (https://a.example/kettle)" in material and KETTLE[1] in material
    assert "Lemon juice works too." in material and "numbers in square brackets" in instructions


class Shelf:
    """The command center store's two calls the desk uses, over the pipeline tests' FakeStore."""

    def __init__(self, store: FakeStore) -> None:
        self.store = store

    async def documents(self, command: str, key: str) -> list[tuple[str, Any]]:
        return [(household, json.loads(value)) for (household, stored_command, stored_key), value
                in self.store.documents.items() if (stored_command, stored_key) == (command, key)]

    async def update_document(self, household_id: str, command: str, key: str, change: Change[T]) -> T:
        return await self.store.update_document(household_id, command, key, change)


class Services:
    """The extraction and notifications services as the desk calls them; `down` names those that
    cannot be reached."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = pages
        self.down: set[str] = set()
        self.inbox: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []

    async def call(self, service: str, method: str, path: str, **kwargs: Any) -> Any:
        if service in self.down:
            raise UpstreamError(service, None, None, f"the {service} service is not reachable")
        if path == "/extract":
            url = kwargs["json"]["url"]
            if url.startswith("http://192.168."):  # the extraction service's guard
                raise UpstreamError(service, 400, "url_not_allowed", "the URL's host is a private address")
            if url not in self.pages:
                raise UpstreamError(service, 502, "fetch_failed", "the page answered 404")
            return {"url": url, "final_url": url, "status": 200, "content_type": "text/html",
                    "title": None, "text": self.pages[url]}
        if path == "/api/v0/inbox":
            self.inbox.append(kwargs["json"])
            return {"id": f"item-{len(self.inbox)}", **kwargs["json"]}
        if path == "/api/v0/notifications/send":
            self.sent.append(kwargs["json"])
            return {"id": f"n-{len(self.sent)}", "status": "queued", "tokens": 0}
        return {"status": "ok"}


@pytest.fixture
def site():
    with SearchSite() as server:
        yield server


def desk_for(site: SearchSite, store: FakeStore, services: Services, http: aiohttp.ClientSession,
             search_url: str | None = "", pages: int = 3) -> ResearchDesk:
    async def no_model(material: str, instructions: str) -> str | None:
        return None

    settings = ResearchSettings(site.url if search_url == "" else search_url, pages)
    return ResearchDesk(settings, Shelf(store), lambda household: DocumentStorage(store, household, SCOPE),
                        services, http, no_model)


async def run_until_done(desk: ResearchDesk) -> None:
    """One look at the jobs, and every job it took up finished (delivered or postponed)."""
    await desk.take_up_jobs()
    await asyncio.gather(*desk.working.values())


async def asked(store: FakeStore, topic: str) -> None:
    """Kim asked for research on `topic`: the job as the command stores it."""
    await add_job(DocumentStorage(store, HOUSEHOLD, SCOPE), Job.new(topic, KIM.user_id, datetime.now(timezone.utc)))


def stored_jobs(store: FakeStore) -> list[dict[str, Any]]:
    found = store.documents.get((HOUSEHOLD, SCOPE, STORAGE_KEY))
    return json.loads(found) if found else []


def kettle_site(site: SearchSite) -> tuple[str, str]:
    first = site.page("/descale", "How to descale a kettle", KETTLE, "Vinegar or citric acid.")
    second = site.page("/limescale", "Limescale", LIMESCALE, "Hard water.")
    site.results.append(("/missing", "A dead link", "Lemon juice works too."))
    site.results.append(("http://192.168.1.1/admin", "The router's page", "Admin login."))
    return first, second


def test_a_job_is_searched_read_reported_and_delivered_once(site):
    first, second = kettle_site(site)
    store = FakeStore()
    services = Services({first: "\n".join(KETTLE), second: "\n".join(LIMESCALE)})

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            desk = desk_for(site, store, services, http, pages=4)
            await asked(store, "descale a kettle")
            await run_until_done(desk)
            await run_until_done(desk)  # nothing is left to do twice

    asyncio.run(scenario())
    assert site.queries == ["descale a kettle"]
    [item] = services.inbox
    assert item["user_id"] == KIM.user_id and item["category"] == "deep_research"
    assert "[1] How to descale a kettle" in item["body"] and first in item["body"]
    assert "[3] A dead link" in item["body"] and "Lemon juice works too." in item["body"]
    # A result inside the home network is refused by the extraction service: only its snippet is kept.
    assert "[4] The router's page\nhttp://192.168.1.1/admin\n- Admin login." in item["body"]
    assert [source["url"] for source in item["data"]["sources"]] == [first, second, site.url + "/missing",
                                                                     "http://192.168.1.1/admin"]
    [push] = services.sent
    assert push["target"] == {"user_id": KIM.user_id} and push["inbox"] is False
    assert push["category"] == "deep_research" and push["data"]["inbox_item_id"] == "item-1"
    assert push["idempotency_key"].startswith("deep_research:")
    assert stored_jobs(store) == []


def test_a_job_resumes_where_it_stopped_and_waits_out_an_outage(site):
    """The notifications service down after the report was written: the report is kept, the job
    postponed; once it is back, the same report is filed and pushed, without searching again."""
    first, second = kettle_site(site)
    store = FakeStore()
    services = Services({first: "\n".join(KETTLE)})
    services.down.add("notifications")

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            desk = desk_for(site, store, services, http)
            await asked(store, "descale a kettle")
            await run_until_done(desk)
            [job] = stored_jobs(store)
            assert job["report"] is not None and job["failures"] == 1 and job["inbox_item_id"] is None
            await run_until_done(desk)
            assert desk.working == {} and stored_jobs(store)[0]["failures"] == 1  # waiting out its backoff
            services.down.clear()
            fresh = desk_for(site, store, services, http)  # as after a restart
            await run_until_done(fresh)

    asyncio.run(scenario())
    assert site.queries == ["descale a kettle"] and len(services.inbox) == 1 and len(services.sent) == 1
    assert stored_jobs(store) == []


def test_a_search_that_cannot_be_done_is_reported_and_a_job_that_never_gets_through_is_dropped(site):
    site.failing = 403  # SearXNG with its JSON format off: that will not pass
    store = FakeStore()
    services = Services({})

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            desk = desk_for(site, store, services, http)
            await asked(store, "heat pumps")
            await run_until_done(desk)
            services.down.add("notifications")
            written = asdict(nothing_found("solar panels"))  # its report is written, its delivery fails
            await add_job(DocumentStorage(store, HOUSEHOLD, SCOPE), Job(
                "stuck", "solar panels", KIM.user_id, "2026-01-01T00:00:00+00:00", written, failures=GIVE_UP_AFTER - 1))
            await run_until_done(desk)

    asyncio.run(scenario())
    [item] = services.inbox
    assert item["body"] == "I couldn't research heat pumps: the search service did not give any results."
    assert stored_jobs(store) == []  # the stuck one dropped after its last failure


def request_for(store: FakeStore, speaker: Speaker | None, services: Services) -> CommandRequest:
    async def no_model(question: str) -> str | None:
        return None

    now = datetime.now(timezone.utc)
    return CommandRequest("look into heat pumps", "node-1", HOUSEHOLD, now, timezone.utc, speaker, {},
                          DocumentStorage(store, HOUSEHOLD, SCOPE), no_model, services=services)


def test_the_command_starts_a_job_only_when_it_can_be_delivered(site):
    store = FakeStore()
    services = Services({})
    command = DeepResearch()

    async def scenario() -> list[str]:
        async with aiohttp.ClientSession() as http:
            said = [(await command.execute(request_for(store, KIM, services), topic="heat pumps")).spoken_response]
            command.desk = desk_for(site, store, services, http, search_url=None)
            said.append((await command.execute(request_for(store, KIM, services), topic="heat pumps")).spoken_response)
            command.desk = desk_for(site, store, services, http)
            services.down.add("notifications")
            said.append((await command.execute(request_for(store, None, services), topic="heat pumps")).spoken_response)
            services.down.clear()
            said.append((await command.execute(request_for(store, None, services), topic="heat pumps")).spoken_response)
            assert stored_jobs(store) == []
            services.down.clear()
            started = await command.execute(request_for(store, KIM, services), topic="heat pumps")
            said.append(started.spoken_response)
            assert command.desk.nudged.is_set()
            return said

    said = asyncio.run(scenario())
    assert said == [NO_SEARCH, NO_SEARCH, UNDELIVERABLE, UNKNOWN_ASKER,
                    "I'll look into heat pumps and send it to your inbox."]
    [job] = stored_jobs(store)
    assert (job["topic"], job["user_id"], job["report"]) == ("heat pumps", KIM.user_id, None)


@pytest.mark.parametrize("said, topic", [
    ("research the best way to descale a kettle", "the best way to descale a kettle"),
    ("look into heat pumps for me", "heat pumps"),
    ("could you find out about solar panels please", "solar panels"),
    ("find out how to get rid of mould in the bathroom", "how to get rid of mould in the bathroom"),
    ("Search the web for dog-friendly beaches in Cornwall", "dog-friendly beaches in Cornwall"),
    ("research the best credit cards for travel", "the best credit cards for travel"),  # not the asker's card
])
def test_the_pipeline_claims_research_requests_by_template(said, topic):
    turn = asyncio.run(make_pipeline(speech=FakeSpeech(heard=said, voice=KIM)).run(
        Turn(node_id="node-1", household_id=HOUSEHOLD, audio=b"RIFF")))
    assert (turn.tool, turn.routed_by, turn.arguments) == ("deep_research", RoutedBy.PRE_ROUTE, {"topic": topic})
    assert turn.reply == NO_SEARCH  # no desk in a bare pipeline: nothing to research with


@pytest.mark.parametrize("said", [
    "what is the weather", "search my recipes for pasta", "find out what time it is", "look into the pasta timer",
    "find out about the weather tomorrow", "any news about the train strikes", "what is a heat pump",
    "find out how busy the diner is around 5 pm", "look into the current wait times at the clinic",
    "find out if the bistro takes reservations",  # how things are now: a later report is stale
    "search online for pizza near me", "research cheap flights to rome", "look into ticket prices for the game",
    "find out how to make chicken tikka masala",  # a recipe
    # a quick question of fact, answer_question's: no report days later
    "find out how many people live in china", "research who won the world cup in 1966",
    "look into where the amazon river starts",
    # what the asker's bank or employer knows, said without "my"; what words mean; rates and travel rules now
    "research the bank's options to order more checks", "find out how to cash out credit card points",
    "research the definition of ubiquitous", "look into the meaning of life", "find out the exchange rate for the euro",
    "find out if i need a visa for japan", "search online for the status of flight 223",
])
def test_research_claims_nothing_else(said):
    context = RouteContext(datetime.now(timezone.utc), ZoneInfo("UTC"))
    assert "deep_research" not in [command.name for command, _ in claims(built_in_commands(), said, context)]


def test_a_long_topic_is_cut_to_fit_a_title(site):
    """A model may pass a whole paragraph as the topic; it becomes the inbox item's title (200 at most)."""
    store = FakeStore()
    services = Services({})
    command = DeepResearch()

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            command.desk = desk_for(site, store, services, http)
            await command.execute(request_for(store, KIM, services), topic="the history of heat pumps " * 20)

    asyncio.run(scenario())
    [job] = stored_jobs(store)
    assert len(job["topic"]) <= 150 and job["topic"].startswith("the history of heat pumps the history")
    assert not job["topic"].endswith(" ")


def test_a_search_instance_that_is_away_is_asked_again_and_at_last_reported(site):
    store = FakeStore()
    services = Services({})

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            desk = desk_for(site, store, services, http, search_url="http://127.0.0.1:9")  # nothing listens
            await asked(store, "heat pumps")
            await run_until_done(desk)
            [job] = stored_jobs(store)
            assert job["failures"] == 1 and job["report"] is None and services.inbox == []
            await store.update_document(HOUSEHOLD, SCOPE, STORAGE_KEY, lambda jobs: (
                [{**jobs[0], "failures": SEARCH_ATTEMPTS - 1}], None))
            await run_until_done(desk_for(site, store, services, http, search_url="http://127.0.0.1:9"))

    asyncio.run(scenario())
    [item] = services.inbox
    assert item["body"] == "I couldn't research heat pumps: the search service did not give any results."
