"""Where acceptance is lost: each reference token's region kind, and per kind how many of a
method's output tokens were accepted from drafts and how many the model had to write.

A token belongs to the region whose span of the page reference (bench/reference.region_spans)
covers it; tokens outside every span are "model-only" (text no region drafted).
"""

from __future__ import annotations

from dataclasses import dataclass

from hsd_cli.datatypes import RegionKind
from hsd_cli.spec.align import MODEL

MODEL_ONLY = "model-only"
_LABELS = {
    RegionKind.HEADER: "header/footer",
    RegionKind.FOOTER: "header/footer",
    RegionKind.EQUATION: "formula",
    RegionKind.FIGURE: "figure text",
}
KIND_ORDER = (
    "text",
    "title",
    "list",
    "table",
    "formula",
    "caption",
    "header/footer",
    "figure text",
    "code",
    "reference",
    MODEL_ONLY,
)


@dataclass(frozen=True, slots=True)
class KindCount:
    """Reference tokens of one kind: accepted from drafts, and written by the model."""

    accepted: int = 0
    written: int = 0

    def __add__(self, other: KindCount) -> KindCount:
        return KindCount(self.accepted + other.accepted, self.written + other.written)

    @property
    def share(self) -> float:
        """Accepted share of the kind's tokens."""
        total = self.accepted + self.written
        return self.accepted / total if total else 0.0


def label(kind: RegionKind) -> str:
    return _LABELS.get(kind, kind.value)


def token_kinds(offsets: list[tuple[int, int]], spans: list[tuple[int, int]], kinds: list[RegionKind]) -> list[str]:
    """Per reference token (its character offsets), the kind of the longest region span holding it
    (a short region's draft may also match inside a longer one's)."""
    by_length = sorted(zip(spans, kinds, strict=True), key=lambda sk: sk[0][0] - sk[0][1])
    out = []
    for a, b in offsets:
        mid = (a + b) / 2
        hit = next((k for (s, e), k in by_length if s <= mid < e), None)
        out.append(MODEL_ONLY if hit is None else label(hit))
    return out


def by_kind(kinds: list[str], origins: list[tuple[int, int]]) -> dict[str, KindCount]:
    """Per kind, output tokens accepted from a draft and tokens the model wrote (origin MODEL)."""
    counts: dict[str, KindCount] = {}
    for kind, origin in zip(kinds, origins, strict=False):
        one = KindCount(written=1) if origin == MODEL else KindCount(accepted=1)
        counts[kind] = counts.get(kind, KindCount()) + one
    return counts


def add_counts(a: dict[str, KindCount], b: dict[str, KindCount]) -> dict[str, KindCount]:
    return {k: a.get(k, KindCount()) + b.get(k, KindCount()) for k in {*a, *b}}
