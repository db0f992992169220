#!/usr/bin/env python3
"""The differential test against PyTorch (CPU): generated cases run in cudash
and in PyTorch on the same inputs, compared for dtype, shape, values bit for
bit, and which inputs raise an error.

`scripts/torch-check` runs this in a private venv with torch installed; it is
not part of CI (the wheel is large). Usage:

    torch_check.py --cudash target/release/cudash [--work DIR] [--show N]
    torch_check.py --device cuda --backend cuda ...   # on a machine with a GPU

With `--device cuda` both sides compute on a GPU: the inputs are moved to
`cuda` first, factories get `device=cuda`, and PyTorch's CUDA tensors are the
reference for cudash's (`--backend cuda`; `--backend emu` runs the same
kernels on the CPU). Cases whose index is out of range on PyTorch's CPU are
left out there: on a GPU they stop the kernel with a device-side assert,
which leaves the device unusable for the rest of the run.

Inputs are written by PyTorch as .safetensors and loaded by cudash, so both
sides start from the same bits. Each case is one cudash statement that saves
its result; a case whose statement fails leaves no file, and counts as
raising. NaNs compare as NaNs (their sign and payload are not compared).
"""

import argparse
import json
import math
import random
import re
import struct
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import torch

DTYPES = ["bool", "i32", "i64", "f16", "bf16", "f32", "f64"]
TORCH = {
    "bool": torch.bool,
    "i32": torch.int32,
    "i64": torch.int64,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f32": torch.float32,
    "f64": torch.float64,
}
NAME = {v: k for k, v in TORCH.items()}
ST = {
    "BOOL": "bool",
    "I32": "i32",
    "I64": "i64",
    "F16": "f16",
    "BF16": "bf16",
    "F32": "f32",
    "F64": "f64",
}
ST_OF = {v: k for k, v in ST.items()}
# The integer type holding each dtype's bits.
BITS = {
    "bool": np.uint8,
    "i32": np.uint32,
    "i64": np.uint64,
    "f16": np.uint16,
    "bf16": np.uint16,
    "f32": np.uint32,
    "f64": np.uint64,
}
FLOATS = {"f16", "bf16", "f32", "f64"}


# ---- safetensors, both ways ----------------------------------------------


