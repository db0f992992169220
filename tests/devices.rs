//! Devices on the simulator: placement, `with device(n)`, transfers, pinned memory,
//! scatter/gather, and memory accounting as tensors come and go.

mod common;

use common::{err_in as err, ok_in as ok};

#[test]
fn factories_take_a_device_and_keep_it() {
    let mut s = common::session();
    assert_eq!(
        ok(&mut s, "zeros(2, device=cuda:1)"),
        "[0., 0.]  f32[2] @cuda:1"
    );
    assert_eq!(
        ok(&mut s, "x = ones(2, device=cuda:1); zeros_like(x).device"),
        "cuda:1"
    );
    assert_eq!(ok(&mut s, "x.new_full([3], 2.).device"), "cuda:1");
    assert_eq!(ok(&mut s, "randn_like(x).device"), "cuda:1");
    assert_eq!(
        ok(&mut s, "arange(3, device=cuda)"),
        "[0, 1, 2]  i64[3] @cuda:0"
    );
    assert_eq!(ok(&mut s, "eye(2, device=cuda:1).device"), "cuda:1");
    assert_eq!(
        ok(&mut s, "tensor([1, 2], device=cuda:1)"),
        "[1, 2]  i64[2] @cuda:1"
    );
    assert_eq!(ok(&mut s, "(x * 2).device"), "cuda:1");
    // An index is a CUDA device, as PyTorch reads `device=rank`.
    assert_eq!(ok(&mut s, "zeros(2, device=1).device"), "cuda:1");
    assert_eq!(ok(&mut s, "Linear(2, 2, device=1).weight.device"), "cuda:1");
    let e = err(&mut s, "zeros(2, device=-1)");
    assert!(e.1.contains("Device index must not be negative"), "{e:?}");
    assert_eq!(ok(&mut s, "x.sum().device"), "cuda:1");
}

#[test]
fn with_device_nests_and_restores_also_on_error() {
    let mut s = common::sim_session(4, 1 << 30);
    ok(&mut s, "with device(1) { a = ones(1, device=cuda); with device(2) { b = ones(1, device=cuda) }; c = ones(1, device=cuda) }");
    assert_eq!(
        ok(&mut s, "[a.device, b.device, c.device]"),
        "[cuda:1, cuda:2, cuda:1]"
    );
    assert_eq!(ok(&mut s, "current_device()"), "cuda:0");
    let (class, _) = err(&mut s, "with device(3) { d = ones(1, device=cuda); boom }");
    assert_eq!(class, "NameError");
    assert_eq!(
        ok(&mut s, "current_device()"),
        "cuda:0",
        "restored after the error"
    );
    assert!(
        s.execute("d").error.is_some(),
        "the failed statement left no `d`"
    );
}

#[test]
fn to_and_copy_to() {
    let mut s = common::session();
    ok(&mut s, "x = [1., 2.]");
    assert_eq!(ok(&mut s, "x.to(cpu) is x"), "true");
    assert_eq!(ok(&mut s, "y = x.to(cuda:1); y.to(cuda:1) is y"), "true");
    assert_eq!(ok(&mut s, "y.copy_to(cuda:1) is y"), "false");
    assert_eq!(ok(&mut s, "y.cpu()"), "[1., 2.]  f32[2] @cpu");
    assert_eq!(ok(&mut s, "x.cuda().device"), "cuda:0");
    assert_eq!(ok(&mut s, "x.cuda(1).device"), "cuda:1");
    assert_eq!(ok(&mut s, "y.to(cuda:0).device"), "cuda:0");
    assert_eq!(ok(&mut s, "y.to(f16)"), "[1., 2.]  f16[2] @cuda:1");
    let (class, msg) = err(&mut s, "x.to(cuda:7)");
    assert_eq!(class, "DeviceError");
    assert!(msg.contains("cuda:7 does not exist"), "{msg}");
}

