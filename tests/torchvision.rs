//! cudash's torchvision (`src/eval/stdlib/torchvision*.py`): MNIST read
//! from torchvision's own file layout, downloaded from a mirror, its
//! transforms, `save_image`, and a training program written the way
//! PyTorch's MNIST example writes one. Every expected line is what
//! PyTorch 2.15 with torchvision 0.29 printed for the same program over
//! the same files (the synthetic MNIST files `mnist_files` writes).

use std::io::Read;
use std::path::{Path, PathBuf};

/// A small MNIST in torchvision's layout (`root/MNIST/raw/...`): 96
/// training and 40 test images of 28×28 bytes, labels `(7i + 3) mod 10`,
/// each image a bright column at the label's place over a pattern.
fn mnist_files(root: &Path, name: &str) -> PathBuf {
    let raw = root.join(name).join("raw");
    std::fs::create_dir_all(&raw).unwrap();
    let label = |i: usize| (i * 7 + 3) % 10;
    let pixel = |i: usize, y: usize, x: usize| -> u8 {
        if x == 4 + 2 * label(i) {
            255
        } else if (x + y + i).is_multiple_of(3) {
            ((i * 37 + y * 11 + x * 7 + (x * y) % 13) % 256) as u8
        } else {
            0
        }
    };
    let idx = |dims: &[u32], body: Vec<u8>| {
        let mut b = vec![0, 0, 8, dims.len() as u8];
        for d in dims {
            b.extend_from_slice(&d.to_be_bytes());
        }
        b.extend(body);
        b
    };
    for (split, n, first) in [("train", 96, 0), ("t10k", 40, 1000)] {
        let images = (first..first + n)
            .flat_map(|i| (0..28).flat_map(move |y| (0..28).map(move |x| (i, y, x))))
            .map(|(i, y, x)| pixel(i, y, x))
            .collect();
        let labels = (first..first + n).map(|i| label(i) as u8).collect();
        std::fs::write(
            raw.join(format!("{split}-images-idx3-ubyte")),
            idx(&[n as u32, 28, 28], images),
        )
        .unwrap();
        std::fs::write(
            raw.join(format!("{split}-labels-idx1-ubyte")),
            idx(&[n as u32], labels),
        )
        .unwrap();
    }
    raw
}

/// A directory of its own for one test, removed first.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cudash-tv-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `cudash --sim-devices N script prog.py ARGS` of `src` in `dir`: stdout,
/// stderr, success.
fn run_in(dir: &Path, devices: u32, src: &str, args: &[&str]) -> (String, String, bool) {
    std::fs::write(dir.join("prog.py"), src).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(["--sim-devices", &devices.to_string(), "script", "prog.py"])
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.success(),
    )
}

