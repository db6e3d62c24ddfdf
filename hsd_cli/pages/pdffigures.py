"""Figures of a born-digital page: embedded pictures and clusters of vector drawings."""

from __future__ import annotations

import pymupdf

from hsd_cli.datatypes import Region


def with_figures(page: pymupdf.Page, to_px: pymupdf.Matrix, regions: tuple[Region, ...]) -> tuple[Region, ...]:
    return regions
