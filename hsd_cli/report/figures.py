"""`--images`: figure crops saved next to the page reports and linked from the Markdown.

Files: out/<key>/figures/page-NNNN-K.png, K = 1, 2, ... the page's figures in reading order.
Link: `![caption or Figure K](<name>/figures/page-NNNN-K.png)`, relative to out/<key>.md.
Placement rule, the same for the draft method and every model method: a figure's link goes
after the paragraph where the text of the block before it in reading order ends (blocks carry
the text provenance attributed to their region, blocks.py); a block whose text is not found
in the Markdown is passed over, and a figure with no block found before it goes first.
The draft Markdown's figure placeholders (`<!-- image -->`, drafts/markup.py) give way to the links.
"""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

from PIL import Image

from hsd_cli.datatypes import Block, PageResult, PageStatus, RegionKind
from hsd_cli.report import store

FIGURES = "figures"
_FIGURE = RegionKind.FIGURE.value
_PLACEHOLDER = re.compile(r"^<!-- image -->\n*", re.M)


def save_figures(result: PageResult, image: Image.Image | None, report_dir: Path, link_dir: str) -> PageResult:
    """The result with its figures cropped to PNG files (atomic writes) and linked in its Markdown."""
    if image is None or result.status is PageStatus.FAILED:
        return result
    blocks, k = list(result.blocks), 0
    for i, b in enumerate(blocks):
        if b.kind == _FIGURE:
            k += 1
            name = f"page-{result.page:04d}-{k}.png"
            store.write_bytes(report_dir / FIGURES / name, _png(_crop(image, b)))
            blocks[i] = replace(b, image=f"{quote(link_dir)}/{FIGURES}/{name}")
    if not k:
        return result
    return replace(result, blocks=blocks, markdown=insert_links(result.markdown, blocks))


def insert_links(markdown: str, blocks: list[Block]) -> str:
    """The Markdown with each figure block's link placed by the rule in the module docstring."""
    text = _PLACEHOLDER.sub("", markdown).strip("\n")
    inserts: list[tuple[int, str]] = []
    cursor = pos = 0
    for n, b in enumerate(blocks):
        if b.kind == _FIGURE:
            if b.image:
                inserts.append((pos, _link(b, sum(x.kind == _FIGURE for x in blocks[: n + 1]))))
            continue
        needle = b.text.strip().splitlines()[-1].strip() if b.text.strip() else ""
        at = text.find(needle, cursor) if needle else -1
        if at >= 0:
            end = text.find("\n\n", at + len(needle))
            pos = cursor = len(text) if end < 0 else end
    parts, prev = [], 0
    for at, link in inserts:
        parts += [text[prev:at].strip("\n"), link]
        prev = at
    parts.append(text[prev:].strip("\n"))
    return "\n\n".join(p for p in parts if p) + "\n"


def _link(block: Block, k: int) -> str:
    alt = (block.caption or f"Figure {k}").replace("[", "(").replace("]", ")")
    return f"![{alt[:300]}]({block.image})"


def _crop(image: Image.Image, block: Block) -> Image.Image:
    x0, y0, x1, y1 = block.bbox
    box = (max(0, int(x0)), max(0, int(y0)), min(image.width, int(x1 + 0.999)), min(image.height, int(y1 + 0.999)))
    if box[2] <= box[0] or box[3] <= box[1]:
        box = (0, 0, 1, 1)  # a degenerate box still gets its file, so every link resolves
    return image.crop(box)


def _png(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.convert("RGB").save(buf, "PNG")
    return buf.getvalue()
