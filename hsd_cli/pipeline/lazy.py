"""A converter known before it is loaded: the resume key from the config, the model on demand.

The runner plans every document (which pages are finished) with the key alone and loads the
model only when a page is left to convert, so a resume with nothing to do never touches it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hsd_cli.config import RunConfig
from hsd_cli.methods.base import PageConverter


def identify(cfg: RunConfig):  # noqa: ANN201 - ConverterIdentity, imported late (ray package)
    """What load_converter(cfg) will build, known without a model (see ray/identity.py)."""
    from hsd_cli.pipeline.ray.identity import identify as converter_identity

    return converter_identity(cfg)


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
