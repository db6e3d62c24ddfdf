"""Model families we support: model_type / hub id -> adapter; loading with clear errors."""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from hsd_cli.errors import ModelNotFoundError, UsageError

if TYPE_CHECKING:
    from hsd_cli.targets.runtime.base import FamilySpec, VisionTarget

# Each adapter module with the class that serves its FAMILIES (one row per module, listed in this
# order). Imported on first use: the adapters import torch, which a plan or a listing never needs.
_ADAPTERS = (
    ("hunyuan", "HunyuanTarget"),
    ("qwen_vl", "QwenVlTarget"),
    ("paddle_vl", "PaddleVlTarget"),
    ("glm_ocr", "GlmOcrTarget"),
    ("lighton_ocr", "LightOnOcrTarget"),
    ("deepseek_ocr", "DeepseekOcrTarget"),
    ("dots_ocr", "DotsOcrTarget"),
)


@cache
def families() -> dict[str, tuple[FamilySpec, type[VisionTarget]]]:
    """model_type -> (family data, adapter class)."""
    import importlib

    out = {}
    for name, cls in _ADAPTERS:
        module = importlib.import_module(f"hsd_cli.targets.{name}")
        out.update({family.model_type: (family, getattr(module, cls)) for family in module.FAMILIES})
    return out


def __getattr__(name: str) -> object:
    if name == "FAMILIES":  # `from registry import FAMILIES` keeps working, loaded on first use
        return families()
    raise AttributeError(name)


WAYS_OUT = "pass --model DIR (a local model directory) or use --method draft (no model)"


@dataclass(frozen=True, slots=True)
class ModelInfo:
    model_type: str
    hub_id: str
    cached: bool
    published_params: str  # this checkpoint's size as published, e.g. "3.75B"
    params: int | None = None  # counted on the meta device with --sizes


def family_of(model: str) -> str:
    """The model_type of a directory or hub id: from config.json where it is on disk (the folder,
    the hub cache), from our hub ids, else by transformers (a hub download)."""
    local = Path(model) / "config.json" if Path(model).is_dir() else _cached_file(model)
    if local is not None and Path(local).is_file():
        try:
            model_type = json.loads(Path(local).read_text(encoding="utf-8")).get("model_type")
        except (OSError, ValueError, AttributeError):
            model_type = None
        if isinstance(model_type, str):
            return model_type
    if not Path(model).exists():
        for family, _ in families().values():
            if model in family.hub_ids:
                return family.model_type
    from hsd_cli.targets.runtime.processors import model_type_of

    return model_type_of(model)


def load_target(model: str, device: str = "auto", dtype: str = "auto", graphs: bool = True) -> VisionTarget:
    """Load model + processor from a hub id or directory; ModelNotFoundError names the ways out.
    `graphs`: on CUDA, decode on hsd's static KV cache with CUDA graphs (static_session.engine_for)."""
    import transformers
    from transformers.utils import logging as hf_logging

    from hsd_cli.targets.runtime.attention import attention_for
    from hsd_cli.targets.runtime.gemm import pack_linears
    from hsd_cli.targets.runtime.processors import load_processor
    from hsd_cli.targets.runtime.static_session import engine_for

    hf_logging.set_verbosity_error()  # our stderr carries one line per problem, not load chatter
    hf_logging.disable_progress_bar()
    kw, model_type = check_model(model)
    family, cls = families()[model_type]
    dev = resolve_device(device)
    kw["trust_remote_code"] = family.remote_code
    try:
        processor = load_processor(model, model_type, **kw)
        auto = getattr(transformers, family.auto_class)
        net = auto.from_pretrained(model, dtype=resolve_dtype(dtype, dev), **kw)
    except (OSError, ValueError, ModelNotFoundError) as exc:
        raise ModelNotFoundError(f"model {model!r} cannot be loaded ({_first_line(exc)[:160]}): {WAYS_OUT}") from None
    except Exception as exc:  # safetensors' SafetensorError (a truncated download) is a bare Exception
        if type(exc).__name__ != "SafetensorError":
            raise
        raise ModelNotFoundError(
            f"{_bad_weights(model)}: truncated or corrupt weights ({_first_line(exc)[:120]})"
        ) from None
    attention_for(dev)
    target = cls(pack_linears(net.to(dev).eval()), processor)
    target.family = family
    target.static_engine = engine_for(dev, graphs)
    return target


