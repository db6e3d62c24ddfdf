"""A draft model's converted torch graph made lean for a GPU: the same float ops, without the
copies and device reads that onnx2torch's node-for-node conversion adds around them.

onnx2torch turns every ONNX Identity into a copy, and keeps shape arithmetic (Shape -> Slice ->
Concat -> Reshape) as tensors on the model's device, read back one value at a time wherever a
Reshape or a Slice needs Python ints. Drafting's recogniser runs once per text line, so on a GPU
each line paid those reads as device syncs (PP-OCRv6's recogniser: 717 ops and 61 reads of the
device a line, now 396 and none; the layout model 32 reads a page, now none). `lean` rewrites
the FX graph:
- an Identity is its input;
- shapes, and the constants only shape arithmetic reads, live on the host, so it never reads
  the device;
- a Reshape, Slice or Split whose shape arguments are constants holds them as Python values.
Every op on float data is left as converted: outputs are bitwise the same.
"""

from __future__ import annotations

import functools

import torch
from torch import fx, nn


class HostShape(nn.Module):
    """ONNX Shape (start, end) as a host tensor: the sizes are the host's already."""

    def __init__(self, start: int = 0, end: int | None = None) -> None:
        super().__init__()
        self.start, self.end = start, end

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tensor(x.shape[self.start : self.end])


class HostConstant(nn.Module):
    """A constant kept on the host: a plain attribute, which `.to(device)` and a copy of the
    graph leave where it is (a tensor attribute of a GraphModule becomes a buffer)."""

    def __init__(self, value: torch.Tensor) -> None:
        super().__init__()
        self.__dict__["value"] = value.detach().cpu().clone()

    def forward(self) -> torch.Tensor:
        return self.value


class FixedReshape(nn.Module):
    """ONNX Reshape to a constant shape (0: that input dimension), as onnx2torch's OnnxReshape."""

    def __init__(self, shape: list[int]) -> None:
        super().__init__()
        self.shape = shape

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.reshape(x, [x.shape[i] if s == 0 else s for i, s in enumerate(self.shape)])


class FixedSlice(nn.Module):
    """ONNX Slice with constant starts, ends, axes and steps, as onnx2torch's OnnxSlice."""

    def __init__(self, *args: torch.Tensor | None) -> None:
        super().__init__()
        from onnx2torch.node_converters.slice import _get_slices

        starts, ends, axes, steps = (*args, None, None)[:4]
        # Starts and ends as Python ints, so that no slice holds a tensor to read when applied.
        self.flip, pos, neg = _get_slices(starts.tolist(), ends.tolist(), axes, steps)
        self.pos, self.neg = tuple(pos), tuple(neg)  # an index as a tuple: a list reads as a tensor index

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        from onnx2torch.node_converters.slice import _do_slice

        return _do_slice(x, self.flip, self.pos, self.neg)


class FixedSplit(nn.Module):
    """ONNX Split (13) with constant sizes."""

    def __init__(self, sizes: torch.Tensor, axis: int) -> None:
        super().__init__()
        self.sizes, self.axis = sizes.tolist(), axis

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return torch.split(x, self.sizes, dim=self.axis)


def lean(gm: fx.GraphModule) -> fx.GraphModule:
    """`gm` (onnx2torch's conversion) rewritten in place as the module docstring says; returned."""
    _drop_identities(gm)
    host = _host_values(gm)
    for node in list(gm.graph.nodes):
        if node in host and node.op == "get_attr":
            _swap(gm, node, HostConstant(_fetch(gm, node.target)), op="call_module")
        elif node in host and _is(gm, node, _onnx2torch().OnnxShape):
            old = gm.get_submodule(node.target)
            _swap(gm, node, HostShape(old._start, old._end))
        elif node.op == "call_module":
            _fix_shape_arguments(gm, node)
    gm.graph.eliminate_dead_code()
    gm.delete_all_unused_submodules()
    gm.graph.lint()
    gm.recompile()
    return gm


