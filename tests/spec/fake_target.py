"""A toy target: next-token logits are a fixed function of the whole prefix.

Its step() honours the tree mask and its commit() keeps exactly the nodes asked for, so a loop
that mis-packs trees or commits the wrong path diverges from AR decoding.
"""

from __future__ import annotations

import random

import torch
from decoding import ar_decode

from hsd_cli.spec.budget import CostModel
from hsd_cli.spec.stop import StopRule

VOCAB = 12
EOS = 11


def toy_logits(prefix: list[int]) -> torch.Tensor:
    """Deterministic pseudo-random logits from the last 4 tokens; EOS rare."""
    rng = random.Random(hash(tuple(prefix[-4:])) ^ len(prefix) // 97)
    out = torch.tensor([rng.random() for _ in range(VOCAB)])
    out[EOS] -= 0.25
    return out


class FakeSession:
    priced = True

    def __init__(self, prompts: list[list[int]]):
        self.cached = [list(p) for p in prompts]
        self.pending: list[list[int]] = []
        self.calls = 0

    def first_logits(self) -> torch.Tensor:
        return torch.stack([toy_logits(c) for c in self.cached])

    def step(self, ids, ancestry, depth):
        assert ids.shape[0] == len(self.cached)
        self.calls += 1
        self.pending = ids.tolist()
        out = torch.zeros(*ids.shape, VOCAB)
        for b, row in enumerate(self.pending):
            for i in range(len(row)):
                seen = [row[j] for j in range(len(row)) if ancestry[b, i, j]]
                assert len(seen) == depth[b, i] + 1
                out[b, i] = toy_logits(self.cached[b] + seen)
        return out

    def commit(self, keep):
        for b, nodes in enumerate(keep):
            self.cached[b] += [self.pending[b][j] for j in nodes]

    def select_rows(self, rows):
        self.cached = [self.cached[r] for r in rows]

    def extend(self, other):
        self.cached += other.cached

    def rollback(self):
        self.pending = []

    def slots(self):
        return max(map(len, self.cached))


class SizedSession(FakeSession):
    """The toy target, recording each step's tree size (one row: the packed width)."""

    def __init__(self, prompts: list[list[int]]):
        super().__init__(prompts)
        self.sizes: list[int] = []

    def step(self, ids, ancestry, depth):
        self.sizes.append(ids.shape[1])
        return super().step(ids, ancestry, depth)


PROMPT = [[1, 2, 3]]
# The curve, measured on a busy machine (K=2 three times K=1), growing linearly past K=8.
BUSY = CostModel(((1, 1.05), (2, 3.2), (8, 5.0), (256, 160.0)))


def reference(n: int, prompt: list[int] = PROMPT[0]) -> list[int]:
    """The toy target's greedy tokens after `prompt`."""
    s = FakeSession([prompt])
    return ar_decode(s, s.first_logits(), StopRule(frozenset(), n))[0].tokens
