"""A KV cache layer with room ahead: spare slots for the next steps, spare rows for newcomers.

Appending a tree step's keys and values to a DynamicLayer concatenates a new cache each time;
RoomyLayer writes them into slots allocated ahead (SPARE_SLOTS at a time) and keeps its cache a
view of that room. The room also keeps rows past the batch's once rows leave, so a newcomer is
written there in place (`place`) instead of a copy of the whole cache.
"""

from __future__ import annotations

import functools

import torch

# Cache slots allocated ahead, so most steps append without copying the cache: at least this
# many, and half the cache's length (a batch of long pages accepting 10 tokens a step ran out of
# 128 every dozen steps, each time a copy of the whole cache).
SPARE_SLOTS = 128


@functools.cache
def roomy_layer() -> type:
    """The RoomyLayer class, built on first use: `hsd models` and the draft path never import transformers."""
    from transformers.cache_utils import DynamicLayer

    class RoomyLayer(DynamicLayer):
        rooms: tuple[torch.Tensor | None, torch.Tensor | None] = (None, None)  # keys', values'

        def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
            if not self.is_initialized or not self.keys.numel():
                return super().update(key_states, value_states, *args, **kwargs)
            room_k, self.keys = _append(self.rooms[0], self.keys, key_states)
            room_v, self.values = _append(self.rooms[1], self.values, value_states)
            self.rooms = (room_k, room_v)
            return self.keys, self.values

        def in_room(self) -> bool:
            """The cache's keys and values are views of their rooms (steps append there)."""
            return all(_in(t, room) for t, room in zip((self.keys, self.values), self.rooms, strict=True))

        def spare_rows(self) -> int:
            """Rows of the room past the cache's (0 where the cache is not a view of its room)."""
            return self.rooms[0].shape[0] - self.keys.shape[0] if self.in_room() else 0

        def settle(self, keys: torch.Tensor, values: torch.Tensor) -> None:
            """A new cache no larger than the current one (slots dropped or moved): copied into the
            room the current one is a view of, so the next step appends there; else kept as given."""
            if not (self.in_room() and keys.shape[0] <= self.keys.shape[0] and keys.shape[2] <= self.keys.shape[2]):
                self.keys, self.values = keys, values
                return
            b, n = keys.shape[0], keys.shape[2]
            for name, room, new in zip(("keys", "values"), self.rooms, (keys, values), strict=True):
                room[:b, :, :n] = new
                setattr(self, name, room[:b, :, :n])

        def place(self, keys: torch.Tensor, values: torch.Tensor) -> None:
            """Rows of a shorter cache written into the room's rows past this one's, ending where it ends."""
            n, width = self.keys.shape[0], self.keys.shape[2]
            m, start = keys.shape[0], width - keys.shape[2]
            for name, room, new in zip(("keys", "values"), self.rooms, (keys, values), strict=True):
                room[n : n + m, :, :start] = 0  # masked slots, but never uninitialized memory (NaN * 0)
                room[n : n + m, :, start:width] = new
                setattr(self, name, room[: n + m, :, :width])

    return RoomyLayer


def _in(t: torch.Tensor, room: torch.Tensor | None) -> bool:
    """`t` is a view of `room` from its first row and slot."""
    return room is not None and t.data_ptr() == room.data_ptr() and t.stride() == room.stride()


def _append(room: torch.Tensor | None, cached: torch.Tensor, new: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(room, `cached` + `new` along the sequence as its prefix): `room` is reused when `cached` is
    its prefix in rows and slots. A new room keeps the old one's rows past the batch (room for
    newcomers) unless the batch has shrunk below half of them."""
    (b, heads, n, dim), k = cached.shape, new.shape[2]
    if not (_in(cached, room) and b <= room.shape[0] and n + k <= room.shape[2]):
        rows = room.shape[0] if room is not None and b <= room.shape[0] < 2 * b else b
        room = cached.new_empty(rows, heads, n + k + max(SPARE_SLOTS, n // 2), dim)
        room[:b, :, :n] = cached
    room[:b, :, n : n + k] = new
    return room, room[:b, :, : n + k]


def move_slots(tensors: list[torch.Tensor], moves: torch.Tensor, upload) -> None:
    """In every [B, H, S, D] tensor, for each move (row, from, to) of `moves` [M, 3] (host), the
    row's slot `from` copied to slot `to`, every head; in place.

    A commit's paths move a few slots of a few rows: with each tensor's memory seen as rows of D
    values, that is one index_select and one index_copy_ per tensor (a gather over the tree's
    slots of every row cost about three times as much on a CPU), with indices shared by tensors
    of one layout. `upload` puts a host index on the tensors' device."""
    shared: dict[tuple, tuple[torch.Tensor, torch.Tensor, int]] = {}
    for t in tensors:
        dim, heads = t.shape[3], t.shape[1]
        key = (heads, dim, t.stride(), t.storage_offset())
        if key not in shared:
            if t.stride(3) != 1 or any(s % dim for s in (*t.stride()[:3], t.storage_offset())):
                raise ValueError("cache tensors lay out each slot's D values together")
            s0, s1, s2 = (s // dim for s in t.stride()[:3])
            base = moves[:, 0, None] * s0 + torch.arange(heads)[None, :] * s1 + t.storage_offset() // dim
            src, dst = base + moves[:, 1, None] * s2, base + moves[:, 2, None] * s2  # [M, H] row numbers
            shared[key] = (upload(src.reshape(-1)), upload(dst.reshape(-1)), int(max(src.max(), dst.max())) + 1)
        src, dst, rows = shared[key]
        flat = t.as_strided((rows, dim), (dim, 1), 0)
        flat.index_copy_(0, dst, flat.index_select(0, src))
