//! `DataParallel` as PyTorch's `torch.nn.DataParallel` (issue 69): the
//! output and gradients of one device, the memory PyTorch's allocator
//! would hold on each device, the chunks `scatter` cuts, the replicas'
//! threads taking turns with one host, and the errors PyTorch raises.

mod common;

use common::{cpu_session, err_in, ok_in, script_lines_on};
use cudash::runtime::backend::BackendChoice;
use cudash::session::{Config, Session};

fn session(backend: BackendChoice, devices: u32) -> Session {
    Session::new(Config {
        backend,
        sim_devices: devices,
        ..Config::default()
    })
    .unwrap()
}

const NET: &str = "
class Net(Module):
    def __init__(self):
        super().__init__()
        self.fc1 = Linear(6, 16)
        self.bn = BatchNorm1d(16)
        self.fc2 = Linear(16, 3)
        self.calls = 0
    def forward(self, x):
        self.calls = self.calls + 1
        return self.fc2(relu(self.bn(self.fc1(x))))

";

/// The wrapper's output and the module's gradients equal the module's own
/// on one device, within rounding (the replicas' gradients are summed by
/// the reduce).
#[test]
fn outputs_and_gradients_are_one_devices() {
    let src = format!(
        "{NET}seed(0)
net = Net().to(cuda:0)
e = net.eval()
x = randn(10, 6, device=cuda:0)
ref = Net().to(cuda:0)
e = ref.eval()
r = ref.load_state_dict(net.state_dict())
dp = DataParallel(net)
out = dp(x)
(out * out).sum().backward()
want = ref(x)
(want * want).sum().backward()
print((out - want).abs().max().item() < 1e-5)
diffs = [(p.grad - q.grad).abs().max().item() for p, q in zip(net.parameters(), ref.parameters())]
print(max(diffs) < 1e-4, len(diffs), net.calls, out.device, out.grad_fn)
"
    );
    for (backend, devices) in [
        (BackendChoice::Sim, 2),
        (BackendChoice::Sim, 4),
        (BackendChoice::Emu, 2),
    ] {
        let mut s = session(backend, devices);
        assert_eq!(
            ok_in(&mut s, &src).trim(),
            "True\nTrue 6 0 cuda:0 <GatherBackward>",
            "{backend:?} with {devices} devices"
        );
    }
}

/// In training mode BatchNorm's running statistics are updated by the
/// replica on `device_ids[0]` alone, whose buffers are the module's own,
/// so they are those of the first chunk (PyTorch's documented behaviour);
/// the other replicas' updates go with their copies.
#[test]
fn batch_norm_keeps_the_first_replicas_statistics() {
    let src = format!(
        "{NET}seed(0)
net = Net().to(cuda:0)
first = Net().to(cuda:0)
r = first.load_state_dict(net.state_dict())
x = randn(12, 6, device=cuda:0)
out = DataParallel(net)(x)
y = first(x[:{{chunk}}])
print((net.bn.running_mean - first.bn.running_mean).abs().max().item() < 1e-6)
print(net.bn.num_batches_tracked.item())
"
    );
    for (devices, chunk) in [(2, 6), (4, 3)] {
        let mut s = session(BackendChoice::Sim, devices);
        let src = src.replace("{chunk}", &chunk.to_string());
        assert_eq!(ok_in(&mut s, &src).trim(), "True\n1", "{devices} devices");
    }
}

