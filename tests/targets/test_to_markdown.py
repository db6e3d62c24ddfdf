"""Each family's output, recorded in the family's own format, converts to clean Markdown."""

from __future__ import annotations

import json

import pytest

from hsd_cli.targets.runtime.registry import FAMILIES


def to_markdown(family: str, raw: str) -> str:
    # to_markdown reads no model state: the adapter class without a loaded model will do.
    cls = FAMILIES[family][1]
    return cls.to_markdown(cls.__new__(cls), raw)


HUNYUAN_RAW = r"""# 3 Results

The loss falls as \( n^{-1/2} \) with the number of samples.

\[
L(n) = \frac{a}{\sqrt{n}} + b
\]

<table border="1"><caption>Table 2: Accuracy</caption><tr><td>Model</td><td>Acc</td></tr><tr><td>A</td><td>91.2</td></tr></table>

(147,90),(925,415)
Figure 3: Learning curves(39,337),(512,900)"""
HUNYUAN_MD = """# 3 Results

The loss falls as $n^{-1/2}$ with the number of samples.

$$
L(n) = \\frac{a}{\\sqrt{n}} + b
$$

Table 2: Accuracy

<table><tr><td>Model</td><td>Acc</td></tr><tr><td>A</td><td>91.2</td></tr></table>

Figure 3: Learning curves
"""

QWEN_RAW = """```markdown
# Annual Report 2024

## 1. Revenue

<table border="1"><tr><th>Year</th><th>Revenue</th></tr><tr><td>2023</td><td>1,234</td></tr></table>

$$E = mc^2$$
```"""
QWEN_MD = """# Annual Report 2024

## 1. Revenue

<table><tr><th>Year</th><th>Revenue</th></tr><tr><td>2023</td><td>1,234</td></tr></table>

$$
E = mc^2
$$
"""

PADDLE_TABLE = "<fcel>Year<fcel>Revenue<nl><fcel>2022<fcel>1,234.56<nl><fcel>2023<ecel><nl>"
PADDLE_TABLE_MD = "| Year | Revenue |\n|---|---|\n| 2022 | 1,234.56 |\n| 2023 |  |\n"
# "Model" spans two columns, "9" spans two rows: pipe tables cannot say that, HTML can.
PADDLE_SPANS = "<fcel>Model<lcel><fcel>Score<nl><fcel>a<fcel>x<fcel>9<nl><fcel>c<fcel>y<ucel><nl>"
PADDLE_SPANS_MD = (
    '<table><tr><td colspan="2">Model</td><td>Score</td></tr>'
    '<tr><td>a</td><td>x</td><td rowspan="2">9</td></tr><tr><td>c</td><td>y</td></tr></table>\n'
)

GLM_TABLE = (
    '<table border="1"><tr><td>项目</td><td>本期金额</td></tr><tr><td>补助</td><td>10,102,396.61</td></tr></table>'
)
GLM_TABLE_MD = "<table><tr><td>项目</td><td>本期金额</td></tr><tr><td>补助</td><td>10,102,396.61</td></tr></table>\n"

LIGHTON_RAW = r"""# Introduction

Let \(x \in \mathbb{R}^d\). Then

\[\|x\|_2 = \sqrt{\sum_i x_i^2}\]

| Year | Revenue |
| --- | --- |
| 2023 | 1,234 |
"""
LIGHTON_MD = """# Introduction

Let $x \\in \\mathbb{R}^d$. Then

$$
\\|x\\|_2 = \\sqrt{\\sum_i x_i^2}
$$

| Year | Revenue |
| --- | --- |
| 2023 | 1,234 |
"""

DEEPSEEK_RAW = r"""<|ref|>title<|/ref|><|det|>[[93, 61, 904, 105]]<|/det|>
# Annual Report 2024

<|ref|>text<|/ref|><|det|>[[93, 120, 904, 200]]<|/det|>
Revenue grew by \(12\%\).

<|ref|>image<|/ref|><|det|>[[100, 220, 500, 480]]<|/det|>


<|ref|>equation<|/ref|><|det|>[[300, 500, 700, 540]]<|/det|>
\[
E = mc^2
\]

<|ref|>table<|/ref|><|det|>[[93, 560, 904, 700]]<|/det|>
<table><tr><td>Year</td><td>2023</td></tr></table>"""
DEEPSEEK_MD = """# Annual Report 2024

Revenue grew by $12\\%$.

$$
E = mc^2
$$

<table><tr><td>Year</td><td>2023</td></tr></table>
"""

