"""A table block's HTML, whatever markup it was written in (HTML, OTSL already converted, pipe table)."""

from __future__ import annotations

import html
import re

from hsd_cli.drafts.markup import TABLE_RULE

_HTML_TABLE = re.compile(r"<table\b.*?</table>", re.S | re.I)
_PIPE = re.compile(r"(?<!\\)\|")


def table_html(text: str) -> str | None:
    """The first HTML table in `text`, or its pipe table as HTML; None when there is neither."""
    found = _HTML_TABLE.search(text)
    if found:
        return found.group(0)
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("|")]
    if len(lines) < 2 or not TABLE_RULE.match(lines[1]):
        return None
    head, body = _cells(lines[0]), [_cells(line) for line in lines[2:]]
    rows = ["<tr>" + "".join(f"<th>{c}</th>" for c in head) + "</tr>"]
    rows += ["<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in body]
    return "<table>" + "".join(rows) + "</table>"


def _cells(line: str) -> list[str]:
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [html.escape(c.strip().replace("\\|", "|"), quote=False) for c in _PIPE.split(inner)]
