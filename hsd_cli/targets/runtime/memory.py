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


# A CPU step's cost grows far slower than its tokens up to ~64 (the measured CPU cost curves).
CPU_BATCH_PAGES = 4
MAX_BATCH_PAGES = 32
PAGE_PROMPT_TOKENS = 2048  # a page's vision tokens and prompt, at the default --max-pixels caps


def default_batch_pages(target, spec) -> int:
    """Pages per forward pass: 4 on a CPU; on a GPU as many as half its free memory holds in KV cache,
    priced as the static pool allocates it (static_cache: rows and slots rounded up to their buckets,
    slots with room for the widest tree step), so the pool at that batch stays within the half."""
    import torch

    if target.device.type != "cuda":
        return CPU_BATCH_PAGES
    free, _ = torch.cuda.mem_get_info(target.device)
    return pages_that_fit(free / 2, kv_bytes_per_token(target), spec.max_new_tokens)


def kv_bytes_per_token(target) -> int:
    text = target.model.config.get_text_config()
    heads = getattr(text, "num_key_value_heads", None) or text.num_attention_heads
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
    return 2 * text.num_hidden_layers * heads * head_dim * target.model.dtype.itemsize


def pages_that_fit(budget: float, per_token: int, max_new_tokens: int) -> int:
    """Most pages (at least 1, at most MAX_BATCH_PAGES) whose pool rows fit in `budget` bytes."""
    from hsd_cli.targets.runtime.static_cache import ROW_BUCKETS, SLOT_BUCKETS, WIDTH_BUCKETS, bucket  # torch

    slots = bucket(PAGE_PROMPT_TOKENS + max_new_tokens + WIDTH_BUCKETS[-1], SLOT_BUCKETS)
    fits = [n for n in range(1, MAX_BATCH_PAGES + 1) if bucket(n, ROW_BUCKETS) * slots * per_token <= budget]
    return max(fits, default=1)
