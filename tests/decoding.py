"""Tests' shorthands for one method on one page, through the real driver (methods/run.py)."""

from __future__ import annotations

from hsd_cli.driver.rows import decode_rows
from hsd_cli.driver.run import decode
from hsd_cli.methods.ar import AR
from hsd_cli.methods.base import PageDrafts, RowsRequest
from hsd_cli.methods.elements import Elements
from hsd_cli.methods.hsd import HSD
from hsd_cli.methods.page import Page


def run_ar(target, page, spec):
    return decode(AR(), target, page, [], spec)


def run_page(target, page, drafts, spec, dmap=None):
    """Page-level spec decoding against `drafts` (token lists)."""
    return decode(Page(), target, page, [], spec, PageDrafts([drafts], dmap))


def run_hsd(target, page, regions, region_drafts, cfg):
    """hsd with these region drafts; the page draft is their first drafts joined, as a page's would be."""
    page_draft = [t for d in region_drafts for t in (d[0] if d else [])]
    return decode(HSD(), target, page, list(regions), cfg.spec, PageDrafts([*region_drafts, [page_draft]]))


def run_elements(target, page, regions, region_drafts, cfg):
    """Element by element: AR when `region_drafts` is None."""
    method = Elements("test", verify=region_drafts is not None)
    return decode(method, target, page, list(regions), cfg.spec, PageDrafts(region_drafts or []))


def rows(target, images, prompt, drafts, spec):
    """decode_rows on a batch: (rows, report)."""
    done = decode_rows(target, RowsRequest(tuple(images), prompt, None if drafts is None else tuple(drafts), spec))
    return list(done.rows), done.report
