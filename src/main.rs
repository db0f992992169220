//! The `cudash` binary: parses arguments and hands off to the library.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use cudash::cli;
use cudash::runtime::backend::BackendChoice;
use cudash::session::Config;

const DEFAULT_SIM_DEVICES: u32 = 2;
const DEFAULT_SIM_MEMORY: &str = "16GiB";

#[derive(Parser)]
#[command(
    name = "cudash",
    version,
    about = "An interactive shell for exploring GPU tensors"
)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// Which backend provides CUDA devices: auto (real GPUs when found and they pass a first check, else simulated; CUDASH_BACKEND, when set, decides instead), sim, cuda, or emu (the CUDA backend's code on the CPU).
    #[arg(long, default_value = "auto", value_parser = BackendChoice::from_name, global = true)]
    backend: BackendChoice,
    /// Number of simulated CUDA devices (0: cpu only).
    #[arg(long, default_value_t = DEFAULT_SIM_DEVICES, global = true)]
    sim_devices: u32,
    /// Memory of each simulated device, e.g. 16GiB, 512MiB.
    #[arg(long, default_value = DEFAULT_SIM_MEMORY, global = true)]
    sim_memory: String,
    /// Seed for rand/randn (the same seed gives the same numbers).
    #[arg(long, default_value_t = 0, global = true)]
    seed: u64,
    /// No colour in output (also when NO_COLOR is set).
    #[arg(long, global = true)]
    no_color: bool,
    /// Every queued op completes before the next statement goes on, as with CUDA_LAUNCH_BLOCKING=1.
    #[arg(long, global = true)]
    launch_blocking: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run a script (or a notebook's code cells) as a transcript: each statement, then its output.
    Run {
        file: std::path::PathBuf,
        /// Compare with FILE.out (a notebook: with its saved outputs) and fail on any difference.
        #[arg(long)]
        check: bool,
        /// Write the transcript to FILE.out (a notebook: the outputs into it), to create or update them.
        #[arg(long, conflicts_with = "check")]
        save: bool,
        /// Go on after a failing statement (errors still show in the transcript, and the exit status is still 1, as with make -k).
        #[arg(long)]
        keep_going: bool,
        /// The program's own command line after `--` (`sys.argv[1:]`, what `argparse` reads).
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Run a file as Python runs one (a pasted PyTorch program): only what it prints, no echo; an error stops it, its report on stderr, exit status 1.
    Script {
        file: std::path::PathBuf,
        /// The program's own command line (its `sys.argv[1:]`, what `argparse` reads), after the file as with `python FILE ARGS`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run a script in several ranks at once, as torchrun runs one (`torchrun --nproc-per-node N script.py`): each rank has RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT in its os.environ, so `init_process_group("nccl")` needs no arguments. One node: the ranks share this machine's (or the simulator's) devices.
    Launch {
        /// How many ranks (workers) to start: a number, or gpu/auto (one per CUDA device).
        #[arg(
            long = "nproc-per-node",
            visible_alias = "nproc_per_node",
            default_value = "1"
        )]
        nproc_per_node: String,
        /// How many nodes (machines): only 1 is built.
        #[arg(long, default_value = "1")]
        nnodes: String,
        /// This node's rank among the nodes (0 on one node).
        #[arg(long = "node-rank", visible_alias = "node_rank", default_value_t = 0)]
        node_rank: u32,
        /// Accepted as torchrun accepts it; one node needs no address.
        #[arg(long = "master-addr", visible_alias = "master_addr")]
        master_addr: Option<String>,
        /// Accepted as torchrun accepts it; one node needs no port.
        #[arg(long = "master-port", visible_alias = "master_port")]
        master_port: Option<u16>,
        /// Accepted as torchrun accepts it (one node, a local rendezvous).
        #[arg(long)]
        standalone: bool,
        file: std::path::PathBuf,
        /// The program's own command line, given to every rank (`sys.argv[1:]`), as torchrun passes it.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Step through a lesson (.ipynb or script) in the terminal: Enter runs the next cell, b goes back, r reruns, q quits.
    Present { file: std::path::PathBuf },
    /// Print the device table and exit.
    Devices,
    /// What this machine offers the CUDA backend: driver, devices, NVRTC, cuBLAS, the kernel cache.
    Cuda {
        /// Compile every kernel for this architecture (sm_90 for an H100) into the cache; no GPU needed.
        #[arg(long, value_name = "ARCH")]
        compile: Option<String>,
    },
    /// The Jupyter kernel: `cudash kernel install` once, then pick "cudash" in Jupyter.
    Kernel {
        /// The connection file Jupyter passes (`{connection_file}` in the kernelspec).
        #[arg(short = 'f', long = "connection-file")]
        connection_file: Option<std::path::PathBuf>,
        #[command(subcommand)]
        action: Option<KernelAction>,
    },
}

#[derive(Subcommand)]
enum KernelAction {
    /// Write the kernelspec (kernel.json with this program's absolute path, and logos).
    Install {
        /// Into your Jupyter data directory (the default).
        #[arg(long, conflicts_with = "prefix")]
        user: bool,
        /// Into PREFIX/share/jupyter/kernels/cudash (a virtual environment, say).
        #[arg(long)]
        prefix: Option<std::path::PathBuf>,
    },
}

/// `cudash script FILE ARGS...`, `cudash launch ... FILE ARGS...`: the
/// words after the file are the program's own (its `sys.argv[1:]`), as
/// `python FILE ARGS` gives them, even where they look like cudash's
/// options (`--seed 1`, `-h`). Gives cudash's words and the program's.
fn split_program_args(argv: Vec<String>) -> (Vec<String>, Vec<String>) {
    const TAKES_VALUE: &[&str] = &[
        "--backend",
        "--sim-devices",
        "--sim-memory",
        "--seed",
        "--nproc-per-node",
        "--nproc_per_node",
        "--nnodes",
        "--node-rank",
        "--node_rank",
        "--master-addr",
        "--master_addr",
        "--master-port",
        "--master_port",
    ];
    let mut command = false;
    let mut k = 1;
    while k < argv.len() {
        let word = argv[k].as_str();
        if word == "--" {
            break;
        }
        if word.starts_with('-') {
            k += 1 + usize::from(TAKES_VALUE.contains(&word));
            continue;
        }
        match command {
            false if matches!(word, "script" | "launch") => command = true,
            false => break,
            true => {
                let program = argv[k + 1..].to_vec();
                let mut cli = argv;
                cli.truncate(k + 1);
                return (cli, program);
            }
        }
        k += 1;
    }
    (argv, Vec::new())
}

fn main() -> ExitCode {
    tune_allocator();
    // Like other Unix tools, stop quietly when the reader of our output goes away
    // (`cudash run lesson.cudash | head`) instead of failing to print.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of a signal at start-up, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let (cli_words, program_args) = split_program_args(std::env::args().collect());
    let args = Args::parse_from(cli_words);
    let sim_memory = match cudash::vocab::parse_size(&args.sim_memory) {
        Ok(m) => m,
        Err(msg) => {
            eprintln!("cudash: --sim-memory: {msg}");
            return ExitCode::from(2);
        }
    };
    let color = cudash::cli::colour_wanted(args.no_color, std::env::var_os("NO_COLOR").as_deref());
    // Options the installed kernel is started with, as given here.
    let global_args = kernel_args(&args);
    let command = args.command;
    let (backend, seed, sim_devices) = (args.backend, args.seed, args.sim_devices);
    let launch_blocking = args.launch_blocking
        || std::env::var("CUDA_LAUNCH_BLOCKING").is_ok_and(|v| v.trim() == "1");
    // Parsing and evaluation recurse; a big stack keeps deep (but bounded) input safe.
    let worker = std::thread::Builder::new()
        .stack_size(cudash::INTERPRETER_STACK)
        .spawn(move || {
            let config = Config {
                backend,
                seed,
                color,
                sim_devices,
                sim_memory,
                launch_blocking,
            };
            match command {
                None => cudash::repl::run(config),
                Some(Command::Run {
                    file,
                    check,
                    save,
                    keep_going,
                    args,
                }) => cli::run::run(
                    config,
                    &file,
                    &args,
                    cli::transcript::Mode {
                        check,
                        save,
                        keep_going,
                    },
                ),
                Some(Command::Script { file, .. }) => cli::run::script(config, &file, &program_args),
                Some(Command::Launch {
                    nproc_per_node,
                    nnodes,
                    node_rank,
                    file,
                    ..
                }) => cli::run::launch(
                    config,
                    (&file, &program_args),
                    &nproc_per_node,
                    (&nnodes, node_rank),
                ),
                Some(Command::Present { file }) => cli::present::present(config, &file),
                Some(Command::Devices) => cli::devices(config),
                Some(Command::Cuda { compile }) => cli::cuda::cuda(compile.as_deref()),
                Some(Command::Kernel {
                    action: Some(KernelAction::Install { prefix, .. }),
                    ..
                }) => cli::install_kernel(prefix, &global_args),
                Some(Command::Kernel {
                    connection_file: Some(file),
                    action: None,
                }) => cudash::kernel::run(config, &file),
                Some(Command::Kernel { .. }) => {
                    eprintln!("cudash kernel: give a connection file (`-f FILE`, as Jupyter does), or `install`");
                    2
                }
            }
        });
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => ExitCode::from(code),
        _ => {
            eprintln!("cudash: internal error (this is a bug; please report it with the input that caused it)");
            ExitCode::from(101)
        }
    }
}

