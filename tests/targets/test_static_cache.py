"""hsd's static KV pool: buckets, writes at each row's pointer, commits by index, rows taken and given."""

from __future__ import annotations

import torch
from transformers import DynamicCache

from hsd_cli.targets.runtime.static_cache import ROW_BUCKETS, SLOT_BUCKETS, WIDTH_BUCKETS, StaticKV, bucket, keep_paths


def _pool(rows: int = 2, slots: int = 8) -> StaticKV:
    return StaticKV([(1, 1, 1)], torch.float32, "cpu", rows, slots)  # one layer, one head, dim 1


def _slots(kv: StaticKV, row: int) -> list[float]:
    """A row's first 8 slots' keys (the pool allocates 64 at least)."""
    return kv.keys[0][row, 0, :8, 0].tolist()


def test_buckets():
    assert [bucket(n, WIDTH_BUCKETS) for n in (1, 2, 8, 9, 64, 65)] == [1, 8, 8, 16, 64, 128]
    assert [bucket(n, SLOT_BUCKETS) for n in (1, 65, 100, 129)] == [64, 96, 128, 192]
    assert bucket(1000, (1, 2, 4)) == 1000  # past the ladder: multiples of its last step (2)


def test_update_writes_at_each_rows_pointer_and_returns_the_bucket():
    kv = _pool()
    kv.ptr[:] = torch.tensor([2, 5])
    kv.rows, kv.slots = 2, 8
    new = torch.tensor([[1.0, 2.0], [3.0, 4.0]])[:, None, :, None]  # [rows, H, K, D]
    keys, values = kv.update(new, -new, 0)
    assert keys.shape == (2, 1, 8, 1)  # the bucket's slots, not the allocation's
    assert _slots(kv, 0) == [0, 0, 1, 2, 0, 0, 0, 0]
    assert _slots(kv, 1) == [0, 0, 0, 0, 0, 3, 4, 0]  # Not at slot 2: each row has its own pointer
    assert values[1, 0, 5, 0] == -3


def test_keep_paths_moves_the_accepted_slots_to_the_pointer():
    kv = _pool()
    kv.ptr[:] = torch.tensor([1, 3])
    kv.keys[0][0, 0, :8, 0] = torch.arange(8.0)
    kv.keys[0][1, 0, :8, 0] = torch.arange(8.0)
    paths = torch.tensor([[0, 2, 3], [0, 1, 1]])  # row 0 keeps nodes 0, 2, 3; row 1 keeps node 0 (padded)
    keep_paths(kv, paths, torch.tensor([3, 1]), moved=True)
    assert _slots(kv, 0)[:4] == [0, 1, 3, 4]  # Not [0, 1, 2, 3]: node 1 was a rejected branch
    assert kv.ptr.tolist() == [4, 4] and kv.next_pos.tolist() == [3, 1]


def test_prefill_rows_are_written_without_padding():
    cache = DynamicCache()
    keys = torch.tensor([[0.0, 7.0, 8.0], [5.0, 6.0, 9.0]])[:, None, :, None]  # [B, H, S, D]
    cache.update(keys, keys, 0)
    valid = torch.tensor([[False, True, True], [True, True, True]])  # left padding in row 0
    kv = StaticKV.like(cache, rows=4, slots=8)
    rows = kv.take(2)
    kv.write_rows(rows, cache, valid, torch.tensor([12, 30]))
    assert rows == [0, 1] and kv.used[:2] == [2, 3]
    assert _slots(kv, 0)[:3] == [7, 8, 0] and _slots(kv, 1)[:3] == [5, 6, 9]
    assert kv.next_pos[:2].tolist() == [12, 30]


def test_rows_given_back_are_taken_again_and_growth_keeps_contents():
    kv = _pool(rows=2, slots=64)
    a = kv.take(2)
    kv.keys[0][1, 0, 3, 0] = 9.0
    kv.used[1] = 4
    kv.give([a[0]])
    assert kv.take(1) == [0]  # the freed row, not a new one
    kv.reserve(3, 100)  # three more rows and longer rows: reallocated once
    assert kv.capacity[0] >= 5 and kv.capacity[1] >= 100 and kv.generation == 2
    assert _slots(kv, 1)[3] == 9.0


