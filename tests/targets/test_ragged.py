"""Ragged attention: the static step's mask as a block mask reads each row's own blocks, sees what
the dense mask sees, and decodes AR's tokens (compiled FlexAttention on the CPU, float32)."""

from __future__ import annotations

import random

import pytest
import torch
from decoding import run_ar, run_page
from make_tiny_model import SERVED
from test_batched import _batches_equal_their_own_ar, _page
from test_static_session import joining_one_at_a_time, static_target
from test_static_step import CountingBackend, SyncCounter, _buckets

from hsd_cli.config import SpecConfig
from hsd_cli.targets.runtime import ragged
from hsd_cli.targets.runtime.static_session import engine_for
from hsd_cli.targets.runtime.static_step import dense_mask


class _Pool:
    """What dense_mask reads of a StaticKV."""

    def __init__(self, ptr: torch.Tensor, slots: int) -> None:
        self.ptr, self.slots, self.dtype = ptr, slots, torch.float32


def _case(rng: random.Random, rows: int, k: int, slots: int):
    """Pointers anywhere a tree fits (block edges included), trees of random ancestry."""
    edges = [p for p in (0, 127, 128, 129, slots - k) if 0 <= p <= slots - k]
    ptr = torch.tensor([rng.choice([rng.randrange(slots - k + 1), *edges]) for _ in range(rows)])
    anc = torch.tril(torch.rand(rows, k, k, generator=torch.Generator().manual_seed(rng.randrange(99))) < 0.5)
    return ptr, anc | torch.eye(k, dtype=torch.bool)


