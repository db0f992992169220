//! `torch.multiprocessing.Process` (and Python's `multiprocessing.Process`):
//! processes that start one `start()` at a time and share what their
//! arguments hold, a process's error printed as Python's child prints it,
//! a process group over processes, and a group that cannot go on reported
//! instead of hung. (tests/pasted/hogwild.py holds the same beside PyTorch.)

mod common;

use common::{script_streams, script_streams_on};

/// An error in a process is the child's report on stderr ("Process
/// Process-1:"), its `exitcode` 1; `sys.exit(3)` is exit code 3 and no
/// report; the program goes on.
#[test]
fn a_process_that_raises_reports_on_stderr_and_the_program_goes_on() {
    let src = r#"
import sys
import multiprocessing as mp

def bad(n):
    return n / 0

def leave(code):
    sys.exit(code)

if __name__ == "__main__":
    p = mp.Process(target=bad, args=(3,))
    print(p)
    p.start()
    p.join()
    q = mp.Process(target=leave, args=(3,), name="leaver")
    q.start()
    q.join()
    print(p.exitcode, q.exitcode, p.is_alive(), q.name)
    print(repr(p).split(" pid=")[0], repr(p).endswith("stopped exitcode=1>"))
"#;
    let (out, err, ok) = script_streams("raises", src);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("<Process name='Process-1' parent="),
        "{out}"
    );
    assert!(lines[0].ends_with(" initial>"), "{out}");
    assert_eq!(lines[1], "1 3 False leaver");
    assert_eq!(lines[2], "<Process name='Process-1' True");
    assert!(
        err.starts_with("Process Process-1:\nZeroDivisionError"),
        "{err}"
    );
    assert!(err.contains("return n / 0"), "{err}");
    assert!(!err.contains("leaver"), "{err}");
}

/// The processes that run together form a group; one that waits for a
/// rank never started while the program waits in `join()` is reported.
#[test]
fn a_group_over_processes_and_one_that_cannot_form_is_reported() {
    let src = r#"
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

def work(rank, size, out):
    dist.init_process_group("gloo", rank=rank, world_size=size)
    t = torch.tensor([rank + 1.0])
    dist.all_reduce(t)
    out[rank] = t[0]
    out[size + rank] = os.getpid()
    dist.destroy_process_group()

if __name__ == "__main__":
    out = torch.zeros(6, dtype=torch.float64)
    ps = [mp.Process(target=work, args=(r, 3, out)) for r in range(3)]
    ps[0].start()
    ps[0].join(timeout=0.05)
    print("waits for the others:", ps[0].is_alive(), ps[0].exitcode)
    for p in ps[1:]:
        p.start()
    for p in ps:
        p.join()
    print(out[:3].tolist(), [p.exitcode for p in ps])
    pids = [int(x) for x in out[3:].tolist()]
    print(pids == [p.pid for p in ps], len(set(pids + [os.getpid()])))
    lonely = mp.Process(target=work, args=(0, 2, out))
    lonely.start()
    lonely.join()
    print("lonely", lonely.exitcode)
"#;
    let (out, err, ok) = script_streams("group", src);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "waits for the others: True None\n[6.0, 6.0, 6.0] [0, 0, 0]\nTrue 4\nlonely 1\n"
    );
    assert!(err.starts_with("Process Process-4:\n"), "{err}");
    assert!(
        err.contains("the processes wait for each other and none can go on"),
        "{err}"
    );
    assert!(
        err.contains("rank 0: waits in init_process_group at line 8"),
        "{err}"
    );
    assert!(
        err.contains("the main process: waits for them (in join()"),
        "{err}"
    );
}

