//! PyTorch programs as pasted (issue 68): each program in tests/pasted/ is
//! written as PyTorch's tutorials and examples write theirs (a model class,
//! a DataLoader, training and evaluation loops, f-strings), with data and
//! initial weights from formulas, so PyTorch and cudash compute the same
//! numbers. `X.py.torch` is what PyTorch 2.15 printed for `X.py` on the CPU
//! (`bash scripts/pasted-check` makes it again and compares); here cudash
//! runs each as `cudash script` does and must print the same lines, numbers
//! within a few units in their last printed digit.

use std::path::{Path, PathBuf};
use std::process::Command;

fn pasted() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pasted")
}

/// The numbers of a line, each with the unit of its last printed digit
/// (`2.3020` 1e-4, `1.1176e-07` 1e-11), and the text around them.
fn split(line: &str) -> (String, Vec<(f64, f64)>) {
    let mut text = String::new();
    let mut numbers = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, text: &mut String, numbers: &mut Vec<(f64, f64)>| {
        match word.parse::<f64>() {
            Ok(x) if word.contains('.') || word.contains('e') => {
                let (mantissa, exponent) = word.split_once('e').unwrap_or((word, "0"));
                let places = mantissa.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
                let unit = 10f64.powi(exponent.parse::<i32>().unwrap_or(0) - places);
                numbers.push((x, unit));
                text.push('#');
            }
            _ => text.push_str(word),
        }
        word.clear();
    };
    for c in line.chars() {
        if c.is_ascii_digit()
            || c == '.'
            || (c == '-' && (word.is_empty() || word.ends_with('e')))
            || (c == '+' && word.ends_with('e'))
            || (c == 'e' && !word.is_empty())
        {
            word.push(c);
        } else {
            flush(&mut word, &mut text, &mut numbers);
            text.push(c);
        }
    }
    flush(&mut word, &mut text, &mut numbers);
    (text, numbers)
}

/// The text with the addresses in Python's reprs (`<AddBackward0 object
/// at 0x7f3aa08afd30>`, `<function f at 0x...>`) taken out: they differ
/// from run to run, in PyTorch too.
fn without_addresses(text: &str) -> String {
    let address = fancy_regex::Regex::new(r" at 0x[0-9a-f]+>").unwrap();
    address.replace_all(text, " at 0x...>").into_owned()
}

/// The same lines, decimals within 3 units of their last printed digit
/// (PyTorch and cudash may round an f32 sum differently in its last bit).
fn same(got: &str, want: &str) -> Result<(), String> {
    let (got, want) = (without_addresses(got), without_addresses(want));
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    if g.len() != w.len() {
        return Err(format!("{} lines, PyTorch printed {}", g.len(), w.len()));
    }
    for (k, (a, b)) in g.iter().zip(&w).enumerate() {
        let ((ta, na), (tb, nb)) = (split(a), split(b));
        let close = na.len() == nb.len()
            && na
                .iter()
                .zip(&nb)
                .all(|((x, _), (y, unit))| (x - y).abs() <= 3.0 * unit + 1e-12);
        if ta != tb || !close {
            return Err(format!("line {}:\n  cudash:  {a}\n  PyTorch: {b}", k + 1));
        }
    }
    Ok(())
}

fn run(program: &Path, extra: &[&str]) -> String {
    run_in(Path::new(env!("CARGO_MANIFEST_DIR")), program, extra)
}

/// `cudash EXTRA script PROGRAM` run in the folder `dir` (made first: a
/// program that writes files runs in a folder of its own); what it printed.
fn run_in(dir: &Path, program: &Path, extra: &[&str]) -> String {
    run_both_in(dir, program, extra).0
}

/// `run_in`'s run, with what it printed and what it wrote to stderr
/// (warnings).
fn run_both_in(dir: &Path, program: &Path, extra: &[&str]) -> (String, String) {
    std::fs::create_dir_all(dir).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(extra)
        .arg("script")
        .arg(program)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{}:\n{stderr}", program.display());
    (String::from_utf8_lossy(&o.stdout).into_owned(), stderr)
}

fn programs() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(pasted())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    found.sort();
    assert!(
        found.len() >= 3,
        "tests/pasted/ holds {} programs",
        found.len()
    );
    found
}

/// On the host, as PyTorch ran them: every line as PyTorch printed it.
#[test]
fn pasted_programs_print_what_pytorch_prints() {
    for program in programs() {
        let want = std::fs::read_to_string(program.with_extension("py.torch")).unwrap();
        let got = run(&program, &["--sim-devices", "0"]);
        if let Err(e) = same(&got, &want) {
            panic!("{}: {e}\n--- cudash printed:\n{got}", program.display());
        }
    }
}