def check_model(model: str) -> tuple[dict, str]:
    """What load_target checks before reading weights: from_pretrained's flags and the model
    type; ModelNotFoundError when the model cannot be found or hsd does not support it."""
    kw = _source_kwargs(model)
    try:
        model_type = family_of(model)
    except ModelNotFoundError:
        raise ModelNotFoundError(f"model {model!r} has no readable config.json: {WAYS_OUT}") from None
    if model_type not in families():
        raise ModelNotFoundError(
            f"model {model!r} is a {model_type!r} model, which hsd does not support (see `hsd models`)"
        )
    return kw, model_type


def _source_kwargs(model: str) -> dict:
    """from_pretrained flags: a directory as is; a hub id from the cache, else the hub if reachable."""
    if Path(model).is_dir():
        return {}
    if model.startswith((".", "/", "~")) or Path(model).suffix:
        raise ModelNotFoundError(f"model directory {model!r} does not exist: {WAYS_OUT}")
    if _is_cached(model):
        return {"local_files_only": True}
    if _offline() or not _hub_reachable():
        raise ModelNotFoundError(f"model {model!r} is not in the local cache and the hub cannot be reached: {WAYS_OUT}")
    return {}


def _offline() -> bool:
    """HF_HUB_OFFLINE as huggingface_hub reads it ("0" means online)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "ON", "YES", "TRUE"}


def _hub_reachable(timeout: float = 1.0) -> bool:
    # One quick connect instead of transformers' minutes of retries on a closed network.
    from urllib.parse import urlparse

    host = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co")).hostname or "huggingface.co"
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
        return True
    except OSError:
        return False


def list_models(sizes: bool = False) -> list[ModelInfo]:
    """Every supported hub id, whether it is in the local cache, and optionally its size."""
    out = []
    for family, _ in families().values():
        for hub_id in family.hub_ids:
            params = count_params(hub_id, family.model_type) if sizes else None
            published = published_size(family, hub_id)
            out.append(ModelInfo(family.model_type, hub_id, _is_cached(hub_id), published, params))
    return out


def published_size(family: FamilySpec, hub_id: str) -> str:
    """One checkpoint's published size: FamilySpec.published_params lists them in hub_ids order."""
    sizes = [s.strip() for s in family.published_params.split("/")]
    return sizes[family.hub_ids.index(hub_id)] if len(sizes) == len(family.hub_ids) else family.published_params


def count_params(hub_id: str, model_type: str) -> int | None:
    """Parameters of the full-size architecture, built on the meta device (no weights)."""
    import torch
    from transformers import AutoModelForImageTextToText

    from hsd_cli.targets.runtime.sizes import full_size_config

    config = full_size_config(hub_id, model_type)
    if config is None:
        return None
    with torch.device("meta"):
        net = AutoModelForImageTextToText.from_config(config)
    return sum(p.numel() for p in net.parameters())


def resolve_device(device: str) -> str:
    """auto -> cuda or cpu; a device this machine lacks is a one-line UsageError, not a traceback."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    kind, _, index = device.partition(":")
    if kind == "cuda" and not torch.cuda.is_available():
        raise UsageError(f"--device {device}: CUDA is not available here (use --device cpu or auto)")
    if kind == "cuda" and index and int(index) >= torch.cuda.device_count():
        raise UsageError(f"--device {device}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    if kind == "mps" and not torch.backends.mps.is_available():
        raise UsageError(f"--device {device}: MPS is not available here (use --device cpu or auto)")
    return device


def _bad_weights(model: str) -> str:
    """The first .safetensors file of a model folder whose header does not read (else the folder)."""
    from safetensors import safe_open

    for path in sorted(Path(model).glob("*.safetensors")) if Path(model).is_dir() else ():
        try:
            with safe_open(path, "pt"):
                pass
        except Exception:  # noqa: BLE001 - the same SafetensorError, now tied to one file
            return str(path)
    return model


def resolve_dtype(dtype: str, device: str):
    import torch

    if dtype == "auto":
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype]


def _is_cached(hub_id: str) -> bool:
    return _cached_file(hub_id) is not None


def _cached_file(hub_id: str, name: str = "config.json") -> str | None:
    """The file of a hub id in the local HF cache, without network or transformers."""
    if Path(hub_id).exists():
        return None
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(hub_id, name)
    except Exception:  # noqa: BLE001 - a broken cache simply counts as absent
        return None
    return found if isinstance(found, str) else None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