def test_a_commit_that_keeps_every_slot_in_place_changes_nothing():
    """What a captured commit is warmed up on (static_step.StepRunner.commit): run twice, no effect."""
    kv = _pool()
    kv.ptr[:] = torch.tensor([1, 3])
    kv.keys[0][:, 0, :8, 0] = torch.arange(16.0).view(2, 8)
    before = kv.keys[0].clone()
    for _ in range(2):
        keep_paths(kv, torch.arange(4).expand(2, 4), torch.zeros(2, dtype=torch.long), moved=True)
    assert torch.equal(kv.keys[0], before) and kv.ptr.tolist() == [1, 3]


def test_the_pool_is_allocated_in_buckets():
    """A step reads rows [0, bucket(highest row + 1)): the allocation is always a bucket, so that
    read never passes it (Not 12 rows after 8 grew by half: a row 9's bucket is 16)."""
    kv = _pool(rows=5, slots=70)
    assert kv.capacity == (8, 96)
    kv.take(8)
    kv.take(1)
    assert kv.capacity[0] in ROW_BUCKETS and kv.capacity[0] >= 16


def test_growing_long_rows_drops_the_free_rows_of_many_short_ones():
    """Forty short rows (hsd's crops), then two of them grow long: the pool reallocated for the
    long ones keeps two rows, not 64 rows of long slots; the rows held keep their contents."""
    kv = _pool(rows=64, slots=64)
    rows = kv.take(40)
    kv.keys[0][1, 0, 5, 0] = 7.0
    kv.used[1] = 6
    kv.give(rows[2:])
    kv.reserve(0, 1000)
    assert kv.capacity == (2, 1024)  # Not (64, 1024)
    assert _slots(kv, 1)[5] == 7.0 and sorted(kv.free) == []


def test_a_pool_growing_its_slots_keeps_the_rows_its_batch_will_hold():
    """Two pages held of the 32 the batch will hold when the slots must grow: the rows stay 32
    (refitted to 2 they grew back a bucket at a time as the other pages joined, 5 reallocations)."""
    kv = _pool(rows=32, slots=64)
    kv.min_rows = 32
    kv.take(2)
    generation = kv.generation
    kv.reserve(0, 1000)
    assert kv.capacity == (32, 1024) and kv.generation == generation + 1
    kv.take(30)
    assert kv.generation == generation + 1  # the other pages joined without a reallocation


def test_the_static_engine_starts_its_pool_with_the_rows_expected():
    from hsd_cli.targets.runtime.static_session import StaticEngine

    cache = DynamicCache()
    cache.update(torch.zeros(1, 1, 3, 1), torch.zeros(1, 1, 3, 1), 0)
    engine = StaticEngine()
    engine.expect(20)
    engine.session(None, cache, torch.ones(1, 3, dtype=torch.bool), torch.tensor([3]), 0, None)
    assert engine.kv.capacity[0] == 24 and engine.kv.min_rows == 20  # 20 rounded up to its bucket
    engine.expect(4)  # the batch halved (out of memory): the pool may shrink to it when it grows
    assert engine.kv.min_rows == 4


def test_default_batch_pages_price_the_pool_as_it_allocates():
    """A GPU's default batch: the pool's rows and slots rounded up to their buckets (and room for
    the widest tree) fit in the budget; a page more would not (or the cap is reached)."""
    from hsd_cli.targets.runtime.memory import MAX_BATCH_PAGES, pages_that_fit

    per_token, new = 98_304, 2048  # a 0.5B model's bf16 KV (24 layers x 8 heads x 128 x 2 x 2 bytes)
    slots = bucket(2048 + new + WIDTH_BUCKETS[-1], SLOT_BUCKETS)
    for gib in (2, 6, 11, 16, 40):
        budget = gib * 2**30
        n = pages_that_fit(budget, per_token, new)
        assert n == 1 or bucket(n, ROW_BUCKETS) * slots * per_token <= budget
        assert n == MAX_BATCH_PAGES or bucket(n + 1, ROW_BUCKETS) * slots * per_token > budget
    # the page count an unbucketed estimate gave (half of 22 GiB free) would not fit its own pool
    naive = int(11 * 2**30 / (per_token * (2048 + new + 64)))
    assert pages_that_fit(11 * 2**30, per_token, new) < naive