/// Whether a program runs on the host only: one that prints tensors it
/// made on its device (their repr names the device) or draws random
/// numbers there (the CUDA generator's are not the CPU's, in PyTorch
/// too) says so in a comment, `# pasted: host only`.
fn host_only(program: &Path) -> bool {
    std::fs::read_to_string(program)
        .unwrap()
        .lines()
        .any(|l| l.starts_with("# pasted: host only"))
}

/// Every program run with `args` on a GPU backend, against PyTorch's
/// lines with its device line saying cuda.
fn print_the_same_on(args: &[&str], backend: &str) {
    for program in programs().into_iter().filter(|p| !host_only(p)) {
        let want = std::fs::read_to_string(program.with_extension("py.torch"))
            .unwrap()
            .replace("Using cpu device", "Using cuda device");
        let got = run(&program, args);
        if let Err(e) = same(&got, &want) {
            panic!("{} on {backend}: {e}", program.display());
        }
    }
}

/// With simulated GPUs the programs move their model and batches to
/// `cuda` and print the same numbers.
#[test]
fn pasted_programs_print_the_same_on_a_gpu() {
    print_the_same_on(&[], "cuda");
}

/// On `emu` (the CUDA backend with its kernels compiled for the host)
/// the programs print the same numbers too.
#[test]
fn pasted_programs_print_the_same_on_emu() {
    print_the_same_on(&["--backend", "emu"], "emu");
}

#[test]
fn the_comparison_catches_a_changed_number() {
    assert!(same(
        "loss: 2.301970  [   32/  192]",
        "loss: 2.301971  [   32/  192]"
    )
    .is_ok());
    assert!(same(
        "loss: 2.301990  [   32/  192]",
        "loss: 2.301971  [   32/  192]"
    )
    .is_err());
    assert!(same(
        "loss: 2.301971  [   64/  192]",
        "loss: 2.301971  [   32/  192]"
    )
    .is_err());
    assert!(same("Accuracy: 40.6%", "Accuracy: 40.7%").is_ok());
    assert!(same("Accuracy: 41.6%", "Accuracy: 40.6%").is_err());
    assert!(same("a\nb", "a").is_err());
    assert!(same("tensor(1.0000e-07)", "tensor(1.0002e-07)").is_ok());
    assert!(same("tensor(-2.4587e-07)", "tensor(-1.1176e-07)").is_err());
    assert!(same(
        "f = <AddBackward0 object at 0x20000460290>",
        "f = <AddBackward0 object at 0x7f3aa08afd30>"
    )
    .is_ok());
    assert!(same(
        "f = <MulBackward0 object at 0x20000460290>",
        "f = <AddBackward0 object at 0x7f3aa08afd30>"
    )
    .is_err());
}

