"""The model's CPU threads beside drafting workers: the cores a worker drafts on are given back to
it, and the cores the workers leave idle compute the model.

Drafting a page takes a worker a few seconds of the tens the model spends on it, so a core kept
for drafting idles most of the time, while a model on every core would oversubscribe them
whenever a worker drafts. The workers count the cores they use now in shared memory
(`CoreShare.busy`); the model's process fits its torch threads to the rest before each forward
(`fit`), which changes no output: the threads split the same arithmetic.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class CoreShare:
    """Cores the drafting workers use now (a multiprocessing Value, seen by every process), and
    the model's threads when none does."""

    busy: Any  # multiprocessing.Value("i")
    total: int


_share: CoreShare | None = None


def lend(share: CoreShare) -> None:
    """From now on, the model's forwards take the cores `share`'s workers leave."""
    global _share
    _share = share


def reclaim() -> None:
    """The workers are gone: the model's threads are its own again."""
    global _share
    if _share is not None:
        _set(_share.total)
    _share = None


def fit() -> None:
    """Before a forward on the CPU: as many torch threads as the workers leave cores (at least one)."""
    if _share is not None:
        _set(max(1, _share.total - _share.busy.value))


@contextmanager
def drafting(busy: Any, cores: int):
    """A worker's `cores` counted busy while it drafts a page."""
    with busy.get_lock():
        busy.value += cores
    try:
        yield
    finally:
        with busy.get_lock():
            busy.value -= cores


def _set(threads: int) -> None:
    import torch  # lazily: the draft pipeline alone runs without torch

    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