#[test]
fn copies_are_counted_by_direction() {
    let mut s = common::session();
    let out = ok(
        &mut s,
        "x = ones(256)\nprofile { y = x.to(cuda:0); z = y.to(cuda:1); w = z.cpu(); v = y * 2 }",
    );
    assert!(out.contains("copies H2D   1 (1.0 KiB)"), "{out}");
    assert!(out.contains("copies D2D   1 (1.0 KiB)"), "{out}");
    assert!(out.contains("copies D2H   1 (1.0 KiB)"), "{out}");
    assert!(
        out.contains("allocations  3 (3.0 KiB)"),
        "y, z and v live on devices: {out}"
    );
}

#[test]
fn memory_follows_the_tensors() {
    let mut s = common::session();
    ok(&mut s, "a = zeros(50000, device=cuda:0)");
    assert_eq!(ok(&mut s, "memory_allocated()"), "200192");
    assert_eq!(ok(&mut s, "memory_reserved()"), "2097152");
    ok(&mut s, "b = a[:10]"); // a view: no new memory
    assert_eq!(ok(&mut s, "memory_allocated()"), "200192");
    ok(&mut s, "del a");
    assert_eq!(
        ok(&mut s, "memory_allocated()"),
        "200192",
        "the view b keeps the block alive"
    );
    ok(&mut s, "del b");
    assert_eq!(ok(&mut s, "memory_allocated()"), "0");
    assert_eq!(ok(&mut s, "max_memory_allocated()"), "200192");
    ok(&mut s, "reset_peak()");
    assert_eq!(ok(&mut s, "max_memory_allocated()"), "0");
    assert_eq!(
        ok(&mut s, "memory_reserved()"),
        "2097152",
        "the segment stays cached"
    );
    ok(&mut s, "empty_cache()");
    assert_eq!(ok(&mut s, "memory_reserved(0)"), "0");
    // A failed statement frees what it allocated.
    let _ = s.execute("d = ones(1000, device=cuda:0) + ones(3, device=cuda:0)");
    assert_eq!(ok(&mut s, "memory_allocated()"), "0");
}

#[test]
fn out_of_memory_leaves_the_session_usable() {
    let mut s = common::sim_session(1, 64 << 20);
    ok(&mut s, "a = zeros(8 * 2**20, device=cuda)"); // 32 MiB
    let (class, msg) = err(&mut s, "b = zeros(10 * 2**20, device=cuda)"); // 40 MiB more
    assert_eq!(class, "OutOfMemoryError");
    assert!(
        msg.starts_with("CUDA out of memory. Tried to allocate 40.00 MiB. GPU 0 has a total capacity of 64.00 MiB")
            && msg.contains(" of which 32.00 MiB is free. Including non-PyTorch memory, this process has 32.00 MiB memory in use. Of the allocated memory 32.00 MiB is allocated by PyTorch")
            && msg.ends_with("(https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"),
        "{msg}"
    );
    assert_eq!(ok(&mut s, "a.shape"), "[8388608]");
    assert!(s.execute("b").error.is_some());
    assert_eq!(ok(&mut s, "memory_stats()[\"num_ooms\"]"), "1");
    ok(&mut s, "del a\nb = zeros(10 * 2**20, device=cuda)");
    // An op whose result does not fit is an out-of-memory error too.
    let (class, _) = err(&mut s, "c = b + b");
    assert_eq!(class, "OutOfMemoryError");
}

/// With expandable segments on, PyTorch 2.15's message ends on their
/// address space instead of suggesting them (libc10_cuda.so's `malloc`
/// picks one last sentence or the other).
#[test]
fn out_of_memory_with_expandable_segments_ends_on_their_address_space() {
    let mut s = common::sim_session(1, 64 << 20);
    ok(
        &mut s,
        "import torch\ntorch.cuda.memory._set_allocator_settings(\"expandable_segments:True\")\na = zeros(8 * 2**20, device=cuda)",
    );
    let (class, msg) = err(&mut s, "b = zeros(10 * 2**20, device=cuda)");
    assert_eq!(class, "OutOfMemoryError");
    assert!(
        msg.contains("this process has 40.00 MiB memory in use. Of the allocated memory 32.00 MiB is allocated by PyTorch, and 8.00 MiB is reserved by PyTorch but unallocated. expandable_segments is enabled. If instead the process is running out of virtual address space (VSZ)")
            && !msg.contains("If reserved but unallocated memory is large"),
        "{msg}"
    );
}

