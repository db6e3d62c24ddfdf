"""HunyuanOCR (transformers `hunyuan_vl`): an end-to-end OCR expert model."""

from __future__ import annotations

import re

from hsd_cli.datatypes import DraftStyle
from hsd_cli.targets.convert import bare_tables, normalize_math, tidy
from hsd_cli.targets.runtime.base import SMART_RESIZE_MAX_ASPECT, FamilySpec, VisionTarget

# The model card's document-parsing prompt ("doc_parse": body as Markdown, headers and footers
# left out, tables as HTML, formulas as LaTeX, in reading order) and plain text extraction.
PAGE_PROMPT = (
    "提取文档图片中正文的所有信息用markdown格式表示，其中页眉、页脚部分忽略，表格用html格式表达，"
    "文档中公式用latex格式表示，按照阅读顺序组织进行解析。"
)
REGION_PROMPT = "提取图中的文字。"
# Model card (tencent/HunyuanOCR README, "Quick Start with Transformers"): messages = [system "", user
# [image, prompt]], apply_chat_template(add_generation_prompt=True), generate(max_new_tokens=16384,
# do_sample=False), batch_decode(skip_special_tokens=True); its generation_config.json is used as is.
STYLE = DraftStyle(table="html", heading="hash", formula="brackets", figure="", drop_furniture=True)
# vision_config.max_image_size = 2048: longer sides are resized by the processor anyway.
MAX_PIXELS = 2048 * 2048

FAMILIES = (
    FamilySpec(
        "hunyuan_vl",
        ("tencent/HunyuanOCR",),
        PAGE_PROMPT,
        REGION_PROMPT,
        STYLE,
        n_axes=4,
        rope_per_row=True,
        published_params="1B",
        max_pixels=MAX_PIXELS,
        max_aspect=SMART_RESIZE_MAX_ASPECT,
    ),
)

# doc_parse appends figure boxes as point pairs "(x1,y1),(x2,y2)" at the end of a line.
_COORDS = re.compile(r"(?:[ \t,，]*\(\d{1,4},\d{1,4}\),\(\d{1,4},\d{1,4}\))+[ \t]*$")
_CAPTION = re.compile(r"<table([^>]*)>\s*<caption[^>]*>(.*?)</caption>", re.S | re.I)


class HunyuanTarget(VisionTarget):
    def chat_prompt(self, prompt: str) -> str:
        """An empty system turn, then image + prompt: the model card's messages for every task."""
        messages = [
            {"role": "system", "content": ""},
            {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt}]},
        ]
        return self.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def to_markdown(self, text: str) -> str:
        """LaTeX delimiters -> $; figure coordinates dropped; table captions above the table."""
        text = _CAPTION.sub(lambda m: f"{m.group(2).strip()}\n\n<table{m.group(1)}>", text)
        text = "\n".join(_drop_coords(line) for line in text.splitlines())
        return tidy(bare_tables(normalize_math(text)))


def _drop_coords(line: str) -> str:
    # Tables and math may hold real point pairs; only plain lines carry layout boxes.
    if "<t" in line or "$" in line or "\\(" in line or "\\[" in line:
        return line
    return _COORDS.sub("", line)
