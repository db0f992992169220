//! A program's own modules: `from datautils import MyTrainDataset` where
//! `datautils.py` sits beside the script, as PyTorch's multi-file examples
//! (the DDP tutorial series, word_language_model) import theirs. Each test
//! writes a small program of two files and runs `cudash script`; the
//! expected lines are what Python 3.11 printed for the same files.

use std::path::PathBuf;
use std::process::Command;

/// A directory of its own holding `files`; the path of the first.
fn program(test: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cudash-own-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::create_dir_all(dir.join(name).parent().unwrap()).unwrap();
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir.join(files[0].0)
}

fn script(main: &PathBuf, args: &[&str]) -> (String, String, Option<i32>) {
    let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(args)
        .arg("script")
        .arg(main)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

const HELPERS: &str = "\
import torch
from torch.utils.data import Dataset

SCALE = 3
calls = 0

def scaled(x):
    return x * SCALE

def counter():
    global calls
    calls += 1
    return calls

def apply(f, x):
    return f(x)

class Samples(Dataset):
    def __init__(self, size):
        self.size = size
        self.data = [(torch.ones(4) * i, torch.tensor([float(i)])) for i in range(size)]

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return self.data[index]

if __name__ == \"__main__\":
    print(\"helpers run as a script\")
print(\"helpers imported as\", __name__)
";

/// The module runs once, in its own namespace: its `SCALE` is not the
/// program's, its functions read its globals (and `global` writes them),
/// a function of the program's passed in runs with the program's, and
/// `from ... import` of a name it lacks is Python's ImportError.
#[test]
fn a_module_runs_once_in_a_namespace_of_its_own() {
    let main = program(
        "namespace",
        &[
            (
                "main.py",
                "import helpers
from helpers import Samples, scaled, apply
SCALE = 100
def mine(x):
    return x + SCALE
print(helpers.SCALE, scaled(2), SCALE, helpers.counter(), helpers.counter(), helpers.calls)
print(apply(mine, 1), apply(scaled, 1))
import helpers
print(__name__, len(Samples(5)))
try:
    from helpers import nothing
except ImportError as e:
    print(\"ImportError:\", str(e).split(\" (\")[0])
",
            ),
            ("helpers.py", HELPERS),
        ],
    );
    let (out, err, code) = script(&main, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "helpers imported as helpers
3 6 100 1 2 2
101 3
__main__ 5
ImportError: cannot import name 'nothing' from 'helpers'
"
    );
}

/// A DataLoader's workers have the module as a forked process has it
/// (not imported again: nothing printed twice); its Dataset class feeds
/// them.
#[test]
fn workers_have_the_module_without_importing_it_again() {
    let main = program(
        "workers",
        &[
            (
                "main.py",
                "from helpers import Samples
from torch.utils.data import DataLoader
for x, y in DataLoader(Samples(6), batch_size=3, num_workers=2):
    print(x.sum().item(), y.view(-1).tolist())
",
            ),
            ("helpers.py", HELPERS),
        ],
    );
    let (out, err, code) = script(&main, &["--sim-devices", "0"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "helpers imported as helpers
12.0 [0.0, 1.0, 2.0]
48.0 [3.0, 4.0, 5.0]
"
    );
}

/// An error in the module is reported in the module's file, at its line.
#[test]
fn an_error_in_a_module_points_into_its_file() {
    let main = program(
        "error",
        &[
            ("main.py", "import broken\nprint(\"not reached\")\n"),
            ("broken.py", "x = 1\ny = x + undefined_name\n"),
        ],
    );
    let (out, err, code) = script(&main, &[]);
    assert_eq!(code, Some(1));
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("NameError"), "{err}");
    assert!(err.contains("broken.py:2"), "{err}");
}

/// An error raised by an op in a `lambda` (or a nested `def`) made while
/// a module's function runs points into the module's file, where the
/// lambda is written, not into the script that called the function.
#[test]
fn an_error_in_a_modules_lambda_points_into_its_file() {
    let main = program(
        "lambda_error",
        &[
            (
                "main.py",
                "import torch
import helper

print(helper.largest(torch.zeros(2)))
",
            ),
            (
                "helper.py",
                "def largest(x):\n    pick = lambda t: t.amax(5)\n    return pick(x)\n",
            ),
        ],
    );
    let (out, err, code) = script(&main, &[]);
    assert_eq!(code, Some(1));
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("helper.py:2:"), "{err}");
    assert!(err.contains("pick = lambda t: t.amax(5)"), "{err}");
    assert!(err.contains("main.py:4:"), "{err}");
}

/// A module first imported inside a function (`import inner` in a
/// function's body) runs at its own top level: an error in one of its
/// functions points into its file, not into the importing module's.
#[test]
fn a_module_imported_inside_a_function_keeps_its_own_file() {
    let main = program(
        "import_inside",
        &[
            (
                "main.py",
                "import outer\n\nprint(outer.run(2))\n",
            ),
            (
                "outer.py",
                "# outer\n# two lines of comments\ndef run(x):\n    import inner\n    return inner.check(x)\n",
            ),
            (
                "inner.py",
                "def check(x):\n    if x > 1:\n        raise ValueError(f\"{x} is too large\")\n    return x\n",
            ),
        ],
    );
    let (out, err, code) = script(&main, &[]);
    assert_eq!(code, Some(1));
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("ValueError: 2 is too large"), "{err}");
    assert!(err.contains("inner.py:3:"), "{err}");
    assert!(err.contains("raise ValueError"), "{err}");
    assert!(err.contains("outer.py:5:"), "{err}");
}

/// `spawn`'s ranks import the module again, as spawned processes do.
#[test]
fn spawned_ranks_import_the_module_again() {
    let main = program(
        "spawn",
        &[
            (
                "main.py",
                "import torch.multiprocessing as mp
from helpers import scaled

def work(rank, n):
    print(\"rank\", rank, scaled(n))

if __name__ == \"__main__\":
    mp.spawn(work, args=(5,), nprocs=2)
",
            ),
            ("helpers.py", HELPERS),
        ],
    );
    let (out, err, code) = script(&main, &[]);
    assert_eq!(code, Some(0), "{err}");
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "helpers imported as helpers",
            "helpers imported as helpers",
            "helpers imported as helpers",
            "rank 0 15",
            "rank 1 15"
        ]
    );
}

const SHARDS: &str = "\
import torch
from torch.utils.data import Dataset

class Shards(Dataset):
    def __init__(self, size):
        self.size = size
        self.data = [(torch.ones(8) * (i % 5) / 5, torch.ones(1) * (i % 5) / 10) for i in range(size)]

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return self.data[index]
";

/// A torchrun script in the style of PyTorch's DDP tutorial series: its
/// dataset class in a module beside it, an optimizer made before the
/// model moves to the rank's GPU, DistributedSampler with `set_epoch`
/// through `loader.sampler`, a snapshot saved by rank 0 and resumed from
/// on the next run, epochs and snapshot path from argparse.
#[test]
fn a_torchrun_script_with_a_module_trains_saves_and_resumes() {
    let main = program(
        "torchrun",
        &[
            (
                "train.py",
                "import argparse
import os
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed import init_process_group, destroy_process_group
from shards import Shards


class Trainer:
    def __init__(self, model, loader, optimizer, snapshot_path):
        self.gpu_id = int(os.environ[\"LOCAL_RANK\"])
        self.model = model.to(self.gpu_id)
        self.loader = loader
        self.optimizer = optimizer
        self.epochs_run = 0
        self.snapshot_path = snapshot_path
        if os.path.exists(snapshot_path):
            snapshot = torch.load(snapshot_path, map_location=f\"cuda:{self.gpu_id}\")
            self.model.load_state_dict(snapshot[\"MODEL_STATE\"])
            self.epochs_run = snapshot[\"EPOCHS_RUN\"]
            print(f\"[GPU{self.gpu_id}] resuming at epoch {self.epochs_run}\")
        self.model = DDP(self.model, device_ids=[self.gpu_id])

    def run_epoch(self, epoch):
        self.loader.sampler.set_epoch(epoch)
        total = 0.0
        for source, targets in self.loader:
            source, targets = source.to(self.gpu_id), targets.to(self.gpu_id)
            self.optimizer.zero_grad()
            loss = F.mse_loss(self.model(source), targets)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total

    def train(self, max_epochs):
        losses = []
        for epoch in range(self.epochs_run, max_epochs):
            losses.append(self.run_epoch(epoch))
            if self.gpu_id == 0:
                torch.save({\"MODEL_STATE\": self.model.module.state_dict(), \"EPOCHS_RUN\": epoch + 1},
                           self.snapshot_path)
        return losses


def main(total_epochs, snapshot_path):
    init_process_group(backend=\"nccl\")
    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(Shards(64), batch_size=8, shuffle=False, sampler=DistributedSampler(Shards(64)))
    trainer = Trainer(model, loader, optimizer, snapshot_path)
    losses = trainer.train(total_epochs)
    if losses:
        print(f\"[GPU{trainer.gpu_id}] {len(losses)} epochs, loss falls: {losses[-1] < losses[0]}\")
    destroy_process_group()


if __name__ == \"__main__\":
    parser = argparse.ArgumentParser(description=\"simple distributed training job\")
    parser.add_argument(\"total_epochs\", type=int, help=\"Total epochs to train the model\")
    parser.add_argument(\"--snapshot_path\", default=\"snapshot.pt\")
    args = parser.parse_args()
    main(args.total_epochs, args.snapshot_path)
",
            ),
            ("shards.py", SHARDS),
        ],
    );
    let dir = main.parent().unwrap().to_path_buf();
    let snapshot = dir.join("snap.pt");
    let launch = |epochs: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
            .args(["--sim-devices", "2", "launch", "--nproc-per-node", "2"])
            .arg(&main)
            .args([epochs, "--snapshot_path"])
            .arg(&snapshot)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let mut lines: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(String::from)
            .collect();
        lines.sort();
        (
            lines,
            String::from_utf8_lossy(&o.stderr).into_owned(),
            o.status.code(),
        )
    };
    // The optimizer made before `.to(gpu)` steps the moved parameters: the loss falls.
    let (lines, err, code) = launch("4");
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(
        lines,
        [
            "[GPU0] 4 epochs, loss falls: True",
            "[GPU1] 4 epochs, loss falls: True"
        ]
    );
    assert!(snapshot.is_file());
    let (lines, err, code) = launch("6");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        lines,
        [
            "[GPU0] 2 epochs, loss falls: True",
            "[GPU0] resuming at epoch 4",
            "[GPU1] 2 epochs, loss falls: True",
            "[GPU1] resuming at epoch 4"
        ]
    );
    std::fs::remove_dir_all(dir).ok();
}

/// Packages as Python imports them: `import app.models.net` runs
/// `app/__init__.py`, then `app/models/__init__.py` (whose relative import
/// brings in `net` once), binds `app`, and each submodule is an attribute
/// of its package; `import a.b as x` binds the submodule; a directory
/// without `__init__.py` is a namespace package.
#[test]
fn packages_bind_their_top_and_hold_their_submodules() {
    let main = program(
        "packages",
        &[
            (
                "main.py",
                "import app.models.net
print(app.NAME, app.util.twice(3), app.models.net.Net().run(4), app.models.Net is app.models.net.Net)
import app.util as u
print(u.twice(5))
from app import models
print(models.Net().run(1))
import nsp.mod
print(nsp.mod.V)
from nsp import mod
print(mod.V is nsp.mod.V)
import logging
print(logging.INFO)
",
            ),
            ("app/__init__.py", "print(\"init app\")\nfrom . import util\nNAME = \"app\"\n"),
            ("app/util.py", "def twice(x):\n    return 2 * x\n"),
            ("app/models/__init__.py", "print(\"init models\")\nfrom .net import Net\n"),
            (
                "app/models/net.py",
                "print(\"net\")\nfrom ..util import twice\nclass Net:\n    def run(self, x):\n        return twice(x)\n",
            ),
            ("nsp/mod.py", "V = 7\n"),
            // A folder named as a module of cudash's own, without
            // `__init__.py`, hides nothing (Python finds a namespace
            // package last).
            ("logging/notes.txt", "not a module\n"),
        ],
    );
    let (out, err, code) = script(&main, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "init app
init models
net
app 6 8 True
10
2
7
True
20
"
    );
}

/// `sys.path` is the list `import` searches: the script's directory
/// first, then `PYTHONPATH`'s, and a program's `sys.path.insert(0, ...)`
/// (made from `__file__`, the script's absolute path, as the examples
/// that keep their helpers in a sibling folder make it) holds for its
/// later imports. A module's `__file__` is its own file.
#[test]
fn sys_path_and_file_find_modules_where_the_program_puts_them() {
    let main = program(
        "syspath",
        &[
            (
                "app/main.py",
                "import os
import sys
here = os.path.dirname(__file__)
print(os.path.isabs(__file__), os.path.basename(__file__))
print(sys.path[0] == here, sys.path[1].endswith('extra'))
sys.path.insert(0, os.path.join(here, '..', 'lib'))
import helpers
print(helpers.twice(4), os.path.basename(helpers.__file__))
print(os.path.basename(helpers.where()))
import fromenv
print(fromenv.V)
",
            ),
            (
                "lib/helpers.py",
                "def twice(x):\n    return 2 * x\n\ndef where():\n    return __file__\n",
            ),
            ("extra/fromenv.py", "V = 'from PYTHONPATH'\n"),
        ],
    );
    let extra = main.parent().unwrap().parent().unwrap().join("extra");
    let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .arg("script")
        .arg(&main)
        .env("NO_COLOR", "1")
        .env("PYTHONPATH", &extra)
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        out,
        "True main.py
True True
8 helpers.py
helpers.py
from PYTHONPATH
"
    );
    // Without the insert, the module is not found: Python's error.
    let bare = program("syspath-bare", &[("main.py", "import helpers\n")]);
    let (_, err, code) = script(&bare, &[]);
    assert_eq!(code, Some(1));
    assert!(err.contains("helpers"), "{err}");
    std::fs::remove_dir_all(bare.parent().unwrap()).ok();
    std::fs::remove_dir_all(main.parent().unwrap().parent().unwrap()).ok();
}

/// A rank of `spawn` and a `Process` read a dataset whose class a module
/// of the program defines, through DataLoader workers of their own: each
/// worker runs the module's `__getitem__` with the module's variables
/// (the worker's copy of the one its process imported), and a module's
/// function that calls back the program's runs with the program's.
#[test]
fn ranks_and_processes_run_a_modules_dataset_in_their_workers() {
    let main = program(
        "rank_workers",
        &[
            (
                "main.py",
                "import torch
import torch.multiprocessing as mp
from helpers import Samples, apply

def twice(x):
    return 2 * x

def work(rank, ds):
    loader = torch.utils.data.DataLoader(ds, batch_size=2, num_workers=1)
    print(rank, [b.tolist() for b in loader], apply(twice, len(ds)))

if __name__ == \"__main__\":
    ds = Samples(4)
    mp.spawn(work, args=(ds,), nprocs=1)
    p = mp.Process(target=work, args=(1, ds))
    p.start()
    p.join()
",
            ),
            (
                "helpers.py",
                "import math as _m
import torch
from torch.utils.data import Dataset

SCALE = 3

class Samples(Dataset):
    def __init__(self, size):
        self.size = size

    def __len__(self):
        return self.size

    def __getitem__(self, i):
        return torch.tensor([_m.sqrt(i) * SCALE])

def apply(f, x):
    return f(x)
",
            ),
        ],
    );
    let (out, err, code) = script(&main, &[]);
    assert_eq!(code, Some(0), "{err}");
    let want = "[[[0.0], [3.0]], [[4.242640495300293], [5.196152210235596]]] 8";
    assert_eq!(out, format!("0 {want}\n1 {want}\n"), "{err}");
}

/// An import cycle, as Python's: the module imported back finds what its
/// body has defined so far (its class, its constant), and a name it has
/// not defined yet is Python's "partially initialized module" error with
/// a hint.
#[test]
fn an_import_cycle_finds_the_module_half_made() {
    let main = program(
        "cycle",
        &[
            (
                "main.py",
                "import a\nprint(a.Y, a.Sub.__name__, issubclass(a.Sub, a.Base))\n",
            ),
            (
                "a.py",
                "X = 1\nclass Base:\n    pass\nfrom b import Y, Sub\n",
            ),
            (
                "b.py",
                "from a import X, Base\nY = X + 1\nclass Sub(Base):\n    pass\n",
            ),
        ],
    );
    let (out, err, code) = script(&main, &[]);
    assert_eq!((out.as_str(), code), ("2 Sub True\n", Some(0)), "{err}");
    let main = program(
        "cycle_early",
        &[
            ("main.py", "import a\n"),
            ("a.py", "from b import Y\nZ = 3\n"),
            ("b.py", "from a import Z\nY = Z\n"),
        ],
    );
    let (_, err, code) = script(&main, &[]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("ImportError: cannot import name 'Z' from partially initialized module 'a' (most likely due to a circular import)"),
        "{err}"
    );
    assert!(err.contains("before it defines `Z`"), "{err}");
}
