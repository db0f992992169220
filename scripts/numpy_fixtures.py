"""Writes tests/fixtures/numpy_pickle: NumPy arrays pickled by Python
(protocols 2, 4 and 5), one saved by torch.save, and a small CIFAR-10 in
the layout and format of the real one (Python 2's pickles: its strings
are `str` of bytes), for tests/numpy_pickles.rs.

Run with the torch-check venv (PyTorch CPU, NumPy):
    target/torch-venv/bin/python scripts/numpy_fixtures.py
"""
import io
import pathlib
import pickle
import struct
import tarfile

import numpy as np
import torch

out = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "numpy_pickle"
out.mkdir(parents=True, exist_ok=True)

arrays = {
    "f64": np.arange(6, dtype=np.float64).reshape(2, 3) / 7,
    "f32": np.linspace(0, 1, 5, dtype=np.float32),
    "f16": np.array([0.5, -2.0, 65504.0], dtype=np.float16),
    "u8": np.arange(250, 256, dtype=np.uint8),
    "i64": np.array([-3, 2**40]),
    "i32": np.array([[-1, 7]], dtype=np.int32),
    "bool": np.array([True, False]),
    "fortran": np.asfortranarray(np.arange(6).reshape(2, 3)),
    "u16": np.array([1, 65535], dtype=np.uint16),
    "big_endian": np.array([1.5, 2.5], dtype=">f8"),
    "empty": np.zeros((0, 3), np.float32),
    "zero_d": np.array(3.0),
    "scalar": np.float64(2.5),
    "labels": [1, 2, 3],
    "name": "x",
}
for protocol in (2, 4, 5):
    with open(out / f"arrays_protocol{protocol}.pkl", "wb") as f:
        pickle.dump(arrays, f, protocol=protocol)

# time_sequence_prediction's traindata.pt: an array saved by torch.save.
torch.save(np.sin(np.arange(4.0)), out / "array.pt")


class Python2Pickler(pickle._Pickler):
    """Protocol 2 as Python 2's cPickle wrote CIFAR-10: `bytes` as Python
    2's `str` (SHORT_BINSTRING, BINSTRING), NumPy as `numpy.core`."""

    def save_bytes(self, obj):
        if len(obj) < 256:
            self.write(pickle.SHORT_BINSTRING + bytes([len(obj)]) + obj)
        else:
            self.write(pickle.BINSTRING + struct.pack("<i", len(obj)) + obj)
        self.memoize(obj)

    dispatch = pickle._Pickler.dispatch.copy()
    dispatch[bytes] = save_bytes


def python2_pickle(obj):
    f = io.BytesIO()
    Python2Pickler(f, protocol=2).dump(obj)
    return f.getvalue().replace(b"numpy._core.multiarray", b"numpy.core.multiarray")


classes = [b"airplane", b"automobile", b"bird", b"cat", b"deer", b"dog", b"frog", b"horse", b"ship", b"truck"]
per_batch = 2
files = {}
for k, name in enumerate(["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5", "test_batch"]):
    n = np.arange(per_batch * 3072, dtype=np.int64)
    data = ((n * 7 + k * 31 + n // 3072 * 5) % 256).astype(np.uint8).reshape(per_batch, 3072)
    labels = [(k * per_batch + i) % 10 for i in range(per_batch)]
    files[name] = python2_pickle({
        b"batch_label": b"training batch %d of 5" % (k + 1),
        b"labels": labels,
        b"data": data,
        b"filenames": [b"img_%d_%d.png" % (k, i) for i in range(per_batch)],
    })
files["batches.meta"] = python2_pickle({b"num_cases_per_batch": per_batch, b"label_names": classes, b"num_vis": 3072})
folder = out / "cifar-10-batches-py"
folder.mkdir(exist_ok=True)
for name, b in files.items():
    (folder / name).write_bytes(b)
with tarfile.open(out / "cifar-10-python.tar.gz", "w:gz") as tar:
    for name, b in files.items():
        info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
        info.size = len(b)
        tar.addfile(info, io.BytesIO(b))
print("wrote", out)
