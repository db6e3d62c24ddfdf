"""A prefilled batch on a transformers VLM: tree forwards on the KV cache, path commits.

Facts this relies on (transformers 5.23.0, pinned in pyproject.toml): a 4D additive float
mask is used as given; explicit position ids are required with it (text positions are equal on
every M-RoPE axis); DynamicCache layers expose `.keys/.values` [B, H, S, D] that can be replaced,
and grow them in `update` (which `RoomyLayer`, room.py, overrides).
"""

from __future__ import annotations

import torch

from hsd_cli.spec.tree import long_tensor, upload
from hsd_cli.targets.runtime import threads
from hsd_cli.targets.runtime.room import move_slots, roomy_layer

# A batch's commit keeps as many slots as its longest accepted path, so rows that accepted less get
# masked filler slots that every later step still reads. Once fillers are this share of the cache,
# the rows' tokens are moved up against its end: one copy of the cache, which the next steps
# repay by reading fewer slots.
PACK_WASTE = 0.25


class HFSession:
    """Implements spec.decode.TargetSession for one batch of sequences."""

    def __init__(
        self,
        model,
        cache,
        valid: torch.Tensor,
        next_pos: torch.Tensor,
        n_axes: int,
        prompt_ids: list[list[int]] | None = None,
    ):
        self.model = model
        if valid.device.type == "cpu":
            threads.follow(model)
        self.prompt_ids = prompt_ids or []  # per row: its prompt token ids (repetition penalty)
        roomy = roomy_layer()
        for layer in cache.layers:
            if type(layer) is roomy.__base__:
                layer.__class__ = roomy
        self.cache = cache
        self.valid = valid  # [N, L] bool: which cache slots hold real tokens of the cache row
        # The same map on the host, where commits decide what to move: a decision read from the
        # device would wait for the device (a sync per read). On a CPU it is `valid` itself.
        self.host_valid = valid if valid.device.type == "cpu" else valid.cpu()
        self.next_pos = next_pos  # [N] long: rope position of the cache row's next token
        # The cache row of each of the batch's rows, in batch order: a permutation of the cache's
        # rows, so a forward computes only rows that decode. A row that leaves hands its cache row
        # to one past the new batch size (a copy of that row, not of the cache); the cache's room
        # keeps the rows past the batch, where newcomers are written in place.
        self.live = list(range(valid.shape[0]))
        self.tight = False  # a step ran out of memory: rows that leave give their memory back at once
        self.n_axes = n_axes  # 0: plain 1D rope, position_ids [B, K]
        self.forward_calls = 0
        self.priced = True  # the last step ran on the model's own threads all through

    def step(self, ids: torch.Tensor, ancestry: torch.Tensor, depth: torch.Tensor) -> torch.Tensor:
        """One forward over packed trees: [B, K], [B, K, K], [B, K] -> logits [B, K, V] (model dtype).

        The logits stay in the model's dtype: tau = 1 needs only their argmax, and an up-cast of
        K x vocabulary floats per step is pure cost.
        """
        dev = self.valid.device
        order = None if self._in_order() else self._upload(long_tensor(self.live, (len(self.live),)))
        ids, ancestry, depth = self._upload(ids), self._upload(ancestry), self._upload(depth)
        if order is not None:  # batch row i goes to cache row live[i]
            ids, ancestry, depth = (torch.empty_like(t).index_copy_(0, order, t) for t in (ids, ancestry, depth))
        b, k = ids.shape
        allowed = torch.cat([self.valid[:, None, :].expand(b, k, -1), ancestry], dim=2)
        dtype = self.model.dtype
        # Additive float mask: eager attention adds a bool mask as 0/1 (silently wrong).
        mask = torch.zeros(allowed.shape, dtype=dtype, device=dev)
        mask.masked_fill_(~allowed, torch.finfo(dtype).min)
        pos = self.next_pos[:, None] + depth  # [N, K]
        if self.n_axes:  # M-RoPE: text positions are equal on every axis
            pos = pos.expand(self.n_axes, b, k)
        self.forward_calls += 1
        short = threads.short()
        with torch.inference_mode():
            out = self.model(
                input_ids=ids,
                attention_mask=mask[:, None],
                position_ids=pos,
                past_key_values=self.cache,
                use_cache=True,
            )
        self.priced = threads.short() == short
        return out.logits if order is None else out.logits[order]

    def commit(self, keep: list[list[int]]) -> None:
        """Keep the old slots plus each row's path; shorter rows get masked fillers."""
        n, length = self.host_valid.shape  # the cache also holds the K tree nodes after `length`
        width = max(map(len, keep))
        # A kept node's slot moves to its place on the row's path; the slots past a row's path are
        # masked fillers, left as they are. An AR step, a path along a tree's first branch: no move.
        lengths, moves = [0] * n, []  # moves: (cache row, from slot, to slot)
        for i, p in zip(self.live, keep, strict=True):
            lengths[i] = len(p)
            moves += [(i, length + node, length + w) for w, node in enumerate(p) if node != w]
        self._keep_paths(length + width, long_tensor([x for m in moves for x in m], (len(moves), 3)))
        lengths = long_tensor(lengths, (n,))
        self._valid_op(lambda v, new: torch.cat([v, new], dim=1), torch.arange(width)[None, :] < lengths[:, None])
        self.next_pos = self.next_pos + self._upload(lengths)
        self._compact()
        self._pack()

    def select_rows(self, rows: list[int]) -> None:
        """Keep only these rows of the batch (finished rows leave): the cache rows of rows that stay
        past the new batch size move down into the freed ones (a copy of those rows only)."""
        kept = [self.live[i] for i in rows]
        n = len(kept)
        holes = sorted(set(range(n)) - set(kept))
        movers = sorted(c for c in kept if c >= n)
        if holes:
            self._move_rows(movers, holes)
        moved = dict(zip(movers, holes, strict=True))
        self.live = [moved.get(c, c) for c in kept]
        for layer in self.cache.layers:  # views: the room keeps the rows past n for newcomers
            layer.keys, layer.values = layer.keys[:n], layer.values[:n]
        self._valid_op(lambda v: v[:n])
        self.next_pos = self.next_pos[:n]
        self.prompt_ids = [self.prompt_ids[i] for i in rows] if self.prompt_ids else []
        if self.tight:
            self._release()
        self._compact()

    def extend(self, other: HFSession) -> None:
        """Place another prefilled batch's rows after these (continuous batching).

        A row's positions and mask are its own, so its logits do not change with the rows beside
        it: the newcomers are written into the room's rows past the batch where they fit, their
        shorter caches ending where the batch's end (the slots before are masked); else the
        shorter cache is padded on the left with masked slots and the caches are joined (a copy of
        both)."""
        if other.valid.shape[1] <= self.slots() and self._spare_rows() >= other.valid.shape[0]:
            self._place(other)
        else:
            self._join(other)
        self.prompt_ids = self.prompt_ids + other.prompt_ids

    def _join(self, other: HFSession) -> None:
        width = max(self.slots(), other.slots())
        for mine, theirs in zip(self.cache.layers, other.cache.layers, strict=True):
            mine.keys = torch.cat([_pad_left(mine.keys, width), _pad_left(theirs.keys, width)])
            mine.values = torch.cat([_pad_left(mine.values, width), _pad_left(theirs.values, width)])
        self._add_rows(other, width)

    def _place(self, other: HFSession) -> None:
        """`other`'s rows written into the room's rows past the batch, right-aligned: a copy of theirs only."""
        dev, width = self.valid.device, self.slots()
        with torch.inference_mode():
            for mine, theirs in zip(self.cache.layers, other.cache.layers, strict=True):
                mine.place(theirs.keys.to(dev), theirs.values.to(dev))
        self._add_rows(other, width)

    def _add_rows(self, other: HFSession, width: int) -> None:
        """`other`'s rows after these: their cache rows, valid slots (left-padded to `width`), positions."""
        self.live = self.live + [len(self.live) + c for c in other.live]
        self._valid_op(
            lambda v, new: torch.cat([_pad_left(t[:, None, :, None], width)[:, 0, :, 0] for t in (v, new)]),
            other.host_valid,
        )
        self.next_pos = torch.cat([self.next_pos, other.next_pos.to(self.valid.device)])

    def _in_order(self) -> bool:
        """Cache row i holds the batch's row i, for every row."""
        return self.live == list(range(len(self.live)))

    def _spare_rows(self) -> int:
        """Rows of the cache's room past the batch's, where newcomers fit without a copy."""
        roomy = roomy_layer()
        return min((layer.spare_rows() if isinstance(layer, roomy) else 0 for layer in self.cache.layers), default=0)

    def _move_rows(self, src: list[int], dst: list[int]) -> None:
        """Cache rows `src` copied into rows `dst` (every layer, valid slots, positions)."""
        host = long_tensor(src, (len(src),)), long_tensor(dst, (len(dst),))
        s, d = (self._upload(t) for t in host)
        with torch.inference_mode():
            for layer in self.cache.layers:
                layer.keys[d] = layer.keys[s]
                layer.values[d] = layer.values[s]
        self._valid_op(lambda v, s, d: v.index_copy(0, d, v[s]), *host)
        self.next_pos[d] = self.next_pos[s]

    def _release(self) -> None:
        """The cache holds only the batch's rows: the room's rows past them are given back."""
        for layer in self.cache.layers:
            layer.keys, layer.values = layer.keys.clone(), layer.values.clone()
            if isinstance(layer, roomy_layer()):
                layer.rooms = (None, None)

    def slots(self) -> int:
        return self.valid.shape[1]

    def rollback(self) -> None:
        """Undo a forward pass that failed midway (out of memory): caches back to their committed slots;
        from then on, rows that leave (the batch halves) free their cache rows' memory at once."""
        n = self.valid.shape[1]
        self.tight = True
        for layer in self.cache.layers:
            layer.keys, layer.values = layer.keys[:, :, :n], layer.values[:, :, :n]

    def _keep_paths(self, end: int, moves: torch.Tensor) -> None:
        """Each row's kept tree slots moved to the front of its tail (`moves` [M, 3]: row, from,
        to), every cache cut at `end`. The committed slots are never copied: a step costs its
        tree, not its cache."""
        tensors = [t for layer in self.cache.layers for t in (layer.keys, layer.values)]
        with torch.inference_mode():
            if len(moves):
                move_slots(tensors, moves, self._upload)
            for layer in self.cache.layers:
                layer.keys, layer.values = layer.keys[:, :, :end], layer.values[:, :, :end]

    def _select(self, idx: torch.Tensor) -> None:
        """Keep slots `idx` of every cache layer."""
        n = idx.numel()
        if bool((idx == torch.arange(n)).all()):  # on the host
            # A kept prefix (every AR step, every chain accepted along its first branch) is a
            # view: no copy of the whole cache per step.
            for layer in self.cache.layers:
                layer.keys, layer.values = layer.keys[:, :, :n], layer.values[:, :, :n]
            return
        idx = self._upload(idx)
        with torch.inference_mode():
            for layer in self.cache.layers:
                _settle(layer, layer.keys.index_select(2, idx), layer.values.index_select(2, idx))

    def _pack(self) -> None:
        """Each row's slots moved, in order, to the end of the cache once fillers waste PACK_WASTE of it."""
        length, width = self.host_valid.shape[1], int(self.host_valid.sum(1).max())
        if length - width <= PACK_WASTE * length:
            return
        # Stable sort on validity: a row's fillers first, then its tokens, each in slot order; the
        # last `width` entries are its tokens after (width - its count) fillers. Positions are the
        # rows' own (next_pos), so moving slots changes no row's rope positions or mask.
        idx = torch.argsort(self.host_valid.to(torch.int8), dim=1, stable=True)[:, length - width :]
        self._valid_op(lambda v, i: v.gather(1, i), idx)
        idx = self._upload(idx)
        with torch.inference_mode():
            for layer in self.cache.layers:
                full = idx[:, None, :, None].expand(-1, layer.keys.shape[1], -1, layer.keys.shape[3])
                _settle(layer, layer.keys.gather(2, full), layer.values.gather(2, full))

    def _compact(self) -> None:
        # Slots no row uses (left padding of rows that left) only cost attention time, but
        # dropping them copies the cache: once they are PACK_WASTE of it. Until then they are room
        # for a newcomer's longer prompt. Decided on the host's map: no device read.
        used = self.host_valid.any(0)
        if bool(used.all()) or int(used.sum()) > (1 - PACK_WASTE) * used.numel():
            return
        keep = used.nonzero().squeeze(1)
        self._select(keep)
        self._valid_op(lambda v, k: v.index_select(1, k), keep)

    def _valid_op(self, op, *args: torch.Tensor) -> None:
        """`valid = op(valid, *args)` on the host's map and, on a GPU, on the device's (args copied there)."""
        host = op(self.host_valid, *args)
        on_cpu = self.valid is self.host_valid
        self.valid = host if on_cpu else op(self.valid, *(self._upload(a) for a in args))
        self.host_valid = host

    def _upload(self, t: torch.Tensor) -> torch.Tensor:
        """A host tensor on the session's device."""
        return upload(t, self.valid.device)


def _settle(layer, keys: torch.Tensor, values: torch.Tensor) -> None:
    """A layer's new, shorter cache: copied into its room where it has one (the next step appends
    there, instead of a new room and a copy of the whole cache), else kept as it is."""
    if isinstance(layer, roomy_layer()):
        layer.settle(keys, values)
    else:
        layer.keys, layer.values = keys, values


def _pad_left(t: torch.Tensor, width: int) -> torch.Tensor:
    """[B, H, S, D] padded with zeros (False) to S = width at the front of dim 2."""
    missing = width - t.shape[2]
    if not missing:
        return t
    pad = torch.zeros(t.shape[0], t.shape[1], missing, t.shape[3], dtype=t.dtype, device=t.device)
    return torch.cat([pad, t], dim=2)
