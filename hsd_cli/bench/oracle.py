"""Oracle target: real forward passes, greedy choice forced to a reference token sequence.

Glossary: `ref` is a row's reference tokens; `n_gen` counts the tokens a row has generated
(the first comes from the prefill logits). Tree node i of row b at depth d_i predicts generated
token n_gen[b] + d_i, so its argmax is forced to ref[n_gen[b] + d_i], EOS past the end.
"""

from __future__ import annotations

import hashlib

import torch
from PIL import Image

from hsd_cli.targets.runtime.base import VisionTarget

FORCE_MARGIN = 1.0  # the forced token's logit is set this far above the row's real maximum


def image_key(image: Image.Image) -> bytes:
    """Identity of an image by content: crops are re-made by every call of the hierarchy."""
    head = f"{image.mode}{image.size}".encode()
    return head + hashlib.blake2b(image.tobytes(), digest_size=16).digest()


def force_logits(logits: torch.Tensor, want: torch.Tensor, penalty: float = 1.0) -> torch.Tensor:
    """Make `want` [...] the argmax of `logits` [..., V] in place, and keep it so under a repetition
    penalty applied after (spec/penalty.py: a seen token's logit divided by `penalty` if positive,
    multiplied if negative); returns `logits`."""
    # |max| x the penalty's larger factor + margin: penalised or not, the forced logit stays above
    # every other token's, penalised or not.
    scale = max(penalty, 1.0 / penalty)
    top = logits.max(-1, keepdim=True).values.abs() * scale + FORCE_MARGIN  # [..., 1]
    return logits.scatter_(-1, want[..., None].to(logits.device), top)


class OracleSession:
    """A TargetSession whose rows produce their reference tokens, then EOS."""

    def __init__(self, inner, refs: list[list[int]], eos: int, penalty: float = 1.0):
        self.inner = inner
        self.refs = refs
        self.eos = eos
        self.penalty = penalty  # the target's repetition penalty, applied to these logits after
        self.n_gen = [1] * len(refs)  # the first token comes from the (forced) prefill logits

    @property
    def forward_calls(self) -> int:
        return self.inner.forward_calls

    @property
    def prompt_ids(self) -> list[list[int]]:
        return self.inner.prompt_ids

    def wanted(self, depth: torch.Tensor) -> torch.Tensor:
        """Forced token per node: [B, K] depths -> [B, K] token ids."""
        rows = [[self._ref(b, self.n_gen[b] + d) for d in row] for b, row in enumerate(depth.tolist())]
        return torch.tensor(rows, dtype=torch.long)

    def force_first(self, first: torch.Tensor) -> torch.Tensor:
        """The prefill's logits [B, V] with each row's argmax forced to ref[0]."""
        want = torch.tensor([self._ref(b, 0) for b in range(len(self.refs))])  # [B]
        with torch.inference_mode():
            return force_logits(first, want, self.penalty)

    def step(self, ids: torch.Tensor, ancestry: torch.Tensor, depth: torch.Tensor) -> torch.Tensor:
        logits = self.inner.step(ids, ancestry, depth)  # [B, K, V]: the real forward pass
        with torch.inference_mode():
            return force_logits(logits, self.wanted(depth), self.penalty)

    def commit(self, keep: list[list[int]]) -> None:
        self.inner.commit(keep)
        # A step emits the accepted draft tokens plus the bonus: len(path) tokens (root included).
        self.n_gen = [n + len(path) for n, path in zip(self.n_gen, keep, strict=False)]

    def select_rows(self, rows: list[int]) -> None:
        self.inner.select_rows(rows)
        self.refs = [self.refs[i] for i in rows]
        self.n_gen = [self.n_gen[i] for i in rows]

    def extend(self, other: OracleSession) -> None:
        self.inner.extend(other.inner)
        self.refs = self.refs + other.refs
        self.n_gen = self.n_gen + other.n_gen

    def rollback(self) -> None:
        self.inner.rollback()

    def slots(self) -> int:
        return self.inner.slots()

    @property
    def priced(self) -> bool:
        return self.inner.priced

    def _ref(self, b: int, i: int) -> int:
        ref = self.refs[b]
        return ref[i] if i < len(ref) else self.eos


class OracleTarget:
    """Wraps a VisionTarget; `expect(image, tokens)` sets what the target writes for that image."""

    def __init__(self, inner: VisionTarget):
        self.inner = inner
        self.eos = min(inner.eos_ids)
        # The checkpoint's penalty is paid as a real target pays it (the decode loop applies it to
        # every node's logits); the forced reference is made to survive it.
        self.repetition_penalty = inner.repetition_penalty
        self._refs: dict[bytes, list[int]] = {}

    def __getattr__(self, name: str):
        return getattr(self.inner, name)  # encode, decode, family, eos_ids, model, ...

    def expect(self, image: Image.Image, tokens: list[int]) -> None:
        self._refs[image_key(image)] = list(tokens)

    def clear(self) -> None:
        self._refs.clear()

    def reference(self, image: Image.Image) -> list[int]:
        key = image_key(image)
        if key not in self._refs:
            raise KeyError(f"oracle target: no reference for a {image.size[0]}x{image.size[1]} image")
        return self._refs[key]

    def prefill(self, images: list[Image.Image], prompt: str, inputs=None) -> tuple[OracleSession, torch.Tensor]:
        refs = [self.reference(im) for im in images]
        session, first = self.inner.prefill(images, prompt, inputs)  # [B, V]
        oracle = OracleSession(session, refs, self.eos, self.repetition_penalty)
        return oracle, oracle.force_first(first)