def raw_bytes(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    if t.dtype == torch.bool:
        return t.numpy().astype(np.uint8).tobytes()
    return t.numpy().tobytes()


def write_safetensors(path, t):
    data = raw_bytes(t)
    header = {
        "tensor": {
            "dtype": ST_OF[NAME[t.dtype]],
            "shape": list(t.shape),
            "data_offsets": [0, len(data)],
        }
    }
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    path.write_bytes(struct.pack("<Q", len(h)) + h + data)


def read_safetensors(path):
    """(dtype name, shape, the raw bits as an integer array)."""
    b = path.read_bytes()
    (n,) = struct.unpack("<Q", b[:8])
    header = json.loads(b[8 : 8 + n])
    (entry,) = [v for k, v in header.items() if k != "__metadata__"]
    s, e = entry["data_offsets"]
    dt = ST[entry["dtype"]]
    bits = np.frombuffer(b[8 + n + s : 8 + n + e], dtype=BITS[dt])
    return dt, tuple(entry["shape"]), bits


def bits_of(t):
    return np.frombuffer(raw_bytes(t), dtype=BITS[NAME[t.dtype]])


# ---- inputs ---------------------------------------------------------------


def values(dt, n, rng, special):
    if dt == "bool":
        return [rng.random() < 0.5 for _ in range(n)]
    if dt in ("i32", "i64"):
        pool = [-7, -3, -2, -1, 0, 1, 2, 3, 5, 9, 100]
        if dt == "i64" and special:
            pool += [2**40 + 1, -(2**35)]
        return [rng.choice(pool) for _ in range(n)]
    pool = [-3.0, -1.5, -1.0, -0.5, -0.0, 0.0, 0.1, 0.5, 1.0, 2.0, 3.7, 1e-3, 7.25]
    vals = [rng.choice(pool) if rng.random() < 0.5 else rng.gauss(0, 2) for _ in range(n)]
    if special and n >= 4:
        vals[rng.randrange(n)] = math.nan
        vals[rng.randrange(n)] = math.inf
        vals[rng.randrange(n)] = -math.inf
    return vals


def make(dt, shape, rng, special=False):
    n = math.prod(shape)
    t = torch.tensor(values(dt, n, rng, special), dtype=torch.float64 if dt in FLOATS else None)
    return t.to(TORCH[dt]).reshape(shape)


# ---- the cases --------------------------------------------------------------


class Case:
    def __init__(self, group, src, torch_src, inputs, setup=None):
        self.group = group
        self.src = src
        self.torch_src = torch_src
        self.inputs = inputs  # name -> torch tensor
        # A statement run first on both sides (an indexed assignment), as
        # (cudash, torch).
        self.setup = setup


def cases(rng):
    out = []
    binary = ["+", "-", "*", "/", "**", "//", "%", "&", "|", "^", "==", "!=", "<", "<=", ">", ">="]
    # Same dtype, with and without broadcasting.
    for op in binary:
        for dt in DTYPES:
            for sa, sb in [((3, 4), (3, 4)), ((3, 1), (1, 4))]:
                a, b = make(dt, sa, rng, True), make(dt, sb, rng, True)
                out.append(Case("binary", f"a {op} b", f"a {op} b", {"a": a, "b": b}))
    # Mixed dtypes: promotion.
    pairs = [
        ("i32", "f32"),
        ("bool", "i64"),
        ("f16", "f32"),
        ("bf16", "f16"),
        ("i64", "f64"),
        ("bool", "f32"),
        ("i32", "i64"),
        ("f16", "i64"),
    ]
    for op in ["+", "-", "*", "/", "**", "//", "%", "&", "==", "<"]:
        for da, db in pairs:
            a, b = make(da, (2, 3), rng), make(db, (2, 3), rng)
            out.append(Case("promotion", f"a {op} b", f"a {op} b", {"a": a, "b": b}))
    # A 0-d tensor beside a dimensioned one.
    for da, db in [("f16", "f32"), ("i32", "i64"), ("i64", "f32"), ("bool", "i32")]:
        a, b = make(da, (5,), rng), make(db, (), rng)
        for op in ["+", "*"]:
            out.append(Case("zero-dim", f"a {op} b", f"a {op} b", {"a": a, "b": b}))
    # Numbers written in the program (weak scalars), on either side.
    scalars = [("2", "2"), ("2.5", "2.5"), ("-1", "-1"), ("0.1", "0.1"), ("true", "True")]
    for dt in DTYPES:
        a = make(dt, (2, 4), rng)
        for op in ["+", "-", "*", "/", "**", "//", "%", "&", "|"]:
            for s, ts in scalars:
                out.append(Case("scalar", f"a {op} {s}", f"a {op} {ts}", {"a": a}))
            out.append(Case("scalar", f"3 {op} a", f"3 {op} a", {"a": a}))
    # Unary ops.
    for name in ["abs", "relu", "exp", "log", "log1p", "sqrt", "sigmoid", "tanh", "sin", "cos", "floor", "ceil", "round", "trunc"]:
        for dt in DTYPES:
            a = make(dt, (9,), rng, True)
            t = f"torch.{name}(a)" if name != "relu" else "torch.relu(a)"
            out.append(Case("unary", f"a.{name}()", t, {"a": a}))
    for dt in DTYPES:
        out.append(Case("unary", "-a", "-a", {"a": make(dt, (6,), rng, True)}))
        out.append(Case("unary", "~a", "~a", {"a": make(dt, (6,), rng, True)}))
        for name in ["logical_not", "isnan", "bitwise_not"]:
            out.append(Case("unary", f"{name}(a)", f"torch.{name}(a)", {"a": make(dt, (7,), rng, True)}))
    # Binary functions, the bounds of clamp, where.
    for dt in DTYPES:
        a, b = make(dt, (3, 4), rng, True), make(dt, (1, 4), rng, True)
        for name in ["maximum", "minimum", "logical_and", "logical_or", "logical_xor", "floor_divide", "remainder"]:
            out.append(Case("functions", f"{name}(a, b)", f"torch.{name}(a, b)", {"a": a, "b": b}))
            out.append(Case("functions", f"a.{name}(b)", f"a.{name}(b)", {"a": a, "b": b}))
        out.append(Case("functions", "maximum(a, 2)", "torch.maximum(a, 2)", {"a": a}))
        for src, tsrc in [
            ("clamp(a, -1, 1)", "torch.clamp(a, -1, 1)"),
            ("clamp(a, min=0)", "torch.clamp(a, min=0)"),
            ("clamp(a, max=0.5)", "torch.clamp(a, max=0.5)"),
            ("clamp(a, 1, -1)", "torch.clamp(a, 1, -1)"),
            ("a.clamp(b, c)", "a.clamp(b, c)"),
            ("a.clamp(min=b)", "a.clamp(min=b)"),
            ("where(c > 0, a, b)", "torch.where(c > 0, a, b)"),
            ("where(c > 0, a, 0)", "torch.where(c > 0, a, 0)"),
            ("where(c > 0, 1, 2.5)", "torch.where(c > 0, 1, 2.5)"),
            ("where(c, a, b)", "torch.where(c, a, b)"),
            ("a.where(c > 0, b)", "a.where(c > 0, b)"),
            ("a.masked_fill(c > 0, -1)", "a.masked_fill(c > 0, -1)"),
            ("a.masked_fill(c > 0, -inf)", "a.masked_fill(c > 0, float('-inf'))"),
            ("masked_fill(b, c.reshape(3, 1, 1) > 0, 2.5)", "torch.masked_fill(b, c.reshape(3, 1, 1) > 0, 2.5)"),
        ]:
            c = make("f32", (3, 1), rng)
            out.append(Case("functions", src, tsrc, {"a": a, "b": b, "c": c}))
    for da, db in pairs:
        a, b = make(da, (2, 3), rng, True), make(db, (2, 3), rng, True)
        for src, tsrc in [("maximum(a, b)", "torch.maximum(a, b)"), ("logical_and(a, b)", "torch.logical_and(a, b)"),
                          ("clamp(a, b, 2)", "torch.clamp(a, b, 2)"), ("where(a > b, a, b)", "torch.where(a > b, a, b)")]:
            out.append(Case("functions", src, tsrc, {"a": a, "b": b}))
    # In place: the updated tensor (PyTorch's result dtype rule for outputs).
    for dt in DTYPES:
        a, b = make(dt, (2, 3), rng, True), make(dt, (3,), rng, True)
        for src in ["a.add_(b)", "a.sub_(2)", "a.mul_(b)", "a.div_(2)", "a.pow_(2)", "a.floor_divide_(b)",
                    "a.remainder_(3)", "a.clamp_(-1, 1)", "a.clamp_(max=b)", "a.add_(1.5)", "a.mul_(true)",
                    "a[0].add_(b)", "a.add_(ones(2, 3, 1))"]:
            tsrc = src.replace("true", "True").replace("ones(", "torch.ones(")
            out.append(Case("in-place", src, tsrc, {"a": a.clone(), "b": b}))
    # Reductions.
    for name in ["sum", "mean", "max", "min", "argmax", "argmin", "prod"]:
        for dt in DTYPES:
            a = make(dt, (4, 5), rng)
            out.append(Case("reduce", f"a.{name}()", f"a.{name}()", {"a": a}))
            for dim in [0, 1, -1]:
                part = ".values" if name in ("max", "min") else ""
                out.append(Case("reduce", f"a.{name}({dim}){part}", f"a.{name}({dim}){part}", {"a": a}))
            part = ".indices" if name in ("max", "min") else ""
            out.append(Case("reduce", f"a.{name}(1, keepdim=true){part}", f"a.{name}(1, keepdim=True){part}", {"a": a}))
    for dt in DTYPES:
        a = make(dt, (2, 3, 4), rng)
        for src, tsrc in [("a.sum((0, 2))", "a.sum((0, 2))"), ("a.sum([2, 0], keepdim=true)", "a.sum([2, 0], keepdim=True)"),
                          ("a.mean((1, 2))", "a.mean((1, 2))"), ("a.sum(dtype=f64)", "a.sum(dtype=torch.float64)"),
                          ("a.sum(1, dtype=i32)", "a.sum(1, dtype=torch.int32)"), ("a.mean(dtype=f32)", "a.mean(dtype=torch.float32)"),
                          ("a.sum((0, 0))", "a.sum((0, 0))"), ("a.sum(())", "a.sum(())"), ("zeros((2, 3), dtype=i32)", "torch.zeros((2, 3), dtype=torch.int32)")]:
            out.append(Case("reduce", src, tsrc, {"a": a}))
    for dt in ["f32", "f64", "f16", "bf16"]:
        a = make(dt, (1000,), rng)
        out.append(Case("reduce", "a.sum()", "a.sum()", {"a": a}))
        out.append(Case("reduce", "a.mean()", "a.mean()", {"a": a}))
    # Sums in PyTorch's order: its vector lanes and cascades, the kernel the
    # strides pick (rows, columns, strided views), and past 32,768 elements
    # its split over threads (one result, or columns).
    for dt in ["f32", "f64", "f16", "bf16"]:
        for shape, srcs in [
            ((37, 45), ["a.sum()", "a.sum(0)", "a.sum(1)", "a.mT.sum()", "a.mT.sum(0)", "a.mT.sum(1)",
                        "a[:, ::2].sum(0)", "a[:, ::2].sum(1)", "a.mean(0)", "a.mT.mean(1)"]),
            ((300, 257), ["a.sum()", "a.sum(0)", "a.sum(1)", "a.mT.sum(1)", "a.mean()", "a[::3].sum(0)"]),
            ((5, 7, 2000), ["a.sum((0, 2))", "a.sum(1)", "a.sum(2)", "a.sum(0)", "a.mean((0, 1))",
                            "a.transpose(0, 2).sum(0)", "a.sum((2, 1), keepdim=true)"]),
            ((100003,), ["a.sum()", "a.mean()", "a[1:].sum()"]),
        ]:
            a = make(dt, shape, rng)
            for src in srcs:
                tsrc = src.replace("true", "True")
                out.append(Case("sum order", src, tsrc, {"a": a}))
    # Products in PyTorch's order: four vectors side by side along rows,
    # vectors of columns, element by element otherwise, split over threads.
    for dt in ["f32", "f64", "f16", "bf16"]:
        a = make(dt, (37, 70), rng) / 4 + 1
        for src in ["a.prod()", "a.prod(0)", "a.prod(1)", "a.mT.prod(0)", "a.mT.prod(1)", "a[:, ::2].prod(1)"]:
            out.append(Case("prod order", src, src, {"a": a}))
        a = make(dt, (300, 130), rng) / 64 + 1
        for src in ["a.prod()", "a.prod(0)", "a.prod(1)"]:
            out.append(Case("prod order", src, src, {"a": a}))
    # Long enough that each thread's share is read as runs side by side.
    for dt in ["f32", "f64", "bf16"]:
        a = make(dt, (2_100_001,), rng)
        for src in ["a.sum()", "a[3:].mean()"]:
            out.append(Case("sum order", src, src, {"a": a}))
        a = make(dt, (70_001, 40), rng)
        for src in ["a.sum(0)", "a.mT.sum(1)"]:
            out.append(Case("sum order", src, src, {"a": a}))
    # Matrix products.
    for dt in DTYPES:
        for sa, sb in [((4, 4), (4, 4)), ((2, 3, 4), (4, 5)), ((3,), (3, 4)), ((4, 3), (3,)), ((7, 33), (33, 5))]:
            a, b = make(dt, sa, rng), make(dt, sb, rng)
            out.append(Case("matmul", "a @ b", "a @ b", {"a": a, "b": b}))
    for da, db in [("f32", "f64"), ("i64", "f32"), ("f16", "f32")]:
        a, b = make(da, (3, 3), rng), make(db, (3, 3), rng)
        out.append(Case("matmul", "a @ b", "a @ b", {"a": a, "b": b}))
    for dt in DTYPES:
        a, b = make(dt, (5,), rng), make(dt, (5,), rng)
        out.append(Case("matmul", "dot(a, b)", "torch.dot(a, b)", {"a": a, "b": b}))
        out.append(Case("matmul", "dot(a, b[:3])", "torch.dot(a, b[:3])", {"a": a, "b": b}))
        out.append(Case("matmul", "dot(a.to(f64), b)", "torch.dot(a.double(), b)", {"a": a, "b": b}))
        out.append(Case("matmul", "dot(a.reshape(1, 5), b)", "torch.dot(a.reshape(1, 5), b)", {"a": a, "b": b}))
        for src, tsrc in [("pow(a, 2)", "torch.pow(a, 2)"), ("pow(2, a)", "torch.pow(2, a)"), ("pow(a, b)", "torch.pow(a, b)")]:
            out.append(Case("functions", src, tsrc, {"a": a, "b": b}))
    # Casts.
    for da in DTYPES:
        a = make(da, (12,), rng, True)
        for db in DTYPES:
            out.append(Case("cast", f"a.to({db})", f"a.to(torch.{str(TORCH[db]).split('.')[1]})", {"a": a}))
    big = torch.tensor([1e10, -1e10, 3e9, -3e9, 2.0**31, 1e300], dtype=torch.float64)
    for db in ["i32", "i64", "f16", "bf16", "f32"]:
        out.append(Case("cast", f"a.to({db})", f"a.to(torch.{str(TORCH[db]).split('.')[1]})", {"a": big}))
    # Joins.
    for dt in DTYPES:
        a, b = make(dt, (2, 3), rng), make(dt, (4, 3), rng)
        out.append(Case("join", "cat([a, b])", "torch.cat([a, b])", {"a": a, "b": b}))
        out.append(Case("join", "stack([a, a], 1)", "torch.stack([a, a], 1)", {"a": a}))
    a = make("f32", (2, 3), rng)
    out.append(Case("join", "cat([a, zeros(0)])", "torch.cat([a, torch.zeros(0)])", {"a": a}))
    out.append(Case("join", "cat([a, a.to(f64)], 1)", "torch.cat([a, a.double()], 1)", {"a": a}))
    # Shapes: views, and the copies flip and repeat make.
    shape_cases = [
        "a.view(6, 4)", "a.view(-1)", "a.view(2, 3, 2, 2)", "a.transpose(1, 2).view(2, 12)",
        "a.transpose(1, 2).view(2, 4, 3, 1)", "a.flatten()", "a.flatten(1)", "a.flatten(0, 1)",
        "a.unsqueeze(0)", "a.unsqueeze(-1)", "a.unsqueeze(4)", "a[0:1].squeeze()", "a[0:1].squeeze(0)",
        "a[0:1].squeeze(1)", "a.permute(2, 0, 1)", "a.permute(0, 0, 1)", "a[:, 0:1].expand(2, 5, 4)",
        "a[:, 0:1].expand(3, -1, -1, 4)", "a.expand(2, 5, 4)", "a.repeat(2, 1, 2)", "a.repeat(2, 1, 1, 1)",
        "a.flip(0)", "a.flip(0, 2)", "a.transpose(0, 2).flip(1)", "a.chunk(2, 1)[1]", "a.chunk(3, 2)[0]",
        "a.split(2, 1)[1]", "a.split([1, 2], 1)[1]", "a.split([1, 1], 1)[0]", "a.mT", "a[0, 0].mT",
    ]
    for dt in ["f32", "i64", "bool", "f16"]:
        a = make(dt, (2, 3, 4), rng)
        for src in shape_cases:
            out.append(Case("shape", src, src.replace("a.mT", "a.mT"), {"a": a}))
    # Method forms and cast methods.
    for dt in DTYPES:
        a, b = make(dt, (2, 3), rng), make(dt, (3,), rng)
        for m in ["add", "sub", "mul", "div", "pow"]:
            out.append(Case("methods", f"a.{m}(b)", f"a.{m}(b)", {"a": a, "b": b}))
            out.append(Case("methods", f"a.{m}(2)", f"a.{m}(2)", {"a": a}))
        for m in ["float", "double", "half", "bfloat16", "int", "long", "bool"]:
            out.append(Case("methods", f"a.{m}()", f"a.{m}()", {"a": a}))
    # Indexing: none, ..., integer tensors and masks, reading and writing.
    reads = [
        ("a[none]", "a[None]"), ("a[:, none, 1]", "a[:, None, 1]"), ("a[..., 2]", "a[..., 2]"),
        ("a[1, ...]", "a[1, ...]"), ("a[none, ..., none]", "a[None, ..., None]"),
        ("a[i]", "a[i]"), ("a[:, i]", "a[:, i]"), ("a[..., i]", "a[..., i]"), ("a[1, i]", "a[1, i]"),
        ("a[j]", "a[j]"), ("a[[0, 2]]", "a[[0, 2]]"), ("a[tensor([1])]", "a[torch.tensor([1])]"),
        ("a[a > 0]", "a[a > 0]"), ("a[m]", "a[m]"), ("a[:, m2]", "a[:, m2]"), ("a[m, 1:]", "a[m, 1:]"),
        ("a[tensor([5])]", "a[torch.tensor([5])]"), ("a[tensor([1.0])]", "a[torch.tensor([1.0])]"),
        ("a[tensor([true, false])]", "a[torch.tensor([True, False])]"),
        ("a[i, i2]", "a[i, i2]"), ("a[i[:, none], i2]", "a[i[:, None], i2]"), ("a[m, i2[:2]]", "a[m, i2[:2]]"),
        ("a[j, j]", "a[j, j]"), ("a[none, i, i2]", "a[None, i, i2]"), ("a[i, i2[:3]]", "a[i, i2[:3]]"),
        ("a[[0, 2], [1, 3]]", "a[[0, 2], [1, 3]]"), ("a[i, tensor([4, 0, 0, 0])]", "a[i, torch.tensor([4, 0, 0, 0])]"),
        ("a[m, m2]", "a[m, m2]"), ("a[m, 1:][:, i2]", "a[m, 1:][:, i2]"),
    ]
    reads3 = [("b3[i3, :, k3]", "b3[i3, :, k3]"), ("b3[:, i3, k3]", "b3[:, i3, k3]"), ("b3[i3, none, k3]", "b3[i3, None, k3]"),
              ("b3[0, :, k3]", "b3[0, :, k3]"), ("b3[i3[:, none], :, k3]", "b3[i3[:, None], :, k3]"), ("b3[..., i3, k3]", "b3[..., i3, k3]")]
    writes = [
        ("a[a > 0] = 0", "a[a > 0] = 0"), ("a[m] = 7", "a[m] = 7"), ("a[m] = b", "a[m] = b"),
        ("a[i] = 1", "a[i] = 1"), ("a[:, i] = c", "a[:, i] = c"), ("a[j] = 2", "a[j] = 2"),
        ("a[m2.logical_not()] = 0", "a[m2.logical_not()] = 0"), ("a[i] = ones(1, 4)", "a[i] = torch.ones(1, 4)"),
        ("a[m] = tensor([1, 2])", "a[m] = torch.tensor([1, 2])"), ("a[0] = ones(1, 4)", "a[0] = torch.ones(1, 4)"),
        ("a[1:] = a[:-1]", "a[1:] = a[:-1]"), ("a[a > 0] = 2.5", "a[a > 0] = 2.5"),
        ("a[i, i2] = 0", "a[i, i2] = 0"), ("a[i[:3], i2[:3]] = c[0, :3]", "a[i[:3], i2[:3]] = c[0, :3]"),
        ("a[m, m2] = 5", "a[m, m2] = 5"),
    ]
    for dt in DTYPES:
        a = make(dt, (3, 4), rng, True)
        ins = {
            "a": a,
            "i": torch.tensor([2, -1, 0, 2]),
            "j": torch.tensor([[0, 1], [2, 2]], dtype=torch.int32),
            "m": torch.tensor([True, False, True]),
            "m2": torch.tensor([False, True, True, False]),
            "b": make(dt, (2, 4), rng),
            "c": make(dt, (3, 4), rng),
            "i2": torch.tensor([3, 0, -1, 1]),
        }
        for src, tsrc in reads:
            out.append(Case("indexing", src, tsrc, ins))
        ins3 = {"b3": make(dt, (2, 3, 4), rng), "i3": torch.tensor([1, 0, 1]), "k3": torch.tensor([3, 0, 2])}
        for src, tsrc in reads3:
            out.append(Case("indexing", src, tsrc, ins3))
        for src, tsrc in writes:
            out.append(Case("index writes", "a", "a", ins, setup=(src, tsrc)))
    # f16/bf16 by a CPU scalar: `*`, `/`, `//` read it as f32 (opmath), the rest round it first.
    for dt in ["f16", "bf16"]:
        g = torch.Generator().manual_seed(3)
        h = (torch.randn(64, generator=g) * 4).to(TORCH[dt])
        z = torch.tensor(0.1)
        for src, tsrc in [("h * 0.1", "h * 0.1"), ("0.1 * h", "0.1 * h"), ("h / 3.3", "h / 3.3"), ("3.3 / h", "3.3 / h"),
                          ("h // 0.1", "h // 0.1"), ("h + 0.1", "h + 0.1"), ("h % 0.1", "h % 0.1"), ("h * z", "h * z"),
                          ("h.mul(0.1)", "h.mul(0.1)"), ("h.div(3.3)", "h.div(3.3)"), ("h < 0.1", "h < 0.1")]:
            out.append(Case("opmath", src, tsrc, {"h": h, "z": z}))
        for src in ["h.mul_(0.1)", "h.div_(3.3)", "h.floor_divide_(0.1)"]:
            out.append(Case("opmath", src, src, {"h": h.clone()}))
        out.append(Case("opmath", "h", "h", {"h": h.clone()}, setup=("h *= 0.1", "h *= 0.1")))
    # Ops along a dimension: scans, softmax, var/std, norm, sorts, triangles.
    along = [
        ("a.cumsum(0)", "a.cumsum(0)"), ("a.cumsum(-1)", "a.cumsum(-1)"), ("cumprod(a, 1)", "torch.cumprod(a, 1)"),
        ("a.cumsum(0, dtype=f64)", "a.cumsum(0, dtype=torch.float64)"), ("a.cumprod(0, dtype=i32)", "a.cumprod(0, dtype=torch.int32)"),
        ("a.softmax(1)", "a.softmax(1)"), ("log_softmax(a, 0)", "torch.log_softmax(a, 0)"),
        ("a.softmax(-1, dtype=f64)", "a.softmax(-1, dtype=torch.float64)"), ("softmax(a)", "torch.softmax(a)"),
        ("a.var()", "a.var()"), ("a.var(1)", "a.var(1)"), ("a.std(0, keepdim=true)", "a.std(0, keepdim=True)"),
        ("a.var(correction=0)", "a.var(correction=0)"), ("a.var(1, unbiased=false)", "a.var(1, unbiased=False)"),
        ("a.std((0, 1))", "a.std((0, 1))"), ("a.var(0, correction=3)", "a.var(0, correction=3)"),
        ("a.norm()", "a.norm()"), ("a.norm(1)", "a.norm(1)"), ("a.norm(inf)", "a.norm(float('inf'))"),
        ("a.norm(-inf, 1)", "a.norm(float('-inf'), 1)"), ("a.norm(0)", "a.norm(0)"), ("a.norm(3, dim=1)", "a.norm(3, dim=1)"),
        ("norm(a, dim=0, keepdim=true)", "torch.norm(a, dim=0, keepdim=True)"), ("a.norm(0.5)", "a.norm(0.5)"),
        ("a.sort().values", "a.sort(stable=True).values"), ("a.sort(0).indices", "a.sort(dim=0, stable=True).indices"),
        ("a.sort(descending=true).indices", "a.sort(descending=True, stable=True).indices"),
        ("a.sort(0, descending=true).values", "a.sort(dim=0, descending=True, stable=True).values"),
        ("a.argsort(0)", "a.argsort(dim=0, stable=True)"), ("argsort(a, descending=true)", "torch.argsort(a, descending=True, stable=True)"),
        ("a.topk(2).values", "a.topk(2).values"), ("a.topk(2, 0, largest=false).values", "a.topk(2, 0, largest=False).values"),
        ("a.topk(5).values", "a.topk(5).values"), ("a.topk(0).values", "a.topk(0).values"),
        ("a.tril()", "a.tril()"), ("a.triu(1)", "a.triu(1)"), ("tril(a, -1)", "torch.tril(a, -1)"), ("a[0].triu()", "a[0].triu()"),
        ("a.nonzero()", "a.nonzero()"), ("argwhere(a)", "torch.argwhere(a)"), ("a.nonzero(as_tuple=true)[1]", "a.nonzero(as_tuple=True)[1]"),
        ("a[a.nonzero(as_tuple=true)]", "a[a.nonzero(as_tuple=True)]"), ("a[0, 0].nonzero()", "a[0, 0].nonzero()"),
    ]
    for dt in DTYPES:
        a = make(dt, (3, 4), rng, True)
        for src, tsrc in along:
            out.append(Case("along", src, tsrc, {"a": a}))
        # Without ties, topk's indices are PyTorch's too.
        g = torch.Generator().manual_seed(len(out))
        b = torch.randn(4, 6, generator=g).to(TORCH[dt]) if dt in FLOATS else torch.randperm(24, generator=g).reshape(4, 6).to(TORCH[dt])
        for src, tsrc in [("b.topk(3).indices", "b.topk(3).indices"), ("b.topk(2, 0, largest=false).indices", "b.topk(2, 0, largest=False).indices"),
                          ("b.sort(1).indices", "b.sort(1).indices"), ("b.softmax(0)", "b.softmax(0)"), ("b.var(1)", "b.var(1)"), ("b.norm()", "b.norm()")]:
            out.append(Case("along", src, tsrc, {"b": b}))
    for src, tsrc in [("tensor(2.5).sort().values", "torch.tensor(2.5).sort().values"), ("zeros(0).softmax(0)", "torch.zeros(0).softmax(0)"),
                      ("zeros(0).norm(inf)", "torch.zeros(0).norm(float('inf'))"), ("zeros(0, 3).var(0)", "torch.zeros(0, 3).var(0)"),
                      ("tensor(2.5).var()", "torch.tensor(2.5).var()"), ("tensor([1e30, 1e30], dtype=f32).norm()", "torch.tensor([1e30, 1e30]).norm()"),
                      ("tensor([1000., 0.]).softmax(0)", "torch.tensor([1000., 0.]).softmax(0)"), ("tensor([-inf, -inf]).softmax(0)", "torch.tensor([-float('inf'), -float('inf')]).softmax(0)")]:
        out.append(Case("along", src, tsrc, {}))
    # softmax in PyTorch's CPU order: SLEEF's exp and log in vector lanes,
    # libm's in the tails, one kernel for the last dim and one for the rest,
    # f16/bf16 rounded where the kernels store them.
    g = torch.Generator().manual_seed(11)
    shapes = [((5, 1), -1), ((3, 7), -1), ((2, 8), -1), ((4, 9), 1), ((2, 17), -1), ((3, 33), -1), ((2, 1000), -1),
              ((1, 4099), -1), ((7, 3), 0), ((9, 8), 0), ((17, 20), 0), ((5, 7, 1), 1), ((3, 40, 37), 1), ((4, 33, 5), 0),
              ((2, 3, 300), 1), ((64, 130), 0), ((6, 2, 2000), 1), ((257, 40), 0), ((4,), 0), ((), 0)]
    for dt in ["f32", "f64", "f16", "bf16"]:
        for k, (shape, dim) in enumerate(shapes):
            x = torch.randn(shape, generator=g, dtype=torch.float64) * (30 if k % 3 == 2 else 3)
            x = x.to(TORCH[dt])
            for fn in ["softmax", "log_softmax"]:
                out.append(Case("softmax order", f"x.{fn}({dim})", f"x.{fn}({dim})", {"x": x}))
        s = make(dt, (6, 24), rng, True)
        for src in ["s.softmax(1)", "s.softmax(0)", "s.log_softmax(1)", "s.log_softmax(0)"]:
            out.append(Case("softmax order", src, src, {"s": s}))
    for src, tsrc in [("x.softmax(1, dtype=f32)", "x.softmax(1, dtype=torch.float32)"), ("x.log_softmax(0, dtype=f64)", "x.log_softmax(0, dtype=torch.float64)")]:
        out.append(Case("softmax order", src, tsrc, {"x": torch.randn(5, 19, generator=g).half()}))
    # pow and sigmoid in PyTorch's CPU order: SLEEF's pow and exp in pairs
    # of vector registers, libm's after the last pair of each thread's chunk
    # and row; pow's shortcuts for some exponents, which differ by dtype.
    def base(shape, dt, k):
        x = torch.randn(shape, generator=g, dtype=torch.float64) * (3 if k % 2 else 30)
        flat = x.view(-1)
        if flat.numel() >= 40:
            flat[:12] = torch.tensor([0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 2.0, -2.0, 1e-30, 0.5, 4.0])
        return x.to(TORCH[dt])
    for dt in ["f32", "f64", "f16", "bf16"]:
        for k, shape in enumerate([(37,), (16,), (5, 33), (70001,), ()]):
            x = base(shape, dt, k)
            a = x.abs()
            for e in ["2.5", "0.1", "-1.7", "2", "3", "-2", "0.5", "-0.5", "-1", "0", "1", "7", "2.001", "-3", "1e-3"]:
                out.append(Case("pow order", f"x ** {e}", f"x ** {e}", {"x": x}))
                out.append(Case("pow order", f"a ** {e}", f"a ** {e}", {"a": a}))
            y = (torch.randn(shape, generator=g, dtype=torch.float64) * 4).to(TORCH[dt])
            out.append(Case("pow order", "x ** y", "x ** y", {"x": x, "y": y}))
            out.append(Case("pow order", "a ** y", "a ** y", {"a": a, "y": y}))
            out.append(Case("pow order", "2.5 ** y", "2.5 ** y", {"y": y}))
            out.append(Case("pow order", "x.sigmoid()", "x.sigmoid()", {"x": x}))
        t = base((40, 37), dt, 0).abs()
        r, c = base((40, 1), dt, 1).abs(), base((1, 37), dt, 2)
        z = torch.tensor(1.3, dtype=torch.float64).to(TORCH[dt])
        for src in ["t.T ** 2.5", "t ** c", "r ** c", "t.T ** t.T", "t ** z", "z ** t", "t.T.sigmoid()", "t[:, 1:] ** 0.3", "t[:, ::2].sigmoid()"]:
            out.append(Case("pow order", src, src, {"t": t, "r": r, "c": c, "z": z}))
    for src, tsrc in [("tensor([1, 2, 40000], dtype=i32) ** 2.5", "torch.tensor([1, 2, 40000], dtype=torch.int32) ** 2.5"),
                      ("arange(100, dtype=i64) ** 0.5", "torch.arange(100) ** 0.5"), ("arange(40, dtype=i32).sigmoid()", "torch.arange(40, dtype=torch.int32).sigmoid()"),
                      ("ones(20, dtype=f16) ** 1e6", "torch.ones(20, dtype=torch.float16) ** 1e6")]:
        out.append(Case("pow order", src, tsrc, {}))
    # norm in PyTorch's CPU order: register lanes along one contiguous dim
    # (2-norm of f32, f64, bf16), a fold in the iterator's order otherwise,
    # one chunk per thread for one result of 32,768 elements or more.
    for dt in ["f32", "f64", "f16", "bf16"]:
        for k, (shape, dims) in enumerate([((7,), ""), ((13,), ""), ((37,), ""), ((1003,), ""), ((70001,), ""),
                                           ((5, 33), "dim=1"), ((5, 33), "dim=0"), ((33, 5), "dim=0"), ((40, 70), ""),
                                           ((3, 5, 4), "dim=(0, 2)"), ((3, 5, 4), "dim=(1, 2)"), ((2, 3, 7), "dim=1")]):
            x = (torch.randn(shape, generator=g, dtype=torch.float64) * (0.3 + k)).to(TORCH[dt])
            for order in ["", "1", "3", "0.5"] if shape[0] < 1000 else [""]:
                args = ", ".join(a for a in [order, dims] if a)
                out.append(Case("norm order", f"x.norm({args})", f"x.norm({args})", {"x": x}))
        t = (torch.randn(40, 37, generator=g, dtype=torch.float64) * 2).to(TORCH[dt])
        w = (torch.randn(300, 400, generator=g, dtype=torch.float64) * 2).to(TORCH[dt])
        s = base((40, 37), dt, 1)
        for src in ["t.T.norm()", "t[:, :30].norm()", "t[:, ::2].norm(dim=0)", "t.T.norm(dim=1)", "t.norm(inf, dim=0)",
                    "t.norm(-inf)", "t[::3].norm(1)", "w[:, :350].norm()", "w[:, :350].norm(1)", "w.T.norm(dim=0)",
                    "s.norm(inf, dim=1)", "s.norm(-inf, dim=0)", "s.norm(dim=1)", "s[1:].norm(0)",
                    "s[:, :1].norm(dim=1)", "s[:, :1].norm(3, dim=1)", "s[:, :1].norm(0, dim=1)", "s[0, 0].norm()",
                    "(t[:1, :1] * 1e20).norm()"]:
            out.append(Case("norm order", src, src.replace("inf", "float('inf')"), {"t": t, "w": w, "s": s}))
    # Factories (no inputs).
    facts = [
        ("arange(10)", "torch.arange(10)"),
        ("arange(0, 10, 3)", "torch.arange(0, 10, 3)"),
        ("arange(0, -5)", "torch.arange(0, -5)"),
        ("arange(5, -5, -0.7)", "torch.arange(5, -5, -0.7)"),
        ("arange(1, 2, 0.1, dtype=f64)", "torch.arange(1, 2, 0.1, dtype=torch.float64)"),
        ("arange(0, 1, 0.1, dtype=f16)", "torch.arange(0, 1, 0.1, dtype=torch.float16)"),
        ("linspace(0, 1, 7)", "torch.linspace(0, 1, 7)"),
        ("linspace(-1, 1, 5, dtype=f16)", "torch.linspace(-1, 1, 5, dtype=torch.float16)"),
        ("linspace(0, 10, 4, dtype=i32)", "torch.linspace(0, 10, 4, dtype=torch.int32)"),
        ("linspace(0.1, 2.3, 3001)", "torch.linspace(0.1, 2.3, 3001)"),
        ("full(3, 3e9, dtype=i32)", "torch.full((3,), 3e9, dtype=torch.int32)"),
        ("full(2, 2**60 + 1, dtype=i64)", "torch.full((2,), 2**60 + 1, dtype=torch.int64)"),
        ("full(2, 0.1, dtype=f64)", "torch.full((2,), 0.1, dtype=torch.float64)"),
        ("tensor([0.1, 1e-300], dtype=f64)", "torch.tensor([0.1, 1e-300], dtype=torch.float64)"),
        ("tensor([1, 2, 3])", "torch.tensor([1, 2, 3])"),
        ("tensor([1.5, 2])", "torch.tensor([1.5, 2])"),
        ("tensor([true, false])", "torch.tensor([True, False])"),
        ("tensor([3], dtype=i32) ** 2", "torch.tensor([3], dtype=torch.int32) ** 2"),
        ("tensor([2, 3], dtype=i32) ** tensor([-1, 2], dtype=i32)", "torch.tensor([2, 3], dtype=torch.int32) ** torch.tensor([-1, 2], dtype=torch.int32)"),
        ("tensor([1, -1, 2]) ** tensor([-3, -3, -3])", "torch.tensor([1, -1, 2]) ** torch.tensor([-3, -3, -3])"),
        ("tensor([3]) ** 2**33", "torch.tensor([3]) ** 2**33"),
        ("tensor([3]) ** tensor([2**33])", "torch.tensor([3]) ** torch.tensor([2**33])"),
        ("tensor([2.0]).to(f16) * 1.0001", "torch.tensor([2.0]).half() * 1.0001"),
        ("tensor([true, false]) - 1", "torch.tensor([True, False]) - 1"),
        ("tensor([true, false]).argmax()", "torch.tensor([True, False]).argmax()"),
        ("eye(3)", "torch.eye(3)"),
        ("zeros(2, 3, dtype=i32)", "torch.zeros(2, 3, dtype=torch.int32)"),
    ]
    # Ranges in PyTorch's CPU order: fused multiply-adds, vectors counted
    # from their first element, a chunk per thread past 32,768 elements.
    for dt in ["f32", "f64", "f16", "bf16", "i32", "i64"]:
        tdt = "torch." + TORCH[dt].__repr__().split(".")[-1]
        for a in ["-3.7, 11.1, 0.013", "0, 100, 0.3", "0.5, 40, 1.5", "0, 90000, 0.7"]:
            if dt in ("f16", "bf16") and "90000" in a:
                continue
            facts.append((f"arange({a}, dtype={dt})", f"torch.arange({a}, dtype={tdt})"))
        for a in ["-3.7, 11.1, 517", "0, 1, 100", "0.1, 2.3, 40001"]:
            facts.append((f"linspace({a}, dtype={dt})", f"torch.linspace({a}, dtype={tdt})"))
    for src, tsrc in facts:
        out.append(Case("factory", src, tsrc, {}))
    out += autograd_cases(rng)
    out += module_cases(rng)
    out += file_cases(rng)
    out += activation_cases(rng)
    out += autocast_cases(rng)
    out += group_cases(rng)
    return out


def grad_case(group, inputs, fwd, tfwd, wrt, rng, shape_of_out):
    """The gradient of `sum(fwd * g)` with respect to input `wrt`, g random
    (so every output element's gradient differs), on both sides."""
    names = [k for k in inputs if k != "g"]
    inputs = dict(inputs)
    inputs["g"] = make(NAME[inputs[wrt].dtype], shape_of_out, rng)
    req = "; ".join(f"{k}.requires_grad_()" for k in names)
    setup = (f"{req}; ({fwd} * g).sum().backward()",
             "\n".join(f"{k}.requires_grad_()" for k in names) + f"\n({tfwd} * g).sum().backward()")
    return Case(group, f"{wrt}.grad", f"{wrt}.grad", inputs, setup)


def positive(dt, shape, rng):
    return make(dt, shape, rng).abs() + 0.25


def autograd_cases(rng):
    """Gradients against PyTorch's autograd: each op's input gradients for a
    random output gradient, a few chains, the refusals, and optimizer steps."""
    out = []
    for dt in ["f32", "f64", "f16", "bf16"]:
        for op in ["+", "-", "*", "/"]:
            for sa, sb in [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((2, 3), (3,))]:
                a, b = make(dt, sa, rng), positive(dt, sb, rng)
                shape = torch.broadcast_shapes(sa, sb)
                for wrt in "ab":
                    out.append(grad_case("grad binary", {"a": a, "b": b}, f"(a {op} b)", f"(a {op} b)", wrt, rng, shape))
        for src in ["a * 2.5", "a / 3", "2 - a", "a ** 2", "a ** 0.5", "a ** 3", "2 ** a", "3 / a", "-a"]:
            a = positive(dt, (2, 5), rng)
            out.append(grad_case("grad scalar", {"a": a}, f"({src})", f"({src})", "a", rng, (2, 5)))
        a, b = positive(dt, (3, 4), rng), make(dt, (3, 4), rng)
        for wrt in "ab":
            out.append(grad_case("grad binary", {"a": a, "b": b}, "(a ** b)", "(a ** b)", wrt, rng, (3, 4)))
    for dt in ["f32", "f64"]:
        for name in ["exp", "log", "log1p", "sqrt", "abs", "relu", "sigmoid", "tanh", "sin", "cos", "floor"]:
            a = positive(dt, (7,), rng) if name in ("log", "log1p", "sqrt") else make(dt, (7,), rng)
            out.append(grad_case("grad unary", {"a": a}, f"a.{name}()", f"torch.{name}(a)", "a", rng, (7,)))
        for src, tsrc, shape in [
            ("a.sum()", "a.sum()", ()),
            ("a.mean()", "a.mean()", ()),
            ("a.sum(1)", "a.sum(1)", (3,)),
            ("a.mean(0, keepdim=true)", "a.mean(0, keepdim=True)", (1, 4)),
            ("a.sum((0, 1))", "a.sum((0, 1))", ()),
            ("a.reshape(4, 3)", "a.reshape(4, 3)", (4, 3)),
            ("a.T", "a.T", (4, 3)),
            ("a.transpose(0, 1)", "a.transpose(0, 1)", (4, 3)),
            ("a.permute(1, 0)", "a.permute(1, 0)", (4, 3)),
            ("a.unsqueeze(1)", "a.unsqueeze(1)", (3, 1, 4)),
            ("a.reshape(3, 1, 4).squeeze()", "a.reshape(3, 1, 4).squeeze()", (3, 4)),
            ("a.reshape(3, 1, 4).expand(3, 2, 4)", "a.reshape(3, 1, 4).expand(3, 2, 4)", (3, 2, 4)),
            ("a.flatten()", "a.flatten()", (12,)),
            ("softmax(a, dim=1)", "torch.softmax(a, dim=1)", (3, 4)),
            ("log_softmax(a, dim=0)", "torch.log_softmax(a, dim=0)", (3, 4)),
            ("a.clone()", "a.clone()", (3, 4)),
            ("a.to(f64)", "a.to(torch.float64)", (3, 4)),
        ]:
            a = make(dt, (3, 4), rng)
            out.append(grad_case("grad shape and reduce", {"a": a}, src, tsrc, "a", rng, shape))
        for sa, sb in [((3, 4), (4, 2)), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5))]:
            a, b = make(dt, sa, rng), make(dt, sb, rng)
            shape = torch.matmul(a, b).shape
            for wrt in "ab":
                out.append(grad_case("grad matmul", {"a": a, "b": b}, "(a @ b)", "(a @ b)", wrt, rng, shape))
        # Attention: PyTorch's math path (its fused kernels need E == Ev), the
        # same ops as cudash's; the batched products sum in another order, so
        # elements near zero differ by many ulp (1e-7 of the largest: 1 ulp).
        q, k, v = make(dt, (2, 2, 3, 4), rng), make(dt, (2, 2, 5, 4), rng), make(dt, (2, 2, 5, 6), rng)
        for src, tsrc in [
            ("scaled_dot_product_attention(q, k, v)", "torch.nn.functional.scaled_dot_product_attention(q, k, v)"),
            ("scaled_dot_product_attention(q, k, v, scale=0.3)",
             "torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=0.3)"),
        ]:
            for wrt in "qkv":
                out.append(grad_case("grad attention", {"q": q, "k": k, "v": v}, src, tsrc, wrt, rng, (2, 2, 3, 6)))
        # The tensor math PyTorch programs reach for (session 59): the new
        # unary ops, gather/scatter through offsets, the selections, amax,
        # logsumexp and the blends.
        for name in ["rsqrt", "tan", "atan", "asin", "acos", "sinh", "cosh", "reciprocal",
                     "log2", "log10", "expm1", "exp2", "sign"]:
            a = positive(dt, (7,), rng) * 0.5 if name in ("rsqrt", "log2", "log10", "asin", "acos") else make(dt, (7,), rng)
            out.append(grad_case("grad tensor ops", {"a": a}, f"a.{name}()", f"torch.{name}(a)", "a", rng, (7,)))
            out.append(Case("tensor ops", f"a.{name}()", f"torch.{name}(a)", {"a": a}))
        a, b, c = make(dt, (3, 4), rng), make(dt, (3, 4), rng), positive(dt, (3, 4), rng)
        idx = "[[3, 0, 1], [2, 2, 0], [1, 3, 3]]"
        for src, tsrc, shape in [
            (f"a.gather(1, tensor({idx}))", f"a.gather(1, torch.tensor({idx}))", (3, 3)),
            (f"a.scatter(1, tensor({idx}), b[:, :3])", f"a.scatter(1, torch.tensor({idx}), b[:, :3])", (3, 4)),
            (f"a.scatter_add(1, tensor({idx}), b[:, :3])", f"a.scatter_add(1, torch.tensor({idx}), b[:, :3])", (3, 4)),
            ("a.index_select(1, tensor([3, 1, 1]))", "a.index_select(1, torch.tensor([3, 1, 1]))", (3, 3)),
            ("a.masked_select(b > 0)", "a.masked_select(b > 0)", (int((b > 0).sum()),)),
            ("a.amax(1)", "a.amax(1)", (3,)),
            ("a.amin((0, 1), keepdim=true)", "a.amin((0, 1), keepdim=True)", (1, 1)),
            ("a.logsumexp(1)", "a.logsumexp(1)", (3,)),
            ("a.addcmul(b, c, value=0.5)", "a.addcmul(b, c, value=0.5)", (3, 4)),
            ("a.addcdiv(b, c, value=-2)", "a.addcdiv(b, c, value=-2)", (3, 4)),
            ("a.lerp(b, 0.3)", "a.lerp(b, 0.3)", (3, 4)),
            ("a.lerp(b, c * 0.5)", "a.lerp(b, c * 0.5)", (3, 4)),
            ("a.repeat_interleave(2, dim=0)", "a.repeat_interleave(2, dim=0)", (6, 4)),
            ("a[0].outer(b[1])", "torch.outer(a[0], b[1])", (4, 4)),
        ]:
            used = {k: t for k, t in {"a": a, "b": b, "c": c}.items() if re.search(rf"\b{k}\b", src)}
            out.append(Case("tensor ops", src, tsrc, used))
            # A mask made of b takes no gradient through it.
            for wrt in [k for k in used if not re.search(rf"\b{k} >", src)]:
                out.append(grad_case("grad tensor ops", used, src, tsrc, wrt, rng, shape))
        # The layers of image and sequence models (session 60): the
        # activations with settings, conv1d and the transposed
        # convolutions, interpolate, the padding modes, group norm, pixel
        # shuffle and the composed losses, each forward and its gradients.
        F = "torch.nn.functional."
        a, b, c = make(dt, (3, 4), rng) * 3, make(dt, (3, 4), rng), positive(dt, (3, 4), rng)
        x3, w3 = make(dt, (2, 4, 7), rng), make(dt, (6, 2, 3), rng)
        x4, wt = make(dt, (2, 3, 4, 5), rng), make(dt, (3, 4, 3, 2), rng)
        y = torch.tensor([1.0, -1.0, 1.0], dtype=TORCH[dt])
        for src, tsrc, shape, wrts in [
            ("elu(a)", F + "elu(a)", (3, 4), "a"),
            ("selu(a)", F + "selu(a)", (3, 4), "a"),
            ("celu(a, 0.5)", F + "celu(a, 0.5)", (3, 4), "a"),
            ("softplus(a, beta=2, threshold=3)", F + "softplus(a, beta=2, threshold=3)", (3, 4), "a"),
            ("hardtanh(a, -0.5, 1.5)", F + "hardtanh(a, -0.5, 1.5)", (3, 4), "a"),
            ("relu6(a * 3)", F + "relu6(a * 3)", (3, 4), "a"),
            ("logsigmoid(a)", F + "logsigmoid(a)", (3, 4), "a"),
            ("hardswish(a)", F + "hardswish(a)", (3, 4), "a"),
            ("hardsigmoid(a)", F + "hardsigmoid(a)", (3, 4), "a"),
            ("softshrink(a, 0.7)", F + "softshrink(a, 0.7)", (3, 4), "a"),
            ("softsign(a)", F + "softsign(a)", (3, 4), "a"),
            ("glu(a, 1)", F + "glu(a, 1)", (3, 2), "a"),
            ("prelu(a, b[0, :1])", F + "prelu(a, b[0, :1])", (3, 4), "a b"),
            ("conv1d(x3, w3, stride=2, padding=1, groups=2)", F + "conv1d(x3, w3, stride=2, padding=1, groups=2)", (2, 6, 4), "x3 w3"),
            ("conv_transpose2d(x4, wt, stride=2, padding=1, output_padding=1)",
             F + "conv_transpose2d(x4, wt, stride=2, padding=1, output_padding=1)", (2, 4, 8, 9), "x4 wt"),
            ("interpolate(x4, scale_factor=1.5, mode=\"bilinear\")",
             F + "interpolate(x4, scale_factor=1.5, mode='bilinear')", (2, 3, 6, 7), "x4"),
            ("interpolate(x4, size=(7, 3))", F + "interpolate(x4, size=(7, 3))", (2, 3, 7, 3), "x4"),
            ("interpolate(x3, size=9, mode=\"linear\", align_corners=true)",
             F + "interpolate(x3, size=9, mode='linear', align_corners=True)", (2, 4, 9), "x3"),
            ("pad(x4, (2, 1, 1, 3), mode=\"reflect\")", F + "pad(x4, (2, 1, 1, 3), mode='reflect')", (2, 3, 8, 8), "x4"),
            ("pad(x3, (2, 3), mode=\"replicate\")", F + "pad(x3, (2, 3), mode='replicate')", (2, 4, 12), "x3"),
            ("group_norm(x3, 2)", F + "group_norm(x3, 2)", (2, 4, 7), "x3"),
            ("instance_norm(x4)", F + "instance_norm(x4)", (2, 3, 4, 5), "x4"),
            ("pixel_shuffle(x3.reshape(2, 4, 7, 1).expand(2, 4, 7, 2), 2)",
             F + "pixel_shuffle(x3.reshape(2, 4, 7, 1).expand(2, 4, 7, 2), 2)", (2, 1, 14, 4), "x3"),
            ("kl_div(log_softmax(a, dim=1), softmax(b, dim=1), reduction=\"batchmean\")",
             F + "kl_div(torch.log_softmax(a, dim=1), torch.softmax(b, dim=1), reduction='batchmean')", (), "a"),
            ("triplet_margin_loss(a, b, c)", F + "triplet_margin_loss(a, b, c)", (), "a b c"),
            ("cosine_embedding_loss(a, b, y, margin=0.1)", F + "cosine_embedding_loss(a, b, y, margin=0.1)", (), "a b"),
            ("margin_ranking_loss(a[0], b[0], y.repeat(2)[:4], margin=0.2)",
             F + "margin_ranking_loss(a[0], b[0], y.repeat(2)[:4], margin=0.2)", (), "a b"),
            ("soft_margin_loss(a, b.sign())", F + "soft_margin_loss(a, b.sign())", (), "a"),
            ("gaussian_nll_loss(a, b, c)", F + "gaussian_nll_loss(a, b, c)", (), "a b c"),
            ("poisson_nll_loss(a, c)", F + "poisson_nll_loss(a, c)", (), "a"),
        ]:
            pool = {"a": a, "b": b, "c": c, "x3": x3, "w3": w3, "x4": x4, "wt": wt, "y": y}
            used = {k: t for k, t in pool.items() if re.search(rf"\b{k}\b", src)}
            out.append(Case("layers", src, tsrc, used))
            for wrt in wrts.split():
                out.append(grad_case("grad layers", used, src, tsrc, wrt, rng, shape))
        # A small MLP's loss, every parameter's gradient.
        x, w1, w2 = make(dt, (5, 4), rng), make(dt, (4, 6), rng), make(dt, (6, 3), rng)
        for wrt in ["w1", "w2"]:
            inputs = {"x": x, "w1": w1, "w2": w2}
            fwd = "log_softmax((x @ w1).tanh() @ w2, dim=1).mean()"
            tfwd = "torch.log_softmax((x @ w1).tanh() @ w2, dim=1).mean()"
            out.append(Case("grad chain", f"{wrt}.grad", f"{wrt}.grad", inputs,
                            (f"w1.requires_grad_(); w2.requires_grad_(); {fwd}.backward()",
                             f"w1.requires_grad_(); w2.requires_grad_(); {tfwd}.backward()")))
        # Accumulation over two backward calls, and a retained non-leaf grad.
        a = make(dt, (4,), rng)
        out.append(Case("grad chain", "a.grad", "a.grad", {"a": a},
                        ("a.requires_grad_(); (a * a).sum().backward(); (a * 3).sum().backward()",
                         "a.requires_grad_(); (a * a).sum().backward(); (a * 3).sum().backward()")))
        out.append(Case("grad chain", "y.grad", "y.grad", {"a": a},
                        ("a.requires_grad_(); y = a.exp(); y.retain_grad(); (y * y).sum().backward()",
                         "a.requires_grad_(); y = a.exp(); y.retain_grad(); (y * y).sum().backward()")))
        # The parts of chunk, split and unbind (one node each; a part not
        # used gets zeros), and a hook that replaces a gradient.
        a = make(dt, (3, 6), rng)
        for src, tsrc in [
            ("ps = a.chunk(3, 1); ((ps[0] * 2 + ps[2]).exp()).sum().backward()",
             "ps = a.chunk(3, 1); ((ps[0] * 2 + ps[2]).exp()).sum().backward()"),
            ("ps = a.split([1, 2], 0); (ps[1] ** 2).sum().backward()",
             "ps = a.split([1, 2], 0); (ps[1] ** 2).sum().backward()"),
            ("u = a.unbind(1); (u[0] * u[3] + u[5]).sum().backward()",
             "u = a.unbind(1); (u[0] * u[3] + u[5]).sum().backward()"),
            ("fn f(g) { return g * 3 }; y = a * 2; h = y.register_hook(f); (y * y).sum().backward()",
             "y = a * 2; y.register_hook(lambda g: g * 3); (y * y).sum().backward()"),
        ]:
            out.append(Case("grad chain", "a.grad", "a.grad", {"a": a},
                            (f"a.requires_grad_(); {src}", f"a.requires_grad_(); {tsrc}")))
        # Optimizer steps.
        p, q = make(dt, (3, 4), rng), make(dt, (3, 4), rng)
        for opt, topt in [
            ("SGD([p], lr=0.1)", "torch.optim.SGD([p], lr=0.1)"),
            ("SGD([p], lr=0.1, momentum=0.9)", "torch.optim.SGD([p], lr=0.1, momentum=0.9)"),
            ("SGD([p], lr=0.05, momentum=0.9, nesterov=true, weight_decay=0.01)", "torch.optim.SGD([p], lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)"),
            ("Adam([p], lr=0.01)", "torch.optim.Adam([p], lr=0.01)"),
            ("Adam([p], lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)", "torch.optim.Adam([p], lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)"),
        ]:
            out.append(Case("optimizer", "p.detach()", "p.detach()", {"p": p, "q": q},
                            (f"p.requires_grad_(); opt = {opt}; for i in 0..3 {{ opt.zero_grad(); ((p * p * q).sum() + (p * q).mean()).backward(); opt.step() }}",
                             f"p.requires_grad_(); opt = {topt}\nfor i in range(3):\n  opt.zero_grad(); ((p * p * q).sum() + (p * q).mean()).backward(); opt.step()")))
    # maximum, minimum, where, clamp, cat, stack.
    for dt in ["f32", "f64"]:
        a, b = make(dt, (3, 4), rng), make(dt, (3, 4), rng)
        b[0, 0] = a[0, 0]  # a tie: the gradient is halved
        for src, tsrc, shape in [
            ("maximum(a, b)", "torch.maximum(a, b)", (3, 4)),
            ("minimum(a, b)", "torch.minimum(a, b)", (3, 4)),
            ("where(a > 0, a, b)", "torch.where(a > 0, a, b)", (3, 4)),
            ("a.masked_fill(b > 0, 0.5) * b", "a.masked_fill(b > 0, 0.5) * b", (3, 4)),
            ("a.masked_fill(b[0] > 0, b[1, 2])", "a.masked_fill(b[0] > 0, b[1, 2])", (3, 4)),
            ("clamp(a, -0.5, 0.5)", "torch.clamp(a, -0.5, 0.5)", (3, 4)),
            ("clamp(a, min=0.1)", "torch.clamp(a, min=0.1)", (3, 4)),
            ("clamp(a, b, b + 1)", "torch.clamp(a, b, b + 1)", (3, 4)),
            ("cat([a, b], 1)", "torch.cat([a, b], 1)", (3, 8)),
            ("stack([a, b], 0)", "torch.stack([a, b], 0)", (2, 3, 4)),
        ]:
            for wrt in "ab":
                out.append(grad_case("grad select", {"a": a, "b": b}, src, tsrc, wrt, rng, shape))
    # Reductions past sum and mean, more views, indexing with tensors.
    for dt in ["f32", "f64"]:
        a = make(dt, (3, 4), rng)
        z = make(dt, (3, 4), rng)
        z[0, 1] = 0.0  # a row with one zero
        z[2, 0] = z[2, 3] = 0.0  # and one with two
        mask = torch.tensor([[True, False, True, True], [False, False, True, False], [True, True, False, True]])
        for src, tsrc, shape, inp in [
            ("a.max(1).values", "a.max(1).values", (3,), a),
            ("a.min(0, keepdim=true).values", "a.min(0, keepdim=True).values", (1, 4), a),
            ("a.prod()", "a.prod()", (), a),
            ("a.prod(1)", "a.prod(1)", (3,), a),
            ("a.prod(1)", "a.prod(1)", (3,), z),
            ("a.prod(0, keepdim=true)", "a.prod(0, keepdim=True)", (1, 4), z),
            ("a.var()", "a.var()", (), a),
            ("a.var(1)", "a.var(1)", (3,), a),
            ("a.var((0, 1), correction=0)", "a.var((0, 1), correction=0)", (), a),
            ("a.std()", "a.std()", (), a),
            ("a.std(0, keepdim=true)", "a.std(0, keepdim=True)", (1, 4), a),
            ("a.norm()", "a.norm()", (), a),
            ("a.norm(1)", "a.norm(1)", (), a),
            ("a.norm(3, dim=1)", "a.norm(3, dim=1)", (3,), a),
            ("a.norm(0.5)", "a.norm(0.5)", (), a),
            ("a.norm(inf, dim=0)", "a.norm(float('inf'), dim=0)", (4,), a),
            ("a.cumsum(1)", "a.cumsum(1)", (3, 4), a),
            ("a.cumprod(1)", "a.cumprod(1)", (3, 4), a),
            ("a.cumprod(1)", "a.cumprod(1)", (3, 4), z),
            ("a.cumprod(0)", "a.cumprod(0)", (3, 4), z),
            ("a.sort(1).values", "a.sort(1).values", (3, 4), a),
            ("a.sort(0, descending=true).values", "a.sort(0, descending=True).values", (3, 4), a),
            ("a.topk(2).values", "a.topk(2).values", (3, 2), a),
            ("a.topk(2, dim=0, largest=false).values", "a.topk(2, dim=0, largest=False).values", (2, 4), a),
            ("a % 0.7", "a % 0.7", (3, 4), a),
            ("a.flip(0, 1)", "a.flip(0, 1)", (3, 4), a),
            ("a.repeat(2, 1, 2)", "a.repeat(2, 1, 2)", (2, 3, 8), a),
            ("a.chunk(2, 1)[1]", "a.chunk(2, 1)[1]", (3, 2), a),
            ("a.split([1, 3], 1)[1]", "a.split([1, 3], 1)[1]", (3, 3), a),
            ("a.tril()", "a.tril()", (3, 4), a),
            ("a.triu(1)", "a.triu(1)", (3, 4), a),
            ("a[tensor([2, 0, 2])]", "a[torch.tensor([2, 0, 2])]", (3, 4), a),
            ("a[:, tensor([1, 1, 3])]", "a[:, torch.tensor([1, 1, 3])]", (3, 3), a),
            ("a[m]", "a[m]", (int(mask.sum()),), a),
        ]:
            inputs = {"a": inp, "m": mask} if "[m]" in src else {"a": inp}
            out.append(grad_case("grad reduce and index", inputs, src, tsrc, "a", rng, shape))
        x, w, b = make(dt, (5, 4), rng), make(dt, (3, 4), rng), make(dt, (3,), rng)
        x3 = make(dt, (2, 5, 4), rng)
        for src, shape, inputs in [
            ("linear(x, w, b)", (5, 3), {"x": x, "w": w, "b": b}),
            ("linear(x, w)", (5, 3), {"x": x, "w": w}),
            ("linear(x, w, b)", (2, 5, 3), {"x": x3, "w": w, "b": b}),
        ]:
            for wrt in inputs:
                out.append(grad_case("grad linear", inputs, src, "torch.nn.functional." + src, wrt, rng, shape))
    # The losses of torch.nn.functional.
    F = "torch.nn.functional."
    for dt in ["f32", "f64"]:
        x, y = make(dt, (4, 5), rng), make(dt, (4, 5), rng)
        for t in [torch.tensor([0, 4, 2, 1]), torch.tensor([3, -100, 0, 0])]:
            for fn in ["cross_entropy", "nll_loss"]:
                for red in ["mean", "sum"]:
                    src = f'{fn}(x, t, reduction="{red}")'
                    out.append(Case("grad losses", "x.grad", "x.grad", {"x": x, "t": t},
                                    (f"x.requires_grad_(); {src}.backward()", f"x.requires_grad_(); {F}{src}.backward()")))
                    out.append(Case("grad losses", src, F + src, {"x": x, "t": t}))
        for red in ["mean", "sum"]:
            src = f'mse_loss(x, y, reduction="{red}")'
            for wrt in "xy":
                out.append(Case("grad losses", f"{wrt}.grad", f"{wrt}.grad", {"x": x, "y": y},
                                (f"x.requires_grad_(); y.requires_grad_(); {src}.backward()",
                                 f"x.requires_grad_(); y.requires_grad_(); {F}{src}.backward()")))
            out.append(Case("grad losses", src, F + src, {"x": x, "y": y}))
        # The losses of one value per element: on probabilities, on logits
        # (with weights), and the regression losses; each reduction, and
        # the input's and the target's gradients.
        p, q = torch.sigmoid(make(dt, (4, 5), rng)), torch.sigmoid(make(dt, (4, 5), rng))
        w, pw = positive(dt, (5,), rng), positive(dt, (5,), rng)
        for src, inputs in [
            ("binary_cross_entropy(p, q, reduction=\"{r}\")", {"p": p, "q": q}),
            ("binary_cross_entropy(p, q, weight=w, reduction=\"{r}\")", {"p": p, "q": q, "w": w}),
            ("binary_cross_entropy_with_logits(x, q, reduction=\"{r}\")", {"x": x, "q": q}),
            ("binary_cross_entropy_with_logits(x, q, weight=w, pos_weight=pw, reduction=\"{r}\")", {"x": x, "q": q, "w": w, "pw": pw}),
            ("smooth_l1_loss(x, y, reduction=\"{r}\", beta=0.7)", {"x": x, "y": y}),
            ("huber_loss(x, y, reduction=\"{r}\", delta=0.6)", {"x": x, "y": y}),
            ("l1_loss(x, y, reduction=\"{r}\")", {"x": x, "y": y}),
        ]:
            first, second = [k for k in inputs if k not in ("w", "pw")]
            for red in ["mean", "sum", "none"]:
                s = src.format(r=red)
                ts = s.replace('"', "'")
                out.append(Case("grad losses", s, F + ts, inputs))
                for wrt in (first, second):
                    out.append(Case("grad losses", f"{wrt}.grad", f"{wrt}.grad", inputs,
                                    (f"{first}.requires_grad_(); {second}.requires_grad_(); {s}.sum().backward()",
                                     f"{first}.requires_grad_(); {second}.requires_grad_(); {F}{ts}.sum().backward()")))
    # In-place ops on tensors in a graph: the history rebased.
    for dt in ["f32", "f64"]:
        a, b = make(dt, (3, 4), rng), positive(dt, (3, 4), rng)
        for setup in [
            "y = a * 1; y += b; y *= a; y -= 2; y /= b",
            "y = a.tanh(); y.mul_(b); y.add_(a); y.div_(3)",
            "y = zeros_like(a); y += a * b; y.sub_(b)",
            "y = a * b; y.clamp_(min=0.1)",
            # On views: CopySlices, a view made again (AsStridedBackward0), index_put_.
            "y = a * 1; y[0] = b[1]",
            "y = a * b; y[:, 1:] += b[:, :3] * 2",
            "y = a * b; v = y[1]; v *= b[0]",
            "y = a * 1; v = y[:, 1]; y[0] = b[1]; y = v * v",
            "y = a * b; t = y.T.mul_(b.T)",
            "y = (a * b).T; y[0] = b[:, 0] * b[:, 1]",
            "y = zeros_like(a); y[1] = a[0] * b[1]",
            "y = a * 1; y[tensor([2, 0])] = b[:2] * 3",
            "y = a * 1; y[a > 0] = b[a > 0]",
            "y = a * 1; y[a > 0.5] = 0",
            "y = a * 1; y[:, tensor([3, 0])] += b[:, :2]",
            "y = a * 1; t = y.copy_(b * 2); y = y * a",
            "y = a * b; t = y[0].fill_(2); y = y * a",
            "y = a * b; t = y[1].zero_(); y[0] -= a[1]",
            "y = a % b",
        ]:
            tsetup = setup.replace("zeros_like", "torch.zeros_like").replace("tensor(", "torch.tensor(")
            for wrt in "ab":
                out.append(Case("grad inplace", f"{wrt}.grad", f"{wrt}.grad", {"a": a, "b": b},
                                (f"a.requires_grad_(); b.requires_grad_(); {setup}; y.sum().backward()",
                                 f"a.requires_grad_(); b.requires_grad_(); {tsetup}; y.sum().backward()")))
    # What autograd refuses.
    a = make("f32", (3,), rng)
    for setup, tsetup in [
        ("a.requires_grad_(); y = a * 2; y.backward()", "a.requires_grad_(); y = a * 2; y.backward()"),
        ("a.requires_grad_(); y = (a * a).sum(); y.backward(); y.backward()", "a.requires_grad_(); y = (a * a).sum(); y.backward(); y.backward()"),
        ("a.requires_grad_(); b = a.exp(); c = a * 1; c.mul_(2); b.sum().backward()", "a.requires_grad_(); b = a.exp(); c = a * 1; c.mul_(2); b.sum().backward()"),
        ("a.requires_grad_(); y = a.exp(); y.add_(1); y.sum().backward()", "a.requires_grad_(); y = a.exp(); y.add_(1); y.sum().backward()"),
        ("a.requires_grad_(); a.add_(1)", "a.requires_grad_(); a.add_(1)"),
        ("a.sum().backward()", "a.sum().backward()"),
    ]:
        out.append(Case("grad errors", "a.grad", "a.grad", {"a": a}, (setup, tsetup)))
    i = make("i64", (3,), rng)
    out.append(Case("grad errors", "i", "i", {"i": i}, ("i.requires_grad_()", "i.requires_grad_()")))
    return out


