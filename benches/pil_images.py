"""PIL's pictures as a vision program reads them: 40 JPEGs of 500x375
(ImageNet's typical size, photo-like, quality 90, 4:2:0) in an ImageFolder
of two classes; each step timed in cudash and in this Python (with Pillow
and torchvision) side by side, best of 3:

- decode: `Image.open(p).convert("RGB")` of every file;
- resize: `img.resize((341, 256), BILINEAR)` and a 224 center crop of each;
- pipeline: one pass of a DataLoader (batch 8) over
  `ImageFolder(root, Resize(256), CenterCrop(224), ToTensor(), Normalize)`.

Usage: python benches/pil_images.py CUDASH   (prints a markdown table)
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

CUDASH = sys.argv[1]

PROGRAM = """
import os, time
from PIL import Image
import torch
from torchvision import datasets, transforms
from torch.utils.data import DataLoader
root = {root!r}
files = sorted(os.path.join(root, c, f) for c in os.listdir(root) for f in os.listdir(os.path.join(root, c)))
def best(step):
    t_best, check = 1e9, None
    for _ in range(3):
        t = time.time()
        check = step()
        t_best = min(t_best, time.time() - t)
    return t_best, check
decoded = [Image.open(p).convert("RGB") for p in files]
def decode():
    return sum(Image.open(p).convert("RGB").getpixel((7, 5))[0] for p in files)
def resize():
    total = 0
    for im in decoded:
        r = im.resize((341, 256), Image.BILINEAR)
        total += r.crop((58, 16, 282, 240)).getpixel((100, 100))[1]
    return total
tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(),
                         transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
loader = DataLoader(datasets.ImageFolder(root, transform=tf), batch_size=8)
def pipeline():
    s = 0.0
    for x, y in loader:
        s += x.double().sum().item()
    return round(s, 3)
for name, step in [("decode", decode), ("resize", resize), ("pipeline", pipeline)]:
    t, check = best(step)
    print(name, t, check)
"""


def photo(rng, h=375, w=500):
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 255 / w, y * 255 / h, 128 + 100 * np.sin(x / 17.0) * np.cos(y / 11.0)], -1)
    img = img + rng.normal(0, 20, (h, w, 3))
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), "RGB")


def run(argv, path):
    out = subprocess.run(argv + [path], capture_output=True, text=True, check=True).stdout
    return {line.split()[0]: (float(line.split()[1]), line.split()[2]) for line in out.splitlines()}


def main():
    rng = np.random.default_rng(0)
    root = tempfile.mkdtemp()
    for c in ["ants", "bees"]:
        os.makedirs(os.path.join(root, c))
        for k in range(20):
            photo(rng).save(os.path.join(root, c, f"{k}.jpg"), quality=90)
    program = os.path.join(root, "..", f"pil_bench_{os.getpid()}.py")
    with open(program, "w") as f:
        f.write(PROGRAM.format(root=root))
    ours = run([CUDASH, "--sim-devices", "0", "script"], program)
    theirs = run([sys.executable], program)
    print("| step (40 images) | cudash (s) | Python + Pillow (s) | ratio |")
    print("|---|---|---|---|")
    for step in ["decode", "resize", "pipeline"]:
        assert ours[step][1] == theirs[step][1], (step, ours[step], theirs[step])
        print(f"| {step} | {ours[step][0]:.3f} | {theirs[step][0]:.3f} | {ours[step][0] / theirs[step][0]:.2f} |")
    os.unlink(program)
    shutil.rmtree(root)


main()
