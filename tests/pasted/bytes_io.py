# io.BytesIO and io.StringIO: torch.save to memory and back (as programs that
# send weights over a network, or measure a model's size, write it), pickle,
# print(file=...), and the files' own methods with Python's errors.
import io
from io import BytesIO, StringIO
import pickle
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
print(type(buffer.getvalue()).__name__, buffer.tell() == len(buffer.getvalue()))
buffer.seek(0)
state = torch.load(buffer)
print(state["weight"])
m2 = nn.Linear(3, 2)
m2.load_state_dict(torch.load(io.BytesIO(buffer.getvalue())))
print(torch.equal(m2.bias, model.bias))
# a zip archive, its records under archive/ as PyTorch names them
data = buffer.getvalue()
print(data[:2], data[30:46])
# a checkpoint dict and a tensor
buf = io.BytesIO()
torch.save({"epoch": 3, "x": torch.arange(4.)}, buf)
buf.seek(0)
print(torch.load(buf))
# pickle to memory
pb = io.BytesIO()
pickle.dump({"vocab": ["a", "b"], "n": 2}, pb)
pb.seek(0)
print(pickle.load(pb))
# a model's size in bytes, as quantization tutorials measure it
sized = io.BytesIO()
torch.save(nn.Linear(100, 10).state_dict(), sized)
print(sized.getbuffer().nbytes > 4040)
# reading what a file holds into memory
import os
import tempfile
tmp = tempfile.TemporaryDirectory()
path = os.path.join(tmp.name, "ones.pt")
torch.save(torch.ones(2), path)
with open(path, "rb") as f:
    mem = io.BytesIO(f.read())
print(torch.load(mem))
# print to a StringIO
log = io.StringIO()
print("loss", 0.5, file=log)
print(log.getvalue(), end="")
b = io.BytesIO()
print(b.write(b"hello\n"), b.write(b"world"), b.tell())
print(b.getvalue(), b.getbuffer().nbytes)
b.seek(0)
print(b.readline(), b.read(2), b.read(), b.read())
b.seek(2)
b.write(b"XY")
print(b.getvalue())
b.seek(20)
b.write(b"!")
print(b.getvalue())
print(io.BytesIO(b"a\nb\nc").readlines())
s = StringIO()
print("x =", 3, file=s)
s.write("second line\n")
print(repr(s.getvalue()))
s.seek(0)
for line in s:
    print("line:", line.rstrip())
print(type(s).__name__, type(b).__name__)
s.close()
try:
    s.getvalue()
except ValueError as e:
    print("ValueError:", e)
try:
    b.write("str")
except TypeError as e:
    print("TypeError:", e)
with io.StringIO("abc") as f:
    print(f.read(1), f.tell(), f.closed)
print(f.closed)
s = io.StringIO("abc")
for args in [(-1,), (1, 1), (1, 2), (0, 2)]:
    try:
        print(s.seek(*args))
    except (ValueError, OSError) as e:
        print(type(e).__name__, e)
try:
    io.BytesIO().seek(-1)
except ValueError as e:
    print(e)
# pickle.dumps / pickle.loads: bytes in memory
blob = pickle.dumps({"vocab": ["a", "b"], "sizes": (1, 2.5), "ok": True})
print(type(blob).__name__, pickle.loads(blob))