def module_cases(rng):
    """Models as modules (issue 67): a Sequential MLP and a class of one's
    own with the same weights on both sides (copied in under no_grad, or
    loaded from a state_dict file PyTorch wrote), their outputs, losses,
    gradients, and parameters after optimizer steps."""
    import tempfile

    out = []
    for dt, act in [("f32", "Tanh"), ("f64", "Tanh"), ("f32", "ReLU"), ("f64", "ReLU")]:
        tdt = TORCH[dt]
        x = make(dt, (5, 4), rng)
        t = torch.tensor([rng.randrange(3) for _ in range(5)])
        w1, b1 = make(dt, (6, 4), rng), make(dt, (6,), rng)
        w2, b2 = make(dt, (3, 6), rng), make(dt, (3,), rng)
        inputs = {"x": x, "t": t, "w1": w1, "b1": b1, "w2": w2, "b2": b2}
        tname = "torch." + repr(tdt).split(".")[-1]
        seq = (f"m = Sequential(Linear(4, 6, dtype={dt}), {act}(), Linear(6, 3, dtype={dt})); "
               "no_grad { m[0].weight.copy_(w1); m[0].bias.copy_(b1); m[2].weight.copy_(w2); m[2].bias.copy_(b2) }")
        tseq = (f"import torch.nn as nn\nm = nn.Sequential(nn.Linear(4, 6, dtype={tname}), nn.{act}(), nn.Linear(6, 3, dtype={tname}))\n"
                "with torch.no_grad():\n  m[0].weight.copy_(w1); m[0].bias.copy_(b1); m[2].weight.copy_(w2); m[2].bias.copy_(b2)")
        out.append(Case("module forward", "m(x)", "m(x)", inputs, (seq, tseq)))
        loss = "cross_entropy(m(x), t).backward()"
        tloss = "torch.nn.functional.cross_entropy(m(x), t).backward()"
        for grad in ["m[0].weight.grad", "m[0].bias.grad", "m[2].weight.grad"]:
            out.append(Case("module grad", grad, grad, inputs, (f"{seq}; {loss}", f"{tseq}\n{tloss}")))
        for opt, topt in [("SGD(m.parameters(), lr=0.1, momentum=0.9)", "torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)"),
                          ("Adam(m.parameters(), lr=0.01)", "torch.optim.Adam(m.parameters(), lr=0.01)"),
                          ("AdamW(m.parameters(), lr=0.01)", "torch.optim.AdamW(m.parameters(), lr=0.01)"),
                          ("RMSprop(m.parameters(), lr=0.01)", "torch.optim.RMSprop(m.parameters(), lr=0.01)"),
                          ("RMSprop(m.parameters(), lr=0.01, momentum=0.9, centered=true, weight_decay=0.1)",
                           "torch.optim.RMSprop(m.parameters(), lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)"),
                          ("Adagrad(m.parameters(), lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)",
                           "torch.optim.Adagrad(m.parameters(), lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)"),
                          ("Adadelta(m.parameters(), lr=1.0)", "torch.optim.Adadelta(m.parameters(), lr=1.0)"),
                          ("Adadelta(m.parameters(), rho=0.8, weight_decay=0.01)",
                           "torch.optim.Adadelta(m.parameters(), rho=0.8, weight_decay=0.01)")]:
            steps = f"opt = {opt}; for i in 0..5 {{ opt.zero_grad(); {loss}; opt.step() }}"
            tsteps = f"opt = {topt}\nfor i in range(5):\n  opt.zero_grad(); {tloss}; opt.step()"
            for p in ["m[0].weight", "m[2].bias"]:
                out.append(Case("module optimizer steps", p, p, inputs, (f"{seq}; {steps}", f"{tseq}\n{tsteps}")))
        # MultiheadAttention and a Transformer encoder layer with the same
        # weights: outputs, attention weights and gradients, through both
        # paths (need_weights: baddbmm and softmax; without: SDPA).
        if act == "Tanh":
            xq, xm = make(dt, (5, 3, 8), rng), make(dt, (4, 3, 8), rng)
            wi, bi = make(dt, (24, 8), rng), make(dt, (24,), rng)
            wo, bo = make(dt, (8, 8), rng), make(dt, (8,), rng)
            mask = torch.triu(torch.full((5, 5), float("-inf"), dtype=tdt), 1)
            inputs = {"x": xq, "m": xm, "wi": wi, "bi": bi, "wo": wo, "bo": bo, "mask": mask}
            mha = (f"a = MultiheadAttention(8, 2, dtype={dt}); "
                   "no_grad { a.in_proj_weight.copy_(wi); a.in_proj_bias.copy_(bi); a.out_proj.weight.copy_(wo); a.out_proj.bias.copy_(bo) }")
            tmha = (f"import torch.nn as nn\na = nn.MultiheadAttention(8, 2, dtype={tname})\n"
                    "with torch.no_grad():\n  a.in_proj_weight.copy_(wi); a.in_proj_bias.copy_(bi); a.out_proj.weight.copy_(wo); a.out_proj.bias.copy_(bo)")
            for call in ["a(x, x, x)", "a(x, m, m)", "a(x, x, x, attn_mask=mask, need_weights=false)",
                         "a(x, x, x, attn_mask=mask, average_attn_weights=false)"]:
                tcall = call.replace("false", "False")
                for part in ["[0]", "[1]"]:
                    if "need_weights" in call and part == "[1]":
                        continue
                    out.append(Case("module attention", call + part, tcall + part, inputs, (mha, tmha)))
                for grad in ["x.grad", "a.in_proj_weight.grad", "a.out_proj.weight.grad"]:
                    if "m, m" in call and grad == "x.grad":
                        grad = "m.grad"
                    back = f"x.requires_grad_(); m.requires_grad_(); ({call}[0] * {call}[0]).sum().backward()"
                    tback = f"x.requires_grad_(); m.requires_grad_(); ({tcall}[0] * {tcall}[0]).sum().backward()"
                    out.append(Case("module attention grad", grad, grad, inputs, (f"{mha}; {back}", f"{tmha}\n{tback}")))
            w1, w2 = make(dt, (16, 8), rng), make(dt, (8, 16), rng)
            enc_inputs = dict(inputs, w1=w1, w2=w2)
            layer = (f"e = TransformerEncoderLayer(8, 2, 16, 0.0, dtype={dt}); "
                     "no_grad { e.self_attn.in_proj_weight.copy_(wi); e.self_attn.out_proj.weight.copy_(wo); e.linear1.weight.copy_(w1); e.linear2.weight.copy_(w2); "
                     "e.linear1.bias.copy_(bi[:16]); e.linear2.bias.copy_(bo) }")
            tlayer = (f"import torch.nn as nn\ne = nn.TransformerEncoderLayer(8, 2, 16, 0.0, dtype={tname})\n"
                      "with torch.no_grad():\n  e.self_attn.in_proj_weight.copy_(wi); e.self_attn.out_proj.weight.copy_(wo); e.linear1.weight.copy_(w1); e.linear2.weight.copy_(w2); "
                      "e.linear1.bias.copy_(bi[:16]); e.linear2.bias.copy_(bo)")
            out.append(Case("module attention", "e(x, src_mask=mask)", "e(x, src_mask=mask)", enc_inputs, (layer, tlayer)))
            for grad in ["x.grad", "e.linear1.weight.grad", "e.self_attn.in_proj_weight.grad"]:
                back = "x.requires_grad_(); (e(x, src_mask=mask) * x).sum().backward()"
                out.append(Case("module attention grad", grad, grad, enc_inputs, (f"{layer}; {back}", f"{tlayer}\n{back}")))
        # Each optimizer's arithmetic alone: a leaf and given gradients.
        if act == "ReLU":
            w, g = make(dt, (4, 3), rng), make(dt, (4, 3), rng)
            for opt, topt in [
                ("SGD([w], lr=0.1, momentum=0.9, nesterov=true, weight_decay=0.01)", "torch.optim.SGD([w], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)"),
                ("Adam([w], lr=0.01, weight_decay=0.1)", "torch.optim.Adam([w], lr=0.01, weight_decay=0.1)"),
                ("AdamW([w], lr=0.01)", "torch.optim.AdamW([w], lr=0.01)"),
                ("RMSprop([w], lr=0.01)", "torch.optim.RMSprop([w], lr=0.01)"),
                ("RMSprop([w], lr=0.01, momentum=0.9, centered=true)", "torch.optim.RMSprop([w], lr=0.01, momentum=0.9, centered=True)"),
                ("Adagrad([w], lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)", "torch.optim.Adagrad([w], lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)"),
                ("Adadelta([w], lr=1.0, weight_decay=0.01)", "torch.optim.Adadelta([w], lr=1.0, weight_decay=0.01)"),
            ]:
                out.append(Case("optimizer steps", "w", "w", {"w": w, "g": g},
                                (f"w.requires_grad_(); opt = {opt}; for i in 0..5 {{ w.grad = g * (i + 1); opt.step() }}",
                                 f"w.requires_grad_(); opt = {topt}\nfor i in range(5):\n  w.grad = g * (i + 1); opt.step()")))
        # Convolution and pooling, forward and every gradient.
        if act == "ReLU":
            x4 = make(dt, (2, 4, 7, 6), rng)
            bc = make(dt, (6,), rng)
            full, grouped = make(dt, (6, 4, 3, 3), rng), make(dt, (6, 2, 3, 3), rng)
            for args in ["stride=1", "stride=2, padding=1", "stride=(2, 1), padding=(1, 2), dilation=2, groups=2"]:
                targs = args
                wc = grouped if "groups" in args else full
                fwd, tfwd = f"conv2d(x4, wc, bc, {args})", f"torch.nn.functional.conv2d(x4, wc, bc, {targs})"
                out.append(Case("conv", fwd, tfwd, {"x4": x4, "wc": wc, "bc": bc}))
                y = torch.nn.functional.conv2d(x4, wc, bc, **eval(f"dict({args})"))
                gy = make(dt, tuple(y.shape), rng)
                for wrt in ["x4", "wc", "bc"]:
                    out.append(Case("conv grad", f"{wrt}.grad", f"{wrt}.grad", {"x4": x4, "wc": wc, "bc": bc, "gy": gy},
                                    (f"x4.requires_grad_(); wc.requires_grad_(); bc.requires_grad_(); ({fwd} * gy).sum().backward()",
                                     f"x4.requires_grad_(); wc.requires_grad_(); bc.requires_grad_(); ({tfwd} * gy).sum().backward()")))
            for fn, args in [("max_pool2d", "2"), ("max_pool2d", "3, stride=2, padding=1"), ("avg_pool2d", "2"), ("avg_pool2d", "3, stride=1, padding=1")]:
                out.append(Case("pool", f"{fn}(x4, {args})", f"torch.nn.functional.{fn}(x4, {args})", {"x4": x4}))
                out.append(Case("pool grad", "x4.grad", "x4.grad", {"x4": x4},
                                (f"x4.requires_grad_(); ({fn}(x4, {args}) * 1.5).sum().backward()",
                                 f"x4.requires_grad_(); (torch.nn.functional.{fn}(x4, {args}) * 1.5).sum().backward()")))
        # Layer normalisation, forward and gradients.
        if act == "ReLU":
            xl, wl, bl = make(dt, (3, 4, 5), rng), make(dt, (5,), rng), make(dt, (5,), rng)
            gl = make(dt, (3, 4, 5), rng)
            out.append(Case("layer norm", "layer_norm(xl, [5], wl, bl)", "torch.nn.functional.layer_norm(xl, [5], wl, bl)", {"xl": xl, "wl": wl, "bl": bl}))
            for wrt in ["xl", "wl", "bl"]:
                out.append(Case("layer norm grad", f"{wrt}.grad", f"{wrt}.grad", {"xl": xl, "wl": wl, "bl": bl, "gl": gl},
                                ("xl.requires_grad_(); wl.requires_grad_(); bl.requires_grad_(); (layer_norm(xl, [5], wl, bl) * gl).sum().backward()",
                                 "xl.requires_grad_(); wl.requires_grad_(); bl.requires_grad_(); (torch.nn.functional.layer_norm(xl, [5], wl, bl) * gl).sum().backward()")))
        # Cross entropy with class probabilities and with label smoothing.
        if act == "ReLU":
            p = torch.softmax(make(dt, (5, 3), rng), 1)
            y = make(dt, (5, 3), rng)
            for kw, tkw in [("label_smoothing=0.1", "label_smoothing=0.1"),
                            ("label_smoothing=0.2, reduction=\"sum\"", "label_smoothing=0.2, reduction='sum'")]:
                out.append(Case("losses smoothed", f"cross_entropy(y, t, {kw})",
                                f"torch.nn.functional.cross_entropy(y, t, {tkw})", {"y": y, "t": t}))
            for kw, tkw in [("", ""), (", label_smoothing=0.3", ", label_smoothing=0.3"), (", reduction=\"sum\"", ", reduction='sum'")]:
                out.append(Case("losses smoothed", f"cross_entropy(y, p{kw})",
                                f"torch.nn.functional.cross_entropy(y, p{tkw})", {"y": y, "p": p}))
                out.append(Case("losses smoothed", "y.grad", "y.grad", {"y": y, "p": p},
                                (f"y.requires_grad_(); cross_entropy(y, p{kw}).backward()",
                                 f"y.requires_grad_(); torch.nn.functional.cross_entropy(y, p{tkw}).backward()")))
        # Each scheduler's learning rates over 20 epochs.
        if act == "ReLU" and dt == "f64":
            w = make(dt, (3,), rng)
            for sch, tsch in [
                ("StepLR(opt, step_size=3, gamma=0.5)", "torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)"),
                ("MultiStepLR(opt, milestones=[2, 5, 5, 11], gamma=0.3)", "torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 5, 5, 11], gamma=0.3)"),
                ("ExponentialLR(opt, gamma=0.93)", "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.93)"),
                ("CosineAnnealingLR(opt, T_max=7, eta_min=0.001)", "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=7, eta_min=0.001)"),
                ("LambdaLR(opt, lam)", "torch.optim.lr_scheduler.LambdaLR(opt, lam)"),
            ]:
                setup = ("w.requires_grad_(); fn lam(e) { return 0.95 ** e }; opt = SGD([w], lr=0.1); "
                         f"s = {sch}; lrs = list(); for e in 0..20 {{ opt.step(); s.step(); lrs.append(opt.param_groups[0][\"lr\"]) }}")
                tsetup = ("w.requires_grad_(); lam = lambda e: 0.95 ** e; opt = torch.optim.SGD([w], lr=0.1)\n"
                          f"s = {tsch}; lrs = []\nfor e in range(20):\n  opt.step(); s.step(); lrs.append(opt.param_groups[0]['lr'])")
                out.append(Case("lr schedulers", "tensor(lrs, dtype=f64)", "torch.tensor(lrs, dtype=torch.float64)", {"w": w}, (setup, tsetup)))
            g = make(dt, (3,), rng) * 10
            for clip, tclip in [("clip_grad_norm_([w], 1.0)", "torch.nn.utils.clip_grad_norm_([w], 1.0)"),
                                ("clip_grad_norm_([w], 0.5, norm_type=1.0)", "torch.nn.utils.clip_grad_norm_([w], 0.5, norm_type=1.0)"),
                                ("clip_grad_value_([w], 2.0)", "torch.nn.utils.clip_grad_value_([w], 2.0)")]:
                out.append(Case("clip grad", "w.grad", "w.grad", {"w": w, "g": g},
                                (f"w.requires_grad_(); w.grad = g.clone(); t = {clip}", f"w.requires_grad_(); w.grad = g.clone(); t = {tclip}")))
        # A class of one's own, its weights from a state_dict file PyTorch wrote.
        ref = torch.nn.Linear(4, 3, dtype=tdt)
        with torch.no_grad():
            ref.weight.copy_(make(dt, (3, 4), rng))
            ref.bias.copy_(make(dt, (3,), rng))
        path = Path(tempfile.mkdtemp(prefix="torch-check-")) / "net.safetensors"
        write_state_dict(path, {"fc.weight": ref.weight.detach(), "fc.bias": ref.bias.detach()})
        net = (f"class Net(Module) {{ fn __init__(self) {{ super().__init__(); self.fc = Linear(4, 3, dtype={dt}) }}; "
               "fn forward(self, x) { return log_softmax(relu(self.fc(x)), dim=1) } }; "
               f"net = Net(); r = net.load_state_dict(load(\"{path}\"))")
        tnet = ("import torch.nn as nn\nclass Net(nn.Module):\n  def __init__(self):\n    super().__init__()\n"
                f"    self.fc = nn.Linear(4, 3, dtype={tname})\n  def forward(self, x):\n"
                "    return torch.log_softmax(torch.relu(self.fc(x)), dim=1)\n"
                f"net = Net()\nnet.fc.weight.data.copy_(torch.tensor({ref.weight.tolist()}, dtype={tname}))\n"
                f"net.fc.bias.data.copy_(torch.tensor({ref.bias.tolist()}, dtype={tname}))")
        out.append(Case("module class", "net(x)", "net(x)", {"x": x}, (net, tnet)))
    return out


