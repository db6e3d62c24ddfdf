"""`--method auto`: per page, `page` or `hsd`, from the drafts and the device's measured costs."""

from __future__ import annotations

from hsd_cli.config import RunConfig
from hsd_cli.stages import PreparedPage


def choose_method(prepared: PreparedPage, target, cfg: RunConfig) -> str:
    """Placeholder until the cost model lands: page-level verification."""
    return "page"
