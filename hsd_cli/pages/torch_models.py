"""The draft models' ONNX graphs run in torch (onnx2torch), so a page drafts on the target's GPU.

onnx2torch converts the graph as it is, node by node: no network is written out by hand here. Two
of its gaps are closed on the ONNX graph first, by exact rewrites (`exact_graph`): SAME_UPPER /
SAME_LOWER auto padding, which it does not implement, becomes the explicit pads it means (exact
where the node's strides are 1, whatever the input size, which is the case in every draft model),
and Constant nodes become initializers, where its converters look for weights and attribute-like
inputs (the layout model's convolution weights are Constant nodes: KeyError without it). The
converted graph then drops the copies and device reads the conversion adds (pages/lean_graph.py).
The weights are the flushed copies ONNX Runtime runs (pages/onnx_models.py). onnx2torch is optional
(pip install "hsd-cli[gpu]", or onnx2torch with --no-deps): `available()` says whether it can be
imported.
"""

from __future__ import annotations

import importlib.util
import sys
import types
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np

_POOLS = ("Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool")


def available() -> bool:
    """Whether onnx2torch is installed (checked without importing torch)."""
    return importlib.util.find_spec("onnx2torch") is not None


def exact_graph(proto) -> int:
    """Rewrite `proto` in place into the graph onnx2torch converts, computing the same function;
    how many nodes changed."""
    return _explicit_pads(proto) + _constants_as_initializers(proto)


def _explicit_pads(proto) -> int:
    """SAME_UPPER / SAME_LOWER auto padding as explicit `pads`. With stride 1 a kernel of extent
    e = dilation * (k - 1) + 1 pads e - 1 in all, whatever the input size: SAME_UPPER puts the odd
    one at the end, SAME_LOWER at the start. Other strides pad by the input size: refused."""
    from onnx import helper

    changed = 0
    for node in proto.graph.node:
        attrs = {a.name: a for a in node.attribute}
        mode = helper.get_attribute_value(attrs["auto_pad"]).decode() if "auto_pad" in attrs else "NOTSET"
        if node.op_type not in _POOLS or mode not in ("SAME_UPPER", "SAME_LOWER"):
            continue
        kernel = list(helper.get_attribute_value(attrs["kernel_shape"]))
        strides = list(helper.get_attribute_value(attrs["strides"])) if "strides" in attrs else [1] * len(kernel)
        dilations = list(helper.get_attribute_value(attrs["dilations"])) if "dilations" in attrs else [1] * len(kernel)
        if any(s != 1 for s in strides):
            raise ValueError(f"{node.op_type} {node.name!r}: {mode} with strides {strides} pads by the input size")
        total = [d * (k - 1) for k, d in zip(kernel, dilations, strict=True)]
        small = [t // 2 for t in total]
        begin = small if mode == "SAME_UPPER" else [t - s for t, s in zip(total, small, strict=True)]
        end = [t - b for t, b in zip(total, begin, strict=True)]
        node.attribute.remove(attrs["auto_pad"])
        if "pads" in attrs:
            node.attribute.remove(attrs["pads"])
        node.attribute.append(helper.make_attribute("pads", begin + end))
        changed += 1
    return changed


def _constants_as_initializers(proto) -> int:
    """Every Constant node of the main graph as an initializer of the same name and value."""
    from onnx import helper, numpy_helper

    constants = [n for n in proto.graph.node if n.op_type == "Constant"]
    for node in constants:
        (attr,) = node.attribute
        value = helper.get_attribute_value(attr)
        if attr.name == "value":
            tensor = value
            tensor.name = node.output[0]
        elif attr.name in ("value_float", "value_floats", "value_int", "value_ints"):
            dtype = np.float32 if "float" in attr.name else np.int64
            tensor = numpy_helper.from_array(np.array(value, dtype=dtype), node.output[0])
        else:  # strings, sparse tensors: not in a draft model
            raise ValueError(f"Constant {node.name!r}: {attr.name} is not converted")
        proto.graph.initializer.append(tensor)
        proto.graph.node.remove(node)
    return len(constants)


class TorchModel:
    """One ONNX model as a torch module on `device`: called with the graph's inputs as arrays, it
    returns every graph output as an array, as onnxruntime's InferenceSession.run(None, ...) does."""

    def __init__(self, path: Path, device: str = "cpu") -> None:
        import onnx
        import torch

        from hsd_cli.pages.lean_graph import lean  # torch: imported only where a model is converted

        proto = onnx.load(str(path))
        self.metadata = {p.key: p.value for p in proto.metadata_props}
        self.output_names = [o.name for o in proto.graph.output]
        exact_graph(proto)
        with _without_torchvision():
            from onnx2torch import convert

            module = lean(convert(proto))
        self.device = torch.device(device)
        self.module = module.eval().to(self.device)

    def __call__(self, *inputs: np.ndarray) -> list[np.ndarray]:
        import torch

        with torch.inference_mode(), _full_float32(self.device.type == "cuda"), warnings.catch_warnings():
            # onnx2torch's Slice indexes with a list, which torch still reads as a tuple, warning
            # on every call that it may not some day (the outputs are checked against ONNX Runtime's).
            warnings.filterwarnings("ignore", "Using a non-tuple sequence", UserWarning)
            given = [torch.from_numpy(np.ascontiguousarray(x)).to(self.device) for x in inputs]
            out = self.module(*given)
        out = out if isinstance(out, list | tuple) else [out]
        return [o.float().cpu().numpy() if o.is_floating_point() else o.cpu().numpy() for o in out]


@contextmanager
def _full_float32(cuda: bool):
    """cuDNN convolutions and CUDA matmuls in full float32 inside: convolutions may round their
    inputs to TF32 by default (10-bit mantissa), and matmuls do where a process asked for "high"
    precision, which moves scores near the detector's and CTC's thresholds. Restored after, so a
    target in the same process keeps its own settings."""
    import torch

    backends = (getattr(torch.backends.cudnn, "conv", None), getattr(torch.backends.cuda, "matmul", None))
    if not cuda or any(b is None or not hasattr(b, "fp32_precision") for b in backends):
        yield  # before torch 2.9 only the legacy flags: convolutions as the process has them
        return
    before = [b.fp32_precision for b in backends]
    try:
        for b in backends:
            b.fp32_precision = "ieee"
        yield
    finally:
        for b, value in zip(backends, before, strict=True):
            b.fp32_precision = value


@contextmanager
def _without_torchvision():
    """Import onnx2torch where torchvision is not installed: only its NonMaxSuppression and
    RoiAlign converters use torchvision, and no draft model has those nodes."""
    # hsd does not install torchvision: with it, transformers switches every target's image
    # processor to its torchvision backend, whose resizing differs from PIL's (other pixels in).
    # The placeholders are gone again once onnx2torch is imported, so nothing else sees them.
    if "onnx2torch" in sys.modules or importlib.util.find_spec("torchvision") is not None:
        yield
        return
    vision, ops = types.ModuleType("torchvision"), types.ModuleType("torchvision.ops")
    ops.roi_align = ops.nms = ops.box_convert = _needs_torchvision
    vision.ops = ops
    sys.modules.update({"torchvision": vision, "torchvision.ops": ops})
    try:
        yield
    finally:
        for name in ("torchvision", "torchvision.ops"):
            if sys.modules.get(name) in (vision, ops):
                del sys.modules[name]


def _needs_torchvision(*args, **kwargs):
    raise RuntimeError("this ONNX node needs torchvision (pip install torchvision)")