/// PyTorch's CUDA tutorial, as pasted, on two simulated GPUs: the
/// versions and devices it asks about, its model moved, training on
/// `cuda:0`, the allocator's figures for a 10000x10000 tensor (382 MiB
/// more: its 381.47 MiB in a segment rounded to 2 MiB, the 0.53 MiB left
/// too small to split off, as PyTorch's allocator counts it; and back after
/// `del` and `empty_cache()`), and DataParallel over
/// both GPUs. Its timings read `time.time()`, the program's clock, which on
/// simulated GPUs moves by the modelled machine's time: the GPU's product
/// is faster than the CPU's, as on the tutorial's machine (the wall clock
/// timed the simulator, where both take about as long).
#[test]
fn the_cuda_tutorial_runs_on_simulated_gpus() {
    let program = pasted().join("cuda_only/cuda_tutorial.py");
    let got = run(&program, &["--sim-devices", "2"]);
    for line in [
        "PyTorch version: 2.15.0",
        "CUDA available: True",
        "CUDA version: 13.0",
        "cuDNN version: None",
        "GPU count: 2",
        "GPU 1: NVIDIA H100 (simulated, 16.0 GiB)",
        "  Memory: 16.0 GB",
        "Using specific GPU: cuda:0",
        "After .cuda(): cuda:0",
        "Model parameters on GPU: cuda:0",
        "All parameters on same device: True",
        "Training on device: cuda:0",
        "Model parameters: 11",
        "Mixed precision training is available",
        "Multi-GPU setup detected: 2 GPUs available",
        "Model device: cuda:0",
    ] {
        assert!(
            got.lines().any(|l| l == line),
            "no line {line:?} in:\n{got}"
        );
    }
    let mb = |prefix: &str| -> f64 {
        let line = got.lines().find(|l| l.starts_with(prefix)).unwrap();
        line[prefix.len()..]
            .trim_end_matches(" MB")
            .trim()
            .parse()
            .unwrap()
    };
    let (before, after, cleaned) = (
        mb("Memory allocated before:"),
        mb("Memory allocated after:"),
        mb("Memory after cleanup:"),
    );
    assert!(
        (after - before - 382.0).abs() < 0.11,
        "{before} {after}\n{got}"
    );
    assert_eq!(before, cleaned, "{got}");
    let losses: Vec<f64> = got
        .lines()
        .filter_map(|l| l.split("Train Loss: ").nth(1))
        .map(|r| r.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(losses.len(), 5, "{got}");
    assert!(losses.windows(2).all(|w| w[1] < w[0]), "{losses:?}");
    let seconds = |prefix: &str| -> f64 {
        let line = got.lines().find(|l| l.starts_with(prefix)).unwrap();
        line[prefix.len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (cpu, gpu) = (
        seconds("CPU Matrix Multiplication: "),
        seconds("GPU Matrix Multiplication: "),
    );
    assert!(cpu > 0.0 && gpu < cpu / 10.0, "{cpu} {gpu}\n{got}");
    // `memory_summary(abbreviated=True)` is PyTorch's table.
    for line in [
        "|                  PyTorch CUDA memory summary, device ID 0                 |",
        "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |",
    ] {
        assert!(
            got.lines().any(|l| l == line),
            "no line {line:?} in:\n{got}"
        );
    }
    assert!(
        got.lines()
            .any(|l| l.starts_with("| Non-releasable memory |")),
        "{got}"
    );
    assert!(!got.contains("from large pool"), "{got}");
}

/// The CUDA semantics notes' idioms: `cuda = torch.device("cuda")` and
/// other bindings of the names `cuda` and `cpu` (unbound, they are the
/// devices), and `torch.cuda.set_sync_debug_mode`: a blocking copy, a
/// value read and a stream's `synchronize()` warn or are refused as
/// PyTorch's `warn_or_error_on_sync` makes them; a device sync is not
/// reported. The same on sim and emu.
#[test]
fn the_cuda_semantics_notes_idioms_run() {
    let program = pasted().join("cuda_only/cuda_semantics.py");
    let refused = "RuntimeError: called a synchronizing CUDA operation";
    let want = format!(
        "cuda:1 cuda:1 cuda:1 cuda:1\ncuda:0\ncuda:0\ncpu\ncpu cuda:0\n\
         {{'cuda': True, 'cpu': False}}\nTrue\ncuda:0\nnative native\n0\n1\n12.0\n\
         cpu() {refused}\nitem() {refused}\nstream.synchronize() {refused}\n\
         to(cuda) {refused}\nx[mask] {refused}\ncopy_(non_blocking=True) passed\n\
         to(cuda:1) passed\nevent.synchronize() passed\nempty_cache() passed\n\
         tensor([0., 1., 2., 3.])\n\
         RuntimeError: invalid value of debug_mode, expected one of `default`, `warn`, `error`\n\
         2097152 True\n"
    );
    for backend in [&["--sim-devices", "2"], &["--backend", "emu"]] {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (out, err) = run_both_in(here, &program, backend);
        assert_eq!(out, want, "{backend:?}");
        let warning = "UserWarning: called a synchronizing CUDA operation (Triggered internally \
                       at /__w/pytorch/pytorch/c10/cuda/CUDAFunctions.cpp:162.)";
        assert_eq!(err.matches(warning).count(), 1, "{backend:?}: {err}");
    }
}

/// TensorFloat-32 as the CUDA semantics notes show it: with `allow_tf32`
/// (or a float32 matmul precision below "highest") an f32 product on a
/// simulated H100 rounds its operands to TF32, so its error against the
/// exact product grows from ~1e-6 to ~1e-3 of the mean, and runs at the
/// tensor cores' modelled rate; off again, the f32 product is back; a CPU
/// product ignores it. The same on sim and emu.
#[test]
fn tf32_products_round_their_operands_on_an_ampere_or_later_gpu() {
    let program = pasted().join("cuda_only/tf32.py");
    let want = "False highest\nfp32 error below 1e-4: True\n\
                tf32 error between 1e-4 and 1e-2: True\ntf32 at least 3x faster: True\n\
                tf32 is the rounded operands' product: True\noff again: True\nTrue True\n\
                a CPU product ignores it: True\nFalse True\n";
    for backend in [&["--sim-devices", "1"], &["--backend", "emu"]] {
        assert_eq!(run(&program, backend), want, "{backend:?}");
    }
}

/// The names older programs use for the allocator's figures, with
/// PyTorch's FutureWarnings, and `memory_stats_as_nested_dict()`.
#[test]
fn the_allocators_older_names_still_answer() {
    let program = pasted().join("cuda_only/memory_old_names.py");
    let got = run(&program, &["--sim-devices", "1"]);
    assert_eq!(got, "True\nTrue\n4096 -1\nTrue\n");
}

/// `PYTORCH_CUDA_ALLOC_CONF` set in `os.environ` before the first CUDA
/// allocation and by `_set_allocator_settings` changes what the allocator
/// does; set later it is said to have no effect, as PyTorch has read it
/// already; in the environment, a bad setting stops the session as
/// PyTorch's first CUDA call would.
#[test]
fn the_allocator_takes_pytorch_cuda_alloc_conf() {
    let program = pasted().join("cuda_only/alloc_conf.py");
    let run = |env: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cudash"));
        c.args(["--sim-devices", "1", "script"]).arg(&program);
        c.env("NO_COLOR", "1").env_remove("PYTORCH_CUDA_ALLOC_CONF");
        if let Some(v) = env {
            c.env("PYTORCH_CUDA_ALLOC_CONF", v);
        }
        c.output().unwrap()
    };
    let o = run(None);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{err}");
    assert_eq!(
        out,
        "104857600 2 330\n1 0\n1310720\n100\n\
         CachingAllocator option max_split_size_mb too small, must be > 20\n"
    );
    assert!(
        err.contains("set after the first CUDA allocation has no effect"),
        "{err}"
    );
    let o = run(Some("max_split_size_mb:10"));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("PYTORCH_CUDA_ALLOC_CONF: CachingAllocator option max_split_size_mb too small"),);
    // The program's own os.environ setting replaces the environment's, as
    // PyTorch reads the variable at the first CUDA allocation.
    let o = run(Some("expandable_segments:True"));
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout), out);
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("`expandable_segments:True` has no effect")
    );
    let o = run(Some("backend:cudaMallocAsync"));
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("`backend:cudaMallocAsync` has no effect in cudash"));
}

