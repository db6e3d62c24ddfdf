"""The run's converter, chosen when the runner first asks for it: after the inputs are found.

Choosing probes the model (driver/choose.py); the runner asks for the resume key only once the
inputs exist, and a target converter loads its model on its first page, so a missing input never
probes the model and a resume with nothing to do never loads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hsd_cli.config import RunConfig
from hsd_cli.methods.base import PageConverter


@dataclass(slots=True)
class LazyConverter:
    """Stands for `choose.converter_for(cfg)`, called once, on first use."""

    cfg: RunConfig
    _chosen: PageConverter | None = field(default=None, init=False)

    def options_key(self) -> dict[str, object]:
        return self.get().options_key()

    def get(self) -> PageConverter:
        if self._chosen is None:
            from hsd_cli.driver import choose  # looked up now: tests stand a fake in there

            self._chosen = choose.converter_for(self.cfg)
        return self._chosen
