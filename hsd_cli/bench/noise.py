"""Draft noise: the page reference, corrupted at a rate, as regions (paper Fig. 3's x-axis).

`rate` is the probability that a unit (a word; a single character in CJK/Hangul text) gets one
edit: a character substitution, its deletion, an inserted unit before it, or its replacement by
another unit of the page. Region order is shuffled by adjacent swaps with the same probability
and region boxes are jittered by up to `rate` of their height.
"""

from __future__ import annotations

import re
from random import Random

from hsd_cli.bench.reference import split_blocks
from hsd_cli.datatypes import Region, RegionKind

_WIDE = "\u3000-\u9fff\uac00-\ud7af\uff00-\uffef"
_UNIT = re.compile(rf"[{_WIDE}]|[^\s{_WIDE}]+|\s+")
_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789"
EDITS = ("substitute_char", "delete", "insert", "replace")
MARGIN = 0.05  # noise-mode boxes leave this fraction of the page width on each side


def corrupt_text(text: str, rate: float, rng: Random) -> str:
    """`text` with each non-space unit edited with probability `rate`."""
    units = _UNIT.findall(text)
    words = [u for u in units if not u.isspace()]
    if rate <= 0 or not words:
        return text
    out = []
    for unit in units:
        if unit.isspace() or rng.random() >= rate:
            out.append(unit)
            continue
        edit = rng.choice(EDITS)
        if edit == "substitute_char":
            i = rng.randrange(len(unit))
            out.append(unit[:i] + _other_char(unit[i], words, rng) + unit[i + 1 :])
        elif edit == "insert":
            out += [rng.choice(words), " " if unit[0].isascii() else "", unit]
        elif edit == "replace":
            out.append(rng.choice(words))
        # "delete": nothing appended
    return "".join(out)


def noisy_regions(reference: str, size: tuple[int, int], rate: float, rng: Random) -> tuple[list[Region], list[str]]:
    """Regions whose drafts are the corrupted reference blocks, and each block's clean text."""
    blocks = split_blocks(reference)
    total = sum(len(b) for b in blocks) or 1
    width, height = size
    regions, offset = [], 0
    order = _shuffled_order(len(blocks), rate, rng)
    for i, block in enumerate(blocks):
        # A horizontal band whose height is proportional to the block's share of the text.
        y0, y1 = height * offset / total, height * (offset + len(block)) / total
        offset += len(block)
        box = _jitter((width * MARGIN, y0, width * (1 - MARGIN), y1), size, rate, rng)
        regions.append(Region(box, RegionKind.TEXT, order[i], corrupt_text(block, rate, rng), source="noise"))
    return regions, blocks


def _shuffled_order(n: int, rate: float, rng: Random) -> list[int]:
    order = list(range(n))
    for i in range(n - 1):
        if rng.random() < rate:
            order[i], order[i + 1] = order[i + 1], order[i]
    return order


def _jitter(box, size, rate: float, rng: Random) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = box
    d = rate * (y1 - y0)
    x0, x1 = x0 + rng.uniform(-d, d), x1 + rng.uniform(-d, d)
    y0, y1 = y0 + rng.uniform(-d, d), y1 + rng.uniform(-d, d)
    w, h = size
    x0, y0 = min(max(x0, 0.0), w - 1.0), min(max(y0, 0.0), h - 1.0)
    return x0, y0, min(max(x1, x0 + 1.0), float(w)), min(max(y1, y0 + 1.0), float(h))


def _other_char(ch: str, words: list[str], rng: Random) -> str:
    if ch.isascii():
        return rng.choice(_LETTERS.replace(ch.lower(), ""))
    return rng.choice(rng.choice(words))  # another character of the page's own script
