"""VOXD_TORCH_THREADS reaches every thread that runs torch, also the worker threads that exist before
the first model loads (torch keeps its count per thread: kit/torch_threads.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("torch")

CHILD = """
from concurrent.futures import ThreadPoolExecutor

from voxd.kit import torch_threads
from voxd.kit.settings import Settings

earlier = ThreadPoolExecutor(1)
earlier.submit(lambda: None).result()  # a worker that exists before anything loads
torch_threads.configure(Settings.load({"VOXD_TORCH_THREADS": "3"}))
assert ThreadPoolExecutor(1).submit(torch_threads.apply).result() == 3  # a service loading its model

import torch

def threads_of_a_worker():
    torch.ones(64, 64) @ torch.ones(64, 64)
    return torch.get_num_threads()

print(earlier.submit(threads_of_a_worker).result(), ThreadPoolExecutor(1).submit(threads_of_a_worker).result(),
      torch.get_num_threads())
"""


def test_the_count_reaches_every_thread_that_runs_torch():
    # 3: not torch's default on the machines the tests run on (one per core: 1, 2, 4, ...)
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["3", "3", "3"]
