"""Weight layout for CPU verification: linear layers whose few-row GEMMs cost what one row costs.

`nn.Linear` calls MKL's sgemm, which on CPU in float32 is slow for the few-row inputs of a tree
step or a batch of pages: on the full-size HunyuanOCR's 3584 x 1024 MLP weight, 2 threads, 1 row
takes 0.28 ms, 2 rows 0.55 ms and 4 rows 1.4 ms, although every row reads the same weight once.
oneDNN's linear over a weight packed once in its blocked layout (the kernel torch.compile's CPU
freezing uses) takes 0.26, 0.28 and 0.36 ms, and 4.4, 5.4 and 3.2 ms where MKL takes 7.6, 17 and
21 ms on the vocabulary projection. A whole step of the model over 4-16 tree tokens (or pages'
rows) costs 0.16-0.26 s instead of 0.31-0.45 s, so trees and batches pay on a CPU; a one-token
step costs 0.17 s instead of 0.14 s (one thread, RESULTS.md gemm-layout).

Packing keeps values and shapes: a packed layer is still an `nn.Linear` whose dense weight is a
one-element stride-0 view (the packed copy holds the values; memory is not doubled), except a
weight tied to an embedding, which stays dense because the embedding looks tokens up in it, and
the vocabulary projection's: on one thread MKL's matrix-vector kernel beats oneDNN for a single
row there (6.0 vs 9.9 ms on a quarter of HunyuanOCR's vocabulary), and a plain decode step is one
row. Dense weights are laid out column-major, so MKL runs its plain GEMM; without oneDNN every
weight is.
"""

from __future__ import annotations

import torch


class PackedLinear(torch.nn.Linear):
    """An `nn.Linear` that multiplies by its oneDNN-packed weight."""

    packed: torch.Tensor
    dense_one_row: bool = False  # a single row multiplies the (kept) dense weight instead

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.dense_one_row and x.numel() == x.shape[-1]:
            return torch.nn.functional.linear(x, self.weight, self.bias)
        return torch.ops.mkldnn._linear_pointwise(x.contiguous(), self.packed, self.bias, "none", [], "")


def can_pack() -> bool:
    """oneDNN's packed linear is in this torch build."""
    ops = torch.ops.mkldnn
    return torch.backends.mkldnn.is_available() and all(
        hasattr(ops, name) for name in ("_linear_pointwise", "_reorder_linear_weight")
    )


def pack_linears(model: torch.nn.Module) -> torch.nn.Module:
    """Pack every float32 CPU linear weight for oneDNN (column-major without it), in place."""
    pack = can_pack()
    output = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    keep = {id(m.weight) for m in model.modules() if isinstance(m, torch.nn.Embedding)}
    keep |= {id(output.weight)} if output is not None else set()
    packed: dict[int, torch.Tensor] = {}  # shared weights are packed once
    for module in list(model.modules()):
        weight = getattr(module, "weight", None)
        if type(module) is not torch.nn.Linear or weight.device.type != "cpu" or weight.dtype != torch.float32:
            continue
        if pack and id(weight) not in packed:
            packed[id(weight)] = torch.ops.mkldnn._reorder_linear_weight(weight.detach(), None)
        if weight.is_contiguous() and (not pack or id(weight) in keep):
            weight.data = weight.data.t().contiguous().t()  # .data keeps the Parameter object and its ties
        if pack:
            module.__class__ = PackedLinear
            module.packed = packed[id(weight)]
            module.dense_one_row = module is output
            if id(weight) not in keep:
                weight.data = torch.zeros(1, dtype=weight.dtype).expand(weight.shape)
    return model


def weight_layout(model: torch.nn.Module) -> str:
    """How `pack_linears` left the linear weights (part of the cost-cache key)."""
    for module in model.modules():
        if isinstance(module, PackedLinear):
            return "onednn-packed"
        if isinstance(module, torch.nn.Linear):
            weight = module.weight
            return (
                "column-major"
                if weight.dim() == 2 and not weight.is_contiguous() and weight.t().is_contiguous()
                else "row-major"
            )
    return "row-major"
