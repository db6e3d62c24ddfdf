"""Model markup -> clean Markdown: the conversions several families share.

Conventions of the Markdown we write: display math as `$$` on lines of its own, inline math as
`$..$`, tables as HTML (`<table>`, no attributes: Markdown allows HTML and keeps spans) or
pipe tables where the model wrote those, blocks separated by one blank line.
"""

from __future__ import annotations

import re

_DISPLAY = re.compile(r"\\\[(.+?)\\\]", re.S)
_INLINE = re.compile(r"\\\((.+?)\\\)", re.S)
_DOLLARS = re.compile(r"\$\$(.+?)\$\$", re.S)
_TABLE_OPEN = re.compile(r"<table\b[^>]*>", re.I)
_FENCE = re.compile(r"^\s*```[\w-]*[ \t]*\n(.*?)\n?```\s*$", re.S)
_BLANKS = re.compile(r"\n{3,}")


def normalize_math(text: str) -> str:
    """\\[..\\] and $$..$$ -> display `$$` blocks; \\(..\\) -> `$..$`."""
    text = _DISPLAY.sub(lambda m: display_math(m.group(1)), text)
    text = _DOLLARS.sub(lambda m: display_math(m.group(1)), text)
    return _INLINE.sub(lambda m: f"${m.group(1).strip()}$", text)


def display_math(latex: str) -> str:
    """A display formula as its own block."""
    return f"\n\n$$\n{latex.strip()}\n$$\n\n"


def bare_tables(text: str) -> str:
    """`<table border="1" ...>` -> `<table>`: attributes carry no content."""
    return _TABLE_OPEN.sub("<table>", text)


def strip_fence(text: str) -> str:
    """The body of a ```markdown / ```html fence wrapped around the whole answer."""
    m = _FENCE.match(text)
    return m.group(1) if m else text


def tidy(text: str) -> str:
    """Trailing spaces off, at most one blank line between blocks, one final newline."""
    lines = [line.rstrip() for line in text.strip().splitlines()]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip() + "\n"


def pipe_table(rows: list[list[str]]) -> str:
    """A pipe table; the first row is the header; pipes in cells escaped."""
    width = max(len(r) for r in rows)
    lines = []
    for row in rows:
        cells = [c.replace("|", "\\|").replace("\n", " ").strip() for c in row]
        lines.append("| " + " | ".join(cells + [""] * (width - len(cells))) + " |")
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)
