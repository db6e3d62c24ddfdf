"""A converter known before it is loaded: the resume key from the config, the model on demand.

The runner plans every document (which pages are finished) with the key alone and loads the
model only when a page is left to convert, so a resume with nothing to do never touches it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hsd_cli.config import RunConfig
from hsd_cli.methods.base import PageConverter


def identify(cfg: RunConfig):  # noqa: ANN201 - ray.identity.ConverterIdentity
    """What load_converter(cfg) will build, known without a model: as ray/identity.py decides,
    with the adapters (and torch) imported only once the model is known to be there."""
    import sys
    from dataclasses import replace

    from hsd_cli.config import spec_options
    from hsd_cli.errors import ModelNotFoundError
    from hsd_cli.methods.draft import DraftConverter
    from hsd_cli.pipeline.local import fallback_warning
    from hsd_cli.pipeline.ray.identity import ConverterIdentity
    from hsd_cli.targets.runtime.registry import check_model, families

    if cfg.method != "draft":
        try:
            _, family = check_model(cfg.model)
            uses_drafts = cfg.method != "ar" or families()[family][0].element_level  # as SpecConverter
            return ConverterIdentity(cfg, cfg.method, uses_drafts, spec_options(cfg))
        except ModelNotFoundError as e:
            if not cfg.draft_fallback:
                raise
            print(fallback_warning(cfg.model, e), file=sys.stderr)
            cfg = replace(cfg, method="draft")
    draft = DraftConverter(cfg.draft_source)
    return ConverterIdentity(cfg, draft.method, draft.uses_drafts, draft.options_key())


@dataclass(slots=True)
class LazyConverter:
    """Stands for `load(cfg)`: options_key() needs no model; get() loads it (once)."""

    cfg: RunConfig
    load: Callable[[RunConfig], PageConverter]
    _identity: object = field(default=None, init=False)
    _loaded: PageConverter | None = field(default=None, init=False)

    def options_key(self) -> dict[str, object]:
        """The key of the converter get() returns; raises ModelNotFoundError as loading would."""
        if self._identity is None:
            self._identity = identify(self.cfg)
        return self._identity.options_key()  # type: ignore[attr-defined]

    def get(self) -> PageConverter:
        """The converter, loaded for the config identify() settled on (draft after a fallback)."""
        if self._loaded is None:
            self.options_key()
            self._loaded = self.load(self._identity.worker_cfg)  # type: ignore[attr-defined]
        return self._loaded