/// The global options that differ from their defaults, to pass on to the kernel.
fn kernel_args(args: &Args) -> Vec<String> {
    let mut out = Vec::new();
    if args.backend != BackendChoice::Auto {
        out.extend(["--backend".into(), args.backend.name().into()]);
    }
    if args.sim_devices != DEFAULT_SIM_DEVICES {
        out.extend(["--sim-devices".into(), args.sim_devices.to_string()]);
    }
    if args.sim_memory != DEFAULT_SIM_MEMORY {
        out.extend(["--sim-memory".into(), args.sim_memory.clone()]);
    }
    if args.seed != 0 {
        out.extend(["--seed".into(), args.seed.to_string()]);
    }
    if args.launch_blocking {
        out.push("--launch-blocking".into());
    }
    out
}

// Large tensors are allocated and freed constantly; mimalloc keeps freed pages
// for reuse instead of returning them to the kernel and faulting them in again.
#[global_allocator]
static GLOBAL: Mimalloc = Mimalloc;

/// mimalloc as the global allocator, through its plain entry points where
/// the alignment asked for is what every mimalloc block has anyway (8 bytes):
/// the `mimalloc` crate calls `mi_malloc_aligned` for every allocation,
/// whose refill path over-allocates and re-aligns (half of a small
/// allocation's instructions in the interpreter's loops).
struct Mimalloc;

