"""Option declarations shared by the commands; the speculative knobs come from SpecConfig."""

from __future__ import annotations

import functools
import inspect
import re
import typing
from collections.abc import Callable
from dataclasses import Field, fields
from typing import Annotated, Any, Literal

import typer
from typer.core import TyperCommand

from hsd_cli.config import SpecConfig


class Command(TyperCommand):
    """Usage lines in the common spelling: `INPUTS...`, not typer's `{INPUTS}...`."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [re.sub(r"^\{(.+)\}(\.\.\.)?$", r"\1\2", p) for p in super().collect_usage_pieces(ctx)]


def envvar(flag: str) -> str:
    """The environment variable of an option: --max-new-tokens -> HSD_MAX_NEW_TOKENS."""
    return "HSD_" + flag.removeprefix("--").replace("-", "_").upper()


def opt(flag: str, help: str, *aliases: str, **kw: Any) -> Any:
    """A Typer option read from HSD_<FLAG> when not given."""
    return typer.Option(flag, *aliases, help=help, envvar=kw.pop("envvar", envvar(flag)), **kw)


def knob_param(f: Field) -> str:
    """The command parameter that carries SpecConfig field `f`."""
    return f"spec_{f.name}"


def _knob_annotation(f: Field) -> Any:
    m = f.metadata
    if isinstance(f.default, bool):  # the flag turns the knob off: --no-region-starts
        return Annotated[bool, opt(m["flag"], m["help"])]
    kind = Literal[m["choices"]] if m["choices"] else type(f.default)  # type: ignore[valid-type]
    return Annotated[kind, opt(m["flag"], m["help"], min=m["min"])]


def knob_values(kw: dict[str, Any]) -> dict[str, Any]:
    """Pop the knob parameters from a command's arguments: SpecConfig keyword arguments."""
    out = {}
    for f in fields(SpecConfig):
        value = kw.pop(knob_param(f))
        out[f.name] = not value if isinstance(f.default, bool) else value
    return out


def with_spec_knobs(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add one option per SpecConfig field to a command; it receives them as `knobs` (a dict of
    SpecConfig arguments, validated by the command so a bad value is its usage error)."""
    hints = typing.get_type_hints(func, include_extras=True)  # resolved in the command's module
    sig = inspect.signature(func)
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation)) for p in sig.parameters.values() if p.name != "knobs"
    ]
    for f in fields(SpecConfig):
        default = False if isinstance(f.default, bool) else f.default
        params.append(
            inspect.Parameter(
                knob_param(f), inspect.Parameter.KEYWORD_ONLY, default=default, annotation=_knob_annotation(f)
            )
        )

    @functools.wraps(func)
    def command(**kw: Any) -> Any:
        knobs = knob_values(kw)
        return func(**kw, knobs=knobs)

    command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    del command.__wrapped__  # typer must see the new signature, not the wrapped one
    return command


Pages = Annotated[str | None, opt("--pages", "Pages, 1-based, e.g. 1-3,7 [default: all].")]
Dpi = Annotated[int, opt("--dpi", "Render resolution in dots per inch (36-600).")]
MaxPages = Annotated[int | None, opt("--max-pages", "At most the first N selected pages per document.", min=1)]
Device = Annotated[str, opt("--device", "auto, cpu, cuda or cuda:N.")]
Dtype = Annotated[
    Literal["auto", "bf16", "fp16", "fp32"],
    opt("--dtype", "Model dtype; fp32 makes tau=1 output identical to AR."),
]
Graphs = Annotated[
    bool,
    opt(
        "--graphs/--no-graphs",
        "On CUDA, decode on hsd's static KV cache with CUDA graphs; --no-graphs: transformers' cache, eager.",
        envvar="HSD_GRAPHS",
    ),
]
JsonOut = Annotated[
    bool,
    opt("--json", "Print the machine-readable result (JSON) on stdout, nothing else; the human output goes to stderr."),
]
Debug = Annotated[bool, opt("--debug", "Show tracebacks.")]
