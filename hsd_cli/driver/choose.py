"""Which converter a run gets, decided once for every engine (local runner, Ray driver and actors).

`draft` -> the draft pipeline. Otherwise the model is checked without loading it: not found is a
ModelNotFoundError, except that with cfg.draft_fallback (no model asked for) it means the draft
pipeline and one warning line. The target converter loads its model on its first page.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from hsd_cli.config import METHODS, RunConfig, load, row_named
from hsd_cli.errors import ModelNotFoundError
from hsd_cli.methods.draft import DraftConverter

if TYPE_CHECKING:  # the target side imports torch: only once a run needs it
    from hsd_cli.driver.converter import TargetConverter
    from hsd_cli.methods.base import Method, PageConverter
    from hsd_cli.targets.runtime.base import VisionTarget


def converter_for(cfg: RunConfig) -> PageConverter:
    """The converter for cfg.method; its method, uses_drafts and options are known unloaded."""
    from hsd_cli.targets.runtime.registry import check_model, families  # FAMILIES would import torch now

    if not row_named(METHODS, cfg.method).model:
        return DraftConverter(cfg.draft_source)
    try:
        _, family = check_model(cfg.model)
    except ModelNotFoundError as e:
        if not cfg.draft_fallback:
            raise
        print(fallback_warning(cfg.model, e), file=sys.stderr)
        return DraftConverter(cfg.draft_source)
    method = method_named(cfg.method)
    if note := precision_note(cfg, method):
        print(note, file=sys.stderr)
    from hsd_cli.driver.converter import TargetConverter

    return TargetConverter(method, cfg, element_level=families()[family][0].element_level)


def converter_with(target: VisionTarget, cfg: RunConfig) -> TargetConverter:
    """The converter for cfg.method on a target already loaded (tests, `hsd bench`)."""
    from hsd_cli.driver.converter import TargetConverter

    return TargetConverter(method_named(cfg.method), cfg, target)


def method_named(name: str) -> Method:
    """The target method called `name` on the command line (a row of config.METHODS)."""
    return load(row_named(METHODS, name))()


def fallback_warning(model: str, error: ModelNotFoundError) -> str:
    """The one line saying that the pages are the unverified drafts, why, and how to get the model."""
    from hsd_cli.targets.runtime.registry import WAYS_OUT

    cause = str(error).removesuffix(f": {WAYS_OUT}")
    return (
        f"hsd: warning: {cause}; writing the draft pipeline's unverified output instead "
        f"(page reports say method: draft); to convert with the model, pass --model DIR "
        f"or download it first (hf download {model})"
    )


def precision_note(cfg: RunConfig, method: Method) -> str | None:
    """A line for tau = 1 in half precision: equality with AR is guaranteed in float32 only."""
    import torch

    from hsd_cli.targets.runtime.registry import resolve_device, resolve_dtype

    dtype = resolve_dtype(cfg.dtype, resolve_device(cfg.device))
    if dtype not in (torch.bfloat16, torch.float16) or not method.uses_drafts or cfg.spec.tau < 1.0:
        return None
    # Half-precision logits tie, and batch or tree shape can flip a tie (docs/how-it-works.md).
    name = str(dtype).removeprefix("torch.")
    return (
        f"hsd: note: the model runs in {name}: output equal to greedy AR decoding is guaranteed "
        f"in float32 (--dtype fp32) and measured otherwise (--baseline reports identical_to_ar)"
    )