def group_cases(rng):
    """Parameter groups and OneCycleLR (issue 67): each group's learning
    rate (and momentum) over 20 steps, parameters after SGD and Adam steps
    with per-group settings."""
    out = []
    w, v = make("f64", (3,), rng), make("f64", (2,), rng)
    ins = {"w": w, "v": v}
    for sch, tsch, mkey in [
        ("OneCycleLR(opt, max_lr=1.0, total_steps=20)", "OneCycleLR(opt, max_lr=1.0, total_steps=20)", "momentum"),
        ("OneCycleLR(opt, max_lr=[0.5, 2.0], epochs=4, steps_per_epoch=5, anneal_strategy=\"linear\", three_phase=true)",
         "OneCycleLR(opt, max_lr=[0.5, 2.0], epochs=4, steps_per_epoch=5, anneal_strategy='linear', three_phase=True)", "momentum"),
        ("StepLR(opt, step_size=3, gamma=0.5)", "StepLR(opt, step_size=3, gamma=0.5)", None),
    ]:
        for g in [0, 1]:
            read = f'lrs.append(opt.param_groups[{g}]["lr"])'
            tread = f"lrs.append(opt.param_groups[{g}]['lr'])"
            if mkey:
                read += f'; ms.append(opt.param_groups[{g}]["{mkey}"])'
                tread += f"; ms.append(opt.param_groups[{g}]['{mkey}'])"
            setup = ('w.requires_grad_(); v.requires_grad_(); opt = SGD([{"params": [w]}, {"params": [v], "lr": 0.01}], lr=0.1, momentum=0.9); '
                     f"s = {sch}; lrs = list(); ms = list(); for e in 0..19 {{ opt.step(); s.step(); {read} }}")
            tsetup = ("w.requires_grad_(); v.requires_grad_(); opt = torch.optim.SGD([{'params': [w]}, {'params': [v], 'lr': 0.01}], lr=0.1, momentum=0.9)\n"
                      f"s = torch.optim.lr_scheduler.{tsch}; lrs = []; ms = []\nfor e in range(19):\n  opt.step(); s.step(); {tread}")
            out.append(Case("param groups", "tensor(lrs, dtype=f64)", "torch.tensor(lrs, dtype=torch.float64)", ins, (setup, tsetup)))
            if mkey:
                out.append(Case("param groups", "tensor(ms, dtype=f64)", "torch.tensor(ms, dtype=torch.float64)", ins, (setup, tsetup)))
    gw, gv = make("f64", (3,), rng), make("f64", (2,), rng)
    ins = {"w": w, "v": v, "gw": gw, "gv": gv}
    for opt, topt in [('SGD([{"params": [w]}, {"params": [v], "lr": 0.01, "momentum": 0.5}], lr=0.1, momentum=0.9)',
                       "torch.optim.SGD([{'params': [w]}, {'params': [v], 'lr': 0.01, 'momentum': 0.5}], lr=0.1, momentum=0.9)"),
                      ('Adam([{"params": [w], "betas": (0.8, 0.99)}, {"params": [v], "weight_decay": 0.1}], lr=0.01)',
                       "torch.optim.Adam([{'params': [w], 'betas': (0.8, 0.99)}, {'params': [v], 'weight_decay': 0.1}], lr=0.01)")]:
        for p in ["w", "v"]:
            setup = (f"w.requires_grad_(); v.requires_grad_(); opt = {opt}; "
                     "for e in 0..5 { opt.zero_grad(); ((w * gw).sum() + (v * v * gv).sum()).backward(); opt.step() }")
            tsetup = (f"w.requires_grad_(); v.requires_grad_(); opt = {topt}\n"
                      "for e in range(5):\n  opt.zero_grad(); ((w * gw).sum() + (v * v * gv).sum()).backward(); opt.step()")
            out.append(Case("param groups", f"{p}.detach()", f"{p}.detach()", ins, (setup, tsetup)))
    return out


