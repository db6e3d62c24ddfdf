"""The baselines a user already has: transformers' own `model.generate`, timed on the same pages.

Two of them (bench/config.EXTERNAL): `lookup`, prompt-lookup decoding; `hf-static`, greedy
decoding on transformers' static KV cache, which `generate` compiles on a GPU (what transformers
offers for speed without a serving engine). Under the oracle a logits processor forces the
reference, as OracleSession does for hsd's methods.

Counting: HF's first forward is the prefill and already verifies candidates, so `steps` is the
forward count minus one (as for our methods) while AAL divides by every forward.
"""

from __future__ import annotations

import time

import torch
from transformers import LogitsProcessor, LogitsProcessorList

from hsd_cli.bench.oracle import force_logits
from hsd_cli.bench.records import MethodRun
from hsd_cli.datatypes import PageImage
from hsd_cli.targets.runtime.base import model_image


class OracleLogits(LogitsProcessor):
    """Forces generated token i to ref[i] (EOS past the end), like OracleSession."""

    def __init__(self, prompt_len: int, ref: list[int], eos: int):
        self.prompt_len, self.ref, self.eos = prompt_len, ref, eos

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        i = input_ids.shape[1] - self.prompt_len
        want = self.ref[i] if i < len(self.ref) else self.eos
        return force_logits(scores.clone(), torch.full(scores.shape[:-1], want))


def run_generate(
    name: str, target, page: PageImage, max_new_tokens: int, options: dict, ref: list[int] | None = None
) -> MethodRun:
    """One page through `generate(**options)`, reported as method `name`; a crash becomes
    MethodRun.error ("failed: <reason>")."""
    model = target.model
    stamps: list[float] = []
    hook = model.register_forward_hook(lambda *_: stamps.append(time.perf_counter()))
    t0 = time.perf_counter()
    try:
        tokens = _generate(target, page, max_new_tokens, options, ref)
    except Exception as exc:  # noqa: BLE001 - any crash is the result we report
        return MethodRun(name, error=_reason(exc))
    finally:
        hook.remove()
    t1 = time.perf_counter()
    calls = len(stamps)
    return MethodRun(
        name,
        tokens=len(tokens),
        steps=calls - 1,
        seq_steps=calls,
        accepted=max(len(tokens) - calls, 0),
        t_prefill=stamps[0] - t0,
        t_decode=t1 - stamps[0],
        t_total=t1 - t0,
        truncated=not tokens or tokens[-1] not in target.eos_ids,
        token_ids=tokens,
    )


def _generate(target, page: PageImage, max_new_tokens: int, options: dict, ref) -> list[int]:
    text = target.chat_prompt(target.family.page_prompt)
    image = model_image(page.image, target.family)  # as VisionTarget.prefill does
    inputs = target.processor(images=[image], text=[text], return_tensors="pt").to(target.device)
    prompt_len = inputs["input_ids"].shape[1]
    extra = {}
    if ref is not None:
        extra["logits_processor"] = LogitsProcessorList([OracleLogits(prompt_len, ref, min(target.eos_ids))])
    with torch.inference_mode():
        out = target.model.generate(
            **inputs,
            do_sample=False,
            max_new_tokens=max_new_tokens,
            eos_token_id=sorted(target.eos_ids),
            **options,
            **extra,
        )
    tokens = out[0, prompt_len:].tolist()
    return _cut_at_eos(tokens, target.eos_ids)


def _cut_at_eos(tokens: list[int], eos_ids) -> list[int]:
    for i, tok in enumerate(tokens):
        if tok in eos_ids:
            return tokens[: i + 1]
    return tokens


def _reason(exc: Exception) -> str:
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first}"[:160]