/// Bytes per device after forward, during and after backward, as
/// PyTorch's rules give them for `Linear(1024, 1024, bias=False)` on
/// cuda:0 and an input of 512 × 1024 (2 MiB) split over two devices:
///
/// - forward: cuda:0 keeps the weight W (4 MiB), the input X (2 MiB, its
///   first chunk a view of it, saved by the product) and the gathered
///   output (2 MiB; replica 0's 1 MiB part is freed once copied in) = 8
///   MiB. cuda:1 keeps only its chunk of X (1 MiB, saved by its product):
///   its copy of W (4 MiB) is saved by nothing (the product saves the
///   weight only for the input's gradient, and X needs none) and goes with
///   the replica, and its 1 MiB output with the gather. Its peak is all
///   three: 6 MiB.
/// - backward of `out.sum()`: each device computes its replica's weight
///   gradient (4 MiB each; cuda:1 also receives its 1 MiB of the output's
///   gradient), and `BroadcastBackward` reduces them onto cuda:0 into one
///   new 4 MiB buffer (NCCL's `reduce` into `empty_like`), which becomes
///   `W.grad` as it is: cuda:0 peaks at W + X + output + its gradient +
///   the sum = 16 MiB (plus the loss's 512 B block), and ends at 12 MiB
///   (+ 512 B); cuda:1 peaks at 6 MiB and ends empty.
/// - `step()` of SGD with momentum: the momentum buffer is made on the
///   parameter's device (a 4 MiB clone of the gradient): cuda:0 at 16 MiB.
#[test]
fn memory_on_each_device_is_what_pytorchs_allocator_holds() {
    let src = "W = Linear(1024, 1024, bias=false).to(cuda:0)
X = randn(512, 1024, device=cuda:0)
dp = DataParallel(W, device_ids=[0, 1])
reset_peak(cuda:0)
reset_peak(cuda:1)
out = dp(X)
MiB = 2**20
print(memory_allocated(cuda:0) / MiB, memory_allocated(cuda:1) / MiB, max_memory_allocated(cuda:1) / MiB)
loss = out.sum()
loss.backward()
print(memory_allocated(cuda:0) - 12 * MiB, max_memory_allocated(cuda:0) - 16 * MiB)
print(memory_allocated(cuda:1), max_memory_allocated(cuda:1) / MiB)
opt = SGD(W.parameters(), lr=0.1, momentum=0.9)
opt.step()
print(memory_allocated(cuda:0) - 16 * MiB, memory_allocated(cuda:1))";
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = session(backend, 2);
        assert_eq!(
            ok_in(&mut s, src).trim(),
            "8.0 1.0 6.0\n512 512\n0 6.0\n512 0",
            "{backend:?}"
        );
    }
}

/// `output_device=1` gathers there: the output and the loss move off
/// cuda:0, which keeps the weights, the input and the gradients.
#[test]
fn output_device_moves_the_gathered_output() {
    let mut s = session(BackendChoice::Sim, 2);
    let out = ok_in(
        &mut s,
        "W = Linear(1024, 1024, bias=false).to(cuda:0)
X = randn(512, 1024, device=cuda:0)
out = DataParallel(W, output_device=1)(X)
MiB = 2**20
print(out.device, memory_allocated(cuda:0) / MiB, memory_allocated(cuda:1) / MiB)
out.sum().backward()
print(W.weight.grad.device, memory_allocated(cuda:0) / MiB)",
    );
    // cuda:0: W, X (its replica's output goes to cuda:1); cuda:1: its
    // chunk of X and the gathered output.
    assert_eq!(out.trim(), "cuda:1 6.0 3.0\ncuda:0 10.0");
}

/// The chunks of PyTorch's `scatter` (`x.chunk(n)`): an uneven batch, and
/// a batch smaller than the device count, which runs fewer replicas.
#[test]
fn the_batch_is_cut_as_pytorchs_chunk_cuts_it() {
    let mut s = session(BackendChoice::Sim, 4);
    let out = ok_in(
        &mut s,
        "class Show(Module):
    def forward(self, x):
        print(x.device, x.shape[0])
        return x * 2

dp = DataParallel(Show())
y = dp(randn(5, 2, device=cuda:0))
print(y.shape)
z = dp(randn(3, 2, device=cuda:0))
w = dp(randn(1, 2))",
    );
    assert_eq!(
        out.trim(),
        "cuda:0 2\ncuda:1 2\ncuda:2 1\ntorch.Size([5, 2])\ncuda:0 1\ncuda:1 1\ncuda:2 1\ncuda:0 1"
    );
}