def activation_cases(rng):
    """erf and GELU (issue 67), forward on every dtype and their gradients."""
    out = []
    for dt in DTYPES:
        a = make(dt, (9,), rng, True)
        out.append(Case("erf gelu", "a.erf()", "torch.erf(a)", {"a": a}))
        for approx in ["none", "tanh"]:
            out.append(Case("erf gelu", f'gelu(a, approximate="{approx}")',
                            f"torch.nn.functional.gelu(a, approximate='{approx}')", {"a": a}))
    for dt in ["f32", "f64"]:
        a = make(dt, (7,), rng)
        out.append(grad_case("grad erf gelu", {"a": a}, "a.erf()", "torch.erf(a)", "a", rng, (7,)))
        for approx in ["none", "tanh"]:
            out.append(grad_case("grad erf gelu", {"a": a}, f'gelu(a, approximate="{approx}")',
                                 f"torch.nn.functional.gelu(a, approximate='{approx}')", "a", rng, (7,)))
    return out


def autocast_cases(rng):
    """Autocast on CPU tensors (issue 71): each op inside `autocast("cpu")`
    (bf16, PyTorch's CPU lists) against torch's own CPU autocast, on
    float32 and bf16 inputs: the result's dtype and values; and a weight's
    gradient through an autocast product."""
    out = []
    ops = [
        ("x @ w", "x @ w"),
        ("linear(x, w, b)", "torch.nn.functional.linear(x, w, b)"),
        ("conv2d(img, k)", "torch.nn.functional.conv2d(img, k)"),
        ("x.exp()", "x.exp()"),
        ("x.sum()", "x.sum()"),
        ("x.softmax(1)", "x.softmax(1)"),
        ("x.prod(1)", "x.prod(1)"),
        ("layer_norm(x, [6])", "torch.nn.functional.layer_norm(x, [6])"),
        ("mse_loss(x, y)", "torch.nn.functional.mse_loss(x, y)"),
        ("nll_loss(x, t)", "torch.nn.functional.nll_loss(x, t)"),
        ("cross_entropy(x, t)", "torch.nn.functional.cross_entropy(x, t)"),
        ("dot(x[0], y[0])", "torch.dot(x[0], y[0])"),
        ("x.relu()", "x.relu()"),
        ("x.mean()", "x.mean()"),
    ]
    t = torch.tensor([1, 0, 5, 2], dtype=torch.int64)
    for dt in ["f32", "bf16"]:
        ins = {
            "x": make(dt, (4, 6), rng), "y": make(dt, (4, 6), rng), "w": make(dt, (6, 6), rng),
            "b": make(dt, (6,), rng), "img": make(dt, (1, 2, 5, 5), rng),
            "k": make(dt, (3, 2, 3, 3), rng), "t": t,
        }
        for src, tsrc in ops:
            setup = (f'with autocast("cpu") {{ r = {src} }}',
                     f"with torch.autocast('cpu'):\n  r = {tsrc}")
            out.append(Case(f"autocast {src}", "r", "r", ins, setup))
    # A float32 weight's gradient through a bf16 product.
    ins = {"x": make("f32", (4, 6), rng), "w": make("f32", (6, 3), rng)}
    setup = ('w.requires_grad_(); with autocast("cpu") { r = (x @ w).float().pow(2).sum() }; r.backward()',
             "w.requires_grad_()\nwith torch.autocast('cpu'):\n  r = (x @ w).float().pow(2).sum()\nr.backward()")
    out.append(Case("autocast", "w.grad", "w.grad", ins, setup))
    return out


