"""A prefilled batch on hsd's own static KV cache: static-shape tree steps, commits by index.

`StaticEngine` is one per target: the KV pool (static_cache.StaticKV, allocated at the first
prefill, grown rarely) and the step runner (static_step.StepRunner). `StaticSession` implements
spec.decode.TargetSession over rows of that pool: its rows are padded to a row bucket and its
trees to a width bucket, so every step of a bucket has the same shapes; a row that leaves gives
its pool row back, a newcomer's prefill is written into a free row. The prefill itself runs as
before on a DynamicCache (prompts differ in length; it is not captured) and is then copied in.
"""

from __future__ import annotations

import weakref

import torch

from hsd_cli.spec.tree import long_tensor, upload
from hsd_cli.targets.runtime import threads
from hsd_cli.targets.runtime.ragged import wanted as ragged_wanted
from hsd_cli.targets.runtime.static_cache import ROW_BUCKETS, SLOT_BUCKETS, WIDTH_BUCKETS, StaticKV, bucket
from hsd_cli.targets.runtime.static_step import StepRunner

FIRST_ROWS = 8  # rows the pool starts with (grown by half when a batch needs more)
FIRST_SLOTS = 1024  # slots per row the pool starts with (likewise grown)


class StaticEngine:
    """A target's KV pool and step runner; `mode` is one of static_step.MODES; `backend` and
    `dynamic` compile the step, `ragged` attends to each row's own slots (static_step.StepRunner)."""

    def __init__(self, mode: str = "eager", backend=None, dynamic: bool = False, ragged: bool = False):
        self.mode, self.backend, self.dynamic, self.ragged = mode, backend, dynamic, ragged
        self.model = None  # the model the pool and runner were made for (a new one starts them afresh)
        self.kv: StaticKV | None = None
        self.runner: StepRunner | None = None
        self.rows = FIRST_ROWS  # rows the batch is expected to hold (expect)

    def expect(self, rows: int) -> None:
        """The batch will hold about `rows` rows (the driver's pages): the pool starts with them and
        keeps them when it grows its slots, instead of growing back to them a bucket at a time
        (each reallocation copies the pool and makes every captured graph stale)."""
        self.rows = max(1, rows)
        if self.kv is not None:
            self.kv.min_rows = self.rows

    @staticmethod
    def fits(cache) -> bool:
        """Every layer of the prefill's cache is a plain full-attention DynamicLayer (no sliding
        window, no linear attention): the only kind the pool stands in for."""
        from transformers.cache_utils import DynamicLayer

        return all(type(layer) is DynamicLayer for layer in cache.layers)

    def session(self, model, cache, valid: torch.Tensor, next_pos: torch.Tensor, n_axes: int, prompts) -> StaticSession:
        """`model`'s prefilled DynamicCache rows written into free rows of the pool, as a session."""
        if self.kv is None or model is not self.model:
            self.model = model
            self.kv = StaticKV.like(cache, max(FIRST_ROWS, self.rows, valid.shape[0]), FIRST_SLOTS)
            self.kv.min_rows = self.rows
            self.runner = StepRunner(model, self.kv, n_axes, self.mode, self.backend, self.dynamic, self.ragged)
        rows = self.kv.take(valid.shape[0])
        self.kv.write_rows(rows, cache, valid, next_pos)
        return StaticSession(self, rows, prompts)


