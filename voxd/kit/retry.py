"""The one retry policy for work that may fail for a while: a peer restarting, a broker or a log
store that is away (docs/architecture.md, Contracts: Service calls).

Exponential backoff with jitter, on tenacity: the n-th wait is `multiplier * 2**(n-1)` plus up to
`jitter` seconds at random, never more than `max`. The jitter keeps callers that failed together
(every service of a daemon when the logs service restarts) from retrying in lockstep. The node
agent (node/voxd_node, which does not import voxd) uses tenacity's same wait with the same names.

Loops that retry one piece of work use `policy.retrying(...)`; loops that keep their own count of
failures across rounds (the timer bell) ask `policy.delay(failures)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    stop_never,
    wait_exponential_jitter,
)

# Answers that mean "not now" rather than "never": credentials not yet known, not yet registered,
# a time-out, overloaded. With every 5xx, they are worth sending again.
RETRY_STATUSES = frozenset({401, 403, 404, 408, 429})

RetryHook = Callable[[RetryCallState], object]


def worth_retrying(status: int) -> bool:
    return status in RETRY_STATUSES or status >= 500


@dataclass(frozen=True)
class RetryPolicy:
    multiplier: float  # seconds: the first wait, doubled after each failure
    max: float  # seconds: the longest wait
    jitter: float  # seconds: at most this much is added at random to each wait
    attempts: int | None = None  # give up after this many attempts; None: never

    def wait(self) -> wait_exponential_jitter:
        return wait_exponential_jitter(multiplier=self.multiplier, max=self.max, jitter=self.jitter)

    def delay(self, failures: int) -> float:
        """The wait after `failures` failures in a row (1 for the first)."""
        state = RetryCallState(retry_object=None, fn=None, args=(), kwargs={})  # type: ignore[arg-type]
        state.attempt_number = max(failures, 1)
        return self.wait()(state)

    def retrying(
        self,
        retry_on: type[BaseException] | tuple[type[BaseException], ...],
        on_retry: RetryHook | None = None,
    ) -> AsyncRetrying:
        """`async for attempt in policy.retrying(E): with attempt: ...` runs the block until it no
        longer raises `E`; when attempts run out the last `E` is raised. `on_retry` sees each
        failure before its wait (to log the first one, say)."""
        return AsyncRetrying(
            wait=self.wait(),
            stop=stop_after_attempt(self.attempts) if self.attempts else stop_never,
            retry=retry_if_exception_type(retry_on),
            before_sleep=on_retry,
            reraise=True,
        )