def file_cases(rng):
    """torch.save's format (issue 67): what cudash's `save(..., "x.pt")`
    writes, read by PyTorch's `torch.load(weights_only=True)`, equal bit for
    bit to the value cudash saved. (The other direction, files PyTorch
    wrote read by cudash, is tests/torch_files.rs with PyTorch's fixtures.)"""
    import tempfile

    # The same path in the child that computes PyTorch's side.
    folder = Path(tempfile.gettempdir()) / "cudash-torch-check-files"
    folder.mkdir(exist_ok=True)
    out = []
    for n, dt in enumerate(["f32", "f64", "f16", "bf16", "i64", "i32", "bool"]):
        x = make(dt, (3, 4), rng)
        p = folder / f"{n}.pt"
        save = f'save({{"x": x, "t": x.T, "nested": {{"items": [x[1], 7, "s"]}}}}, "{p}")'
        for key, tkey in [("x", "['x']"), ("x.T", "['t']"), ("x[1]", "['nested']['items'][0]")]:
            out.append(Case("files", key, f"torch.load('{p}', weights_only=True){tkey}", {"x": x}, (save, "")))
    # An optimizer's state_dict written by cudash after 3 steps: PyTorch
    # loads it into its own optimizer and takes 2 more steps; cudash takes
    # the same 2 steps itself.
    w, g = make("f64", (5,), rng), make("f64", (5,), rng)
    for n, (opt, topt) in enumerate([
            ("SGD([w], lr=0.1, momentum=0.9)", "torch.optim.SGD([w], lr=0.1, momentum=0.9)"),
            ("Adam([w], lr=0.01)", "torch.optim.Adam([w], lr=0.01)"),
            ("AdamW([w], lr=0.01)", "torch.optim.AdamW([w], lr=0.01)"),
            ("RMSprop([w], lr=0.01, momentum=0.9, centered=true)", "torch.optim.RMSprop([w], lr=0.01, momentum=0.9, centered=True)"),
            ("Adagrad([w], lr=0.1)", "torch.optim.Adagrad([w], lr=0.1)"),
            ("Adadelta([w], lr=1.0)", "torch.optim.Adadelta([w], lr=1.0)")]):
        p = folder / f"opt{n}.pt"
        setup = (f"w.requires_grad_(); opt = {opt}; for i in 0..3 {{ w.grad = g * (i + 1); opt.step() }}; "
                 f'save({{"w": w.detach(), "opt": opt.state_dict()}}, "{p}"); '
                 "for i in 3..5 { w.grad = g * (i + 1); opt.step() }")
        tsetup = (f"ck = torch.load('{p}', weights_only=True); w = ck['w'].clone().requires_grad_(); opt = {topt}\n"
                  "opt.load_state_dict(ck['opt'])\nfor i in range(3, 5):\n  w.grad = g * (i + 1); opt.step()")
        out.append(Case("files", "w.detach()", "w.detach()", {"w": w, "g": g}, (setup, tsetup)))
    x = make("f32", (6, 4), rng)
    p = folder / "model.pth"
    model = (f'manual_seed(0); m = Sequential(Linear(4, 3), BatchNorm1d(3)); y = m(x); '
             f'save({{"epoch": 2, "model": m.state_dict(), "w": Parameter(m[0].weight.detach())}}, "{p}")')
    for key, tkey in [("m[1].running_mean", "['model']['1.running_mean']"),
                      ("m[1].num_batches_tracked", "['model']['1.num_batches_tracked']"),
                      ("m[0].weight", "['model']['0.weight']"),
                      ("m[0].weight", "['w']")]:
        out.append(Case("files", key, f"torch.load('{p}', weights_only=True){tkey}", {"x": x}, (model, "")))
    # A whole model (`torch.save(model, path)`), trained a step so its
    # running statistics moved: PyTorch's `torch.load(weights_only=False)`
    # makes it and runs it (its forward differs from cudash's by a few ulp,
    # as every convolution does), and its tensors are cudash's, bit for bit.
    x = make("f32", (4, 2, 4, 4), rng)
    p = folder / "whole.pt"
    whole = (f"manual_seed(0); m = Sequential(Conv2d(2, 3, 3, padding=1), BatchNorm2d(3), ReLU(), MaxPool2d(2), "
             f'Flatten(), Dropout(0.1), Linear(12, 5)); y = m(x); save(m, "{p}")')
    tsetup = f"m = torch.load('{p}', weights_only=False).eval(); y = m(x)"
    for key in ["m[1].running_var", "m[0].weight", "m[6].bias"]:
        out.append(Case("files", key, key, {"x": x}, (whole, tsetup)))
    x = make("f32", (3, 2, 4), rng)
    p = folder / "whole_rnn.pt"
    rnn = (f"manual_seed(0); m = ModuleList([LSTM(4, 3, num_layers=2, bidirectional=true), GRU(6, 2, batch_first=true)]); "
           f'save(m, "{p}")')
    tsetup = f"m = torch.load('{p}', weights_only=False); y = m[1](m[0](x)[0])[0]"
    for key in ["m[0].weight_hh_l1_reverse", "m[1].bias_ih_l0"]:
        out.append(Case("files", key, key, {"x": x}, (rnn, tsetup)))
    return out


