"""LightOnOCR (transformers `lighton_ocr`): Pixtral vision + Qwen3 text, end-to-end page OCR."""

from __future__ import annotations

from hsd_cli.datatypes import DraftStyle
from hsd_cli.targets.convert import normalize_math, strip_fence, tidy
from hsd_cli.targets.plain_rope import PlainRopeTarget
from hsd_cli.targets.runtime.base import FamilySpec

# Trained on the image alone: no text in the user turn means "transcribe this page".
PROMPT = ""
# Markdown with `#` headings, Markdown tables and LaTeX math (KaTeX), figures left out.
STYLE = DraftStyle(table="markdown", heading="hash", formula="dollars", figure="", drop_furniture=True)
MAX_PIXELS = 1540 * 1540  # trained with the longest edge at 1540 px
# Pixtral's processor brings the longest edge to 1540 px and counts 14 px patches on each side:
# past 1540 / 14 to 1 the short side rounds to no patch at all.
MAX_ASPECT = 100.0

FAMILIES = (
    FamilySpec(
        "lighton_ocr",
        ("lightonai/LightOnOCR-2-1B", "lightonai/LightOnOCR-1B-1025"),
        PROMPT,
        PROMPT,
        STYLE,
        n_axes=0,
        published_params="1B / 1B",
        max_pixels=MAX_PIXELS,
        max_aspect=MAX_ASPECT,
    ),
)


class LightOnOcrTarget(PlainRopeTarget):
    def chat_prompt(self, prompt: str) -> str:
        """The user turn holds the image and, only if given, a text part."""
        content = [{"type": "image"}] + ([{"type": "text", "text": prompt}] if prompt else [])
        messages = [{"role": "user", "content": content}]
        return self.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def to_markdown(self, text: str) -> str:
        """Markdown as written; \\[..\\] / \\(..\\) -> $$ / $."""
        return tidy(normalize_math(strip_fence(text.strip())))
