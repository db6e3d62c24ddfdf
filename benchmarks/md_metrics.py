"""Text metrics for comparing Markdown with ground truth: NED and olmOCR-bench style tests."""

from __future__ import annotations

import html
import re
import unicodedata

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}.*$", re.M)
_MARKUP = re.compile(r"[#|*_`$>]")
_SPACE = re.compile(r"\s+")


def normalize(markdown: str) -> str:
    """Plain text of Markdown, for an edit distance that ignores markup style.

    In order: drop HTML comments (`<!-- image -->`) and images `![..](..)`; turn HTML tags into
    spaces (so `<td>a</td><td>b</td>` reads "a b"); drop pipe-table rule rows (`|---|`);
    unescape HTML entities; Unicode NFKC (ligatures, full-width forms); drop the markup
    characters `# | * _ ` $ >`; collapse all whitespace to one space; strip.
    Words, their order, punctuation, case and LaTeX commands are kept.
    """
    text = _COMMENT.sub(" ", markdown)
    text = _IMAGE.sub(" ", text)
    text = _TAG.sub(" ", text)
    text = _TABLE_RULE.sub(" ", text)
    text = unicodedata.normalize("NFKC", html.unescape(text))
    text = _MARKUP.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


def ned(prediction: str, truth: str) -> float:
    """Normalized edit distance of the normalized texts: Levenshtein / longer length (0 = equal)."""
    return Levenshtein.normalized_distance(normalize(prediction), normalize(truth))


# --- olmOCR-bench tests (present / absent / order / baseline), a text-level approximation ---

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00b5": "\u03bc",
    }
)
_EMPHASIS = re.compile(r"\*\*|__|\*|(?<!\w)_|_(?!\w)|</?[bi]>")


def bench_normalize(text: str) -> str:
    """olmOCR-bench's normalization: <br> to space, emphasis removed, quotes/dashes unified."""
    text = re.sub(r"<br\s*/?>", " ", text)
    text = _EMPHASIS.sub("", text)
    text = unicodedata.normalize("NFC", text).translate(_QUOTES)
    return _SPACE.sub(" ", text).strip()


def find_fuzzy(needle: str, haystack: str, max_diffs: int) -> int:
    """Start of an occurrence of `needle` with at most `max_diffs` edits, or -1."""
    exact = haystack.find(needle)
    if exact >= 0 or max_diffs == 0 or not needle:
        return exact
    hit = fuzz.partial_ratio_alignment(needle, haystack)
    if hit is None:
        return -1
    window = haystack[hit.dest_start : hit.dest_end]
    return hit.dest_start if Levenshtein.distance(needle, window) <= max_diffs else -1


def run_test(test: dict, markdown: str) -> bool | None:
    """Pass/fail of one test on a page's Markdown; None for types not evaluated here."""
    kind = test["type"]
    text = bench_normalize(markdown)
    if kind == "baseline":
        return sum(c.isalnum() for c in text) <= test.get("max_length", 0)
    if kind in ("present", "absent"):
        return _contains(test, text) == (kind == "present")
    if kind == "order":
        diffs = test.get("max_diffs", 0)
        before = find_fuzzy(bench_normalize(test["before"]), text, diffs)
        after = find_fuzzy(bench_normalize(test["after"]), text, diffs)
        if after >= 0:  # any occurrence of `after` past `before` counts
            after = max(after, text.rfind(bench_normalize(test["after"])))
        return before >= 0 and after >= 0 and before < after
    return None


def _contains(test: dict, text: str) -> bool:
    needle = bench_normalize(test["text"])
    if test.get("first_n"):
        text = text[: test["first_n"]]
    if test.get("last_n"):
        text = text[-test["last_n"] :]
    if not test.get("case_sensitive", True):
        needle, text = needle.lower(), text.lower()
    return find_fuzzy(needle, text, test.get("max_diffs", 0)) >= 0
