//! DataLoader's workers as users can break them: no worker thread outlives
//! the loop that started it (a finished epoch, a `break`, an error, Ctrl-C),
//! and an interrupted loader loop leaves the session usable.

mod common;

use common::{ok_in, sim_session};

/// How many threads of this process are a DataLoader's workers (Linux
/// names each thread in /proc). A joined thread can stay listed for a
/// moment after `join` returns (the kernel wakes the joiner before it
/// unlists the thread), so a count above 0 is read again for up to 200 ms.
fn workers_alive() -> usize {
    let count = || {
        std::fs::read_dir("/proc/self/task")
            .map(|tasks| {
                tasks
                    .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                    .filter(|name| name.starts_with("DataLoader work"))
                    .count()
            })
            .unwrap_or(0)
    };
    let mut n = count();
    for _ in 0..40 {
        if n == 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
        n = count();
    }
    n
}

/// The tests count the process's worker threads: they run one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn no_worker_outlives_its_loop() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = sim_session(1, 1 << 30);
    ok_in(
        &mut s,
        "ds = TensorDataset(randn(64, 8), arange(64))\nn = 0\nfor xb, tb in DataLoader(ds, batch_size=4, num_workers=4) { n += 1 }\nprint(n)",
    );
    assert_eq!(workers_alive(), 0, "after a whole epoch");
    ok_in(
        &mut s,
        "for xb, tb in DataLoader(ds, batch_size=4, num_workers=4) { break }",
    );
    assert_eq!(workers_alive(), 0, "after a break");
    let o =
        s.execute("for xb, tb in DataLoader(ds, batch_size=4, num_workers=3) { undefined_name }");
    assert!(o.error.is_some());
    assert_eq!(workers_alive(), 0, "after an error in the body");
    assert_eq!(ok_in(&mut s, "print(n)").trim(), "16");
}

#[test]
fn ctrl_c_in_a_loader_loop_stops_the_workers_and_keeps_the_session() {
    use std::sync::atomic::Ordering;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = sim_session(1, 1 << 30);
    ok_in(
        &mut s,
        "ds = TensorDataset(randn(256, 64), arange(256))\nepochs = 0",
    );
    let flag = s.interrupt_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        flag.store(true, Ordering::Relaxed);
    });
    let o = s.execute(
        "while true {\n  for xb, tb in DataLoader(ds, batch_size=8, shuffle=true, num_workers=4) { y = xb * 2 }\n  epochs += 1\n}",
    );
    t.join().unwrap();
    let e = o.error.expect("the loop must be interrupted");
    assert_eq!(e.ename, "Interrupted");
    assert_eq!(workers_alive(), 0);
    assert!(ok_in(&mut s, "print(epochs >= 0, len(ds))").trim() == "True 256");
}

/// `sleep` is the host's time passing: Ctrl-C stops a long one at once.
#[test]
fn ctrl_c_stops_a_long_sleep() {
    use std::sync::atomic::Ordering;
    let mut s = sim_session(1, 1 << 30);
    let flag = s.interrupt_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        flag.store(true, Ordering::Relaxed);
    });
    let began = std::time::Instant::now();
    let o = s.execute("sleep(600)");
    t.join().unwrap();
    assert_eq!(o.error.expect("interrupted").ename, "Interrupted");
    assert!(began.elapsed().as_secs() < 10, "{:?}", began.elapsed());
    assert_eq!(ok_in(&mut s, "print(1 + 1)").trim(), "2");
}