#[test]
fn pinned_memory() {
    let mut s = common::session();
    ok(&mut s, "x = ones(1000)\npin x");
    assert_eq!(ok(&mut s, "x.is_pinned"), "true");
    assert!(ok(&mut s, "x").ends_with("f32[1000] @cpu pinned"));
    let out = ok(&mut s, "v = x[0:2]; v");
    assert_eq!(
        out, "[1., 1.]  f32[2] @cpu pinned",
        "views share the pinned storage"
    );
    let out = ok(&mut s, "mem cpu");
    assert!(
        out.contains("registered (by `pin`)") && out.contains("3.9 KiB"),
        "{out}"
    );
    ok(&mut s, "p = ones(3).pin()");
    assert_eq!(ok(&mut s, "p.is_pinned"), "true");
    assert_eq!(ok(&mut s, "ones(3).is_pinned"), "false");
    let (_, msg) = err(&mut s, "g = ones(2, device=cuda); pin g");
    assert!(msg.contains("only host tensors can be pinned"), "{msg}");
    // Cached pinned blocks are reused.
    ok(&mut s, "del p\nq = ones(3).pin()");
    assert_eq!(ok(&mut s, "memory_stats(cpu)[\"cache_hits\"]"), "1");
}

#[test]
fn non_blocking_copies() {
    let mut s = common::session();
    let out = ok(&mut s, "g = ones(4).to(cuda, non_blocking=true)");
    assert!(
        out.starts_with("warning: non_blocking=true: the source is in pageable memory"),
        "{out}"
    );
    let out = ok(
        &mut s,
        "x = ones(4)\npin x\nh = x.to(cuda, non_blocking=true)",
    );
    assert_eq!(
        out, "",
        "from pinned memory the copy is asynchronous: no note"
    );
    assert_eq!(ok(&mut s, "g.to(cpu, non_blocking=true).is_pinned"), "true");
    // A loop repeats the note once, counted, not once an iteration.
    let out = ok(
        &mut s,
        "p = empty(4)\ntime 5 { p.copy_(g, non_blocking=true) }",
    );
    assert_eq!(
        out.matches("the destination is in pageable memory").count(),
        1,
        "{out}"
    );
    assert!(out.contains("came 4 more times in this statement"), "{out}");
}

/// A device-to-host copy into pinned memory is DMA into it, at pinned
/// speed, whether or not the host waits (`non_blocking`); into pageable
/// memory it is staged, at pageable speed.
#[test]
fn copies_into_pinned_memory_run_at_pinned_speed() {
    let mut s = common::session();
    ok(
        &mut s,
        "q = randn(1024, 1024, device=cuda)\nh = empty(1024, 1024).pin_memory()\np = empty(1024, 1024)",
    );
    let rate = |s: &mut cudash::session::Session, block: &str| -> f64 {
        let out = ok(s, &format!("time 3 {{ {block} }}"));
        let gbs = out
            .split("copies: ")
            .nth(1)
            .and_then(|r| r.split(' ').next());
        gbs.and_then(|g| g.parse().ok())
            .unwrap_or_else(|| panic!("no copy rate in {out}"))
    };
    let pageable = rate(&mut s, "p.copy_(q)");
    let blocking = rate(&mut s, "h.copy_(q)");
    let asynchronous = rate(&mut s, "h.copy_(q, non_blocking=true)");
    assert!(
        blocking > 3.0 * pageable && asynchronous >= blocking,
        "pageable {pageable} GB/s, pinned blocking {blocking}, pinned non-blocking {asynchronous}"
    );
    // The blocking copy is a host sync, and its bytes are there at once.
    assert_eq!(
        ok(&mut s, "t = h.copy_(q)\nprint((h == q.cpu()).all().item())"),
        "True"
    );
}