/// The replicas' threads share one host: they take turns op by op (the
/// GIL passed on at each op), so their work interleaves, the same way on
/// every run.
#[test]
fn replica_threads_take_turns_at_each_op() {
    let src = "class Steps(Module):
    def forward(self, x):
        print(\"a\", x.device)
        y = x + 1
        print(\"b\", x.device)
        return y

dp = DataParallel(Steps(), device_ids=[0, 1, 2])
y = dp(ones(3, 2, device=cuda:0))";
    let first = ok_in(&mut session(BackendChoice::Sim, 3), src);
    assert_eq!(
        first.trim(),
        "a cuda:0\na cuda:1\na cuda:2\nb cuda:0\nb cuda:1\nb cuda:2"
    );
    for _ in 0..5 {
        assert_eq!(ok_in(&mut session(BackendChoice::Sim, 3), src), first);
    }
}

/// `replicate`, `scatter`, `parallel_apply` and `gather` are the wrapper
/// taken apart: the same output to the bit. A replica lists no parameters
/// (its tensors are copies, not leaves), and changes to its attributes are
/// lost with it, as PyTorch's warns.
#[test]
fn the_steps_taken_apart_are_the_wrapper() {
    let mut s = session(BackendChoice::Sim, 2);
    let out = ok_in(
        &mut s,
        &format!(
            "{NET}seed(3)
net = Net().to(cuda:0)
x = randn(8, 6, device=cuda:0)
a = DataParallel(net)(x)
replicas = replicate(net, [0, 1])
parts = scatter(x, [cuda:0, cuda:1])
outs = parallel_apply(replicas, parts)
b = gather(outs, cuda:0)
print((a - b).abs().max().item(), len(replicas[1].parameters()), replicas[1].fc1.weight.device)
print(replicas[1].fc1.weight.grad_fn, replicas[0].fc1.weight.grad_fn, replicas[1].calls, net.calls)
print(list(DataParallel(net).state_dict().keys())[0], DataParallel(net).module is net)"
        ),
    );
    assert_eq!(
        out.trim(),
        "0.0 0 cuda:1\n<BroadcastBackward> <BroadcastBackward> 1 0\nmodule.fc1.weight True"
    );
}

/// The former-Torch users' multi-GPU tutorial
/// (`beginner_source/former_torchies/parallelism_tutorial.py`) writes
/// `data_parallel` from the four steps with GPU indices (`device_ids=[0,
/// 1]`, as PyTorch's `_get_device_index` takes them): the output is the
/// module's, gathered on `cuda:0` through the gather's node; and its
/// `super().__init__(embedding=...)` is PyTorch's TypeError.
#[test]
fn the_former_torch_users_data_parallel_runs_with_gpu_indices() {
    let lines = script_lines_on(
        2,
        "parallelism_tutorial",
        "import torch
import torch.nn as nn

def data_parallel(module, input, device_ids, output_device=None):
    if not device_ids:
        return module(input)

    if output_device is None:
        output_device = device_ids[0]

    replicas = nn.parallel.replicate(module, device_ids)
    inputs = nn.parallel.scatter(input, device_ids)
    replicas = replicas[:len(inputs)]
    outputs = nn.parallel.parallel_apply(replicas, inputs)
    return nn.parallel.gather(outputs, output_device)

class DistributedModel(nn.Module):
    def __init__(self):
        super().__init__(
            embedding=nn.Embedding(1000, 10),
            rnn=nn.Linear(10, 10).cuda(0),
        )

torch.manual_seed(0)
lin = nn.Linear(10, 3).cuda()
x = torch.randn(8, 10).cuda()
out = data_parallel(lin, x, [0, 1])
print(out.device, torch.equal(out, lin(x)), type(out.grad_fn).__name__)
out.sum().backward()
print(lin.weight.grad.device, torch.allclose(lin.weight.grad, x.sum(0).expand(3, 10)))
try:
    DistributedModel()
except TypeError as e:
    print(e)",
    );
    assert_eq!(
        lines,
        [
            "cuda:0 True GatherBackward",
            "cuda:0 True",
            "DistributedModel.__init__() got an unexpected keyword argument 'embedding'"
        ]
    );
}

/// Outputs other than one tensor: a tuple gathered item by item, and 0-d
/// outputs gathered as a vector with PyTorch's warning.
#[test]
fn tuples_and_scalars_are_gathered_as_pytorchs() {
    let mut s = session(BackendChoice::Sim, 2);
    let out = ok_in(
        &mut s,
        "class Two(Module):
    def forward(self, x, scale=1):
        return x * scale, x.sum()

a, b = DataParallel(Two())(ones(4, 2, device=cuda:0), scale=3)
print(a.shape, a[0, 0].item(), b.shape, b.tolist())",
    );
    assert!(
        out.contains("Was asked to gather along dimension 0, but all input tensors were scalars"),
        "{out}"
    );
    assert!(
        out.contains("torch.Size([4, 2]) 3.0 torch.Size([2]) [4.0, 4.0]"),
        "{out}"
    );
}

/// Without CUDA devices the wrapper calls the module (PyTorch's
/// `device_ids = []`); with one, it moves the module there.
#[test]
fn no_device_and_one_device() {
    let mut s = cpu_session();
    let out = ok_in(
        &mut s,
        "dp = DataParallel(Linear(2, 2))\nprint(dp.device_ids, dp(ones(1, 2)).device)",
    );
    assert_eq!(out.trim(), "[] cpu");
    let mut s = session(BackendChoice::Sim, 2);
    let out = ok_in(
        &mut s,
        "m = Linear(2, 2)\ndp = DataParallel(m, device_ids=[1])\nprint(m.weight.device, dp(ones(3, 2)).device)",
    );
    assert_eq!(out.trim(), "cuda:1 cuda:1");
}

/// PyTorch's errors, each at its place, the session going on.
#[test]
fn bad_input_gets_pytorchs_errors() {
    let mut s = session(BackendChoice::Sim, 2);
    ok_in(
        &mut s,
        "class Picky(Module):
    def __init__(self):
        super().__init__()
        self.fc = Linear(4, 2)
    def forward(self, x):
        if x.device == cuda:1:
            return self.fc(x.t())
        return self.fc(x)

keep = 7",
    );
    let cases: &[(&str, &str, &str)] = &[
        (
            "DataParallel(Linear(2, 2))(ones(4, 2))",
            "RuntimeError",
            "module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cpu",
        ),
        (
            "DataParallel(Linear(2, 2), device_ids=[0, 5])",
            "DeviceError",
            "cuda:5 does not exist",
        ),
        (
            "DataParallel(Linear(2, 2), device_ids=[0, cpu])",
            "ValueError",
            "Expected a cuda device, but got: cpu",
        ),
        (
            "DataParallel(Linear(2, 2).to(cuda:0))(ones(2, device=cuda:0).sum())",
            "ShapeError",
            "chunk expects at least a 1-dimensional tensor",
        ),
        (
            "DataParallel(Picky().to(cuda:0))(ones(4, 4, device=cuda:0))",
            "ShapeError",
            "Caught RuntimeError in replica 1 on device 1.",
        ),
        (
            "parallel_apply(replicate(Linear(2, 2).to(cuda:0), [0, 1]), [ones(1, 2, device=cuda:0)])",
            "AssertionError",
            "The number of modules 2 is not equal to the number of inputs 1",
        ),
    ];
    for (src, class, message) in cases {
        let (ename, evalue) = err_in(&mut s, src);
        assert_eq!(ename, *class, "{src}: {evalue}");
        assert!(evalue.contains(message), "{src}: {evalue}");
    }
    assert_eq!(ok_in(&mut s, "print(keep)").trim(), "7");
}

/// Ctrl-C while the replicas run (each spinning in its forward): every
/// replica stops, the error is the interrupt (not a replica's), and the
/// session goes on with its variables and its runtime back.
#[test]
fn ctrl_c_stops_every_replica() {
    let mut s = session(BackendChoice::Sim, 2);
    ok_in(
        &mut s,
        "class Spin(Module):
    def forward(self, x):
        while True:
            x = x + 1
        return x

keep = ones(2, device=cuda:1)",
    );
    let flag = s.interrupt_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let o = s.execute("y = DataParallel(Spin())(ones(4, 2, device=cuda:0))");
    t.join().unwrap();
    let e = o.error.expect("the replicas must be interrupted");
    assert_eq!(e.ename, "Interrupted", "{}", e.report);
    assert_eq!(
        ok_in(&mut s, "print(keep.tolist(), current_device())").trim(),
        "[1.0, 1.0] cuda:0"
    );
}

/// A replica's current device is its thread's own, as PyTorch's is
/// thread-local: a `with device(0)` in replica 1's forward stays in force
/// across the turns the other replicas take meanwhile.
#[test]
fn a_replicas_current_device_survives_the_other_replicas_turns() {
    let mut s = session(BackendChoice::Sim, 2);
    let out = ok_in(
        &mut s,
        "class Where(Module):
    def forward(self, x):
        with device(0):
            a = x + 1
            b = a * 2
            print(\"in with\", current_device())
        print(\"after\", current_device())
        return x

y = DataParallel(Where())(ones(2, 2, device=cuda:0))",
    );
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "after cuda:0",
            "after cuda:1",
            "in with cuda:0",
            "in with cuda:0"
        ],
        "{out}"
    );
}

/// A DataParallel inside a replicated module, as PyTorch runs it: a
/// replica lists no parameters, so the inner wrapper copies none and its
/// replicas keep the outer replica's tensors (PyTorch's shallow copy of
/// the plain attributes), and the inner replica on another device meets a
/// weight on the first: PyTorch's device error, raised through both
/// wrappers, and the session goes on.
#[test]
fn a_data_parallel_inside_a_replica_fails_as_pytorchs() {
    let mut s = session(BackendChoice::Sim, 2);
    let (class, message) = err_in(
        &mut s,
        "class Inner(Module):
    def __init__(self):
        super().__init__()
        self.fc = Linear(2, 2)
    def forward(self, x):
        return self.fc(x)

class Outer(Module):
    def __init__(self):
        super().__init__()
        self.dp = DataParallel(Inner().to(cuda:0))
    def forward(self, x):
        return self.dp(x)

m = DataParallel(Outer().to(cuda:0))
y = m(ones(4, 2, device=cuda:0))",
    );
    assert_eq!(class, "DeviceError", "{message}");
    assert!(
        message.starts_with("Caught RuntimeError in replica 0 on device 0.")
            && message.contains("Caught RuntimeError in replica 1 on device 1.")
            && message.contains("Expected all tensors to be on the same device"),
        "{message}"
    );
    assert_eq!(
        ok_in(&mut s, "print(len(m.module.dp.module.fc.weight))").trim(),
        "2"
    );
}