/// `Dataset(get, n)` with workers: each worker runs the session's function
/// on its own thread; leaving the loop stops the function each worker is
/// running (a long `sleep` in it) instead of waiting for the batches
/// queued to it, and no worker outlives the loop.
#[test]
fn a_dataset_functions_workers_stop_when_the_loop_ends() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = sim_session(1, 1 << 30);
    ok_in(
        &mut s,
        "fn slow(i) {\n  if i > 0 { sleep(5) }\n  return ones(2) * i\n}\nds = Dataset(slow, 64)",
    );
    let began = std::time::Instant::now();
    ok_in(
        &mut s,
        "for b in DataLoader(ds, batch_size=1, num_workers=4) { break }",
    );
    // Each worker has two batches queued, each five seconds of sleep.
    assert!(
        began.elapsed().as_secs_f64() < 3.0,
        "the loop waited {:?} for workers to finish batches nobody asked for",
        began.elapsed()
    );
    assert_eq!(workers_alive(), 0, "after a break");
}

/// Ctrl-C while the main thread waits for a worker's function.
#[test]
fn ctrl_c_stops_a_dataset_functions_workers() {
    use std::sync::atomic::Ordering;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = sim_session(1, 1 << 30);
    ok_in(
        &mut s,
        "fn slow(i) {\n  sleep(600)\n  return ones(2)\n}\nn = 0",
    );
    let flag = s.interrupt_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        flag.store(true, Ordering::Relaxed);
    });
    let began = std::time::Instant::now();
    let o = s.execute("for b in DataLoader(Dataset(slow, 8), num_workers=2) { n += 1 }");
    t.join().unwrap();
    assert_eq!(o.error.expect("interrupted").ename, "Interrupted");
    assert!(began.elapsed().as_secs() < 10, "{:?}", began.elapsed());
    assert_eq!(workers_alive(), 0);
    assert_eq!(ok_in(&mut s, "print(n)").trim(), "0");
}

/// Every sample once per epoch, in PyTorch's order (no shuffle), whatever
/// the batch size and the number of workers; a shuffled epoch is a
/// permutation.
#[test]
fn a_dataset_functions_epoch_gives_every_sample_once() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = sim_session(1, 1 << 30);
    ok_in(&mut s, "fn get(i) { return [i, ones(2) * i] }");
    for (n, batch, workers, shuffle) in [
        (0, 3, 0, false),
        (1, 3, 2, false),
        (10, 3, 0, false),
        (10, 3, 4, false),
        (17, 4, 3, true),
        (33, 1, 8, false),
        (25, 7, 2, true),
    ] {
        let out = ok_in(
            &mut s,
            &format!(
                "seen = list()\nfor ib, xb in DataLoader(Dataset(get, {n}), batch_size={batch}, num_workers={workers}, shuffle={shuffle}) {{\n  for i in ib.tolist() {{ seen.append(i) }}\n}}\nprint(seen)"
            ),
        );
        let seen: Vec<usize> = out
            .trim()
            .trim_matches(|c| c == '[' || c == ']')
            .split(", ")
            .filter(|x| !x.is_empty())
            .map(|x| x.parse().unwrap())
            .collect();
        let mut sorted = seen.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            (0..n).collect::<Vec<_>>(),
            "n={n} batch={batch} workers={workers}"
        );
        if !shuffle {
            assert_eq!(
                seen, sorted,
                "in order: n={n} batch={batch} workers={workers}"
            );
        }
    }
    assert_eq!(workers_alive(), 0);
}

