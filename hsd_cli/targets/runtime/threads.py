"""The model's CPU threads beside drafting workers: the cores a worker drafts on are given back to
it, and the cores the workers leave idle compute the model.

Drafting a page takes a worker a few seconds of the tens the model spends on it, so a core kept
for drafting idles most of the time, while a model on every core would oversubscribe them
whenever a worker drafts. The workers count the cores they use now in shared memory
(`CoreShare.busy`); the model's process fits its torch threads to the rest before each block of
its layers (`follow`): a page's prefill is one forward of several seconds, and a worker that
starts or stops drafting meanwhile changes the cores left. Decoding stays greedy decoding: only
the number of threads that share each operation changes.
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
_short = 0  # blocks of the model's layers run on fewer threads than its own, ever (see `short`)


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


def fit(*_hook_args) -> None:
    """As many torch threads as the workers leave cores (at least one); a forward pre-hook."""
    global _short
    if _share is not None:
        left = max(1, _share.total - _share.busy.value)
        _short += left < _share.total
        _set(left)


def short() -> int:
    """Blocks run so far on fewer threads than the model's own: a forward that raised it was not
    timed at the price the cost model measured on every thread."""
    return _short


def follow(model) -> None:
    """A model on the CPU fits its threads before each block of its layer lists (once per model)."""
    import torch

    if getattr(model, "_hsd_fits_threads", False):
        return
    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList):
            for block in module:
                block.register_forward_pre_hook(fit)
    model._hsd_fits_threads = True


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