def write_state_dict(path, tensors):
    """Named tensors as one .safetensors file, as `safetensors.torch.save_file` writes it."""
    header, blobs, at = {}, [], 0
    for name, t in tensors.items():
        data = raw_bytes(t)
        header[name] = {"dtype": ST_OF[NAME[t.dtype]], "shape": list(t.shape), "data_offsets": [at, at + len(data)]}
        blobs.append(data)
        at += len(data)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    path.write_bytes(struct.pack("<Q", len(h)) + h + b"".join(blobs))


# ---- running both sides -----------------------------------------------------


FACTORIES = re.compile(r"\b(arange|linspace|full|tensor|eye|zeros|ones|empty|rand|randn)\(")


def on_device(src, device, prefix=""):
    """`src` with `device=...` added to each factory call in it (prefix:
    `torch.` for PyTorch's spelling)."""
    out, i = [], 0
    pat = re.compile(re.escape(prefix) + FACTORIES.pattern[2:]) if prefix else FACTORIES
    for m in pat.finditer(src):
        if not prefix and m.start() > 0 and src[m.start() - 1] in ".":
            continue  # a method (x.full), not a factory
        depth, j = 0, m.end() - 1
        while j < len(src):
            depth += {"(": 1, ")": -1}.get(src[j], 0)
            if depth == 0:
                break
            j += 1
        if j < i:
            continue
        empty = src[m.end() : j].strip() == ""
        out.append(src[i:j] + ("" if empty else ", ") + device)
        i = j
    out.append(src[i:])
    return "".join(out)