@functools.cache
def _onnx2torch():
    """onnx2torch's node converters (imported by then: the graph came from it)."""
    import onnx2torch.node_converters as converters

    return converters


@functools.cache
def _shape_args() -> dict[type, tuple[int, ...]]:
    """Where a converted op takes shape-like arguments (positions), read as Python values."""
    ops = _onnx2torch()
    return {ops.OnnxReshape: (1,), ops.OnnxSlice: (1, 2, 3, 4), ops.OnnxSplit13: (1,), ops.OnnxResize: (1, 2, 3)}


def _drop_identities(gm: fx.GraphModule) -> None:
    for node in list(gm.graph.nodes):
        if _is(gm, node, _onnx2torch().OnnxCopyIdentity):
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)


def _host_values(gm: fx.GraphModule) -> set[fx.Node]:
    """The nodes whose values belong on the host: Shape nodes and constants that only shape
    arithmetic or shape arguments use, and every parameter-free op on those alone."""
    seeds = {n for n in gm.graph.nodes if n.op == "get_attr" or _is(gm, n, _onnx2torch().OnnxShape)}
    while True:
        host = _derived(gm, seeds)
        wrong = {n for n in host if any(u not in host and not _shape_argument(gm, u, n) for u in n.users)}
        if not wrong:
            return host
        seeds -= _ancestors(wrong, host)  # what a device op reads stays on the device


def _derived(gm: fx.GraphModule, seeds: set[fx.Node]) -> set[fx.Node]:
    host = set(seeds)
    for node in gm.graph.nodes:  # in order: a node's inputs come before it
        inputs = node.all_input_nodes
        if node.op == "call_module" and inputs and all(a in host for a in inputs) and _stateless(gm, node):
            host.add(node)
    return host


def _ancestors(nodes: set[fx.Node], within: set[fx.Node]) -> set[fx.Node]:
    seen, todo = set(), list(nodes)
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo += [a for a in node.all_input_nodes if a in within]
    return seen


def _fix_shape_arguments(gm: fx.GraphModule, node: fx.Node) -> None:
    """A Reshape, Slice or Split whose shape arguments are all constants, with them as values."""
    ops, module = _onnx2torch(), gm.get_submodule(node.target)
    args = node.args[1:]
    if not args or not all(isinstance(a, fx.Node) and _is(gm, a, HostConstant) for a in args):
        return
    values = [gm.get_submodule(a.target).value for a in args]
    if isinstance(module, ops.OnnxReshape):
        _swap(gm, node, FixedReshape(values[0].tolist()))
    elif isinstance(module, ops.OnnxSlice):
        _swap(gm, node, FixedSlice(*values))
    elif isinstance(module, ops.OnnxSplit13):
        _swap(gm, node, FixedSplit(values[0], module.axis))


def _swap(gm: fx.GraphModule, node: fx.Node, module: nn.Module, op: str | None = None) -> None:
    """`node` calls `module` on its first argument only (the others are baked into it)."""
    name = f"lean_{node.name}"
    gm.add_submodule(name, module)
    node.op = op or node.op
    node.target, node.args, node.kwargs = name, node.args[:1], {}


def _fetch(gm: fx.GraphModule, target: str) -> torch.Tensor:
    owner, _, name = target.rpartition(".")
    return getattr(gm.get_submodule(owner) if owner else gm, name)


def _shape_argument(gm: fx.GraphModule, user: fx.Node, const: fx.Node) -> bool:
    if user.op != "call_module":
        return False
    at = _shape_args().get(type(gm.get_submodule(user.target)), ())
    return any(i in at for i, a in enumerate(user.args) if a is const)


def _stateless(gm: fx.GraphModule, node: fx.Node) -> bool:
    module = gm.get_submodule(node.target)
    return next(module.parameters(), None) is None and next(module.buffers(), None) is None


def _is(gm: fx.GraphModule, node: fx.Node, kind: type) -> bool:
    return node.op == "call_module" and isinstance(gm.get_submodule(node.target), kind)
