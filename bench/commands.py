"""Command latency through the running daemon (run by hand).

1. Pre-routed text commands, no model: p50/p95/p99 over 500 sequential requests, and with 20
   concurrent nodes.
2. Model-routed commands against an instant scripted OpenAI-compatible model behind the real
   language-model proxy: the pipeline's own overhead (total minus the two model calls as the
   pipeline timed them) and the whole request as the node sees it.

    .venv/bin/python bench/commands.py

Targets (issue 4): pre-routed p50 under 15 ms, p99 under 50 ms; overhead beyond model time under 20 ms.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from common import daemon, machine, percentile  # noqa: E402
from routing import ALL, register_node  # noqa: E402
from scripted_llm import ScriptedModel, tool_call  # noqa: E402

FAST = ["what time is it", "what's 12 times 7", "set a timer for five minutes", "stop",
        "add milk to the shopping list", "what's on my shopping list", "convert 5 miles to kilometers"]


def sequential(url: str, headers: dict, count: int) -> list[float]:
    timings = []
    with httpx.Client(headers=headers, timeout=30) as client:
        for i in range(count):
            started = time.perf_counter()
            answer = client.post(url, json={"text": FAST[i % len(FAST)]})
            timings.append((time.perf_counter() - started) * 1000)
            assert answer.status_code == 200 and answer.json()["routed_by"] == "pre_route", answer.text
    return timings


async def concurrent(url: str, node_headers: list[dict], per_node: int) -> tuple[list[float], float]:
    timings: list[float] = []

    async def node(session: aiohttp.ClientSession, headers: dict) -> None:
        for i in range(per_node):
            started = time.perf_counter()
            async with session.post(url, json={"text": FAST[i % len(FAST)]}, headers=headers) as resp:
                await resp.read()
                assert resp.status == 200
            timings.append((time.perf_counter() - started) * 1000)

    async with aiohttp.ClientSession() as session:
        started = time.perf_counter()
        await asyncio.gather(*(node(session, h) for h in node_headers))
        return timings, time.perf_counter() - started


def summary(name: str, timings: list[float]) -> str:
    return (f"{name:44} n={len(timings):4}  p50 {percentile(timings, .5):6.1f}  p95 {percentile(timings, .95):6.1f}"
            f"  p99 {percentile(timings, .99):6.1f}  max {max(timings):6.1f} ms")


def main() -> None:
    print(f"machine: {machine()}")
    model = ScriptedModel()
    try:
        with daemon(ALL, VOXD_LLM_BACKEND="openai", VOXD_LLM_URL=model.url, VOXD_LLM_MODEL="scripted") as voxd:
            url = voxd.url("command-center") + "/api/v0/command"
            headers = register_node(voxd)
            sequential(url, headers, 50)  # warm up
            print(summary("pre-routed, 500 sequential", sequential(url, headers, 500)))
            nodes = [register_node(voxd) for _ in range(20)]
            timings, elapsed = asyncio.run(concurrent(url, nodes, 25))
            print(summary("pre-routed, 20 concurrent nodes x 25", timings) + f"  ({len(timings) / elapsed:.0f} req/s)")

            overhead, whole = [], []
            with httpx.Client(headers=headers, timeout=30) as client:
                for i in range(220):
                    model.script[:] = [tool_call("calculate", {"num1": i, "num2": 3, "operation": "multiply"})]
                    started = time.perf_counter()
                    body = client.post(url, json={"text": f"please work out {i} lots of three"}).json()
                    if i >= 20:
                        whole.append((time.perf_counter() - started) * 1000)
                        t = body["timings"]
                        overhead.append(t["total"] - t.get("llm_route", 0) - t.get("llm_reply", 0))
            print(summary("model-routed: pipeline overhead (total - model)", overhead))
            print(summary("model-routed: whole request, instant model", whole))
    finally:
        model.close()


if __name__ == "__main__":
    main()
