"""Weight layout for CPU verification: linear layers stored so their GEMM runs without a transpose.

`nn.Linear` computes x @ W.T with W stored [out, in]. On CPU in float32, MKL's kernel for that
transposed case is slow for the few-row inputs a tree step has: a forward over 8-12 tree tokens
cost more than one over 16 on the full-size HunyuanOCR (measured: 0.25 s at K=8, 0.33 s at K=12,
0.26 s at K=16). With W stored column-major (W.T contiguous) the same call runs the plain GEMM,
and the cost grows smoothly with K (0.19 s at K=8, 0.21 s at K=12). Values, shapes and tied
weights stay as they are; only the memory order changes.
"""

from __future__ import annotations

import torch


def prefer_plain_gemm(model: torch.nn.Module) -> torch.nn.Module:
    """Re-lay every float32 CPU linear weight column-major, in place (shared weights once)."""
    done: set[int] = set()
    for module in model.modules():
        if not isinstance(module, torch.nn.Linear):
            continue
        weight = module.weight
        if id(weight) in done or weight.device.type != "cpu" or weight.dtype != torch.float32:
            continue
        done.add(id(weight))
        # Assigning .data keeps the Parameter object, so a tied embedding sees the same storage.
        weight.data = weight.data.t().contiguous().t()
    return model


def weight_layout(model: torch.nn.Module) -> str:
    """ "column-major" when `prefer_plain_gemm` re-laid the model, else "row-major" (cost-cache key)."""
    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            weight = module.weight
            return (
                "column-major"
                if weight.dim() == 2 and not weight.is_contiguous() and weight.t().is_contiguous()
                else "row-major"
            )
    return "row-major"
