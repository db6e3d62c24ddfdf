"""hsd's own KV cache: allocated once for R rows x S slots per layer, written by index.

Each cache row holds one sequence's tokens in slots [0, used): its prompt (the prefill's padding
dropped), then its accepted tokens. A step writes its K tree nodes at slots [used, used + K) of
its row (`update`, the call transformers' attention makes) and attention reads the slots of a
bucket, rows [0, rows) x slots [0, slots); a commit moves the accepted path's slots to the front
of that tail and advances the row's write pointer. Nothing grows per step, nothing is packed, and
the write pointer and next rope position live on the device (`ptr`, `next_pos`), so a step can be
captured once per bucket and replayed. `used` mirrors `ptr` on the host from the paths the host
committed (no device read).
"""

from __future__ import annotations

import torch

from hsd_cli.spec.budget import Buckets, bucket

# Bucket ladders (each value is a shape a step is compiled and captured for). Rows and slots grow
# by about 1.5x so that padding wastes at most a third of a step; tree widths are powers of two.
ROW_BUCKETS = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256)
WIDTH_BUCKETS = (1, 8, 16, 32, 64, 128, 256, 512)
SLOT_BUCKETS = tuple(b for p in range(6, 17) for b in (2**p, 3 * 2 ** (p - 1)))  # 64, 96, 128, 192, ...


# The cost model prices a step at these shapes (spec/budget.CostModel.buckets).
BUCKETS = Buckets(ROW_BUCKETS, WIDTH_BUCKETS, SLOT_BUCKETS)


def allow_bucket_compiles() -> None:
    """One compile per bucket: more buckets than dynamo's default limit (8) must not fall back to
    eager silently (the static step's compile, and ragged attention's FlexAttention)."""
    torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 512)
    limit = torch._dynamo.config.accumulated_recompile_limit
    torch._dynamo.config.accumulated_recompile_limit = max(limit, 4096)