/// One model passed to each process is trained by all (its parameters
/// shared, its gradients each process's own); a tensor of the program's
/// that is not passed may be read and not written, as a spawned child's
/// copy would be its own; a subclass's `run` holds what its `__init__` kept.
#[test]
fn what_a_process_is_passed_it_shares_and_the_rest_it_only_reads() {
    let src = r#"
import torch
import torch.multiprocessing as mp

class Adder(mp.Process):
    def __init__(self, target_tensor, k):
        super().__init__()
        self.t = target_tensor
        self.k = k

    def run(self):
        with torch.no_grad():
            self.t += self.k

def step(model):
    model(torch.ones(1, 2)).sum().backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= p.grad

def touch():
    with torch.no_grad():
        kept.add_(1)

if __name__ == "__main__":
    model = torch.nn.Linear(2, 1)
    with torch.no_grad():
        model.weight.fill_(1.0)
        model.bias.zero_()
    model.share_memory()
    for _ in range(2):
        p = mp.Process(target=step, args=(model,))
        p.start()
        p.join()
    print(model.weight.tolist(), model.bias.tolist(), model.weight.grad)
    w = torch.zeros(2)
    adders = [Adder(w, k) for k in (1, 2)]
    for a in adders:
        a.start()
    for a in adders:
        a.join()
    print(w.tolist())
    kept = torch.zeros(1)
    p = mp.Process(target=touch)
    p.start()
    p.join()
    print(kept.tolist(), p.exitcode)
"#;
    let (out, err, ok) = script_streams("shares", src);
    assert!(ok, "{err}");
    assert_eq!(
        out, "[[-1.0, -1.0]] [-2.0] None\n[3.0, 3.0]\n[0.0] 1\n",
        "{err}"
    );
    assert!(
        err.contains("cannot change the session's tensors in place"),
        "{err}"
    );
}

/// A process cannot start one of its own here; processes never joined are
/// joined when the program ends (their lines come out then).
#[test]
fn processes_end_with_the_program_and_start_none_of_their_own() {
    let src = r#"
import multiprocessing as mp

def late():
    print("late line")

def nested():
    mp.Process(target=late).start()

if __name__ == "__main__":
    p = mp.Process(target=nested)
    p.start()
    p.join()
    print("exit", p.exitcode)
    mp.Process(target=late).start()
    print("the program's end")
"#;
    let (out, err, ok) = script_streams("ends", src);
    assert!(ok, "{err}");
    assert_eq!(out, "exit 1\nthe program's end\nlate line\n");
    assert!(
        err.contains("a process cannot start processes of its own in cudash"),
        "{err}"
    );
}

/// Processes on simulated GPUs: each sets its device and the group
/// reduces CUDA tensors over "nccl".
#[test]
fn processes_form_an_nccl_group_on_simulated_gpus() {
    let src = r#"
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

def work(rank, size, out):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=size)
    t = torch.full((4,), rank + 1.0, device="cuda")
    dist.all_reduce(t)
    out[rank] = t.sum().item()
    dist.destroy_process_group()

if __name__ == "__main__":
    out = torch.zeros(2)
    ps = [mp.Process(target=work, args=(r, 2, out)) for r in range(2)]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    print(out.tolist(), [p.exitcode for p in ps])
"#;
    let (out, err, ok) = script_streams_on(2, "nccl", src);
    assert!(ok, "{err}");
    assert_eq!(out, "[12.0, 12.0] [0, 0]\n", "{err}");
}

/// A queue's `get` (a lock's `acquire`) that nothing could ever answer is
/// an error, where Python would hang; with a timeout it is `queue.Empty`;
/// an error in a `Pool`'s function is raised in the program.
#[test]
fn a_wait_nothing_can_answer_is_an_error_and_a_pools_error_comes_back() {
    let src = r#"
import multiprocessing as mp
import queue

def hold(lock):
    lock.acquire()

def bad(x):
    if x == 2:
        raise KeyError(x)
    return x

if __name__ == "__main__":
    q = mp.Queue()
    try:
        q.get(timeout=0.01)
    except queue.Empty:
        print("Empty")
    lock = mp.Lock()
    p = mp.Process(target=hold, args=(lock,))
    p.start()
    p.join()
    print(lock.acquire(block=False))
    with mp.Pool(2) as pool:
        try:
            pool.map(bad, range(4))
        except KeyError as e:
            print("KeyError", e)
    q.get()
"#;
    let (out, err, ok) = script_streams("waits", src);
    assert!(!ok);
    assert_eq!(out, "Empty\nFalse\nKeyError 2\n", "{err}");
    assert!(
        err.contains("get() would wait forever: no process this program started is running"),
        "{err}"
    );
}
