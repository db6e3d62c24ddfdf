"""Out-of-memory errors: recognised on every device, said in one line, their memory handed back."""

from __future__ import annotations

import gc
import re

# CPU and MPS allocators raise plain RuntimeErrors; CUDA raises torch.OutOfMemoryError.
_OOM_TEXT = ("out of memory", "can't allocate memory")


def is_oom(exc: BaseException) -> bool:
    import torch  # lazily: the CLI starts without torch

    if isinstance(exc, torch.OutOfMemoryError):
        return True
    return isinstance(exc, RuntimeError) and any(t in str(exc).lower() for t in _OOM_TEXT)


def oom_line(exc: BaseException) -> str:
    """What a user reads: the size that failed, if the allocator said, and what to try."""
    size = re.search(r"tried to allocate ([\d.]+ ?[KMGT]i?B)", str(exc), re.IGNORECASE)
    what = f" (tried to allocate {size.group(1)})" if size else ""
    return f"out of memory{what}; try --dtype bf16, a lower --dpi, or a smaller --stage1-batch"


def release() -> None:
    """Give the failed attempt's tensors back before the next one starts."""
    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
