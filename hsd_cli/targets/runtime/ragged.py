"""Ragged attention for the static step: each row reads its own slots, not the bucket's.

The static step's dense mask [rows, 1, K, slots] makes SDPA read every row's keys and values up to
the slot bucket of the longest row: in a batch of text pages beside one page image (a prompt four
times as long) most of that read is padding, and at 32 rows the step's attention is a third of it
(the H200 cost curve: 32 rows over 6,144 slots 15 ms, over 1,024 slots 7.2 ms). FlexAttention
takes the same mask as a block mask: the blocks before a row's pointer are read whole, the one or
two blocks holding its tree go through `mask_mod` (the dense mask's rule, node by node), and the
blocks past them are not read. Every query still attends to the same keys under the same mask.

Built on the device from the pool's pointers and the step's ancestry, with no host read: a CUDA
graph captures it with the step. FlexAttention runs compiled (its eager form ignores the blocks
and materialises every score): one compile per bucket, like the step's own.

Opt-in (`HSD_ATTENTION=ragged`) until a GPU run measures it against the dense kernel.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # torch loads with the model: the command line checks HSD_ATTENTION before
    import torch

BLOCK = 128  # slots a key block holds (FlexAttention's default)
ENV = "HSD_ATTENTION"  # "ragged": the static engine's attention reads each row's own slots
# False: FlexAttention's eager reference (mask_mod on every score, the blocks unread): the same
# attention without a compile per shape, for tests of every family on the CPU.
COMPILED = True
_compiled = None


def wanted() -> bool:
    """Whether the static engine's steps attend raggedly (HSD_ATTENTION=ragged; default dense)."""
    value = os.environ.get(ENV, "").strip().lower()
    if value not in ("", "dense", "ragged"):
        raise ValueError(f"{ENV} must be 'dense' or 'ragged', not {value!r}")
    return value == "ragged"


def block_mask(ptr: torch.Tensor, ancestry: torch.Tensor, slots: int):
    """The static step's mask as a FlexAttention BlockMask: ptr [R] (each row's first tree slot),
    ancestry [R, K, K] bool -> node i of row r sees slots < ptr[r] and its ancestors' slots
    ptr[r] + j (static_step.tree_forward's dense mask, the same rule)."""
    import torch
    from torch.nn.attention.flex_attention import BlockMask

    rows, k = ancestry.shape[:2]
    blocks, q_blocks = -(-slots // BLOCK), -(-k // BLOCK)
    every = torch.arange(blocks, device=ptr.device, dtype=torch.int32)
    whole = (ptr // BLOCK).to(torch.int32)  # blocks every node sees in full (before the tree)
    end = ((ptr + k + BLOCK - 1) // BLOCK).clamp(max=blocks).to(torch.int32)  # past the tree's last block
    tree_blocks = (every + whole[:, None]).clamp(max=blocks - 1)  # the tree's blocks first

    def per_query_block(t: torch.Tensor) -> torch.Tensor:  # [R, ...] -> [R, 1 head, q_blocks, ...]
        return t[:, None, None].expand(rows, 1, q_blocks, *t.shape[1:]).contiguous()

    def mask_mod(b, h, q, kv):
        rel = kv - ptr[b]
        return (rel < 0) | ((rel < k) & ancestry[b, q, rel.clamp(0, k - 1)])

    return BlockMask.from_kv_blocks(
        per_query_block(end - whole),
        per_query_block(tree_blocks),
        per_query_block(whole),
        per_query_block(every.expand(rows, blocks)),
        BLOCK_SIZE=BLOCK,
        mask_mod=mask_mod,
        seq_lengths=(k, slots),
        compute_q_blocks=False,  # the backward's index: a step has none
    )


def attend(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask, scale: float | None) -> torch.Tensor:
    """FlexAttention under a `block_mask`: [B, H, Q, D] queries over [B, Hkv, S, D] -> [B, Q, H, D]
    (transformers' attention output layout)."""
    global _compiled
    import torch
    from torch.nn.attention.flex_attention import flex_attention

    run = flex_attention  # inside a compiled step: that compile fuses it
    if COMPILED and not torch.compiler.is_compiling():
        if _compiled is None:
            from hsd_cli.targets.runtime.static_cache import allow_bucket_compiles

            allow_bucket_compiles()  # one compile per bucket's shapes, as many as the step's
            _compiled = torch.compile(flex_attention, dynamic=False, fullgraph=True)
        run = _compiled
    out = run(query, key, value, block_mask=mask, scale=scale, enable_gqa=query.shape[1] != key.shape[1])
    return out.transpose(1, 2).contiguous()