/// Python's object addresses (`at 0x7F43...`) differ from run to run.
fn without_addresses(text: &str) -> String {
    text.lines()
        .map(|l| match (l.find(" at 0x"), l.rfind('>')) {
            (Some(a), Some(z)) if a < z => format!("{} at 0x…{}", &l[..a], &l[z..]),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn mnist_reads_torchvision_files_and_prints_as_torchvision() {
    let dir = fresh_dir("datasets");
    mnist_files(&dir.join("data"), "MNIST");
    let (out, err, ok) = run_in(&dir, 0, DATASETS, &[]);
    assert!(ok && err.is_empty(), "{err}");
    assert_eq!(without_addresses(&out), DATASETS_TORCH);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn transforms_crop_flip_and_pad_the_pixels_torchvision_does() {
    let dir = fresh_dir("transforms");
    mnist_files(&dir.join("data"), "MNIST");
    let (out, err, ok) = run_in(&dir, 0, TRANSFORMS, &[]);
    assert!(ok && err.is_empty(), "{err}");
    assert_eq!(out, TRANSFORMS_TORCH);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn download_takes_the_first_mirror_that_has_the_file_and_checks_its_md5() {
    use std::io::Write;
    let dir = fresh_dir("download");
    let raw = mnist_files(&dir.join("src"), "MNIST");
    let mirror = dir.join("mirror");
    std::fs::create_dir_all(&mirror).unwrap();
    let mut src = DOWNLOAD.replace("MIRROR", mirror.to_str().unwrap());
    let files = [
        "train-images-idx3-ubyte",
        "train-labels-idx1-ubyte",
        "t10k-images-idx3-ubyte",
        "t10k-labels-idx1-ubyte",
    ];
    for (k, f) in files.iter().enumerate() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&std::fs::read(raw.join(f)).unwrap()).unwrap();
        let gz = gz.finish().unwrap();
        src = src.replace(&format!("MD5_{k}"), &format!("{:x}", md5::compute(&gz)));
        std::fs::write(mirror.join(format!("{f}.gz")), gz).unwrap();
    }
    let (out, err, ok) = run_in(&dir, 0, &src, &[]);
    assert!(ok, "{err}");
    // PyTorch's lines, its mirror (served over http) there named as ours.
    let want = DOWNLOAD_TORCH
        .replace(
            "http://127.0.0.1:8765/nothing/",
            "file:///nonexistent/cudash-mirror/",
        )
        .replace(
            "http://127.0.0.1:8765/",
            &format!("file://{}/", mirror.display()),
        );
    assert_eq!(out, want);
    // Each of the four files is tried at the first mirror, which has none,
    // then fetched from the second; then the corrupt one once more.
    assert_eq!(
        err.matches("Downloading file:///nonexistent/").count(),
        5,
        "{err}"
    );
    let from_mirror = format!("Downloading file://{}/", mirror.display());
    assert_eq!(err.matches(&from_mirror).count(), 5, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pixels of a PNG of 8-bit RGB as `save_image` writes it (filter
/// 0 on every row): width, height and the bytes.
fn png_pixels(path: &Path) -> (u32, u32, Vec<u8>) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
    let (mut at, mut w, mut h, mut data) = (8, 0, 0, Vec::new());
    while at < b.len() {
        let len = u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize;
        let kind = &b[at + 4..at + 8];
        let body = &b[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                w = u32::from_be_bytes(body[0..4].try_into().unwrap());
                h = u32::from_be_bytes(body[4..8].try_into().unwrap());
                assert_eq!(&body[8..10], &[8, 2], "8-bit RGB");
            }
            b"IDAT" => data.extend_from_slice(body),
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&data[..])
        .read_to_end(&mut raw)
        .unwrap();
    let row = 1 + 3 * w as usize;
    assert_eq!(raw.len(), row * h as usize);
    let pixels = raw
        .chunks(row)
        .flat_map(|r| {
            assert_eq!(r[0], 0, "filter none");
            r[1..].to_vec()
        })
        .collect();
    (w, h, pixels)
}

#[test]
fn save_image_writes_the_pixels_torchvision_writes() {
    let dir = fresh_dir("save");
    mnist_files(&dir.join("data"), "MNIST");
    let (out, err, ok) = run_in(&dir, 0, SAVE, &[]);
    assert!(ok && err.is_empty(), "{err}");
    assert_eq!(out, SAVE_TORCH);
    // Size, pixel sum and a position-weighted sum of the PNGs torchvision
    // wrote for the same program, as PIL reads them back.
    for (file, w, h, sum, weighted) in [
        ("grid.png", 122, 92, 1166742u64, 145290521u64),
        ("norm.png", 88, 30, 460134, 54796256),
        ("one.png", 7, 5, 13085, 683534),
    ] {
        let (pw, ph, pixels) = png_pixels(&dir.join(file));
        assert_eq!((pw, ph), (w, h), "{file}");
        let s: u64 = pixels.iter().map(|&p| u64::from(p)).sum();
        let ws: u64 = pixels
            .iter()
            .enumerate()
            .map(|(k, &p)| u64::from(p) * (k as u64 % 251))
            .sum();
        assert_eq!((s, ws), (sum, weighted), "{file}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `got`'s lines are `want`'s, each number within `tol` of PyTorch's
/// relatively (a float sum's order differs in the last places).
fn close_lines(got: &str, want: &str, tol: f64) {
    let split = |l: &str| -> (String, Vec<f64>) {
        let mut text = String::new();
        let mut nums = Vec::new();
        for word in l.split(|c: char| {
            c == ' '
                || c == '/'
                || c == '('
                || c == ')'
                || c == ','
                || c == '['
                || c == ']'
                || c == '%'
        }) {
            match word.parse::<f64>() {
                Ok(v) => nums.push(v),
                Err(_) => text.push_str(word),
            }
        }
        (text, nums)
    };
    let (g, w): (Vec<_>, Vec<_>) = (got.lines().collect(), want.lines().collect());
    assert_eq!(g.len(), w.len(), "{got}");
    for (a, b) in g.iter().zip(&w) {
        let ((ta, na), (tb, nb)) = (split(a), split(b));
        assert_eq!(ta, tb, "{a} / {b}");
        assert_eq!(na.len(), nb.len(), "{a} / {b}");
        for (x, y) in na.iter().zip(&nb) {
            assert!((x - y).abs() <= tol * y.abs().max(1.0), "{a} / {b}");
        }
    }
}

#[test]
fn an_mnist_program_trains_as_pytorch_with_and_without_persistent_workers() {
    let dir = fresh_dir("train");
    mnist_files(&dir.join("data"), "MNIST");
    let (out, err, ok) = run_in(&dir, 0, TRAIN, &[]);
    assert!(ok && err.is_empty(), "{err}");
    assert_eq!(out, TRAIN_TORCH_NO_WORKERS);
    let (out, err, ok) = run_in(&dir, 0, TRAIN, &["--workers", "2"]);
    assert!(ok && err.is_empty(), "{err}");
    close_lines(&out, TRAIN_TORCH_TWO_WORKERS, 1e-3);
    // On a GPU: pinned batches from persistent workers, the model on cuda.
    let (out, err, ok) = run_in(&dir, 1, TRAIN, &["--workers", "2", "--cuda"]);
    assert!(ok && err.is_empty(), "{err}");
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("test: average loss"))
            .count(),
        2,
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

const DATASETS: &str = r#"import torch
from torchvision import datasets, transforms

transform = transforms.Compose([
    transforms.ToTensor(),
    transforms.Normalize((0.1307,), (0.3081,)),
])
train = datasets.MNIST("data", train=True, download=True, transform=transform)
test = datasets.MNIST("data", train=False)
print(train)
print(test)
print(len(train), len(test), list(train.data.shape), train.targets[:12].tolist())
print(train.data.dtype, train.targets.dtype, train.data.element_size())
print(train.classes[3], train.class_to_idx["7 - seven"], type(train).__name__)
img, label = test[5]
print(img, img.size, img.mode, label, img.getpixel((4, 0)), img.getpixel((14, 3)))
x, y = train[0]
print(list(x.shape), x.dtype, y, round(x.sum().item(), 3))
print([round(v, 4) for v in x[0, 0, :8].tolist()])
torch.manual_seed(0)
loader = torch.utils.data.DataLoader(train, batch_size=32, shuffle=True)
for data, target in loader:
    print(list(data.shape), target[:8].tolist(), round(data.mean().item(), 5))
"#;

const DATASETS_TORCH: &str = r#"Dataset MNIST
    Number of datapoints: 96
    Root location: data
    Split: Train
    StandardTransform
Transform: Compose(
               ToTensor()
               Normalize(mean=(0.1307,), std=(0.3081,))
           )
Dataset MNIST
    Number of datapoints: 40
    Root location: data
    Split: Test
96 40 [96, 28, 28] [3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0]
torch.uint8 torch.int64 1
3 - three 7 MNIST
<PIL.Image.Image image mode=L size=28x28 at 0x…> (28, 28) L 8 0 0
[1, 28, 28] torch.float32 3 165.104
[-0.4242, -0.4242, -0.4242, -0.1569, -0.4242, -0.4242, 0.1104, -0.4242]
[32, 1, 28, 28] [3, 1, 2, 2, 6, 4, 4, 5] 0.2105
[32, 1, 28, 28] [2, 6, 3, 6, 1, 0, 3, 0] 0.21533
[32, 1, 28, 28] [3, 1, 6, 9, 7, 2, 9, 7] 0.21322
"#;

const TRANSFORMS: &str = r#"import torch
from torchvision import datasets, transforms
import torchvision.transforms.functional as TF

test = datasets.MNIST("data", train=False)
img, _ = test[3]
t = TF.to_tensor(img)
print(round(t.mean().item(), 5), list(TF.pil_to_tensor(img).shape), TF.pil_to_tensor(img).dtype == t.dtype)
print(TF.pil_to_tensor(img).dtype, transforms.PILToTensor()(img).dtype)
torch.manual_seed(0)
aug = transforms.Compose([
    transforms.RandomCrop(24, padding=2),
    transforms.RandomHorizontalFlip(),
    transforms.RandomVerticalFlip(p=0.3),
    transforms.ToTensor(),
])
print(aug)
for i in range(4):
    print(round(aug(img).sum().item(), 4))
print(transforms.CenterCrop(20)(img).size, transforms.CenterCrop((30, 31))(img).size, transforms.Pad((1, 2), fill=7)(img).size)
print(transforms.Pad(3, padding_mode="reflect")(img).getpixel((0, 0)), transforms.Pad(3, padding_mode="edge")(img).getpixel((0, 5)))
print(TF.pad(t, [1, 2, 3, 4], padding_mode="reflect").sum().item(), list(TF.pad(t, 2, padding_mode="symmetric").shape))
print([round(v, 4) for v in TF.pad(t, 3, padding_mode="edge")[0, 4, :6].tolist()])
print(round(TF.center_crop(t, 30).sum().item(), 4), list(TF.crop(t, -2, 3, 10, 30).shape), round(TF.hflip(t)[0, 3, 1].item(), 4))
p = transforms.ToPILImage()(torch.rand(3, 4, 5))
print(p.mode, p.size, p.getpixel((1, 1)), transforms.Grayscale()(p).getpixel((1, 1)))
print(transforms.Grayscale(num_output_channels=3)(p).getpixel((2, 3)))
fake = datasets.FakeData(size=4, image_size=(3, 8, 8), transform=transforms.ToTensor())
fx, fy = fake[2]
print(len(fake), list(fx.shape), fy, round(fx.sum().item(), 4))
print(transforms.Lambda(lambda v: v * 2), transforms.Pad(2), transforms.CenterCrop(5), transforms.ToPILImage())
print(transforms.Normalize([0.5, 0.5, 0.5], [0.2, 0.2, 0.2]), transforms.Grayscale(3))
print(round(transforms.Normalize([0.5, 0.5, 0.5], [0.2, 0.2, 0.2])(TF.to_tensor(p)).sum().item(), 4))
try:
    transforms.Normalize((0.5,), (0.2,))(img)
except TypeError as e:
    print("TypeError:", e)
try:
    TF.to_tensor(t)
except TypeError as e:
    print("TypeError:", e)
try:
    transforms.RandomCrop(40)(img)
except ValueError as e:
    print("ValueError:", e)
"#;

const TRANSFORMS_TORCH: &str = r#"0.19328 [1, 28, 28] False
torch.uint8 torch.uint8
Compose(
    RandomCrop(size=(24, 24), padding=2)
    RandomHorizontalFlip(p=0.5)
    RandomVerticalFlip(p=0.3)
    ToTensor()
)
100.502
110.7176
104.1137
115.702
(20, 20) (31, 30) (30, 32)
0 13
204.3411865234375 [1, 32, 32]
[0.0, 0.0, 0.0, 0.0, 0.0392, 0.0]
151.5294 [1, 10, 30] 0.8078
RGB (5, 4) (101, 149, 51) 123
(131, 131, 131)
4 [3, 8, 8] 2 91.6275
Lambda() Pad(padding=2, fill=0, padding_mode=constant) CenterCrop(size=(5, 5)) ToPILImage()
Normalize(mean=[0.5, 0.5, 0.5], std=[0.2, 0.2, 0.2]) Grayscale(num_output_channels=3)
6.9216
TypeError: img should be Tensor Image. Got <class 'PIL.Image.Image'>
TypeError: pic should be PIL Image or ndarray. Got <class 'torch.Tensor'>
ValueError: Required crop size (40, 40) is larger than input image size (28, 28)
"#;

const DOWNLOAD: &str = r#"import os
from torchvision import datasets


class Mirrored(datasets.MNIST):
    mirrors = ["file:///nonexistent/cudash-mirror/", "file://MIRROR/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "MD5_0"),
        ("train-labels-idx1-ubyte.gz", "MD5_1"),
        ("t10k-images-idx3-ubyte.gz", "MD5_2"),
        ("t10k-labels-idx1-ubyte.gz", "MD5_3"),
    ]


train = Mirrored("data", train=True, download=True)
print(len(train), sorted(os.listdir(os.path.join("data", "Mirrored", "raw"))))
test = Mirrored("data", train=False, download=True)
print(len(test), train.targets[:5].tolist(), test[1][1])
print(train)


class Corrupt(Mirrored):
    resources = [("train-images-idx3-ubyte.gz", "0" * 32)] + Mirrored.resources[1:]


try:
    Corrupt("elsewhere", download=True)
except RuntimeError as e:
    lines = str(e).splitlines()
    print(lines[0])
    print(lines[1], lines[3])
    print(lines[4])
try:
    datasets.MNIST("nothing-here")
except RuntimeError as e:
    print(e)
"#;

const DOWNLOAD_TORCH: &str = r#"96 ['t10k-images-idx3-ubyte', 't10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte', 't10k-labels-idx1-ubyte.gz', 'train-images-idx3-ubyte', 'train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte', 'train-labels-idx1-ubyte.gz']
40 [3, 0, 7, 4, 1] 0
Dataset Mirrored
    Number of datapoints: 96
    Root location: data
    Split: Train
Error downloading train-images-idx3-ubyte.gz:
Tried http://127.0.0.1:8765/nothing/, got: Tried http://127.0.0.1:8765/, got:
File not found or corrupted.
Dataset not found. You can use download=True to download it
"#;

const SAVE: &str = r#"import torch
from torchvision import datasets, transforms
from torchvision.utils import make_grid, save_image

test = datasets.MNIST("data", train=False, transform=transforms.ToTensor())
x = torch.stack([test[i][0] for i in range(10)])
grid = make_grid(x, nrow=4)
print(list(grid.shape), round(grid.sum().item(), 3))
save_image(x, "grid.png", nrow=4)
save_image(x[:3] * 2 - 1, "norm.png", normalize=True, padding=1, pad_value=0.5)
torch.manual_seed(0)
save_image(torch.rand(3, 5, 7), "one.png")
print(list(make_grid([x[0], x[1]], padding=0).shape), list(make_grid(x[0]).shape))
"#;

const SAVE_TORCH: &str = r#"[3, 92, 122] 4575.459
[3, 28, 56] [3, 28, 28]
"#;

const TRAIN: &str = r#""""A small convolutional classifier trained on MNIST's files, written the
way PyTorch's MNIST example and tutorials write one."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torchvision import datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 12 * 12, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.dropout(torch.flatten(x, 1))
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


def train(model, device, loader, optimizer, epoch, log_interval):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print(f"epoch {epoch} [{batch_idx * len(data)}/{len(loader.dataset)}] loss {loss.item():.4f}")


def test(model, device, loader):
    model.eval()
    total, correct = 0.0, 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            total += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    n = len(loader.dataset)
    print(f"test: average loss {total / n:.4f}, accuracy {correct}/{n} ({100. * correct / n:.0f}%)")


def main():
    parser = argparse.ArgumentParser(description="MNIST, small")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--cuda", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(1)
    device = torch.device("cuda" if args.cuda else "cpu")
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_set = datasets.MNIST("data", train=True, download=True, transform=transform)
    test_set = datasets.MNIST("data", train=False, transform=transform)
    kwargs = {"batch_size": 16, "shuffle": True}
    if args.workers:
        kwargs.update({"num_workers": args.workers, "persistent_workers": True, "pin_memory": args.cuda})
    train_loader = torch.utils.data.DataLoader(train_set, **kwargs)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=20)
    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(1, args.epochs + 1):
        train(model, device, train_loader, optimizer, epoch, log_interval=2)
        test(model, device, test_loader)
        scheduler.step()


if __name__ == "__main__":
    main()
"#;

const TRAIN_TORCH_NO_WORKERS: &str = r#"epoch 1 [0/96] loss 2.3527
epoch 1 [32/96] loss 2.2702
epoch 1 [64/96] loss 2.2467
test: average loss 2.0788, accuracy 18/40 (45%)
epoch 2 [0/96] loss 2.1270
epoch 2 [32/96] loss 1.9700
epoch 2 [64/96] loss 1.4512
test: average loss 0.6966, accuracy 40/40 (100%)
"#;

const TRAIN_TORCH_TWO_WORKERS: &str = r#"epoch 1 [0/96] loss 2.3527
epoch 1 [32/96] loss 2.2702
epoch 1 [64/96] loss 2.2467
test: average loss 2.0788, accuracy 18/40 (45%)
epoch 2 [0/96] loss 2.0728
epoch 2 [32/96] loss 1.9089
epoch 2 [64/96] loss 1.2806
test: average loss 0.6318, accuracy 40/40 (100%)
"#;

/// `torchvision.models`: a seeded ResNet-18 holds torchvision's numbers
/// (its construction and `self.modules()` initialisation draw in
/// torchvision's order) and computes torchvision's outputs; ResNet-50's
/// state_dict has torchvision's names. Expected lines: what torchvision
/// 0.29.2 with PyTorch 2.15 printed for the same program.
#[test]
fn models_hold_and_compute_torchvisions_numbers() {
    let dir = fresh_dir("models");
    let (out, err, ok) = run_in(&dir, 0, MODELS, &[]);
    assert!(ok && err.is_empty(), "{err}");
    assert_eq!(out, MODELS_TORCH);
    let _ = std::fs::remove_dir_all(&dir);
}

const MODELS: &str = r#"import torch
from torchvision import models
torch.manual_seed(0)
m = models.resnet18(num_classes=10)
n = sum(p.numel() for p in m.parameters())
print(n, round(sum(p.sum().item() for p in m.parameters()), 4))
x = torch.randn(2, 3, 32, 32)
m.eval()
y = m(x)
print([round(v, 4) for v in y[0].tolist()])
print(models.ResNet18_Weights.DEFAULT, models.ResNet50_Weights.DEFAULT.url, models.ResNet18_Weights.IMAGENET1K_V1.meta["num_params"])
r = models.resnet50(num_classes=7)
print(sum(p.numel() for p in r.parameters()), len(r.state_dict()), list(r.state_dict())[:6])
print(m.layer2[0].downsample)
"#;

const MODELS_TORCH: &str = r#"11181642 4663.0477
[-0.2247, 0.0917, -0.3879, 0.029, -0.8435, -0.8848, 0.1459, -0.0432, 0.1322, 0.2266]
ResNet18_Weights.IMAGENET1K_V1 https://download.pytorch.org/models/resnet50-11ad3fa6.pth 11689512
23522375 320 ['conv1.weight', 'bn1.weight', 'bn1.bias', 'bn1.running_mean', 'bn1.running_var', 'bn1.num_batches_tracked']
Sequential(
  (0): Conv2d(64, 128, kernel_size=(1, 1), stride=(2, 2), bias=False)
  (1): BatchNorm2d(128, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
)
"#;

/// Trained weights come from `torch.hub`'s cache (`hub/checkpoints/` under
/// `torch.hub.get_dir()`), loaded without a download when the file is
/// there: by enum member, by name, and through `pretrained=True` with
/// torchvision's two deprecation warnings; an unknown name is torchvision's
/// KeyError, another model's weights its TypeError; `transforms()` is
/// torchvision's ImageClassification (resized to 232 for V2 weights).
#[test]
fn weights_load_from_the_hub_cache() {
    let dir = fresh_dir("weights");
    // The transforms' numbers are torchvision 0.29.2's for the same photo.
    let photo = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pil/photo.jpg");
    let src = WEIGHTS.replace("PHOTO", &format!("{:?}", photo.display().to_string()));
    let (out, err, ok) = run_in(&dir, 0, &src, &[]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "True 1000\nTrue\nTrue\nResNet18_Weights.IMAGENET1K_V1\nKeyError 'IMAGENET1K_V9'\n\
         TypeError Invalid Weight class provided; expected ResNet18_Weights but received ResNet50_Weights.\n\
         ImageClassification(\n    crop_size=[224]\n    resize_size=[232]\n    mean=[0.485, 0.456, 0.406]\n    \
         std=[0.229, 0.224, 0.225]\n    interpolation=InterpolationMode.BILINEAR\n)\n\
         [256] (3, 224, 224) 24674.609518 -0.022409\n"
    );
    assert!(!out.contains("Downloading"), "{out}");
    assert!(
        err.contains("UserWarning: The parameter 'pretrained' is deprecated since 0.13")
            && err.contains("The current behavior is equivalent to passing `weights=ResNet18_Weights.IMAGENET1K_V1`."),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

const WEIGHTS: &str = r#"import os
import torch
from PIL import Image
from torchvision import models
torch.hub.set_dir("hub")
os.makedirs("hub/checkpoints", exist_ok=True)
torch.manual_seed(1)
saved = models.resnet18()
torch.save(saved.state_dict(), "hub/checkpoints/resnet18-f37072fd.pth")
m = models.resnet18(weights=models.ResNet18_Weights.IMAGENET1K_V1)
print(torch.equal(m.fc.weight, saved.fc.weight), m.fc.out_features)
m2 = models.resnet18(weights="DEFAULT")
print(torch.equal(m2.conv1.weight, saved.conv1.weight))
m3 = models.resnet18(pretrained=True)
print(torch.equal(m3.layer4[1].bn2.running_var, saved.layer4[1].bn2.running_var))
print(models.ResNet18_Weights.verify("ResNet18_Weights.DEFAULT"))
for bad in ("IMAGENET1K_V9", models.ResNet50_Weights.DEFAULT):
    try:
        models.resnet18(weights=bad)
    except (KeyError, TypeError) as e:
        print(type(e).__name__, e)
print(models.ResNet50_Weights.DEFAULT.transforms())
t = models.ResNet18_Weights.DEFAULT.transforms()
x = t(Image.open(PHOTO))
print(t.resize_size, tuple(x.shape), f"{x.double().sum().item():.6f}", f"{x[1, 100, 37].item():.6f}")
"#;