class StaticSession:
    """Implements spec.decode.TargetSession on rows of a StaticEngine's pool."""

    def __init__(self, engine: StaticEngine, rows: list[int], prompt_ids: list[list[int]] | None = None):
        self.engine = engine
        self.kv = engine.kv
        self.live = rows  # pool row of each batch row, in batch order (mutated in place)
        self.prompt_ids = prompt_ids or []  # per row: its prompt token ids (repetition penalty)
        self.forward_calls = 0
        self.priced = True  # the last step ran on the model's own threads all through
        self._idx: torch.Tensor | None = None  # self.live on the device, while it holds
        # Rows still held when the session goes (its last rows stop without a select_rows) go back.
        weakref.finalize(self, self.kv.give, self.live)

    @property
    def model(self):
        return self.engine.model

    def _rows(self) -> torch.Tensor:
        if self._idx is None:
            self._idx = torch.tensor(self.live, device=self.kv.device)
        return self._idx

    def _row_bucket(self) -> int:
        return bucket(max(self.live) + 1, ROW_BUCKETS)

    def step(self, ids: torch.Tensor, ancestry: torch.Tensor, depth: torch.Tensor) -> torch.Tensor:
        """One forward over packed trees: [B, K], [B, K, K], [B, K] -> logits [B, K, V] (model dtype)."""
        kv, dev = self.kv, self.kv.device
        k, rb, kb = ids.shape[1], self._row_bucket(), bucket(ids.shape[1], WIDTH_BUCKETS)
        need = max(kv.used[:rb]) + kb  # every bucket row writes its kb nodes past its pointer
        kv.reserve(0, need)
        # Ragged attention reads each row's own blocks whatever the slots: the whole allocation
        # then, one shape (one graph, one compile) for rows that grow past slot buckets.
        slots = kv.capacity[1] if self.engine.runner.ragged else min(bucket(need, SLOT_BUCKETS), kv.capacity[1])
        kv.rows, kv.slots = rb, slots
        idx = self._rows()
        # Padding rows and nodes: token 0 at depth 0, seeing only themselves.
        pad_ids = torch.zeros(rb, kb, dtype=torch.long, device=dev)
        pad_anc = torch.eye(kb, dtype=torch.bool, device=dev).expand(rb, kb, kb).clone()
        pad_depth = torch.zeros(rb, kb, dtype=torch.long, device=dev)
        pad_ids[:, :k].index_copy_(0, idx, upload(ids, dev))
        pad_anc[:, :k, :k].index_copy_(0, idx, upload(ancestry, dev))
        pad_depth[:, :k].index_copy_(0, idx, upload(depth, dev))
        self.forward_calls += 1
        short = threads.short()
        logits = self.engine.runner(pad_ids, pad_anc, pad_depth)
        self.priced = threads.short() == short
        with torch.inference_mode():  # a copy: a graph's output is overwritten by its next replay
            return logits.index_select(0, idx)[:, :k]

    def commit(self, keep: list[list[int]]) -> None:
        """Per row, the kept nodes' slots moved to the front of its tail; pointers advanced."""
        kv, rb = self.kv, self._row_bucket()
        width = bucket(max(len(p) for p in keep), WIDTH_BUCKETS)
        table = [list(range(width)) + [0] for _ in range(rb)]  # paths then length; other rows keep nothing
        moved = False
        for row, path in zip(self.live, keep, strict=True):
            table[row] = path + [path[-1]] * (width - len(path)) + [len(path)]
            moved = moved or path != list(range(len(path)))
            kv.used[row] += len(path)
        flat = [x for line in table for x in line]
        table = upload(long_tensor(flat, (rb, width + 1)), kv.device)  # one copy to the device
        self.engine.runner.commit(table[:, :width], table[:, width], moved)

    def select_rows(self, rows: list[int]) -> None:
        """Keep only these batch rows: the others' pool rows are freed; rows high in the pool move
        down into free rows while that shrinks the row bucket (one row's copy each)."""
        kept = [self.live[i] for i in rows]
        self.kv.give(sorted(set(self.live) - set(kept)))
        self.live[:] = kept
        self.prompt_ids = [self.prompt_ids[i] for i in rows] if self.prompt_ids else []
        self._settle()

    def _settle(self) -> None:
        kv = self.kv
        while self.live:
            high = max(self.live)
            below = [r for r in kv.free if r < high]
            if not below or bucket(high + 1, ROW_BUCKETS) <= bucket(len(self.live), ROW_BUCKETS):
                break
            dst = min(below)
            kv.free.remove(dst)
            kv.move_row(high, dst)
            kv.give([high])
            self.live[self.live.index(high)] = dst
        self._idx = None

    def extend(self, other: StaticSession) -> None:
        """Another prefilled batch's rows (already in free rows of the same pool) after these."""
        if not isinstance(other, StaticSession) or other.kv is not self.kv:
            raise TypeError("a static session extends only with sessions of its own engine")
        self.live += other.live
        other.live.clear()  # its rows are ours now: its finalizer gives back nothing
        self.prompt_ids = self.prompt_ids + other.prompt_ids
        self._idx = None

    def rollback(self) -> None:
        """A failed step wrote only slots past the rows' pointers: nothing to undo."""

    def slots(self) -> int:
        """Slots the longest row uses (its attention reads up to the slot bucket above)."""
        return max(self.kv.used[r] for r in self.live)


def engine_for(device: torch.device, graphs: bool) -> StaticEngine | None:
    """The engine a target decodes on: on CUDA the static cache with CUDA graphs unless `graphs` is
    off, its attention ragged where HSD_ATTENTION asks; elsewhere None (transformers' own cache,
    eager: CPU outputs and speeds as before)."""
    if not graphs or torch.device(device).type != "cuda":
        return None
    return StaticEngine("graphs", ragged=ragged_wanted())