/// `it = iter(loader)` holds one pass: `next(it)` makes one batch (not the
/// pass again up to it), its workers live while the pass has batches, and
/// stop at its end or when the iterator goes, as PyTorch's iterator's.
#[test]
fn an_iterator_holds_its_pass_and_its_workers() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = sim_session(1, 1 << 30);
    ok_in(
        &mut s,
        "asked = list()\nfn get(i) { asked.append(i)\n return [i, ones(2) * i] }\nit = iter(DataLoader(Dataset(get, 10), batch_size=2))",
    );
    let out = ok_in(
        &mut s,
        "for k in range(3) { print(next(it)[0].tolist()) }\nprint(asked)\nprint(len(it))",
    );
    assert_eq!(
        out, "[0, 1]\n[2, 3]\n[4, 5]\n[0, 1, 2, 3, 4, 5]\n5",
        "each sample made once"
    );
    let out = ok_in(
        &mut s,
        "for ib, xb in it { print(ib.tolist()) }\nprint(next(it, \"end\"))",
    );
    assert_eq!(out, "[6, 7]\n[8, 9]\nend", "a loop takes the rest");

    ok_in(
        &mut s,
        "ds = TensorDataset(randn(12, 3), arange(12))\nit = iter(DataLoader(ds, batch_size=4, num_workers=3))\nfirst = next(it)",
    );
    assert_eq!(workers_alive(), 3, "while the pass has batches");
    ok_in(&mut s, "del it");
    assert_eq!(workers_alive(), 0, "after `del it`");
    ok_in(
        &mut s,
        "it = iter(DataLoader(ds, batch_size=4, num_workers=2))\nn = len(list(it))",
    );
    assert_eq!(workers_alive(), 0, "after the pass's end");
    assert_eq!(ok_in(&mut s, "print(n)").trim(), "3");
}

/// makemore's endless loader: `RandomSampler(replacement=True,
/// num_samples=10**10)` starts at once and `next` draws a batch at a time.
#[test]
fn an_endless_random_sampler_is_drawn_as_asked() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = sim_session(1, 1 << 30);
    let out = ok_in(
        &mut s,
        "ds = TensorDataset(arange(7))\nsampler = RandomSampler(ds, replacement=true, num_samples=10000000000)\nloader = DataLoader(ds, batch_size=5, sampler=sampler)\nprint(len(loader))\nit = iter(loader)\nseen = list()\nfor k in range(100) { seen.extend(next(it)[0].tolist()) }\nprint(len(seen), min(seen), max(seen), len(set(seen)))",
    );
    assert_eq!(out, "2000000000\n500 0 6 7");
}

/// A worker starts with its own copy of the session's variables, closures
/// included: a module whose attribute is a lambda holding the module (a
/// cycle through a closure's cell) is copied once, not forever, and the
/// worker's closure reads its own copy.
#[test]
fn workers_copy_closures_that_hold_their_module() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut s = sim_session(1, 1 << 30);
        let out = ok_in(
            &mut s,
            "class Block(Module) {\n  fn __init__(self) {\n    super().__init__()\n    self.fc = Linear(2, 2)\n    m = self\n    self.f = lambda x: m.fc(x)\n  }\n  fn forward(self, x) { return self.f(x) }\n}\nmodel = Block()\nfn make() {\n  seen = list()\n  fn get(i) {\n    seen.append(i)\n    return ones(2) * i\n  }\n  fn count() { return len(seen) }\n  return get, count\n}\nget, count = make()\nn = 0\nfor b in DataLoader(Dataset(get, 4), batch_size=2, num_workers=2) { n += model(b).shape[0] }\nprint(n, count())",
        );
        let _ = done.send(out);
    });
    let out = result
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the loop ended (copying the session's closures did not hang)");
    // The session's `seen` is untouched: each worker appended to its own.
    assert_eq!(out, "4 0");
}

/// A DataLoader worker prints tensors with the session's
/// `torch.set_printoptions`, as a forked PyTorch worker has its parent's.
#[test]
fn workers_print_with_the_sessions_print_options() {
    let out = common::script_lines_on(
        0,
        "worker_print_options",
        r#"import torch
from torch.utils.data import Dataset, DataLoader
torch.set_printoptions(precision=2)
class D(Dataset):
    def __len__(self):
        return 2
    def __getitem__(self, i):
        print(torch.tensor([1.23456, 2.0]) * (i + 1))
        return torch.zeros(1)
if __name__ == "__main__":
    for b in DataLoader(D(), batch_size=1, num_workers=1):
        pass
    print(torch.tensor([3.14159]))
"#,
    );
    assert_eq!(
        out,
        [
            "tensor([1.23, 2.00])",
            "tensor([2.47, 4.00])",
            "tensor([3.14])"
        ]
    );
}