DOTS_CELLS = [
    {"bbox": [10, 10, 600, 40], "category": "Page-header", "text": "ACME Ltd. Annual Report"},
    {"bbox": [100, 60, 900, 110], "category": "Title", "text": "# Annual Report 2024"},
    {"bbox": [100, 120, 900, 150], "category": "Section-header", "text": "## 1. Revenue"},
    {"bbox": [100, 160, 900, 260], "category": "Text", "text": "Revenue grew by **12%**.\nProfit: $x^2$."},
    {
        "bbox": [100, 270, 900, 400],
        "category": "Table",
        "text": "<table><tr><td>Year</td><td>Revenue</td></tr><tr><td>2023</td><td>1,234</td></tr></table>",
    },
    {"bbox": [300, 410, 700, 450], "category": "Formula", "text": "E = mc^2"},
    {"bbox": [100, 460, 500, 700], "category": "Picture"},
    {"bbox": [100, 710, 500, 740], "category": "Caption", "text": "Figure 1: Sales"},
    {"bbox": [450, 980, 550, 1000], "category": "Page-footer", "text": "12"},
]
DOTS_MD = """# Annual Report 2024

## 1. Revenue

Revenue grew by **12%**.
Profit: $x^2$.

<table><tr><td>Year</td><td>Revenue</td></tr><tr><td>2023</td><td>1,234</td></tr></table>

$$
E = mc^2
$$

Figure 1: Sales
"""

CASES = [
    ("hunyuan_vl", HUNYUAN_RAW, HUNYUAN_MD),
    ("qwen2_5_vl", QWEN_RAW, QWEN_MD),
    ("qwen3_vl", QWEN_RAW.replace("```markdown", "```md"), QWEN_MD),
    ("paddleocr_vl", PADDLE_TABLE, PADDLE_TABLE_MD),
    ("paddleocr_vl", PADDLE_SPANS, PADDLE_SPANS_MD),
    ("paddleocr_vl", "Formula: \\[ \\int_0^1 x\\,dx \\]", "Formula:\n\n$$\n\\int_0^1 x\\,dx\n$$\n"),
    ("glm_ocr", GLM_TABLE, GLM_TABLE_MD),
    ("glm_ocr", "$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$", "$$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$\n"),
    ("lighton_ocr", LIGHTON_RAW, LIGHTON_MD),
    ("deepseek_ocr2", DEEPSEEK_RAW, DEEPSEEK_MD),
    ("dots_ocr", json.dumps(DOTS_CELLS), DOTS_MD),
]


@pytest.mark.parametrize("family, raw, expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_recorded_output_converts(family, raw, expected):
    """Tables, formulas and headings of a recorded answer -> the expected Markdown."""
    assert to_markdown(family, raw) == expected


def test_dots_truncated_json_keeps_complete_cells():
    """An answer cut off by the token budget still gives the cells that were finished."""
    raw = json.dumps(DOTS_CELLS[:4])[:-30]  # the last cell's text is cut
    assert to_markdown("dots_ocr", raw) == "# Annual Report 2024\n\n## 1. Revenue\n"


def test_dots_plain_ocr_answer_is_markdown_as_written():
    """prompt_ocr (Stage-1 regions) answers in Markdown, not JSON; a bare number is text too."""
    assert to_markdown("dots_ocr", "Revenue grew by **12%**.") == "Revenue grew by **12%**.\n"
    assert to_markdown("dots_ocr", "2023") == "2023\n"


def test_paddle_table_between_paragraphs():
    """An OTSL block inside text becomes its own block; the text around it stays."""
    raw = "Table 1: Sales\n<fcel>Year<fcel>Revenue<nl><fcel>2023<fcel>1,234<nl>\nSource: ACME"
    assert to_markdown("paddleocr_vl", raw) == (
        "Table 1: Sales\n\n| Year | Revenue |\n|---|---|\n| 2023 | 1,234 |\n\nSource: ACME\n"
    )


def test_every_family_has_a_conversion_case():
    assert {c[0] for c in CASES} == set(FAMILIES) - {"qwen2_vl"}  # qwen2_vl shares Qwen's adapter


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_plain_text_is_unchanged(family):
    """Plain paragraphs pass through every converter (one final newline, no extra blank lines)."""
    text = "First paragraph.\n\nSecond paragraph with 3.14 and a|b."
    assert to_markdown(family, text) == text + "\n"