/// `expandable_segments:True`: steps that leave a sliver of every segment
/// run out of memory under a limit with ordinary segments and fit in one
/// growing segment; `empty_cache()` unmaps the free pages; the snapshot
/// shows the mapped stretch and the map and unmap events; a process cannot
/// be sent one of its tensors. Figures worked
/// out by hand from PyTorch's `CUDACachingAllocator.cpp`; on `sim` and on
/// `emu`, whose device memory is host address space reserved and mapped
/// page by page as `cuMemAddressReserve` and `cuMemMap` do.
#[test]
fn expandable_segments_grow_one_segment() {
    let program = pasted().join("cuda_only/expandable_segments.py");
    for backend in [&["--sim-devices", "1"], &["--backend", "emu"]] {
        assert_eq!(
            run(&program, backend),
            "OutOfMemoryError 412\n412 0\n360 310\n0 5 0\n320 1\nlarge 320 True\n[4, 4, 5, 1, 1]\n\
             Tensors allocated with expandable_segments:True cannot be shared between processes\n",
            "{backend:?}"
        );
    }
}

/// `torch.cuda.memory_stats()` has PyTorch's keys (per pool, with the
/// totals each statistic rose and fell by, inactive splits, the event
/// counters) and `memory_summary()` prints PyTorch's table of them: the
/// expected output is PyTorch 2.15's own `memory_summary` run on the
/// figures cudash printed (`cuda_only/memory_summary_by_pytorch.py`).
#[test]
fn memory_summary_is_pytorchs_table() {
    let program = pasted().join("cuda_only/memory_summary.py");
    let want = std::fs::read_to_string(program.with_extension("py.expected")).unwrap();
    let got = run(&program, &["--sim-devices", "1"]);
    assert_eq!(got, want);
}

