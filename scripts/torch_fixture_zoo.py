"""Writes tests/fixtures/torch_save/zoo.pt, a whole `nn.ModuleDict` of 64
layers saved by PyTorch (`torch.save(zoo, path)`), and zoo.txt, what
PyTorch prints loading it with zoo_load.py beside it; tests/torch_files.rs
has cudash load the same file and print the same lines.

Run with the torch-check venv (PyTorch CPU):
    target/torch-venv/bin/python scripts/torch_fixture_zoo.py

`cudash script scripts/torch_fixture_zoo.py --save FILE` has cudash save
the same zoo to FILE; then `--compare FILE` (with PyTorch) writes nothing
and checks each of its modules has the fixture's `__dict__`: the same keys
in the same order, every public setting of the same value and type.
"""
import pathlib
import sys

import torch
import torch.nn as nn

out = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "torch_save"

if sys.argv[1:2] == ["--compare"]:
    ours = torch.load(sys.argv[2], weights_only=False)
    theirs = torch.load(out / "zoo.pt", weights_only=False)
    differ = 0
    for (name, a), (_, b) in zip(ours.named_modules(), theirs.named_modules()):
        if list(a.__dict__) != list(b.__dict__):
            differ += 1
            print(name, type(a).__name__, "keys:", list(a.__dict__), "PyTorch's:", list(b.__dict__))
            continue
        for k, v in a.__dict__.items():
            w = b.__dict__[k]
            if k.startswith("_") or isinstance(v, (dict, torch.Tensor)):
                continue
            if v != w or type(v) is not type(w):
                differ += 1
                print(name, type(a).__name__, k, repr(v), "PyTorch's:", repr(w))
    print(f"{len(list(ours.modules()))} modules, {differ} differ")
    sys.exit(1 if differ else 0)

torch.manual_seed(0)
zoo = nn.ModuleDict({
    "c1": nn.Conv1d(2, 4, 3, stride=2, padding=1),
    "ct": nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1),
    "same": nn.Conv2d(2, 2, 3, padding="same", bias=False),
    "valid": nn.Conv1d(2, 2, 3, padding="valid", groups=2),
    "ap1": nn.AvgPool1d(2),
    "ap2": nn.AvgPool2d(3, stride=2, padding=1),
    "aap": nn.AdaptiveAvgPool2d((2, 3)),
    "amp": nn.AdaptiveMaxPool1d(4),
    "mp1": nn.MaxPool1d(3, stride=1),
    "gn": nn.GroupNorm(2, 4),
    "ln": nn.LayerNorm([3, 4], eps=1e-6),
    "in1": nn.InstanceNorm1d(3, affine=True),
    "bn1": nn.BatchNorm1d(3, momentum=None),
    "emb": nn.Embedding(10, 3, padding_idx=-1),
    "gru": nn.GRU(3, 2, bidirectional=True),
    "rnn": nn.RNN(3, 2, nonlinearity="relu", bias=False),
    "lc": nn.LSTMCell(3, 2),
    "gc": nn.GRUCell(3, 2),
    "rc": nn.RNNCell(3, 2, nonlinearity="relu"),
    "gelu": nn.GELU(approximate="tanh"),
    "elu": nn.ELU(0.5),
    "lrelu": nn.LeakyReLU(0.2, inplace=True),
    "sp": nn.Softplus(beta=2.0, threshold=10.0),
    "ht": nn.Hardtanh(-2.0, 2.0),
    "r6": nn.ReLU6(),
    "sm": nn.Softmax(dim=1),
    "lsm": nn.LogSoftmax(dim=-1),
    "fl": nn.Flatten(0, 1),
    "unfl": nn.Unflatten(1, (2, 3)),
    "bil": nn.Bilinear(2, 3, 4),
    "id": nn.Identity(),
    "ml": nn.ModuleList([nn.Tanh(), nn.Sigmoid()]),
    "ce": nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=3),
    "mse": nn.MSELoss(reduction="sum"),
    "bce": nn.BCEWithLogitsLoss(),
    "nll": nn.NLLLoss(),
    "d2": nn.Dropout2d(0.3),
    "silu": nn.SiLU(), "mish": nn.Mish(), "hs": nn.Hardswish(), "selu": nn.SELU(), "celu": nn.CELU(2.0),
    "th": nn.Threshold(0.1, 20.0), "ss": nn.Softsign(), "tsh": nn.Tanhshrink(), "smin": nn.Softmin(dim=0),
    "glu": nn.GLU(), "pu": nn.PixelUnshuffle(2), "rms": nn.RMSNorm(4), "sl1": nn.SmoothL1Loss(beta=0.5),
    "hub": nn.HuberLoss(delta=2.0), "l1": nn.L1Loss(),
    "pr": nn.PReLU(3), "up": nn.Upsample(scale_factor=2, mode="bilinear"), "up2": nn.Upsample(size=(4, 5)),
    "upn": nn.UpsamplingNearest2d(scale_factor=2), "upb": nn.UpsamplingBilinear2d(size=3), "zp": nn.ZeroPad2d((1, 2, 3, 4)),
    "cp": nn.ConstantPad1d(2, 0.5), "rp": nn.ReflectionPad2d(1), "rep": nn.ReplicationPad1d((1, 2)),
    "eb": nn.EmbeddingBag(10, 3, mode="sum"),
    "pl": nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(3))]),
    "pd": nn.ParameterDict({"a": nn.Parameter(torch.ones(2)), "b": nn.Parameter(torch.full((1,), 2.0))}),
})
zoo.eval()
if sys.argv[1:2] == ["--save"]:
    torch.save(zoo, sys.argv[2])
    sys.exit(0)
import subprocess  # noqa: E402 (cudash runs the lines above)

torch.save(zoo, out / "zoo.pt")
printed = subprocess.run([sys.executable, str(out / "zoo_load.py"), str(out / "zoo.pt")],
                         check=True, capture_output=True, text=True).stdout
(out / "zoo.txt").write_text(printed)
print("wrote zoo.pt and zoo.txt")