/// `persistent_workers=True`: the workers of the first pass serve every
/// pass (their generators go on, what `__getitem__` changed in them stays,
/// and PyTorch draws no new worker seed from the main generator); a pass
/// left early has its batches in flight drained by the next (`self.calls`
/// jumps). Without it, each pass starts fresh workers. PyTorch 2.15's lines.
#[test]
fn persistent_workers_serve_every_pass_as_pytorchs() {
    let got = common::script_lines_on(
        0,
        "persistent_workers",
        r#"import torch
from torch.utils.data import DataLoader, Dataset


class Noise(Dataset):
    def __init__(self):
        self.calls = 0

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.calls += 1
        return torch.tensor([float(i), round(torch.rand(1).item(), 4), float(self.calls)])


torch.manual_seed(0)
for persistent in (False, True):
    loader = DataLoader(Noise(), batch_size=2, num_workers=2, persistent_workers=persistent)
    for epoch in range(3):
        for k, b in enumerate(loader):
            print(persistent, epoch, k, b[:, 1].tolist(), b[:, 2].tolist())
            if epoch == 1 and k == 0:
                break
        print("main", round(torch.rand(1).item(), 4))
try:
    DataLoader(Noise(), batch_size=2, persistent_workers=True)
except ValueError as e:
    print("ValueError:", e)
"#,
    );
    let want: Vec<&str> = r#"False 0 0 [0.7821000218391418, 0.053599998354911804] [1.0, 2.0]
False 0 1 [0.6937999725341797, 0.2980000078678131] [1.0, 2.0]
False 0 2 [0.9887999892234802, 0.1949000060558319] [3.0, 4.0]
False 0 3 [0.16689999401569366, 0.2847000062465668] [3.0, 4.0]
main 0.0885
False 1 0 [0.8937000036239624, 0.9966999888420105] [1.0, 2.0]
main 0.6341
False 2 0 [0.22949999570846558, 0.34689998626708984] [1.0, 2.0]
False 2 1 [0.9402999877929688, 0.9528999924659729] [1.0, 2.0]
False 2 2 [0.40310001373291016, 0.02290000021457672] [3.0, 4.0]
False 2 3 [0.5809000134468079, 0.5220999717712402] [3.0, 4.0]
main 0.4556
True 0 0 [0.3025999963283539, 0.14869999885559082] [1.0, 2.0]
True 0 1 [0.73580002784729, 0.4072999954223633] [1.0, 2.0]
True 0 2 [0.7483000159263611, 0.9276000261306763] [3.0, 4.0]
True 0 3 [0.5044000148773193, 0.7148000001907349] [3.0, 4.0]
main 0.4017
True 1 0 [0.36500000953674316, 0.15889999270439148] [5.0, 6.0]
main 0.0223
True 2 0 [0.8082000017166138, 0.9944000244140625] [9.0, 10.0]
True 2 1 [0.6593000292778015, 0.21539999544620514] [9.0, 10.0]
True 2 2 [0.6090999841690063, 0.1200999990105629] [11.0, 12.0]
True 2 3 [0.3424000144004822, 0.17389999330043793] [11.0, 12.0]
main 0.1689
ValueError: persistent_workers option needs num_workers > 0
"#
    .lines()
    .collect();
    assert_eq!(got, want);
}

