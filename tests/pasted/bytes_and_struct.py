"""Bytes, as data-loading code reads files: an MNIST idx file written and
read back the way hand-written loaders do (`struct.unpack(">IIII",
f.read(16))`, `np.frombuffer(f.read(), np.uint8)`, `int.from_bytes`), the
images into a tensor on the device; bytes' own operations, encodings,
`struct`'s formats, and the errors programs catch."""
import os
import struct
import tempfile

import numpy as np
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")

folder = tempfile.mkdtemp()
images_path = os.path.join(folder, "t10k-images-idx3-ubyte")
labels_path = os.path.join(folder, "t10k-labels-idx1-ubyte")
n, rows, cols = 5, 4, 3
pixels = bytes((7 * k + 3) % 256 for k in range(n * rows * cols))
with open(images_path, "wb") as f:
    f.write(struct.pack(">IIII", 2051, n, rows, cols))
    f.write(pixels)
with open(labels_path, "wb") as f:
    f.write((2049).to_bytes(4, "big") + n.to_bytes(4, "big"))
    f.write(bytes([3, 1, 4, 1, 5]))
print(os.path.getsize(images_path), os.path.getsize(labels_path))


def read_images(path):
    with open(path, "rb") as f:
        magic, count, r, c = struct.unpack(">IIII", f.read(16))
        if magic != 2051:
            raise ValueError(f"Magic number mismatch, expected 2051, got {magic}")
        data = np.frombuffer(f.read(), dtype=np.uint8).reshape(count, r, c)
    return data


def read_labels(path):
    with open(path, "rb") as f:
        magic = int.from_bytes(f.read(4), "big")
        count = int.from_bytes(f.read(4), "big")
        labels = np.frombuffer(f.read(count), dtype=np.uint8)
    return magic, labels


images = read_images(images_path)
magic, labels = read_labels(labels_path)
print(images.shape, images.dtype, magic, labels.tolist())
x = torch.from_numpy(images.copy()).float().div(255).unsqueeze(1).to(device)
y = torch.from_numpy(labels.astype(np.int64)).to(device)
print(x.shape, round(x.sum().item(), 4), y.tolist(), x.device.type == device)

with open(images_path, "rb") as f:
    raw = f.read()
print(len(raw), raw[:4], raw[16:20], raw[16], list(raw[16:19]), raw[-2:].hex())
print(np.frombuffer(raw, dtype=">i4", count=4).tolist(), np.frombuffer(raw, np.uint8, offset=16)[:4].tolist())
print(torch.frombuffer(raw, dtype=torch.uint8, offset=16, count=6).tolist())
with open(images_path, "rb") as f:
    f.seek(16)
    first = f.read(rows * cols)
    print(f.tell(), first == pixels[:12], f.seek(-3, 2), f.read())

b = b"\x89PNG\r\n\x1a\n"
print(b, len(b), b[1:4], b.startswith(b"\x89PNG"), b"PNG" in b, 10 in b, b + b"!", b"ab" * 2)
print("naïve".encode(), "naïve".encode("utf-8").decode(), b"caf\xe9".decode("latin-1"), bytes("é", "utf-8"))
print(b"a,b,,c".split(b","), b"  x \n".strip(), b"-".join([b"a", b"b"]), b"hello".find(b"l"), b"hello".count(b"l"))
print(bytes(3), bytes([65, 66, 67]), bytes.fromhex("de ad"), sorted([b"b", b"a"]), {b"k": 1}[b"k"])
print(struct.calcsize(">IIII"), struct.calcsize("ci"), struct.calcsize("<ci"), struct.pack("<hH", -2, 65535))
print(struct.unpack("<fd?", struct.pack("<fd?", 1.5, -0.25, True)), struct.unpack_from(">H", raw, 2))
for bad in (lambda: b"a" + "b", lambda: b"\xff".decode(), lambda: struct.pack("<h", 40000),
            lambda: struct.unpack(">I", b"ab"), lambda: (256).to_bytes(1, "big")):
    try:
        bad()
    except (TypeError, UnicodeDecodeError, struct.error, OverflowError) as e:
        print(type(e).__name__ + ":", e)
