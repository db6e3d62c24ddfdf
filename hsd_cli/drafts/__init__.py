"""Draft sources: cheap readers of a page whose region texts the target model verifies."""

from hsd_cli.drafts.auto import AutoSource
from hsd_cli.drafts.base import DraftSource
from hsd_cli.drafts.markup import MARKDOWN, page_markdown, region_markup
from hsd_cli.drafts.rapid import RapidOcrSource
from hsd_cli.drafts.text_layer import TextLayerSource, has_text_layer

__all__ = [
    "MARKDOWN",
    "AutoSource",
    "DraftSource",
    "RapidOcrSource",
    "TextLayerSource",
    "has_text_layer",
    "page_markdown",
    "region_markup",
]
