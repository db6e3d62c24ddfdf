"""Assemble a document's Markdown from its page results.

Pages are joined, in page order, with one blank line. Successful pages carry no separator
comment: the file is the model's own Markdown, as a user would paste it, and page boundaries
live in the page reports (`page-NNNN.json`). Only pages that need attention leave a visible
HTML comment: `<!-- page 3 failed: cause -->` in place of a failed page,
`<!-- page 4 truncated: ... -->` after a page cut off by the token budget, and
`<!-- page 5 degraded: cause -->` after a page part of whose input could not be read.
"""

from __future__ import annotations

from collections.abc import Iterable

from hsd_cli.datatypes import PageResult, PageStatus


def render_document(results: Iterable[PageResult]) -> str:
    """The document's Markdown; empty pages are left out, the file ends with one newline."""
    parts = [part for r in sorted(results, key=lambda r: r.page) if (part := render_page(r))]
    return "\n\n".join(parts) + "\n" if parts else ""


def render_page(result: PageResult) -> str:
    """One page's Markdown block, with a comment when the page failed, was truncated or degraded."""
    text = result.markdown.strip("\n")
    if result.status == PageStatus.FAILED:
        return _comment(f"page {result.page} failed: {result.error or 'unknown error'}")
    if result.status == PageStatus.TRUNCATED:
        note = _comment(f"page {result.page} truncated: output hit the max-new-tokens limit")
        return f"{text}\n\n{note}" if text else note
    if result.status == PageStatus.DEGRADED:
        note = _comment(f"page {result.page} degraded: {result.error or 'part of it could not be read'}")
        return f"{text}\n\n{note}" if text else note
    return text


def _comment(text: str) -> str:
    # A cause may hold newlines or "-->", which would end the comment early.
    flat = " ".join(text.split()).replace("-->", "- ->")
    return f"<!-- {flat} -->"