/// PyTorch's data parallelism tutorial, as pasted, on 2, 3 and 8
/// simulated GPUs prints what the tutorial lists for as many GPUs: the
/// batches of 30 (and the last of 10) cut as `chunk` cuts them, one
/// "In Model" line per replica. PyTorch's replicas print in the order
/// their threads happen to run (its 8-GPU listing has the short chunk in
/// the middle), so within one batch the lines are compared as a set.
#[test]
fn the_data_parallel_tutorial_prints_its_listed_results() {
    let program = pasted().join("multi_gpu/data_parallel_tutorial.py");
    for gpus in [2, 3, 8] {
        let want =
            std::fs::read_to_string(program.with_extension(format!("py.gpus{gpus}"))).unwrap();
        let got = run(&program, &["--sim-devices", &gpus.to_string()]);
        let batches = |text: &str| -> Vec<Vec<String>> {
            let mut out = vec![Vec::new()];
            for line in text.lines() {
                out.last_mut().unwrap().push(line.to_string());
                if line.starts_with("Outside") || line.starts_with("Let's use") {
                    out.last_mut().unwrap().sort();
                    out.push(Vec::new());
                }
            }
            out
        };
        assert_eq!(
            batches(&got),
            batches(&want),
            "on {gpus} GPUs cudash printed:\n{got}"
        );
    }
}

/// PyTorch's "Getting Started with Distributed Data Parallel" tutorial
/// (`demo_basic`), as pasted: `mp.spawn` over every GPU, `os.environ` set,
/// a "gloo" group, `DDP(model, device_ids=[rank])` with inputs on the host
/// moved by DDP. Each rank prints its two lines; processes print in the
/// order they happen to run, so the lines are compared as a set.
#[test]
fn the_ddp_tutorial_runs_on_every_gpu() {
    let program = pasted().join("multi_gpu/ddp_tutorial.py");
    for gpus in [2, 4] {
        let got = run(&program, &["--sim-devices", &gpus.to_string()]);
        let mut lines: Vec<&str> = got.lines().collect();
        lines.sort_unstable();
        let mut want: Vec<String> = (0..gpus)
            .flat_map(|r| {
                [
                    format!("Finished running basic DDP example on rank {r}."),
                    format!("Running basic DDP example on rank {r}."),
                ]
            })
            .collect();
        want.sort_unstable();
        assert_eq!(lines, want, "on {gpus} GPUs cudash printed:\n{got}");
    }
}

/// The tutorial's torchrun version (`elastic_ddp.py`), as `torchrun
/// --nproc-per-node N elastic_ddp.py` runs it: `cudash launch`.
#[test]
fn the_torchrun_ddp_tutorial_runs_under_launch() {
    let program = pasted().join("multi_gpu/elastic_ddp.py");
    for gpus in [2, 4] {
        let n = gpus.to_string();
        let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
            .args(["--sim-devices", &n, "launch", "--nproc-per-node", &n])
            .arg(&program)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let got = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{got}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut lines: Vec<&str> = got.lines().collect();
        lines.sort_unstable();
        let want: Vec<String> = (0..gpus)
            .map(|r| format!("Start running basic DDP example on rank {r}."))
            .collect();
        assert_eq!(lines, want, "on {gpus} GPUs cudash printed:\n{got}");
    }
}