/// `default_collate` of structured samples, as PyTorch's: a dict sample
/// gives a dict batch (each key collated, nested dicts and lists too),
/// numbers become int64/float64 tensors, strings the list of the samples'
/// (a tuple inside a list or tuple sample, as `zip` makes it), with and
/// without workers; a key the first sample has and another lacks is
/// PyTorch's `KeyError`. PyTorch 2.15's lines.
#[test]
fn dict_and_string_samples_collate_as_pytorchs() {
    let got = common::script_lines_on(
        0,
        "dict_samples",
        r#"import torch
from torch.utils.data import Dataset, DataLoader


class Records(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {
            "input_ids": torch.arange(3) + i,
            "label": i % 2,
            "score": i / 4,
            "text": f"sample {i}",
            "meta": {"id": i, "tags": [f"t{i}", i * 10]},
        }


for workers in (0, 2):
    for b in DataLoader(Records(), batch_size=2, num_workers=workers):
        print(sorted(b.keys()), b["input_ids"].tolist(), b["label"].tolist(), b["label"].dtype)
        print(b["score"].tolist(), b["score"].dtype, b["text"], b["meta"]["id"].tolist())
        print(b["meta"]["tags"][0], b["meta"]["tags"][1].tolist())


class Pairs(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return (torch.ones(2) * i, f"word{i}", [i, f"x{i}"])


for x, words, rest in DataLoader(Pairs(), batch_size=3):
    print(x.tolist(), words, rest[0].tolist(), rest[1])
for s in DataLoader(["a", "b", "c"], batch_size=2):
    print(s)


class Bad(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return {"x": torch.ones(1)} if i == 0 else {"y": torch.ones(1)}


try:
    for b in DataLoader(Bad(), batch_size=2):
        print(b)
except (RuntimeError, KeyError, ValueError) as e:
    print(type(e).__name__)
"#,
    );
    let want: Vec<&str> = r#"['input_ids', 'label', 'meta', 'score', 'text'] [[0, 1, 2], [1, 2, 3]] [0, 1] torch.int64
[0.0, 0.25] torch.float64 ['sample 0', 'sample 1'] [0, 1]
('t0', 't1') [0, 10]
['input_ids', 'label', 'meta', 'score', 'text'] [[2, 3, 4], [3, 4, 5]] [0, 1] torch.int64
[0.5, 0.75] torch.float64 ['sample 2', 'sample 3'] [2, 3]
('t2', 't3') [20, 30]
['input_ids', 'label', 'meta', 'score', 'text'] [[4, 5, 6]] [0] torch.int64
[1.0] torch.float64 ['sample 4'] [4]
('t4',) [40]
['input_ids', 'label', 'meta', 'score', 'text'] [[0, 1, 2], [1, 2, 3]] [0, 1] torch.int64
[0.0, 0.25] torch.float64 ['sample 0', 'sample 1'] [0, 1]
('t0', 't1') [0, 10]
['input_ids', 'label', 'meta', 'score', 'text'] [[2, 3, 4], [3, 4, 5]] [0, 1] torch.int64
[0.5, 0.75] torch.float64 ['sample 2', 'sample 3'] [2, 3]
('t2', 't3') [20, 30]
['input_ids', 'label', 'meta', 'score', 'text'] [[4, 5, 6]] [0] torch.int64
[1.0] torch.float64 ['sample 4'] [4]
('t4',) [40]
[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]] ('word0', 'word1', 'word2') [0, 1, 2] ('x0', 'x1', 'x2')
[[3.0, 3.0]] ('word3',) [3] ('x3',)
['a', 'b']
['c']
KeyError
"#
        .lines()
        .collect();
    assert_eq!(got, want);
}

/// `collate_fn=`: the program's function makes each batch from the list
/// of samples (on the main thread, or in the worker that made them), and
/// whatever it returns is the batch: a padded tuple, a dict with numbers
/// and strings, an instance of its own class; a TensorDataset's rows reach
/// it as tuples; its error is the worker's. PyTorch 2.15's lines.
#[test]
fn collate_fn_makes_each_batch_as_pytorchs() {
    let got = common::script_lines_on(
        0,
        "collate_fn",
        r#"import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset, TensorDataset


class Sentences(Dataset):
    def __init__(self):
        self.data = [[1, 2, 3], [4, 5], [6], [7, 8, 9, 10], [11, 12]]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return torch.tensor(self.data[i]), i % 2


def pad_batch(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True, padding_value=0), lengths, torch.tensor(labels)


for workers in (0, 2):
    for x, lengths, y in DataLoader(Sentences(), batch_size=2, collate_fn=pad_batch, num_workers=workers):
        print(workers, x.tolist(), lengths.tolist(), y.tolist())


def as_dict(batch):
    return {"ids": torch.stack([b[0] for b in batch]), "n": len(batch), "names": ["r%d" % int(b[1]) for b in batch]}


ds = TensorDataset(torch.arange(8.).view(4, 2), torch.tensor([5, 6, 7, 8]))
for b in DataLoader(ds, batch_size=3, collate_fn=as_dict):
    print(sorted(b), b["ids"].tolist(), b["n"], b["names"])


class Batch:
    def __init__(self, items):
        self.x = torch.stack([t for t, _ in items])
        self.count = len(items)


for b in DataLoader(TensorDataset(torch.ones(5, 2), torch.zeros(5)), batch_size=2, collate_fn=Batch):
    print(type(b).__name__, b.x.shape, b.count)
print(DataLoader(ds, collate_fn=as_dict).collate_fn is as_dict, DataLoader(ds, num_workers=2).num_workers)


def broken(batch):
    raise ValueError("no batches today")


try:
    for b in DataLoader(ds, batch_size=2, collate_fn=broken, num_workers=1):
        pass
except ValueError as e:
    print(str(e).startswith("Caught ValueError in DataLoader worker"))
"#,
    );
    let want: Vec<&str> = r#"0 [[1, 2, 3], [4, 5, 0]] [3, 2] [0, 1]
0 [[6, 0, 0, 0], [7, 8, 9, 10]] [1, 4] [0, 1]
0 [[11, 12]] [2] [0]
2 [[1, 2, 3], [4, 5, 0]] [3, 2] [0, 1]
2 [[6, 0, 0, 0], [7, 8, 9, 10]] [1, 4] [0, 1]
2 [[11, 12]] [2] [0]
['ids', 'n', 'names'] [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]] 3 ['r5', 'r6', 'r7']
['ids', 'n', 'names'] [[6.0, 7.0]] 1 ['r8']
Batch torch.Size([2, 2]) 2
Batch torch.Size([2, 2]) 2
Batch torch.Size([1, 2]) 1
True 2
True
"#
    .lines()
    .collect();
    assert_eq!(got, want);
}

/// Workers seed their generators as PyTorch's `_worker_loop` does: torch's
/// and Python's `random` with the pass's base seed plus the worker's id,
/// NumPy's with `_generate_state(base_seed, id)`; then `worker_init_fn(id)`
/// runs (the reproducibility recipe of PyTorch's randomness notes), where
/// `get_worker_info()` and `torch.initial_seed()` give the worker's own;
/// what it raises fails the pass. The numbers are what PyTorch 2.15 with
/// NumPy 2 printed for the same program (PyTorch's workers, processes,
/// printed both `init` lines first; cudash shows a worker's lines with the
/// batch it made).
#[test]
fn workers_seed_random_and_numpy_as_pytorch_and_run_worker_init_fn() {
    let got = common::script_lines_on(
        0,
        "worker_init",
        r#"import random
import torch
import numpy as np
from torch.utils.data import DataLoader, Dataset, get_worker_info

class Noise(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        info = get_worker_info()
        return torch.tensor([i, info.id, random.randint(0, 1000), int(np.random.randint(0, 1000))])

def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    info = get_worker_info()
    print("init", worker_id, info.id, info.num_workers, info.seed == torch.initial_seed(), type(info.dataset).__name__)
    np.random.seed(worker_seed)
    random.seed(worker_seed)

torch.manual_seed(3)
print(torch.initial_seed(), get_worker_info())
g = torch.Generator()
g.manual_seed(0)
for b in DataLoader(Noise(), batch_size=2, num_workers=2, worker_init_fn=seed_worker, generator=g):
    print(b.tolist())
def broken(worker_id):
    raise ValueError(f"worker {worker_id} cannot start")
try:
    for b in DataLoader(Noise(), batch_size=2, num_workers=2, worker_init_fn=broken):
        print(b)
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
"#,
    );
    assert_eq!(
        got,
        [
            "3 None",
            "init 0 0 2 True Noise",
            "[[0, 0, 123, 594], [1, 0, 977, 170]]",
            "init 1 1 2 True Noise",
            "[[2, 1, 733, 524], [3, 1, 691, 778]]",
            "ValueError: Caught ValueError in DataLoader worker 0 making sample 0: worker 0 cannot start",
        ]
    );
    // Without the recipe: each worker's own Python and NumPy draws, still
    // PyTorch's, and the main thread's generators untouched by them.
    let got = common::script_lines_on(
        0,
        "worker_seeds",
        r#"import random
import torch
import numpy as np
from torch.utils.data import DataLoader, Dataset

class Noise(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return torch.tensor([i, random.randint(0, 1000), int(np.random.randint(0, 1000))])

random.seed(5)
np.random.seed(5)
g = torch.Generator()
g.manual_seed(0)
for b in DataLoader(Noise(), batch_size=2, num_workers=2, generator=g):
    print(b.tolist())
print(random.randint(0, 1000), np.random.randint(0, 1000))
"#,
    );
    assert_eq!(
        got,
        [
            "[[0, 218, 522], [1, 818, 297]]",
            "[[2, 791, 234], [3, 832, 407]]",
            "637 867",
        ]
    );
}

/// A dataset whose objects hold themselves through a list (a frame's
/// columns naming their frame, as pandas' do) is copied into each worker
/// once, cycle and all: the workers read it, nothing recurses without end.
#[test]
fn a_dataset_whose_objects_hold_themselves_through_a_list_reaches_its_workers() {
    let src = r#"
import torch
from torch.utils.data import Dataset, DataLoader

class Column:
    def __init__(self, frame, k):
        self.frame = frame
        self.k = k

class Frame:
    def __init__(self, n):
        self.n = n
        self.columns = [Column(self, k) for k in range(2)]
        self.by_name = {"a": self.columns[0]}

class Rows(Dataset):
    def __init__(self):
        self.frame = Frame(6)
    def __len__(self):
        return self.frame.n
    def __getitem__(self, i):
        c = self.frame.by_name["a"]
        return torch.tensor([i * 1.0 + c.k + len(c.frame.columns)])

print([b.tolist() for b in DataLoader(Rows(), batch_size=3, num_workers=2)])
"#;
    let (out, err, ok) = common::script_streams("cycles", src);
    assert!(ok, "{err}");
    assert_eq!(out, "[[[2.0], [3.0], [4.0]], [[5.0], [6.0], [7.0]]]\n");
}

/// `multiprocessing_context=` (a start method or `mp.get_context(...)`)
/// is checked as PyTorch checks it, and torch.multiprocessing's sharing
/// strategies are remembered.
#[test]
fn a_loaders_multiprocessing_context_is_checked_as_pytorchs() {
    let src = r#"
import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset

ds = TensorDataset(torch.arange(4.0))
for ctx in ["spawn", mp.get_context("fork")]:
    print([b[0].tolist() for b in DataLoader(ds, batch_size=2, num_workers=2, multiprocessing_context=ctx)])
for kw in [dict(num_workers=0, multiprocessing_context="spawn"), dict(num_workers=1, multiprocessing_context="thread")]:
    try:
        DataLoader(ds, **kw)
    except ValueError as e:
        print(str(e).split(",")[0])
mp.set_sharing_strategy("file_system")
print(mp.get_sharing_strategy(), sorted(mp.get_all_sharing_strategies()))
"#;
    let (out, err, ok) = common::script_streams("mp_context", src);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "[[0.0, 1.0], [2.0, 3.0]]\n[[0.0, 1.0], [2.0, 3.0]]\n\
         multiprocessing_context can only be used with multi-process loading (num_workers > 0)\n\
         multiprocessing_context option should specify a valid start method in ['fork'\n\
         file_system ['file_descriptor', 'file_system']\n"
    );
}
