"""A checkpoint's repetition penalty, applied per tree node over the node's own context.

HF's repetition-penalty processor divides positive scores (multiplies negative ones) by `penalty`
for every distinct token of the sequence so far, on float32 scores (`generate` casts the logits
first). A tree node's sequence is the row's prompt + accepted tokens (`seen`) plus the draft
tokens on its own path, so every node gets exactly what AR decoding would apply there.

Everything is one gather and one scatter over the whole batch: the indices are each row's seen
tokens followed by the node's ancestors' tokens (from the tree's ancestry mask). A token listed
twice (seen and on the path, or padding) gathers and writes back the same value, so it is
penalized once, as HF does.
"""

from __future__ import annotations

import torch

from hsd_cli.spec.tree import upload


class SeenTokens:
    """A row's distinct prompt and generated tokens, kept as a tensor grown only by new tokens."""

    __slots__ = ("_known", "_new", "_ids")

    def __init__(self) -> None:
        self._known: set[int] = set()
        self._new: list[int] = []
        self._ids = torch.empty(0, dtype=torch.long)

    def update(self, tokens: list[int]) -> None:
        for tok in tokens:
            if tok not in self._known:
                self._known.add(tok)
                self._new.append(tok)

    def ids(self) -> torch.Tensor:
        """[S] the distinct tokens, in the order they were first seen."""
        if self._new:
            self._ids = torch.cat((self._ids, torch.tensor(self._new, dtype=torch.long)))
            self._new = []
        return self._ids


def seen_matrix(rows: list[SeenTokens]) -> torch.Tensor:
    """[B, S] each row's seen tokens, padded with the row's first one (a row always has its prompt)."""
    ids = [r.ids() for r in rows]
    assert all(len(x) for x in ids), "a row's context always holds its prompt"
    padded = torch.nn.utils.rnn.pad_sequence(ids, batch_first=True, padding_value=-1)
    return torch.where(padded < 0, padded[:, :1], padded)


@torch.inference_mode()  # the session's logits are inference tensors, written in place here
def penalize(
    logits: torch.Tensor,  # [B, K, V] one row per tree, one node per position
    seen: torch.Tensor,  # [B, S] seen_matrix of the rows
    ids: torch.Tensor,  # [B, K] the trees' tokens (node 0: the root, already seen)
    ancestry: torch.Tensor,  # [B, K, K] bool: node j is node i or an ancestor of it
    penalty: float,
) -> torch.Tensor:
    """The float32 logits with the penalty applied at every node; float32 input is changed in place."""
    b, k, _ = logits.shape
    device = logits.device
    logits = logits.float()
    fill = seen[:, :1, None].expand(b, k, k)  # a seen token: rewriting it changes nothing more
    not_root = torch.arange(k) > 0
    path = torch.where(ancestry & not_root, ids[:, None, :].expand(b, k, k), fill)
    idx = torch.cat((seen[:, None, :].expand(b, k, seen.shape[1]), path), dim=-1)
    idx = upload(idx, device)
    scores = logits.gather(-1, idx)
    scores = torch.where(scores < 0, scores * penalty, scores / penalty)
    return logits.scatter_(-1, idx, scores)