class StaticKV:
    """A pool of cache rows for every attention layer; sessions take rows from it and give them back.

    Shapes: keys[l] [R, H, S, Dk], values[l] [R, H, S, Dv]; ptr, next_pos [R] long (device).
    `rows` and `slots` (set by the session before each forward) are the step's bucket.
    """

    is_compileable = True  # transformers: a cache whose shapes do not change between steps

    def __init__(self, shapes: list[tuple[int, int, int]], dtype: torch.dtype, device, rows: int, slots: int):
        self.shapes = shapes  # per layer: (kv heads, key dim, value dim)
        self.dtype, self.device = dtype, torch.device(device)
        self.keys: list[torch.Tensor] = []  # per layer [R, H, S, Dk]
        self.values: list[torch.Tensor] = []  # per layer [R, H, S, Dv]
        self.ptr = torch.zeros(0, dtype=torch.long, device=self.device)
        self.next_pos = torch.zeros(0, dtype=torch.long, device=self.device)
        self.used: list[int] = []  # host mirror of ptr
        self.free: list[int] = []  # rows no session holds
        self.generation = 0  # bumped by every reallocation: graphs captured on older tensors are stale
        self.min_rows = 0  # rows a reallocation keeps at least (the batch's pages, StaticEngine.expect)
        self.rows, self.slots = 1, 1
        self.write_at: torch.Tensor | None = None  # [rows, K] the step's slots, set once a step (tree_forward)
        # Allocated in buckets: a step's bucket of rows or slots never passes the allocation.
        self._allocate(bucket(rows, ROW_BUCKETS), bucket(slots, SLOT_BUCKETS))

    @classmethod
    def like(cls, cache, rows: int, slots: int) -> StaticKV:
        """A pool shaped like a prefilled transformers DynamicCache's layers."""
        shapes = [(layer.keys.shape[1], layer.keys.shape[3], layer.values.shape[3]) for layer in cache.layers]
        first = cache.layers[0].keys
        return cls(shapes, first.dtype, first.device, rows, slots)

    @property
    def capacity(self) -> tuple[int, int]:
        """(rows, slots) allocated."""
        return self.ptr.shape[0], self.keys[0].shape[2]

    def _allocate(self, rows: int, slots: int) -> None:
        """Tensors of rows x slots, the old contents copied in where they fit (rows past `rows` are
        free, slots past `slots` scratch); zeros elsewhere: masked slots are multiplied by 0 in
        attention, and uninitialized memory may hold NaN. One layer at a time, so at most one
        layer is held twice."""
        old_rows = self.ptr.shape[0]
        keep = min(old_rows, rows)
        for store in (self.keys, self.values):
            for i, (heads, dk, dv) in enumerate(self.shapes):
                dim = dk if store is self.keys else dv
                new = torch.zeros(rows, heads, slots, dim, dtype=self.dtype, device=self.device)
                if keep:
                    n = min(store[i].shape[2], slots)
                    new[:keep, :, :n] = store[i][:keep, :, :n]
                if i < len(store):
                    store[i] = new
                else:
                    store.append(new)
        extra = torch.zeros(max(0, rows - old_rows), dtype=torch.long, device=self.device)
        self.ptr = torch.cat([self.ptr[:rows], extra])
        self.next_pos = torch.cat([self.next_pos[:rows], extra])
        self.used = self.used[:rows] + [0] * (rows - keep)
        self.free = [r for r in self.free if r < rows] + list(range(old_rows, rows))
        self.generation += 1

    def reserve(self, rows: int, slots: int) -> None:
        """At least `rows` free rows and `slots` slots per row: grown (rarely) by reallocation, by
        half again of the dimension that ran out. The other is fitted to the rows held now where
        they use less than half of it: a pool grown to many short rows (hsd's region crops) does
        not keep them all once its rows grow long (pages), nor the reverse."""
        have_rows, have_slots = self.capacity
        free = set(self.free)
        held = [r for r in range(have_rows) if r not in free]
        need_rows = max(len(held) + rows, max(held, default=-1) + 1)
        if need_rows <= have_rows and slots <= have_slots:
            return
        if need_rows > have_rows:
            new_rows = bucket(max(need_rows, have_rows + have_rows // 2), ROW_BUCKETS)
        else:
            # Not below the rows the batch will hold: refitted to the few rows held while pages are
            # still joining, the pool grew back a bucket at a time (5 reallocations to 32 pages).
            fit = max(need_rows, self.min_rows)
            new_rows = have_rows if 2 * fit > have_rows else bucket(fit, ROW_BUCKETS)
        longest = max((self.used[r] for r in held), default=0) + WIDTH_BUCKETS[-1]  # room for a step
        if slots > have_slots:
            new_slots = bucket(max(slots, have_slots + have_slots // 2), SLOT_BUCKETS)
        else:
            new_slots = have_slots if 2 * longest > have_slots else bucket(max(slots, longest), SLOT_BUCKETS)
        self._allocate(new_rows, new_slots)

    def take(self, n: int) -> list[int]:
        """`n` free rows, lowest first (a batch's rows stay near the pool's start: smaller row buckets)."""
        self.reserve(n, 1)
        self.free.sort()
        rows, self.free = self.free[:n], self.free[n:]
        return rows

    def give(self, rows: list[int]) -> None:
        """Rows back to the pool; their slots are left as they are (a newcomer overwrites them)."""
        if not rows:
            return
        idx = torch.tensor(rows, device=self.device)
        self.ptr.index_fill_(0, idx, 0)
        for r in rows:
            self.used[r] = 0
        self.free += rows

    def write_rows(self, rows: list[int], cache, valid: torch.Tensor, next_pos: torch.Tensor) -> None:
        """A prefilled DynamicCache's rows (only their valid slots, in order) written into `rows`."""
        counts = valid.sum(1).tolist()  # the prefill's one read: how long each row's prompt is
        self.reserve(0, bucket(max(counts) + 1, SLOT_BUCKETS))
        with torch.inference_mode():
            for b, (row, n) in enumerate(zip(rows, counts, strict=True)):
                slots = valid[b].nonzero().squeeze(1)
                for layer, keys, values in zip(cache.layers, self.keys, self.values, strict=True):
                    keys[row, :, :n] = layer.keys[b].index_select(1, slots)
                    values[row, :, :n] = layer.values[b].index_select(1, slots)
                self.used[row] = n
            idx = torch.tensor(rows, device=self.device)
            self.ptr.index_copy_(0, idx, torch.tensor(counts, device=self.device))
            self.next_pos.index_copy_(0, idx, next_pos.to(self.device))

    def move_row(self, src: int, dst: int) -> None:
        """Row `src`'s slots in use copied into row `dst` (a row leaving lets a later one move down)."""
        n = self.used[src]
        with torch.inference_mode():
            for t in self.keys + self.values:
                t[dst, :, :n] = t[src, :, :n]
            self.ptr[dst] = self.ptr[src]
            self.next_pos[dst] = self.next_pos[src]
        self.used[dst] = n

    # -- what transformers' attention calls -------------------------------------------------------

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, layer_idx: int, *args, **kwargs):
        """Write a step's keys/values [rows, H, K, D] at each row's pointer; return the bucket's slots."""
        rows, k = key_states.shape[0], key_states.shape[2]
        slot = self.write_at  # [rows, K]: computed once a step, not in every layer
        if slot is None or slot.shape != (rows, k):
            slot = self.ptr[:rows, None] + torch.arange(k, device=key_states.device)
        for cache, new in ((self.keys[layer_idx], key_states), (self.values[layer_idx], value_states)):
            idx = slot[:, None, :, None].expand(rows, new.shape[1], k, new.shape[3])
            cache[:rows].scatter_(2, idx, new)
        return self.keys[layer_idx][:rows, :, : self.slots], self.values[layer_idx][:rows, :, : self.slots]

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self.slots

    def get_mask_sizes(self, query_length: int, layer_idx: int = 0) -> tuple[int, int]:
        return self.slots, 0

    def get_query_offset(self, layer_idx: int = 0) -> int:
        return 0


def keep_paths(kv: StaticKV, paths: torch.Tensor, lengths: torch.Tensor, moved: bool) -> None:
    """Commit: per row of the bucket, tree slots ptr + paths[r] moved to ptr + 0..W-1, then the row's
    pointer and next position advanced by lengths[r]. paths [rows, W], lengths [rows] (device).

    `moved` is False when every path is a chain from the root (every AR step): nothing to copy."""
    rows, width = paths.shape
    ptr = kv.ptr[:rows, None]
    if moved:
        src, dst = ptr + paths, ptr + torch.arange(width, device=paths.device)
        for t in kv.keys + kv.values:
            view = t[:rows]
            shape = (rows, t.shape[1], width, t.shape[3])
            kept = view.gather(2, src[:, None, :, None].expand(shape))
            view.scatter_(2, dst[:, None, :, None].expand(shape), kept)
    kv.ptr[:rows] += lengths
    kv.next_pos[:rows] += lengths