/// The alignment of every block `mi_malloc` returns (its smallest size class).
const MI_MIN_ALIGN: usize = 8;

// SAFETY: each method forwards to mimalloc, which returns memory of at least
// `layout.size()` bytes aligned to `layout.align()` (the plain entry points
// only when that alignment is at most `MI_MIN_ALIGN`), or null on failure.
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_malloc, mi_malloc_aligned};
        // SAFETY: see the impl.
        unsafe {
            match layout.align() <= MI_MIN_ALIGN {
                true => mi_malloc(layout.size()),
                false => mi_malloc_aligned(layout.size(), layout.align()),
            }
        }
        .cast()
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_zalloc, mi_zalloc_aligned};
        // SAFETY: see the impl.
        unsafe {
            match layout.align() <= MI_MIN_ALIGN {
                true => mi_zalloc(layout.size()),
                false => mi_zalloc_aligned(layout.size(), layout.align()),
            }
        }
        .cast()
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _: std::alloc::Layout) {
        // SAFETY: `ptr` came from this allocator (mi_free takes every kind).
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        use libmimalloc_sys::{mi_realloc, mi_realloc_aligned};
        // SAFETY: see the impl; `ptr` came from this allocator with `layout`.
        unsafe {
            match layout.align() <= MI_MIN_ALIGN {
                true => mi_realloc(ptr.cast(), new_size),
                false => mi_realloc_aligned(ptr.cast(), new_size, layout.align()),
            }
        }
        .cast()
    }
}

/// `mi_option_purge_delay` in mimalloc v3's `mimalloc.h` (libmimalloc-sys names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Freed memory goes back to the OS after a second of not being reused, not after
/// mimalloc's default 10 ms: a loop that frees and reallocates a 64 MiB tensor every
/// few milliseconds then reuses warm pages, and an idle shell still gives memory back.
fn tune_allocator() {
    // SAFETY: setting an integer option; mimalloc documents it as safe at any time.
    unsafe {
        if libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) == 10 {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 1000);
        }
    }
}
