"""A prefilled batch on a transformers VLM: tree forwards on the KV cache, path commits.

Facts this relies on (transformers 5.23.0, pinned in pyproject.toml): a 4D additive float
mask is used as given; explicit position ids are required with it (text positions are equal on
every M-RoPE axis); DynamicCache layers expose `.keys/.values` [B, H, S, D] that can be replaced,
and grow them in `update` (which `RoomyLayer`, room.py, overrides).
"""

from __future__ import annotations

import torch

from hsd_cli.targets.runtime import threads
from hsd_cli.targets.runtime.room import roomy_layer

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
        order = None if self._in_order() else torch.tensor(self.live, device=dev)
        ids, ancestry, depth = ids.to(dev), ancestry.to(dev), depth.to(dev)
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
        length = self.valid.shape[1]  # the cache also holds the K tree nodes after it
        width = max(len(p) for p in keep)
        dev = self.valid.device
        paths, lengths = [[0] * width] * self.valid.shape[0], [0] * self.valid.shape[0]
        for i, p in zip(self.live, keep, strict=True):
            paths[i], lengths[i] = p + [p[-1]] * (width - len(p)), len(p)
        # One tensor from Python lists, one copy to the device: no per-row tensors.
        paths = torch.tensor(paths, device=dev)  # [N, W]
        lengths = torch.tensor(lengths, device=dev)  # [N]
        new_valid = torch.arange(width, device=dev)[None, :] < lengths[:, None]  # [N, W]
        self._keep_paths(length, paths)
        self.valid = torch.cat([self.valid[:, :length], new_valid], dim=1)
        self.next_pos = self.next_pos + new_valid.sum(1)
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
        self.valid, self.next_pos = self.valid[:n], self.next_pos[:n]
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
        dev = self.valid.device
        self.live = self.live + [len(self.live) + c for c in other.live]
        valid = [_pad_left(v[:, None, :, None].to(dev), width)[:, 0, :, 0] for v in (self.valid, other.valid)]
        self.valid = torch.cat(valid)
        self.next_pos = torch.cat([self.next_pos, other.next_pos.to(dev)])

    def _in_order(self) -> bool:
        """Cache row i holds the batch's row i, for every row."""
        return self.live == list(range(len(self.live)))

    def _spare_rows(self) -> int:
        """Rows of the cache's room past the batch's, where newcomers fit without a copy."""
        roomy = roomy_layer()
        return min((layer.spare_rows() if isinstance(layer, roomy) else 0 for layer in self.cache.layers), default=0)

    def _move_rows(self, src: list[int], dst: list[int]) -> None:
        """Cache rows `src` copied into rows `dst` (every layer, valid slots, positions)."""
        dev = self.valid.device
        s, d = torch.tensor(src, device=dev), torch.tensor(dst, device=dev)
        with torch.inference_mode():
            for layer in self.cache.layers:
                layer.keys[d] = layer.keys[s]
                layer.values[d] = layer.values[s]
        self.valid[d] = self.valid[s]
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

    def _keep_paths(self, length: int, paths: torch.Tensor) -> None:
        """Move each row's kept tree slots (after `length`) to the front of its tail, in place.

        The committed slots before `length` are never copied: a step costs its tree, not its cache."""
        b, width = paths.shape
        chain = bool((paths == torch.arange(width, device=paths.device)).all())  # e.g. every AR step
        with torch.inference_mode():
            for layer in self.cache.layers:
                for name in ("keys", "values"):
                    t = getattr(layer, name)
                    if not chain:
                        idx = paths[:, None, :, None].expand(-1, t.shape[1], -1, t.shape[3])
                        t[:, :, length : length + width] = t[:, :, length:].gather(2, idx)
                    setattr(layer, name, t[:, :, : length + width])

    def _select(self, idx: torch.Tensor) -> None:
        """Keep slots `idx` of every cache layer."""
        n = idx.numel()
        if bool((idx == torch.arange(n, device=idx.device)).all()):
            # A kept prefix (every AR step, every chain accepted along its first branch) is a
            # view: no copy of the whole cache per step.
            for layer in self.cache.layers:
                layer.keys, layer.values = layer.keys[:, :, :n], layer.values[:, :, :n]
            return
        with torch.inference_mode():
            for layer in self.cache.layers:
                _settle(layer, layer.keys.index_select(2, idx), layer.values.index_select(2, idx))

    def _pack(self) -> None:
        """Each row's slots moved, in order, to the end of the cache once fillers waste PACK_WASTE of it."""
        length, width = self.valid.shape[1], int(self.valid.sum(1).max())
        if length - width <= PACK_WASTE * length:
            return
        # Stable sort on validity: a row's fillers first, then its tokens, each in slot order; the
        # last `width` entries are its tokens after (width - its count) fillers. Positions are the
        # rows' own (next_pos), so moving slots changes no row's rope positions or mask.
        idx = torch.argsort(self.valid.to(torch.int8), dim=1, stable=True)[:, length - width :]
        self.valid = self.valid.gather(1, idx)
        with torch.inference_mode():
            for layer in self.cache.layers:
                full = idx[:, None, :, None].expand(-1, layer.keys.shape[1], -1, layer.keys.shape[3])
                _settle(layer, layer.keys.gather(2, full), layer.values.gather(2, full))

    def _compact(self) -> None:
        # Slots no row uses (left padding of rows that left) only cost attention time, but
        # dropping them copies the cache: once they are PACK_WASTE of it. Until then they are room
        # for a newcomer's longer prompt.
        used = self.valid.any(0)
        if bool(used.all()) or int(used.sum()) > (1 - PACK_WASTE) * used.numel():
            return
        keep = used.nonzero().squeeze(1)
        self._select(keep)
        self.valid = self.valid.index_select(1, keep)


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
