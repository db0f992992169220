"""`pickle.load(f, encoding="latin1")` of a 30 MB batch in CIFAR-10's layout
(a dict whose `data` is a 10000x3072 uint8 array pickled by Python 2: its
pixels a BINSTRING), and of the same array pickled by Python 3 at protocol
2 (`_codecs.encode(text, "latin1")`): cudash and this Python (with NumPy)
side by side, best of 5 each.

Usage: python benches/cifar_pickle.py CUDASH   (prints a markdown table)
"""

import os
import pickle
import random
import struct
import subprocess
import sys
import tempfile

CUDASH = sys.argv[1]
ROWS, COLS = 10000, 3072


def python2_batch(pixels: bytes, labels: list) -> bytes:
    """The pickle Python 2's cPickle wrote for CIFAR-10 (protocol 2)."""
    out = bytearray(b"\x80\x02}q\x00(")

    def binstring(b: bytes):
        out.extend(b"T" + struct.pack("<I", len(b)) + b)

    binstring(b"data")
    out.extend(
        b"cnumpy.core.multiarray\n_reconstruct\nq\x01cnumpy\nndarray\nq\x02K\x00\x85q\x03U\x01b\x87q\x04Rq\x05("
        b"K\x01M" + struct.pack("<H", ROWS) + b"M" + struct.pack("<H", COLS) + b"\x86q\x06"
        b"cnumpy\ndtype\nq\x07U\x02u1K\x00K\x01\x87Rq\x08(K\x03U\x01|NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89"
    )
    binstring(pixels)
    out.extend(b"tb")
    binstring(b"labels")
    out.extend(b"]q\x09(")
    for label in labels:
        out.extend(b"K" + bytes([label]))
    out.extend(b"eu.")
    return bytes(out)


LOAD = """
import pickle, time
best = 1e9
for i in range(5):
    t = time.time()
    with open({path!r}, "rb") as f:
        d = pickle.load(f, encoding="latin1")
    best = min(best, time.time() - t)
print(best, int(d["data"][ROWS - 1, COLS - 1]), d["labels"][:3])
""".replace("ROWS", str(ROWS)).replace("COLS", str(COLS))


def best(argv, path):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(LOAD.format(path=path))
    out = subprocess.run(argv + [f.name], capture_output=True, text=True, check=True).stdout
    os.unlink(f.name)
    seconds, *check = out.split(maxsplit=1)
    return float(seconds), check[0].strip()


def main():
    rng = random.Random(0)
    pixels = bytes(rng.randrange(256) for _ in range(ROWS * COLS))
    labels = [rng.randrange(10) for _ in range(ROWS)]
    tmp = tempfile.mkdtemp()
    p2 = os.path.join(tmp, "python2_batch")
    with open(p2, "wb") as f:
        f.write(python2_batch(pixels, labels))
    import numpy as np

    p3 = os.path.join(tmp, "python3_protocol2")
    with open(p3, "wb") as f:
        array = np.frombuffer(pixels, dtype=np.uint8).reshape(ROWS, COLS)
        pickle.dump({"data": array, "labels": labels}, f, protocol=2)
    print("| file | cudash (s) | CPython (s) | ratio |")
    print("|---|---|---|---|")
    for name, path in [("Python 2's batch (BINSTRING)", p2), ("Python 3, protocol 2", p3)]:
        ours, seen = best([CUDASH, "--sim-devices", "0", "script"], path)
        theirs, want = best([sys.executable], path)
        assert seen == want, (seen, want)
        print(f"| {name} | {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f} |")


main()