#[test]
fn scatter_gather_and_the_gather_device_imbalance() {
    let mut s = common::session();
    ok(
        &mut s,
        "x = randn(1000, 256)\nparts = scatter(x, [cuda:0, cuda:1])",
    );
    assert_eq!(
        ok(&mut s, "[parts[0].shape, parts[1].shape]").replace(' ', ""),
        "[[500,256],[500,256]]"
    );
    assert_eq!(
        ok(&mut s, "[parts[0].device, parts[1].device]"),
        "[cuda:0, cuda:1]"
    );
    assert_eq!(
        ok(&mut s, "[memory_allocated(0), memory_allocated(1)]"),
        "[512000, 512000]  i64[2] @cpu"
    );
    ok(&mut s, "y = gather(parts, cuda:0)");
    assert_eq!(ok(&mut s, "(y.cpu() == x).sum()"), "256000  i64[] @cpu");
    // cuda:0 now also holds the whole result: the imbalance DataParallel shows.
    assert_eq!(
        ok(&mut s, "[memory_allocated(0), memory_allocated(1)]"),
        "[1536000,  512000]  i64[2] @cpu"
    );
    let out = ok(&mut s, "mem all");
    assert!(
        out.contains("cuda:0 —") && out.contains("cuda:1 —") && out.contains("cpu — pinned"),
        "{out}"
    );
    ok(&mut s, "r = replicate(ones(3), [cuda:0, cuda:1])");
    assert_eq!(ok(&mut s, "[r[0].device, r[1].device]"), "[cuda:0, cuda:1]");
    let out = ok(&mut s, "mem map cuda:1");
    assert!(out.contains("parts[1]") && out.contains("r[1]"), "{out}");
}

#[test]
fn sim_devices_are_tagged_like_real_ones() {
    let out = common::ok("ones(2, device=cuda:1)");
    assert_eq!(out, "[1., 1.]  f32[2] @cuda:1");
    let out = common::ok("devices");
    assert!(
        out.starts_with("backend: sim") && out.contains("NVIDIA H100 (simulated, 16.0 GiB)"),
        "{out}"
    );
}

#[test]
fn numbers_and_cpu_scalars_join_device_tensors() {
    let mut s = common::session();
    ok(&mut s, "g = zeros(3, device=cuda:1)");
    assert_eq!(ok(&mut s, "(g + 1).device"), "cuda:1");
    assert_eq!(ok(&mut s, "(2 * g).device"), "cuda:1");
    assert_eq!(ok(&mut s, "(g + tensor(1.)).device"), "cuda:1");
    ok(&mut s, "g[0] = 5");
    assert_eq!(ok(&mut s, "g"), "[5., 0., 0.]  f32[3] @cuda:1");
    let (class, _) = err(&mut s, "g + ones(3)");
    assert_eq!(
        class, "DeviceError",
        "a dimensioned cpu tensor does not move silently"
    );
}

#[test]
fn every_help_example_runs_on_simulated_devices() {
    for d in cudash::eval::docs::DOCS {
        let mut s = common::session();
        let setup = "x = ones(2)\nA = ones(2, 2, device=cuda)\n";
        let o = s.execute(&format!("{setup}{}", d.example));
        if let Some(e) = &o.error {
            panic!("example of `{}` failed:\n{}", d.name, e.report);
        }
    }
}

