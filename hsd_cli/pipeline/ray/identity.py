"""The converter as the driver sees it: its method, whether it uses drafts and its options
(the resume key), known without loading a model; the verify actors load the real one."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace

from hsd_cli.config import RunConfig
from hsd_cli.errors import ModelNotFoundError


@dataclass(frozen=True, slots=True)
class ConverterIdentity:
    """What load_converter(worker_cfg) will build on every verify actor."""

    worker_cfg: RunConfig  # the config the actors load their converter from
    method: str
    uses_drafts: bool
    options: dict[str, object]

    def options_key(self) -> dict[str, object]:
        return dict(self.options)


def identify(cfg: RunConfig) -> ConverterIdentity:
    """As runner.load_converter decides: the draft converter for `draft` or when no model was
    asked for and the default cannot be found (one warning), else the target's; a model asked
    for that cannot be found is a ModelNotFoundError here, before any worker starts."""
    from hsd_cli.config import spec_options
    from hsd_cli.methods.draft import DraftConverter
    from hsd_cli.pipeline.local import fallback_warning
    from hsd_cli.targets.runtime.registry import FAMILIES, check_model

    if cfg.method != "draft":
        try:
            _, family = check_model(cfg.model)
            uses_drafts = cfg.method != "ar" or FAMILIES[family][0].element_level  # as SpecConverter
            return ConverterIdentity(cfg, cfg.method, uses_drafts, spec_options(cfg))
        except ModelNotFoundError as e:
            if not cfg.draft_fallback:
                raise
            print(fallback_warning(cfg.model, e), file=sys.stderr)
            cfg = replace(cfg, method="draft")
    draft = DraftConverter(cfg.draft_source)
    return ConverterIdentity(cfg, draft.method, draft.uses_drafts, draft.options_key())
