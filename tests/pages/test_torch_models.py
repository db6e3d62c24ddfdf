"""ONNX graphs in torch: the two rewrites onnx2torch needs compute what the graph did (ONNX
Runtime on both), and a converted model answers as ONNX Runtime does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from hsd_cli.pages import torch_models

RNG = np.random.default_rng(0)
needs_onnx2torch = pytest.mark.skipif(not torch_models.available(), reason="onnx2torch is not installed")


def padded_model(mode: str, op: str = "Conv", strides: tuple[int, int] = (1, 1)) -> onnx.ModelProto:
    """One 2x3 convolution (or max pool) with `mode` auto padding over a [1, 2, H, W] input, and a
    Clip whose bounds are Constant nodes."""
    kernel = {"kernel_shape": [2, 3], "strides": list(strides), "auto_pad": mode}
    weights = numpy_helper.from_array(RNG.standard_normal((4, 2, 2, 3)).astype(np.float32), "w")
    inputs = ["x", "w"] if op == "Conv" else ["x"]
    bounds = [helper.make_node("Constant", [], [n], value_float=v) for n, v in (("lo", -0.5), ("hi", 0.5))]
    nodes = [helper.make_node(op, inputs, ["y"], **kernel), *bounds, helper.make_node("Clip", ["y", "lo", "hi"], ["z"])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, "h", "w"])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "padded", [x], [z], [weights] if op == "Conv" else [])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _session(model: onnx.ModelProto) -> ort.InferenceSession:
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("op", ["Conv", "MaxPool"])
@pytest.mark.parametrize("mode", ["SAME_UPPER", "SAME_LOWER"])
def test_auto_padding_becomes_the_explicit_pads_it_means(mode: str, op: str) -> None:
    """SAME_UPPER puts a kernel's odd padding at the end, SAME_LOWER at the start: a 2x3 kernel
    pads rows by 1 and columns by 2 in all, at every input size."""
    model = padded_model(mode, op)
    exact = onnx.ModelProto()
    exact.CopyFrom(model)
    assert torch_models.exact_graph(exact) == 3  # one padded node, two Constant nodes
    (node,) = [n for n in exact.graph.node if n.op_type == op]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    assert "auto_pad" not in attrs
    assert attrs["pads"] == ([0, 1, 1, 1] if mode == "SAME_UPPER" else [1, 1, 0, 1])  # Not [0, 1, 0, 2]
    for size in ((5, 7), (8, 6)):
        x = RNG.standard_normal((1, 2, *size)).astype(np.float32)
        np.testing.assert_array_equal(_session(exact).run(None, {"x": x})[0], _session(model).run(None, {"x": x})[0])


def test_strided_auto_padding_is_refused() -> None:
    """With stride 2 the padding depends on the input size: no fixed pads are exact."""
    with pytest.raises(ValueError, match="pads by the input size"):
        torch_models.exact_graph(padded_model("SAME_UPPER", strides=(2, 2)))


def test_constant_nodes_become_initializers() -> None:
    model = padded_model("SAME_UPPER")
    torch_models.exact_graph(model)
    assert not [n for n in model.graph.node if n.op_type == "Constant"]
    bounds = {t.name: numpy_helper.to_array(t).tolist() for t in model.graph.initializer if t.name in ("lo", "hi")}
    assert bounds == {"lo": -0.5, "hi": 0.5}


@needs_onnx2torch
def test_a_converted_model_answers_as_onnx_runtime(tmp_path: Path) -> None:
    """Every output, from the file as saved, at two input sizes; metadata and names kept."""
    model = padded_model("SAME_UPPER")
    helper.set_model_props(model, {"character": "a\nb"})
    onnx.save(model, str(tmp_path / "m.onnx"))
    converted = torch_models.TorchModel(tmp_path / "m.onnx")
    assert converted.metadata == {"character": "a\nb"} and converted.output_names == ["z"]
    for size in ((5, 7), (9, 4)):
        x = RNG.standard_normal((1, 2, *size)).astype(np.float32)
        (got,) = converted(x)
        np.testing.assert_allclose(got, _session(model).run(None, {"x": x})[0], atol=1e-6)


@needs_onnx2torch
def test_torchvision_is_not_left_importable() -> None:
    """onnx2torch imports torchvision for two converters no draft model uses; where it is not
    installed, the stand-ins it imports them from are gone afterwards (transformers would take
    them for torchvision and process targets' images with it)."""
    import importlib.util
    import sys

    had = importlib.util.find_spec("torchvision") is not None
    with torch_models._without_torchvision():
        import onnx2torch  # noqa: F401
    assert had or "torchvision" not in sys.modules


def test_cuda_convolutions_and_matmuls_run_in_full_float32_inside_only() -> None:
    """cuDNN may round a float32 convolution's inputs to TF32 (matmuls too, where a process asks
    for it): off while a draft model runs, as they were after; nothing changes for the CPU."""
    import torch

    conv, matmul = torch.backends.cudnn.conv, torch.backends.cuda.matmul
    before = (conv.fp32_precision, matmul.fp32_precision)
    with torch_models._full_float32(True):
        assert (conv.fp32_precision, matmul.fp32_precision) == ("ieee", "ieee")
    assert (conv.fp32_precision, matmul.fp32_precision) == before
    with torch_models._full_float32(False):
        assert (conv.fp32_precision, matmul.fp32_precision) == before