/// PyTorch's model-parallel tutorial, as pasted (smaller), on two
/// simulated GPUs: its toy model's layers and their gradients on the
/// devices it placed them on, ResNet50 cut in two at `layer2` (a subclass
/// of `torchvision.models.resnet.ResNet`), pipelined by `split`, timed with
/// `timeit.repeat` and plotted with error bars. `timeit` reads the
/// program's clock, which on simulated GPUs moves by the modelled
/// machine's time, and shows the lesson the tutorial's
/// text gives for small splits ("many tiny CUDA kernel launch"): at these
/// sizes the H100 waits for the host's launches, so the model cut in two
/// costs what one GPU does and two splits cost twice as many launches.
#[test]
fn the_model_parallel_tutorial_runs_on_two_simulated_gpus() {
    let program = pasted().join("multi_gpu/model_parallel_tutorial.py");
    let dir = std::env::temp_dir().join(format!("model_parallel_{}", std::process::id()));
    let got = run_in(&dir, &program, &["--sim-devices", "2"]);
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines[0], "toy: cuda:0 cuda:1 cuda:1 cuda:0 cuda:1", "{got}");
    let ms: Vec<f64> = lines[1]
        .strip_prefix("ms: ")
        .unwrap()
        .split(' ')
        .map(|t| t.parse().unwrap())
        .collect();
    let [model_parallel, single, one_split, two_splits] = ms[..] else {
        panic!("{got}")
    };
    assert!(single > 1.0, "{got}");
    for t in [model_parallel, one_split] {
        assert!((t - single).abs() < 0.01 * single, "{got}");
    }
    assert!(two_splits > 1.5 * single, "{got}");
    for png in [
        "mp_vs_rn.png",
        "mp_vs_rn_vs_pp.png",
        "split_size_tradeoff.png",
    ] {
        let bytes = std::fs::read(dir.join(png)).unwrap();
        assert!(bytes.starts_with(b"\x89PNG"), "{png}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// PyTorch's tutorial on fusing the optimizer step into the backward pass,
/// as pasted (a smaller Vision Transformer), on a simulated GPU: with
/// Adam's step after backward the peak is during the step, about five
/// times the parameters (parameters, gradients, Adam's two moments and its
/// multi-tensor intermediates, as the tutorial counts them for ViT-L:
/// 6 GB for 1.2 GB of weights); with a per-parameter Adam in
/// `register_post_accumulate_grad_hook` no gradient outlives its step and
/// the peak falls to about three and a third (the tutorial's ~4 GB). Both
/// snapshots are written as `torch.cuda.memory._snapshot()` gives them.
#[test]
fn the_optimizer_step_in_backward_tutorial_shows_its_peaks() {
    let program = pasted().join("cuda_only/optimizer_step_in_backward.py");
    let dir = std::env::temp_dir().join(format!("step_in_backward_{}", std::process::id()));
    let got = run_in(&dir, &program, &["--sim-devices", "1"]);
    let peak = |prefix: &str| -> f64 {
        let line = got.lines().find(|l| l.starts_with(prefix)).unwrap();
        line[prefix.len()..].trim_end_matches(" P").parse().unwrap()
    };
    let (after, fused) = (
        peak("peak with Adam's step: "),
        peak("peak with the step in backward: "),
    );
    assert!((4.9..5.3).contains(&after), "{got}");
    assert!((3.0..3.6).contains(&fused), "{got}");
    assert!(
        got.contains("['allocator_settings', 'device_traces', 'segments']"),
        "{got}"
    );
    for name in ["snapshot.pickle", "snapshot-opt-in-bwd.pickle"] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert!(bytes.starts_with(&[0x80]), "{name} is a pickle");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Anomaly detection's warnings, as PyTorch 2.15 gives them for the same
/// program: entering `detect_anomaly`, then for each node whose backward
/// failed the traceback of the forward line that made it, one frame per
/// call (the program's file as it was named), on sim and on emu.
#[test]
fn anomaly_detection_shows_the_forward_line_of_the_failing_node() {
    let program = pasted().join("anomaly_mode.py");
    let name = program.display().to_string();
    let tail = " (Triggered internally at \
                /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:108.)";
    let want = [
        "warning: UserWarning: Anomaly Detection has been enabled. This mode will increase \
         the runtime and should only be enabled for debugging."
            .to_string(),
        format!(
            "warning: UserWarning: Error detected in SqrtBackward0. Traceback of forward call \
             that caused the error:\n  File \"{name}\", line 18, in <module>\n    out = f(x)\n  \
             File \"{name}\", line 10, in f\n    y = x.sqrt()\n{tail}"
        ),
        format!(
            "warning: UserWarning: Error detected in DivBackward0. Traceback of forward call \
             that caused the error:\n  File \"{name}\", line 52, in <module>\n    \
             w = (z / 0) * 0\n{tail}"
        ),
        format!(
            "warning: UserWarning: Error detected in BadBackward. Traceback of forward call \
             that caused the error:\n  File \"{name}\", line 74, in <module>\n    \
             out = Bad.apply(z).sum()\n{tail}"
        ),
    ]
    .join("\n")
        + "\n";
    for backend in ["sim", "emu"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (_, stderr) = run_both_in(dir, &program, &["--backend", backend]);
        assert_eq!(stderr, want, "on {backend}");
    }
}

/// A slice's storage is its base's whole allocation, on the device too:
/// `memory_allocated()` keeps the base's 4 MiB while the slice lives, a
/// clone holds 16 KiB of its own, and the storage's bytes come back from
/// the device (f32 ones: `0 0 128 63`), on sim and on emu.
#[test]
fn a_views_storage_is_its_bases_whole_allocation() {
    let program = pasted().join("cuda_only/storage_of_a_view.py");
    let want = "4194304 4194304 cuda:0\n16384 16384\n[0, 0, 128, 63, 0, 0, 128, 63] True 0\n";
    for backend in ["sim", "emu"] {
        let got = run(&program, &["--sim-devices", "1", "--backend", backend]);
        assert_eq!(got, want, "on {backend}");
    }
}

/// Activation checkpointing's trade in the CUDA allocator's figures (MiB
/// after forward, peak, end): a checkpointed segment keeps only its input
/// and output, backward recomputes it node by node and peaks where the
/// plain run does, and the reentrant variant's inner backward peaks 2 MiB
/// higher. The lines are PyTorch 2.15's allocator timeline for the same
/// program (its comment gives them to three places), on sim and on emu.
#[test]
fn activation_checkpointing_trades_memory_as_pytorch_does() {
    let program = pasted().join("cuda_only/checkpoint_memory.py");
    let want = "plain          8.0 34.0 33.0\n\
                non-reentrant  5.0 34.0 33.0\n\
                reentrant      5.0 36.0 33.0\n";
    for backend in ["sim", "emu"] {
        let got = run(&program, &["--sim-devices", "1", "--backend", backend]);
        assert_eq!(got, want, "on {backend}");
    }
}

/// PyTorch's scaled-dot-product-attention tutorial as pasted (smaller, its
/// nested-tensor and attention-bias sections left out) on a simulated GPU:
/// the default kernel for f16 is FlashAttention, as fast as the
/// memory-efficient one and faster than the math path (one kernel against
/// the math path's several); its model's `y.transpose(1, 2).view(...)`
/// works because the fused kernels lay their output out as [B, L, H, E],
/// as PyTorch's; the profiler names the flash kernel.
#[test]
fn the_sdpa_tutorial_runs_its_kernels() {
    let program = pasted().join("cuda_only/sdpa_tutorial.py");
    let dir = std::env::temp_dir().join(format!("sdpa_tutorial_{}", std::process::id()));
    let got = run_in(&dir, &program, &["--sim-devices", "1"]);
    std::fs::remove_dir_all(&dir).ok();
    let micros = |what: &str| -> f64 {
        let line = got
            .lines()
            .find(|l| l.starts_with(what))
            .unwrap_or_else(|| panic!("{got}"));
        let n = line[what.len()..].trim().split(' ').nth(2).unwrap();
        n.parse().unwrap()
    };
    let default = micros("The default implementation");
    let flash = micros("The flash attention implementation");
    let math = micros("The math implementation");
    let efficient = micros("The memory efficient implementation");
    assert_eq!(default, flash, "{got}");
    assert!(math > 2.0 * flash && efficient <= math, "{got}");
    assert!(got.contains("The compiled module runs in"), "{got}");
    assert!(
        got.contains("aten::_scaled_dot_product_flash_attention "),
        "{got}"
    );
}

/// PyTorch's AMP recipe (`torch.cuda.amp.autocast`, `GradScaler`,
/// `enabled=use_amp`, the checkpoint with the scaler's state) runs as
/// pasted, smaller sizes aside; and with its illustration-only loops run
/// once (`range(0)` made `range(1)`), its `assert output.dtype is
/// torch.float16` / `loss.dtype is torch.float32` hold and `unscale_`
/// before `clip_grad_norm_` works.
#[test]
fn the_amp_recipe_runs_as_pasted() {
    let program = pasted().join("amp/amp_recipe.py");
    let every_section = std::env::temp_dir().join(format!("amp_recipe_{}.py", std::process::id()));
    let src = std::fs::read_to_string(&program).unwrap();
    std::fs::write(
        &every_section,
        src.replace("for epoch in range(0):", "for epoch in range(1):"),
    )
    .unwrap();
    for p in [&program, &every_section] {
        let got = run(p, &[]);
        let lines: Vec<&str> = got.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 6, "{got}");
        for (i, title) in [(0, "Default precision:"), (3, "Mixed precision:")] {
            assert_eq!(lines[i], title, "{got}");
            assert!(lines[i + 1].starts_with("Total execution time = "), "{got}");
            assert!(
                lines[i + 2].starts_with("Max memory used by tensors = "),
                "{got}"
            );
        }
    }
    std::fs::remove_file(&every_section).ok();
}

/// `cudash script FILE ARGS`: the words after the file are the program's
/// own, which its argparse reads as Python's does. Each text below is what
/// PyTorch 2.15's Python (3.11) printed for `python command_line.py ARGS`.
#[test]
fn a_program_reads_its_own_command_line() {
    let program = pasted().join("command_line.py");
    let cudash = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cudash"))
            .args(["--sim-devices", "0", "script"])
            .arg(&program)
            .args(args)
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    // `--lr=0.25`, a flag, and `--seed`-like words are the program's, not cudash's.
    let o = cudash(&["--epochs", "1", "--hidden", "4", "--dry-run", "--lr=0.25"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let want = "\
Namespace(batch_size=16, epochs=1, lr=0.25, hidden=4, no_accel=False, dry_run=True, seed=1, log_interval=2)
settings: batch_size=16, epochs=1, lr=0.25, hidden=4, no_accel=False, dry_run=True, seed=1, log_interval=2
Net with 67 parameters, first lr 0.25
Train Epoch: 1 [0/64]\tLoss: 1.177536
epoch 1: 1 steps so far, accuracy 0.4271
history cleared: [] | grad enabled: True
picked [5, 70, 38, 30] then 99
";
    let got = String::from_utf8_lossy(&o.stdout);
    if let Err(e) = same(&got, want) {
        panic!("{e}\n--- cudash printed:\n{got}");
    }
    // A value not among the choices: argparse's usage and error, status 2.
    let usage = "\
usage: command_line.py [-h] [--batch-size N] [--epochs N] [--lr LR]
                       [--hidden {4,8,16}] [--no-accel] [--dry-run] [--seed S]
                       [--log-interval N]
";
    let o = cudash(&["--hidden", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "{usage}command_line.py: error: argument --hidden: invalid choice: 5 (choose from 4, 8, 16)\n"
        )
    );
    // `-h`: the help, with ArgumentDefaultsHelpFormatter's defaults, status 0.
    let o = cudash(&["-h"]);
    assert_eq!(o.status.code(), Some(0));
    let help = "
PyTorch synthetic-data example

options:
  -h, --help         show this help message and exit
  --batch-size N     input batch size for training (default: 16)
  --epochs N         number of epochs to train (default: 2)
  --lr LR            learning rate (default: 0.5)
  --hidden {4,8,16}
  --no-accel         disables accelerator (default: False)
  --dry-run          quickly check a single pass (default: False)
  --seed S           random seed (default: 1)
  --log-interval N   how many batches to wait before logging training status
                     (default: 2)
";
    assert_eq!(String::from_utf8_lossy(&o.stdout), format!("{usage}{help}"));
}

/// A `cuda_only` program on one simulated device, on sim and emu: what
/// it prints is its `.expected` file, and nothing goes to stderr (no race
/// is reported).
fn prints_its_expected_on_sim_and_emu(name: &str) {
    let program = pasted().join("cuda_only").join(name);
    let want = std::fs::read_to_string(program.with_extension("py.expected")).unwrap();
    for backend in ["sim", "emu"] {
        let (got, stderr) = run_both_in(
            Path::new(env!("CARGO_MANIFEST_DIR")),
            &program,
            &["--sim-devices", "1", "--backend", backend],
        );
        assert_eq!(got, want, "{name} on {backend}");
        assert_eq!(stderr, "", "{name} on {backend}");
    }
}

/// The CUDA notes' "Graph memory management" (`cuda_only/graph_memory.py`):
/// a capture allocates from its graph's private pool, which eager tensors
/// do not use and `empty_cache()` keeps while a graph uses it; a capture
/// sharing another's pool reuses what that one freed; the snapshot names
/// each segment's pool. The figures follow PyTorch's allocator rules.
#[test]
fn graph_memory_pools_as_the_cuda_notes_describe() {
    prints_its_expected_on_sim_and_emu("graph_memory.py");
}

/// The CUDA notes' CUDA Graphs examples (`cuda_only/cuda_graphs.py`):
/// capture runs nothing (the output reads as fresh memory, an in-place
/// counter stays put), each replay reads the static input as it is then,
/// whole-network and `make_graphed_callables` training give eager's
/// losses bit for bit, and what a capture refuses is PyTorch's error.
#[test]
fn cuda_graphs_capture_and_replay_as_the_cuda_notes_show() {
    prints_its_expected_on_sim_and_emu("cuda_graphs.py");
}

/// Whole-network capture with `Adam(capturable=True)`
/// (`cuda_only/graph_adam_capturable.py`): the step counts stay on the GPU,
/// a capture runs none of them, each replay counts them up there, and the
/// replays train as eager steps do, bit for bit; a step with
/// `capturable=False` refuses the capture, and a capturable step refuses
/// parameters on the host, with PyTorch's messages.
#[test]
fn adam_capturable_steps_replay_as_eager_ones() {
    prints_its_expected_on_sim_and_emu("graph_adam_capturable.py");
}