/// PyTorch's two device contexts, which look alike and differ: `with
/// torch.device(d):` (and `torch.set_default_device(d)`) is where the
/// factories and the modules' parameters go when no `device=` is given,
/// while the current CUDA device stays; `with torch.cuda.device(n):` makes
/// `n` current, what `"cuda"` means, while factories still make cpu
/// tensors. `*_like` follow their input, an explicit `device=` wins, and
/// `torch.device("cuda")` as the default means the device current when
/// each tensor is made. Expected lines read from PyTorch 2.15's
/// `torch/utils/_device.py` (`DeviceContext`, `_device_constructors`),
/// `torch/__init__.py` (`get_default_device`) and `torch/cuda/__init__.py`
/// (`class device`): this machine has no GPU to print them.
#[test]
fn torch_device_sets_the_default_and_torch_cuda_device_the_current() {
    let got = common::script_lines_on(
        2,
        "default_device",
        r#"import torch
with torch.device("cuda"):
    x = torch.zeros(2)
    l = torch.nn.Linear(2, 3)
    print(torch.get_default_device(), torch.cuda.current_device())
print(x.device, l.weight.device, torch.zeros(1).device, torch.get_default_device())
with torch.device("cuda:1"):
    y = torch.randn(2, 2)
    z = torch.zeros_like(x)
    w = torch.ones(2, device="cpu")
print(y.device, z.device, w.device, y.get_device(), w.get_device())
with torch.cuda.device(1):
    a = torch.ones(2)
    b = torch.ones(2, device="cuda")
    print(torch.cuda.current_device())
print(a.device, b.device, torch.cuda.current_device())
torch.set_default_device("cuda")
print(torch.tensor([1, 2]).device, torch.arange(3).device, torch.get_default_device())
with torch.cuda.device(1):
    print(torch.empty(1).device, torch.get_default_device())
torch.set_default_device(None)
print(torch.eye(2).device, torch.get_default_device())
with torch.cuda.device_of(y):
    print(torch.cuda.current_device())
print(torch.cuda.device, torch.cuda.current_device())
"#,
    );
    assert_eq!(
        got,
        [
            "cuda:0 0",
            "cuda:0 cuda:0 cpu cpu",
            "cuda:1 cuda:0 cpu 1 -1",
            "1",
            "cpu cuda:1 0",
            "cuda:0 cuda:0 cuda:0",
            "cuda:1 cuda:1",
            "cpu cpu",
            "1",
            "<class 'torch.cuda.device'> 0",
        ]
    );
}

/// What `torch.cuda` says about a device, as PyTorch's API gives it: the
/// properties (printed as `_CudaDeviceProperties(...)`), the capability,
/// `mem_get_info`'s free memory falling by what the caching allocator
/// reserves and coming back only with `empty_cache()` (a freed tensor's
/// block stays cached), the default stream equal to the current one, the
/// matmul precision turning `allow_tf32` on, the host thread count; a
/// `torch.cuda.Event()` times only when made with `enable_timing=True`
/// (PyTorch's ValueError otherwise). Expected lines read from PyTorch
/// 2.15's API (`torch/cuda/__init__.py`, `memory.py`, `streams.py`,
/// `c10/cuda/CUDAEvent.h`) for a simulated H100 of 16 GiB: this machine has
/// no GPU to print them.
#[test]
fn torch_cuda_describes_devices_memory_and_events_as_pytorch() {
    let got = common::script_lines_on(
        2,
        "cuda_info",
        r#"import torch
p = torch.cuda.get_device_properties(0)
print(p)
print(p.major, p.minor, p.total_memory // 2**20, torch.cuda.get_device_capability(1), torch.cuda.is_bf16_supported())
free0, total = torch.cuda.mem_get_info()
x = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda")
free1, _ = torch.cuda.mem_get_info()
del x
free2, _ = torch.cuda.mem_get_info()
torch.cuda.empty_cache()
free3, _ = torch.cuda.mem_get_info()
print(total // 2**20, (free0 - free1) // 2**20, free2 == free1, free3 == free0)
print(torch.cuda.default_stream() == torch.cuda.current_stream(), torch.cuda.default_stream(1).device)
print(torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32)
torch.set_float32_matmul_precision("high")
print(torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32)
torch.set_num_threads(1)
print(torch.get_num_threads())
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
y = torch.randn(512, 512, device="cuda") @ torch.randn(512, 512, device="cuda")
end.record()
torch.cuda.synchronize()
print(start.elapsed_time(end) > 0)
a, b = torch.cuda.Event(), torch.cuda.Event()
a.record()
b.record()
b.synchronize()
try:
    a.elapsed_time(b)
except ValueError as e:
    print("ValueError:", e)
"#,
    );
    assert_eq!(
        got,
        [
            "_CudaDeviceProperties(name='NVIDIA H100 (simulated, 16.0 GiB)', major=9, minor=0, total_memory=16384MB)",
            "9 0 16384 (9, 0) True",
            "16384 256 True True",
            "True cuda:1",
            "highest False",
            "high True",
            "1",
            "True",
            "ValueError: Both events must be created with argument 'enable_timing=True'.",
        ]
    );
}
