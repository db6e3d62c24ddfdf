"""HunyuanOCR (transformers `hunyuan_vl`): an end-to-end OCR expert model."""

from __future__ import annotations

import re

from hsd_cli.drafts.markup import DraftStyle
from hsd_cli.targets.base import FamilySpec, VisionTarget

# The model card's document-parsing and text-spotting-free OCR prompts.
PAGE_PROMPT = (
    "提取文档图片中正文的所有信息用markdown格式表示，其中页眉、页脚部分忽略，表格用html格式表达，"
    "文档中公式用latex格式表示，按照阅读顺序组织进行解析。"
)
REGION_PROMPT = "提取图中的文字。"
STYLE = DraftStyle(table="html", heading="hash", formula="brackets", figure="", drop_furniture=True)

SPECS = (
    FamilySpec("hunyuan_vl", ("tencent/HunyuanOCR",), PAGE_PROMPT, REGION_PROMPT, STYLE,
               n_axes=4, rope_per_row=True, published_params="1B"),
)

_DISPLAY = re.compile(r"\\\[(.+?)\\\]", re.S)
_INLINE = re.compile(r"\\\((.+?)\\\)", re.S)


class HunyuanTarget(VisionTarget):
    def to_markdown(self, text: str) -> str:
        """LaTeX delimiters \\[..\\] / \\(..\\) -> $$..$$ / $..$; HTML tables stay (Markdown allows HTML)."""
        text = _DISPLAY.sub(lambda m: f"$${m.group(1).strip()}$$", text)
        text = _INLINE.sub(lambda m: f"${m.group(1).strip()}$", text)
        return text.strip() + "\n"
