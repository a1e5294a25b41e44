"""LLM proxy (7704): OpenAI-compatible `/v1/chat/completions` in front of the configured backend
(Ollama, any OpenAI-compatible server, an embedded llama.cpp model, or none). See docs/llm.md."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

from aiohttp import web

from voxd.kit.tasks import stop_tasks
from voxd.kit.app import create_service_app
from voxd.kit.appkeys import LIVE
from voxd.kit.auth import Pattern
from voxd.kit.context import REQUEST_ID_HEADER, request_id_var
from voxd.kit.errors import ApiError, error_body
from voxd.kit.routes import Call, Route, json_response
from voxd.kit.setting import SettingsError
from voxd.kit.settings import Settings
from voxd.services.llm.backends import create_backend
from voxd.services.llm.backends.base import Backend, llm_unavailable
from voxd.services.llm.schema import ChatChunk, check, chunk_body, completion_body, completion_id
from voxd.services.llm.settings import LlmSettings, load_settings
from voxd.wire.openai_chat import ChatCompletion, ChatRequest, ModelCard, ModelList, Usage

log = logging.getLogger("voxd.llm")
T = TypeVar("T")
DISCONNECT_POLL_SECONDS = 0.25

STARTED = web.AppKey("llm_started", int)


class Serving:
    """The backend that answers now and the settings it was built from. A stored change to a live
    setting builds the next one (`switch`): the next request uses it; calls already running on the
    old one finish (within its time-out), then it is closed."""

    def __init__(self, config: LlmSettings) -> None:
        self.config, self.backend = config, create_backend(config)
        self.retired: list[Backend] = []
        self.tasks: set[asyncio.Task] = set()

    def start(self) -> None:
        warming = self.backend.warm() if self.config.preload else self.backend.check()
        self.keep(asyncio.ensure_future(warming))

    def keep(self, task: asyncio.Task) -> None:
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def switch(self, config: LlmSettings) -> None:
        if config == self.config:
            return
        old, timeout = self.backend, self.config.timeout
        self.config, self.backend = config, create_backend(config)
        log.info("llm backend now %s, model %s", self.backend.name, self.backend.model)
        self.start()
        self.retired.append(old)
        asyncio.get_running_loop().call_later(timeout + 1, self.retire, old)

    def retire(self, backend: Backend) -> None:
        if backend in self.retired:
            self.retired.remove(backend)
            self.keep(asyncio.ensure_future(backend.close()))

    async def close(self) -> None:
        await stop_tasks(*self.tasks)
        for backend in (self.backend, *self.retired):
            await backend.close()


SERVING = web.AppKey("llm_serving", Serving)


def backend_of(call: Call) -> Backend:
    return call.app[SERVING].backend


def failure(backend: Backend, error: Exception, started: float) -> ApiError:
    """What a failed completion answers; a backend's own bug is a 503 too, never a 500."""
    took = (time.perf_counter() - started) * 1000
    if isinstance(error, ApiError):
        log.warning("completion by %s failed after %.0f ms: %s", backend.name, took, error.message)
        return error
    log.exception("completion by %s failed after %.0f ms", backend.name, took)
    return llm_unavailable(f"the {backend.name} backend failed ({error.__class__.__name__}); "
                           f"request id {request_id_var.get()}")


def log_done(backend: Backend, started: float, usage: Usage | None, finish: str | None, stream: bool) -> None:
    tokens = (f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens"
              if usage and usage.total_tokens else "token counts not reported")
    log.info("completion by %s (%s) in %.0f ms%s: %s, finish %s", backend.name, backend.model,
             (time.perf_counter() - started) * 1000, " streamed" if stream else "", tokens, finish)


def capped(request: ChatRequest, limit: int) -> ChatRequest:
    """Every answer has a token cap (VOXD_LLM_MAX_TOKENS): a request may ask for fewer, never more."""
    return dataclasses.replace(request, max_tokens=min(request.token_limit or limit, limit), max_completion_tokens=None)


async def chat_completions(call: Call[ChatRequest]) -> web.StreamResponse:
    check(call.body)
    backend, started = backend_of(call), time.perf_counter()
    request = capped(call.body, call.app[SERVING].config.max_tokens)
    if request.stream:
        return await stream_completion(call, backend, request, started)
    try:
        answer = await while_connected(call.request, backend.complete(request))
    except Exception as error:
        raise failure(backend, error, started) from None
    if answer is None:
        log.info("completion by %s abandoned after %.0f ms: the caller went away", backend.name,
                 (time.perf_counter() - started) * 1000)
        return web.Response(status=499, reason="Client Closed Request")  # nobody reads it
    log_done(backend, started, answer.usage, answer.finish_reason, stream=False)
    return web.json_response(completion_body(answer, completion_id(), backend.model))