def _blocks(mask, rows: int, blocks: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row [R, blocks]: the blocks it reads, and those it reads whole (no mask_mod); no block
    twice (FlexAttention would count its keys twice)."""
    read, whole = torch.zeros(rows, blocks, dtype=torch.bool), torch.zeros(rows, blocks, dtype=torch.bool)
    for r in range(rows):
        n, full = int(mask.kv_num_blocks[r, 0, 0]), int(mask.full_kv_num_blocks[r, 0, 0])
        listed = mask.kv_indices[r, 0, 0, :n].tolist() + mask.full_kv_indices[r, 0, 0, :full].tolist()
        assert len(set(listed)) == len(listed)
        read[r, mask.kv_indices[r, 0, 0, :n].long()] = True
        whole[r, mask.full_kv_indices[r, 0, 0, :full].long()] = True
    return read | whole, whole


@pytest.mark.parametrize("k, slots", [(1, 96), (1, 384), (8, 192), (16, 1536), (64, 1024)])
def test_the_block_mask_sees_what_the_dense_mask_sees(k, slots):
    """mask_mod is the dense rule; every slot a node sees lies in a block its row reads; a block
    read whole is seen whole by every node; no row reads past its tree's last block."""
    rng = random.Random(f"{k}-{slots}")
    ptr, anc = _case(rng, 6, k, slots)
    mask = ragged.block_mask(ptr, anc, slots)
    seen = dense_mask(_Pool(ptr, slots), anc)[:, 0] == 0  # [R, K, S]
    b, q, kv = torch.meshgrid(torch.arange(6), torch.arange(k), torch.arange(slots), indexing="ij")
    assert torch.equal(mask.mask_mod(b, None, q, kv), seen)
    blocks = -(-slots // ragged.BLOCK)
    read, whole = _blocks(mask, 6, blocks)
    padded = torch.nn.functional.pad(seen, (0, blocks * ragged.BLOCK - slots))
    by_block = padded.reshape(6, k, blocks, ragged.BLOCK)
    assert not (by_block.any(3).any(1) & ~read).any()  # nothing seen is left unread
    assert by_block.all(3).all(1)[whole].all()  # whole blocks need no mask
    last = (ptr + k - 1) // ragged.BLOCK
    assert all(read[r, last[r] + 1 :].sum() == 0 for r in range(6))  # nothing past the tree is read


def test_ragged_attention_equals_dense_attention():
    """Compiled FlexAttention under the block mask against SDPA under the dense mask, grouped heads."""
    rng = random.Random(3)
    ptr, anc = _case(rng, 4, 8, 192)
    q, key, value = torch.randn(4, 4, 8, 32), torch.randn(4, 2, 192, 32), torch.randn(4, 2, 192, 32)
    want = torch.nn.functional.scaled_dot_product_attention(
        q, key, value, attn_mask=dense_mask(_Pool(ptr, 192), anc), enable_gqa=True
    )
    got = ragged.attend(q, key, value, ragged.block_mask(ptr, anc, 192), None)
    torch.testing.assert_close(got, want.transpose(1, 2), atol=2e-6, rtol=0)


@pytest.mark.filterwarnings("ignore:.*flex_attention called without torch.compile")
@pytest.mark.parametrize("family", SERVED)
def test_ragged_batches_equal_ar(family, tiny_target, monkeypatch):
    """Every family through the block mask (FlexAttention's eager reference: the same mask, no compile
    per shape): random methods, drafts and batch sizes decode each page's AR tokens."""
    monkeypatch.setattr(ragged, "COMPILED", False)
    calls = []
    real = ragged.attend
    monkeypatch.setattr(ragged, "attend", lambda *a: calls.append(a[3]) or real(*a))
    target = tiny_target(family)
    static = static_target(target, "eager")
    static.static_engine.ragged = True
    _batches_equal_their_own_ar(target, random.Random(f"ragged-{family}"), static)
    assert static.static_engine.runner.ragged and calls  # the family's attention took the block masks


def test_the_block_mask_is_made_on_the_device():
    """No device-to-host read while the mask is built: a CUDA graph captures it with the step."""
    ptr, anc = _case(random.Random(5), 3, 8, 384)
    with SyncCounter() as counter:
        ragged.block_mask(ptr, anc, 384)
    assert counter.syncs == []


def test_rows_joining_on_ragged_attention_decode_ar(tiny_target, monkeypatch):
    """Rows join a ragged static batch one a pass, half of them with drafts: each decodes its AR
    tokens; every step spans the pool's slots (one shape per rows and width, however rows grow)."""
    target = tiny_target("hunyuan_vl")
    static = static_target(target, "eager")
    static.static_engine.ragged = True
    seen = _buckets(monkeypatch)
    got, want = joining_one_at_a_time(target, static, rows=4)
    assert got == want
    assert static.static_engine.runner.ragged
    assert {slots for _, _, slots in seen} == {static.static_engine.kv.capacity[1]}


def test_a_compiled_step_takes_the_block_mask_in_one_graph(tiny_target):
    """torch.compile of the whole step (fullgraph: no break) with the block mask inside; AR's tokens."""
    target = tiny_target("qwen2_5_vl")
    spec = SpecConfig(max_new_tokens=16, max_depth=6)
    ref = run_ar(target, _page(0), spec).tokens
    backend = CountingBackend()
    static = static_target(target, "compile", backend)
    static.static_engine.ragged = True
    assert run_page(static, _page(0), [ref[:10]], spec).tokens == ref
    assert static.static_engine.runner.ragged and backend.graphs >= 1


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA graphs need a GPU")
def test_ragged_cuda_graphs_equal_ar(tiny_target):
    """Ragged attention captured in CUDA graphs: the tokens of eager AR."""
    target = tiny_target("qwen2_5_vl")
    if target.device.type != "cuda":
        pytest.skip("run with HSD_TEST_DEVICE=cuda")
    spec = SpecConfig(max_new_tokens=32, max_depth=8)
    ref = run_ar(target, _page(1), spec).tokens
    static = static_target(target, "graphs")
    static.static_engine.ragged = True
    assert run_page(static, _page(1), [ref[:20]], spec).tokens == ref
    assert run_ar(static, _page(1), spec).tokens == ref
    assert static.static_engine.runner.graphs and not static.static_engine.runner.failed


def test_ragged_is_asked_for_by_environment(monkeypatch):
    monkeypatch.setenv(ragged.ENV, "ragged")
    assert engine_for(torch.device("cuda"), True).ragged
    assert engine_for(torch.device("cpu"), True) is None  # the CPU keeps transformers' cache
    monkeypatch.setenv(ragged.ENV, "dense")
    assert not engine_for(torch.device("cuda"), True).ragged
    monkeypatch.setenv(ragged.ENV, "sparse")
    with pytest.raises(ValueError, match="HSD_ATTENTION"):
        ragged.wanted()