def torch_result(case, device="cpu"):
    moved = {k: v.clone().to(device) for k, v in case.inputs.items()}
    ns = {"torch": torch, **moved}
    src = case.torch_src
    if device != "cpu":
        src = on_device(src, f"device='{device}'", prefix="torch.")
    try:
        if case.setup:
            exec(case.setup[1], ns)  # noqa: S102 (our own case strings)
        r = eval(src, ns)  # noqa: S307 (our own case strings)
        if isinstance(r, torch.Tensor):
            r = r.detach().cpu()
    except Exception as e:  # PyTorch refusing the case
        return None, f"{type(e).__name__}: {str(e).splitlines()[0]}"
    if r is None:  # a gradient that was not computed (`x.grad` is None)
        return None, "None"
    if not isinstance(r, torch.Tensor):
        r = torch.tensor(r)
    return r, None


def run_cudash(binary, work, all_cases, backend="sim", device="cpu"):
    inp, out = work / "in", work / "out"
    for d in (inp, out):
        d.mkdir(parents=True, exist_ok=True)
        for f in d.iterdir():
            f.unlink()
    lines = []
    for i, c in enumerate(all_cases):
        for name, t in c.inputs.items():
            p = inp / f"{i}_{name}.safetensors"
            write_safetensors(p, t)
            move = "" if device == "cpu" else f".to({device})"
            lines.append(f'{name} = load("{p}"){move}')
        src = c.src if device == "cpu" else on_device(c.src, f"device={device}")
        if c.setup:
            # Only when the setup succeeds is the result saved: an error
            # leaves the block.
            lines.append(f'for once in 0..1 {{ {c.setup[0]}; save({src}, "{out / f"{i}.safetensors"}") }}')
            continue
        lines.append(f'save({src}, "{out / f"{i}.safetensors"}")')
    script = work / "cases.cudash"
    script.write_text("\n".join(lines) + "\n")
    proc = subprocess.run(
        [binary, "run", str(script), "--keep-going", "--backend", backend, "--no-color"],
        capture_output=True,
        text=True,
    )
    (work / "transcript.txt").write_text(proc.stdout + proc.stderr)
    for bad in ["panicked", "device-side assert"]:
        if bad in proc.stdout + proc.stderr:
            print(f"cudash: {bad}: see", work / "transcript.txt")
    return out


def ulps(dt, x, y):
    """The largest distance in units in the last place between two float bit arrays."""
    signed = {"f16": np.int16, "bf16": np.int16, "f32": np.int32, "f64": np.int64}[dt]
    def order(b):
        s = b.astype(signed).astype(np.int64)
        return np.where(s < 0, np.iinfo(signed).min - s, s)
    return int(np.max(np.abs(order(x) - order(y)))) if len(x) else 0


def floats(dt, bits):
    """Float bit arrays as their values (float64)."""
    if dt == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    kind = {"f16": (np.uint16, np.float16), "f32": (np.uint32, np.float32), "f64": (np.uint64, np.float64)}[dt]
    return bits.astype(kind[0]).view(kind[1]).astype(np.float64)


def relative(dt, x, y):
    """The largest difference as a fraction of the largest magnitude in `y`."""
    a, b = floats(dt, x), floats(dt, y)
    finite = np.isfinite(a) & np.isfinite(b)
    top = np.max(np.abs(b[finite])) if finite.any() else 0.0
    return float(np.max(np.abs(a[finite] - b[finite])) / top) if top > 0 else 0.0


def is_nan(dt, bits):
    if dt not in FLOATS:
        return np.zeros(len(bits), dtype=bool)
    exp, man = {"f16": (0x7C00, 0x03FF), "bf16": (0x7F80, 0x007F), "f32": (0x7F800000, 0x007FFFFF), "f64": (0x7FF0000000000000, 0x000FFFFFFFFFFFFF)}[dt]
    b = bits.astype(np.uint64)
    return ((b & exp) == exp) & ((b & man) != 0)


def reference(args, work, kept):
    """PyTorch's result for each case (`kept`: their numbers among all the
    generated cases), written to work/ref by a child process
    (`--reference-from`): as `{i}.safetensors`, or `{i}.err` for an error.
    A case that crashes PyTorch (2.11 raises SIGFPE for some integer
    divisions by zero) costs that case alone: it is recorded, and a new child
    goes on from the next."""
    ref = work / "ref"
    ref.mkdir(parents=True, exist_ok=True)
    for f in ref.iterdir():
        f.unlink()
    (work / "keep.json").write_text(json.dumps(kept))
    start = 0
    while start < len(kept):
        cmd = [sys.executable, __file__, "--reference-from", str(start), "--work", str(work), "--seed", str(args.seed),
               "--torch-device", args.torch_device or args.device]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 0:
            return ref
        done = (work / "progress").read_text().split()
        i = int(done[-1]) if done else start
        why = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
        (ref / f"{i}.err").write_text(f"crashed ({why})")
        start = i + 1
    return ref


def reference_from(args):
    """The child of `reference`: cases from number `--reference-from` on."""
    device = args.torch_device or args.device
    torch.manual_seed(0)
    all_cases = cases(random.Random(args.seed))
    work = Path(args.work).resolve()
    kept = json.loads((work / "keep.json").read_text())
    with open(work / "progress", "w") as progress:
        for i in range(args.reference_from, len(kept)):
            progress.write(f"{i}\n")
            progress.flush()
            want, err = torch_result(all_cases[kept[i]], device)
            if want is None:
                (work / "ref" / f"{i}.err").write_text(err)
            else:
                write_safetensors(work / "ref" / f"{i}.safetensors", want)


def compare(i, out, ref):
    path, wpath = out / f"{i}.safetensors", ref / f"{i}.safetensors"
    got = read_safetensors(path) if path.exists() else None
    want = read_safetensors(wpath) if wpath.exists() else None
    err = "" if want else (ref / f"{i}.err").read_text()
    if err.startswith("crashed"):
        return "PyTorch crashes", err
    if want is None and got is None:
        return "both raise", ""
    if want is None:
        return "cudash computes, PyTorch raises", err
    wdt, wshape, wbits = want
    if got is None:
        return "cudash raises, PyTorch computes", f"PyTorch gives {wdt}{list(wshape)}"
    dt, shape, bits = got
    if dt != wdt:
        return "dtype differs", f"cudash {dt}, PyTorch {wdt}"
    if shape != wshape:
        return "shape differs", f"cudash {list(shape)}, PyTorch {list(wshape)}"
    nan_a, nan_b = is_nan(dt, bits), is_nan(dt, wbits)
    if (nan_a != nan_b).any():
        return "values differ", "NaN in one only"
    same = (bits == wbits) | nan_a
    if same.all():
        return "exact", ""
    if dt in FLOATS:
        keep = ~nan_a
        u = ulps(dt, bits[keep], wbits[keep])
        r = relative(dt, bits[keep], wbits[keep])
        return (("within 1 ulp" if u <= 1 else "values differ"),
                f"{int((~same).sum())} of {len(bits)} elements, up to {u} ulp ({r:.1e} of the largest)")
    return "values differ", f"{int((~same).sum())} of {len(bits)} elements"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cudash", default="target/release/cudash")
    ap.add_argument("--work", default="target/torch-check")
    ap.add_argument("--show", type=int, default=6, help="examples shown per outcome and group")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--device", default="cpu", help="where both sides compute: cpu, or cuda (PyTorch's CUDA tensors as the reference)")
    ap.add_argument("--backend", default="sim", help="cudash's backend: sim, emu or cuda")
    ap.add_argument("--torch-device", help="where PyTorch computes, when not --device (a trial run of --device cuda on a machine without a GPU)")
    ap.add_argument("--only", help="only the groups whose name contains this (e.g. grad)")
    ap.add_argument("--reference-from", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.reference_from is not None:
        return reference_from(args)
    on = args.torch_device or args.device
    torch.manual_seed(0)
    rng = random.Random(args.seed)
    all_cases = list(enumerate(cases(rng)))
    if args.only:
        all_cases = [(n, c) for n, c in all_cases if args.only in c.group]
    if args.device != "cpu":
        # An index out of range is a device-side assert on a GPU: such cases
        # are found on the CPU first. Only the indexing groups are tried
        # there (PyTorch 2.11's CPU integer division by zero can raise
        # SIGFPE instead of ZeroDivisionError, and end the run).
        def out_of_range(c):
            return c.group in ("indexing", "index writes") and (torch_result(c)[1] or "").startswith("IndexError")

        all_cases = [(n, c) for n, c in all_cases if not out_of_range(c)]
    kept = [n for n, _ in all_cases]
    all_cases = [c for _, c in all_cases]
    work = Path(args.work).resolve()
    out = run_cudash(args.cudash, work, all_cases, args.backend, args.device)
    ref = reference(args, work, kept)
    outcomes = Counter()
    by = defaultdict(list)
    each = []
    for i, c in enumerate(all_cases):
        outcome, detail = compare(i, out, ref)
        outcomes[outcome] += 1
        by[(outcome, c.group)].append((c, detail))
        each.append({"case": i, "group": c.group, "src": c.src, "setup": c.setup[0] if c.setup else None,
                     "outcome": outcome, "detail": detail})
    (work / "cases.json").write_text(json.dumps(each, indent=0))
    agree = outcomes["exact"] + outcomes["both raise"]
    # The capability decides the register width of the kernels registered
    # for AVX-512 (ATEN_CPU_CAPABILITY=avx2 sets both sides to AVX2).
    cpu = f"CPU, {torch.backends.cpu.get_cpu_capability()}, {torch.get_num_threads()} threads"
    if on != "cpu":
        cpu = f"{torch.cuda.get_device_name()}; cudash --backend {args.backend}"
    print(f"torch-check: {len(all_cases)} cases against PyTorch {torch.__version__} ({cpu})")
    for k, v in sorted(outcomes.items(), key=lambda kv: -kv[1]):
        print(f"  {k:34} {v}")
    print(f"  agree (exact or both raise)        {agree} of {len(all_cases)}")
    for (outcome, group), items in sorted(by.items()):
        if outcome in ("exact", "both raise"):
            continue
        print(f"\n{outcome} — {group} ({len(items)})")
        for c, detail in items[: args.show]:
            shapes = ", ".join(f"{k}: {NAME[t.dtype]}{list(t.shape)}" for k, t in c.inputs.items())
            print(f"  {c.src:40} {shapes:36} {detail}")
    report = work / "report.json"
    report.write_text(json.dumps({k: v for k, v in outcomes.items()}, indent=1))
    sys.exit(0 if agree == len(all_cases) else 1)


if __name__ == "__main__":
    main()