async def while_connected(request: web.Request, work: Awaitable[T]) -> T | None:
    """Await `work`, cancelling it when the caller hangs up (aiohttp does not cancel handlers), so
    a generation nobody waits for stops and frees the model; None when the caller left."""
    task = asyncio.ensure_future(work)
    while not (await asyncio.wait({task}, timeout=DISCONNECT_POLL_SECONDS))[0]:
        if request.transport is None or request.transport.is_closing():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            return None
    return task.result()


def event(data: Any) -> bytes:
    return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"


async def stream_completion(call: Call[ChatRequest], backend: Backend, request: ChatRequest,
                            started: float) -> web.StreamResponse:
    """Server-sent events; a failure before the first piece is still a JSON 503."""
    chunks: AsyncIterator[ChatChunk] = aiter(backend.stream(request))
    completion, last = completion_id(), ChatChunk()
    try:
        chunk: ChatChunk | None = await anext(chunks, None)
    except Exception as error:
        await _close(chunks)
        raise failure(backend, error, started) from None
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                           REQUEST_ID_HEADER: request_id_var.get()})
    await response.prepare(call.request)
    first = True
    try:
        while chunk is not None:
            await response.write(event(chunk_body(chunk, completion, backend.model, first)))
            first, last = False, chunk
            chunk = await anext(chunks, None)
        await response.write(b"data: [DONE]\n\n")
    except ConnectionResetError:  # the caller hung up; closing the stream stops the generation
        log.info("stream by %s abandoned after %.0f ms: the caller went away", backend.name,
                 (time.perf_counter() - started) * 1000)
        return response
    except Exception as error:  # the headers are gone: say it in the stream, without [DONE]
        problem = failure(backend, error, started)
        await response.write(event(error_body(problem.code, problem.message)))
    finally:
        await _close(chunks)
    await response.write_eof()
    log_done(backend, started, last.usage, last.finish_reason, stream=True)
    return response


async def _close(chunks: AsyncIterator[ChatChunk]) -> None:
    with contextlib.suppress(Exception):
        await chunks.aclose()  # type: ignore[attr-defined]


async def list_models(call: Call[None]) -> web.Response:
    backend = backend_of(call)
    cards = [] if backend.name == "none" else [ModelCard(backend.model, "model", call.app[STARTED], f"voxd-{backend.name}")]
    return json_response(ModelList("list", cards))


MODEL_USERS = ("command-center", "recipes")  # choosing a turn's tool; structuring a recipe page or photo

ROUTES = [
    Route("POST", "/v1/chat/completions", chat_completions, (Pattern.APP,), callers=MODEL_USERS,
          body=ChatRequest,
          response=ChatCompletion, summary="OpenAI-compatible chat completion (stream: server-sent events)"),
    Route("GET", "/v1/models", list_models, (Pattern.APP,), callers=MODEL_USERS, response=ModelList,
          summary="the configured model (OpenAI shape; empty when no backend is configured)"),
]


def usable_settings(settings: Settings) -> LlmSettings:
    """The settings the proxy starts with. Stored changes that do not make a usable whole (a model
    stored before its backend) are set aside with one warning, so the settings page can never keep
    the daemon from starting; a bad value from the environment or voxd.env stops it (SettingsError)."""
    try:
        return load_settings(settings)
    except SettingsError as error:
        if settings.base is None or settings.base == settings:
            raise
        log.warning("the stored llm settings are not used: %s", error)
        return load_settings(settings.base)


def follow(serving: Serving, settings: Settings) -> None:
    """A stored change: the next request uses the backend it makes, once the settings are a whole."""
    try:
        config = load_settings(settings)
    except SettingsError as error:
        log.warning("the llm settings stored so far are not a usable whole (%s); the %s backend keeps "
                    "answering", error, serving.backend.name)
        return
    serving.switch(config)


def create_app(settings: Settings) -> web.Application:
    serving = Serving(usable_settings(settings))

    async def lifecycle(app: web.Application) -> AsyncIterator[None]:
        app[SERVING], app[STARTED] = serving, int(time.time())
        log.info("llm backend %s, model %s", serving.backend.name, serving.backend.model)
        serving.start()
        yield
        await serving.close()

    app = create_service_app("llm", settings, ROUTES, resources=[lifecycle])
    app[LIVE].on_change(lambda now: follow(serving, now))
    return app
