//! `Session`: the one object every front end drives (REPL, Jupyter kernel,
//! `cudash run`, `cudash present`). Nothing reaches around it.

mod complete;
pub mod jupyter;
pub mod watch;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};

use crate::diag;
use crate::error::{Diagnostic, Source};
/// The values and outputs front ends see: the interpreter's, as the session
/// hands them over.
pub use crate::eval::show::repr;
use crate::eval::{Hooks, Interp};
pub use crate::eval::{Output, Shown, Value};
use crate::lang::{self, ast::Stmt, Completeness};
use crate::runtime::alloc::history::SourceName;
use crate::runtime::backend::{BackendChoice, SimBackend};
use crate::runtime::devices::Devices;
use crate::runtime::dispatch::pick;
use crate::runtime::shape::fmt_shape;

#[derive(Debug, Clone)]
pub struct Config {
    /// `--backend`: which backend provides the CUDA devices.
    pub backend: BackendChoice,
    pub seed: u64,
    /// Colour in rendered diagnostics.
    pub color: bool,
    /// Simulated CUDA devices (0: cpu only). Used when no real GPU backend is live.
    pub sim_devices: u32,
    /// Memory of each simulated device, in bytes.
    pub sim_memory: usize,
    /// Every queued op completes at once (`--launch-blocking`, `CUDA_LAUNCH_BLOCKING=1`).
    pub launch_blocking: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            backend: BackendChoice::Auto,
            seed: 0,
            color: false,
            sim_devices: 2,
            sim_memory: 16 << 30,
            launch_blocking: false,
        }
    }
}

/// A failed statement, rendered.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorReport {
    /// `SyntaxError`, `ShapeError`, ...
    pub ename: String,
    /// The one-line message.
    pub evalue: String,
    /// The message with the source and a caret under the span.
    pub report: String,
}

impl ErrorReport {
    /// A panic inside cudash, as the front ends report it: the session goes on.
    pub fn internal() -> ErrorReport {
        let evalue = "internal error: this is a bug in cudash; please report it with the cell \
                      that caused it. The session goes on, but the cell's effects may be partial."
            .to_string();
        ErrorReport {
            ename: "InternalError".into(),
            report: format!("InternalError: {evalue}\n"),
            evalue,
        }
    }
}

/// What running a cell produced: outputs in order, then the error that stopped it, if any.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub outputs: Vec<Output>,
    pub error: Option<ErrorReport>,
}

/// Completions for the word before the cursor, replacing `start..end` (byte offsets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub start: usize,
    pub end: usize,
    pub matches: Vec<String>,
}

/// A snapshot for live displays: the allocator of every device (streams come next).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub backend: &'static str,
    pub devices: Vec<DeviceStatus>,
    pub variables: usize,
    /// Bytes held by host tensors bound to names.
    pub host_tensor_bytes: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceStatus {
    pub index: u32,
    pub allocated: u64,
    pub reserved: u64,
    pub peak_allocated: u64,
    /// Streams with queued work not known to be done: (name, pending items).
    pub streams: Vec<StreamStatus>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamStatus {
    pub name: String,
    pub pending: u64,
}

/// One row of `:vars`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarInfo {
    pub name: String,
    pub summary: String,
    pub bytes: usize,
}

pub struct Session {
    interp: Interp,
    devices: Arc<Devices>,
    config: Config,
    history: Vec<Arc<str>>,
    /// The code `sys.exit` (or argparse) ended the last script with.
    exit: Option<i32>,
}

impl Session {
    /// The program's command line as Python's `sys.argv` gives it: the
    /// file as written, then its own arguments (what `argparse` reads).
    pub fn set_argv(&mut self, file: &std::path::Path, args: &[String]) {
        let argv = std::iter::once(file.display().to_string())
            .chain(args.iter().cloned())
            .collect();
        crate::eval::argv::set_argv(argv);
    }

    /// The code the last script ended with through `sys.exit`, if it did.
    pub fn exit_code(&self) -> Option<i32> {
        self.exit
    }

    /// For a front end: the session, or the exit status 2 after saying on
    /// stderr why its backend cannot run here.
    pub fn open(config: Config) -> Result<Session, u8> {
        Session::new(config).map_err(|msg| {
            eprintln!("cudash: {msg}");
            2
        })
    }

    /// A session on the backend `config` picks; the error says why that
    /// backend cannot run here (`--backend cuda` without a GPU) and what to use.
    pub fn new(config: Config) -> Result<Session, String> {
        let sim = SimBackend {
            count: config.sim_devices,
            memory: config.sim_memory,
        };
        let picked = pick::pick(config.backend, sim)?;
        let devices = Arc::new(Devices::new(picked.backend.as_ref(), picked.reason));
        devices.set_launch_blocking(config.launch_blocking);
        // A new session shows tensors with PyTorch's defaults.
        crate::display::tensor::set_print_options(crate::display::tensor::PrintOptions::DEFAULT);
        let mut interp = Interp::new(config.seed, Arc::clone(&devices), Hooks::default());
        if let Ok(text) = std::env::var("PYTORCH_CUDA_ALLOC_CONF") {
            interp
                .configure_allocators(&text, true)
                .map_err(|e| format!("PYTORCH_CUDA_ALLOC_CONF: {e}"))?;
        }
        Ok(Session {
            interp,
            devices,
            config,
            history: Vec::new(),
            exit: None,
        })
    }

    /// Whether expression statements show their values: off for a file
    /// run as Python runs one (`cudash script`).
    pub fn set_echo(&mut self, on: bool) {
        self.interp.set_echo(on);
    }

    /// How many CUDA devices the session has (simulated or real).
    pub fn cuda_device_count(&self) -> usize {
        self.interp.rt.devices.count() as usize
    }

    pub fn backend_name(&self) -> &'static str {
        self.devices.backend()
    }

    pub fn banner(&self) -> String {
        let what = match self.devices.count() {
            0 => "cpu only".to_string(),
            _ => self.devices.reason.clone(),
        };
        format!(
            "cudash {} — backend: {} ({what}). `help` lists topics.",
            env!("CARGO_PKG_VERSION"),
            self.backend_name()
        )
    }

    /// The device table (`cudash devices`, the `devices` statement).
    pub fn devices_table(&self) -> String {
        self.interp.devices_text()
    }

    /// `execute`, with a panic inside cudash (a bug) reported as an
    /// `InternalError` rather than ending the terminal session.
    pub fn execute_guarded(&mut self, src: &str) -> Outcome {
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.execute(src)));
        run.unwrap_or_else(|_| Outcome {
            outputs: std::mem::take(&mut self.interp.out),
            error: Some(ErrorReport::internal()),
        })
    }

    /// Runs a cell. Statements run in order; the first error stops the cell and
    /// leaves every variable as it was before that statement.
    pub fn execute(&mut self, src: &str) -> Outcome {
        let text: Arc<str> = Arc::from(src);
        self.history.push(Arc::clone(&text));
        let mut outcome = Outcome::default();
        let cell = SourceName::Cell(self.history.len() as u32);
        self.run_source("cell", (cell, text), false, |_, o| outcome.merge(o));
        outcome
    }

    /// Runs a script statement by statement, calling `each` with the statement's
    /// text and what it produced. Returns false if any statement failed.
    pub fn run_script(
        &mut self,
        name: &str,
        src: &str,
        keep_going: bool,
        each: impl FnMut(&str, Outcome),
    ) -> bool {
        let frames = (SourceName::File(Arc::from(name)), Arc::from(src));
        self.run_source(name, frames, keep_going, each)
    }

    /// `run_script`, with errors naming the source `name` and the memory
    /// history's frames naming it and holding its text as `frames` says (a
    /// REPL's cell by its number, its text shared with the input history).
    fn run_source(
        &mut self,
        name: &str,
        frames: (SourceName, Arc<str>),
        keep_going: bool,
        mut each: impl FnMut(&str, Outcome),
    ) -> bool {
        self.interp.rt.interrupt.store(false, Ordering::Relaxed);
        let text = Arc::clone(&frames.1);
        let src: &str = &text;
        self.interp.set_source(Arc::new(Source {
            name: frames.0.to_string(),
            text: Arc::clone(&text),
        }));
        self.interp.rt.begin_source(frames.0, frames.1);
        // Every syntax error at once; with `keep_going`, the statements
        // that parsed run (as `make -k` goes on past a failed target).
        let lang::Parsed { stmts, errors } = lang::parse_each(src, lang::Dialect::of(name));
        if !errors.is_empty() {
            each("", self.error_outcome(&errors, name, src));
            if !keep_going || stmts.is_empty() {
                return false;
            }
        }
        let mut ok = errors.is_empty();
        for (i, s) in stmts.iter().enumerate() {
            let r = self.interp.run_top(s);
            let mut o = Outcome {
                outputs: std::mem::take(&mut self.interp.out),
                error: None,
            };
            // `sys.exit(code)`: the script ends here, quietly, with its code.
            if let Some(code) = r.as_ref().err().and_then(|d| d.error.exit_code()) {
                self.exit = Some(code);
                ok = code == 0;
                each(statement_text(src, &stmts, i), o);
                break;
            }
            if let Err(d) = r {
                o.error = Some(self.report(&d, name, src));
                ok = false;
            }
            let failed = o.error.is_some();
            let interrupted = self.interp.rt.interrupted();
            each(statement_text(src, &stmts, i), o);
            // Ctrl-C stops the script even when it keeps going past errors.
            if failed && (!keep_going || interrupted) {
                break;
            }
        }
        // The processes it started and never joined end with it, as Python
        // joins its children at exit.
        self.interp.join_processes();
        // What `print(..., end="")` left open is shown with the source's end.
        self.interp.end_open_line();
        let rest = std::mem::take(&mut self.interp.out);
        if !rest.is_empty() {
            each(
                "",
                Outcome {
                    outputs: rest,
                    error: None,
                },
            );
        }
        ok
    }

    /// `cudash launch`: the script `src` run by `nprocs` ranks at once, as
    /// torchrun's workers run it (each an interpreter and a runtime of its
    /// own over this session's devices, with `RANK`, `LOCAL_RANK`,
    /// `WORLD_SIZE` ... in its `os.environ`). What they printed, in the
    /// order of their host clocks; on failure, torchrun's summary naming
    /// the first rank that failed and its error's report.
    pub fn launch(&mut self, name: &str, src: &str, nprocs: usize) -> Outcome {
        self.interp.rt.interrupt.store(false, Ordering::Relaxed);
        let text: Arc<str> = Arc::from(src);
        self.interp.set_source(Arc::new(Source {
            name: name.to_string(),
            text: Arc::clone(&text),
        }));
        self.interp
            .rt
            .begin_source(SourceName::File(Arc::from(name)), text);
        let lang::Parsed { stmts, errors } = lang::parse_each(src, lang::Dialect::of(name));
        if !errors.is_empty() {
            return self.error_outcome(&errors, name, src);
        }
        let r = self.interp.launch_ranks(stmts, nprocs);
        let outputs = std::mem::take(&mut self.interp.out);
        let error = r.err().map(|(rank, d)| {
            let mut report = self.report(&d, name, src);
            if !matches!(d.error, crate::error::Error::Interrupted) {
                report.report = format!(
                    "ChildFailedError: {name} FAILED\nRoot Cause (first observed failure): rank \
                     {rank} (local_rank: {rank})\n{}",
                    report.report
                );
            }
            report
        });
        Outcome { outputs, error }
    }

    /// The text of each top-level statement of `src` (with the comments
    /// just before it), as `run_script` shows them; None when it does not
    /// parse.
    pub fn statement_texts(src: &str) -> Option<Vec<&str>> {
        let stmts = lang::parse(src).ok()?;
        Some(
            (0..stmts.len())
                .map(|i| statement_text(src, &stmts, i))
                .collect(),
        )
    }

    fn error_outcome(&self, diags: &[Diagnostic], name: &str, src: &str) -> Outcome {
        let first = &diags[0];
        let mut report = self.report(first, name, src);
        // Every error of a pasted program, up to a screenful: a hundred bury it.
        const SHOWN: usize = 10;
        for d in diags.iter().skip(1).take(SHOWN - 1) {
            report
                .report
                .push_str(&diag::render(d, name, src, self.config.color));
        }
        if diags.len() > SHOWN {
            let more = diags.len() - SHOWN;
            let s = if more == 1 { "" } else { "s" };
            report
                .report
                .push_str(&format!("… and {more} more syntax error{s}\n"));
        }
        Outcome {
            outputs: Vec::new(),
            error: Some(report),
        }
    }

    fn report(&self, d: &Diagnostic, name: &str, src: &str) -> ErrorReport {
        let mut report = self.chained(d, name, src, 0);
        let one = self.report_one(d, name, src);
        report.push_str(&one.report);
        ErrorReport { report, ..one }
    }

    /// What `d` is chained to, shown before it as Python shows it: the
    /// exception it was raised from (`raise ... from e`), else the one a
    /// handler was handling when it was raised, each with the line
    /// between them Python prints.
    fn chained(&self, d: &Diagnostic, name: &str, src: &str, depth: usize) -> String {
        // (A chain as long as this one is a loop of handlers: cut.)
        const DEEPEST: usize = 16;
        let Some(chain) = d.chain.as_deref() else {
            return String::new();
        };
        let (earlier, between) = match (&chain.cause, chain.suppress_context, &chain.context) {
            (Some(cause), _, _) => (
                cause,
                "The above exception was the direct cause of the following exception:",
            ),
            (None, false, Some(context)) => (
                context,
                "During handling of the above exception, another exception occurred:",
            ),
            _ => return String::new(),
        };
        if depth >= DEEPEST {
            return String::new();
        }
        let mut text = self.chained(earlier, name, src, depth + 1);
        text.push_str(&self.report_one(earlier, name, src).report);
        text.push_str(&format!("\n{between}\n\n"));
        text
    }

    fn report_one(&self, d: &Diagnostic, name: &str, src: &str) -> ErrorReport {
        let (run_name, run_src) = (name, src);
        // An error in a function defined in another cell is shown in that
        // cell's text, under its name (`cell 2:3:5`).
        let (name, src) = match &d.source {
            Some(s) if !std::ptr::eq(s.text.as_ref(), src) => (s.name.as_str(), s.text.as_ref()),
            _ => (name, src),
        };
        let mut report = diag::render(d, name, src, self.config.color);
        report.push_str(&diag::render_calls(d, run_name, run_src));
        ErrorReport {
            ename: d.error.python_name().into_owned(),
            evalue: d.error.to_string(),
            report,
        }
    }

    pub fn is_complete(&self, src: &str) -> Completeness {
        lang::completeness(src)
    }

    /// Checks every device allocator's invariants (for tests and debugging).
    pub fn check_invariants(&self) -> Result<(), String> {
        (0..self.devices.count()).try_for_each(|i| match self.devices.gpu(i) {
            Some(g) => g.allocator.check().map_err(|e| format!("cuda:{i}: {e}")),
            None => Ok(()),
        })
    }

    /// What `:watch` polls: None where queued work completes only at sync
    /// points (the simulator, `emu`).
    pub fn stream_watcher(&self) -> Option<watch::StreamWatcher> {
        watch::StreamWatcher::new(Arc::clone(&self.devices))
    }

    pub fn status(&self) -> Status {
        let host_tensor_bytes = self
            .interp
            .vars()
            .values()
            .filter_map(|v| match v {
                Value::Tensor(t) if !t.device().is_cuda() => Some(t.nbytes()),
                _ => None,
            })
            .sum();
        let devices = (0..self.devices.count())
            .filter_map(|i| {
                self.devices.gpu(i).map(|mut a| DeviceStatus {
                    index: i,
                    allocated: a.allocator.stats().allocated_bytes.all.current,
                    reserved: a.allocator.stats().reserved_bytes.all.current,
                    peak_allocated: a.allocator.stats().allocated_bytes.all.peak,
                    streams: a
                        .busy_streams()
                        .into_iter()
                        .map(|(name, pending)| StreamStatus {
                            name: name.to_string(),
                            pending,
                        })
                        .collect(),
                })
            })
            .collect();
        Status {
            backend: self.backend_name(),
            devices,
            variables: self.interp.vars().len(),
            host_tensor_bytes,
        }
    }

    /// Called with `(done, total)` as a long `for` or `time` loop advances, and with
    /// `(u64::MAX, u64::MAX)` when it ends however it ends.
    pub fn set_progress(&mut self, f: impl FnMut(u64, u64) + 'static) {
        self.interp.hooks.progress = Some(Box::new(f));
    }

    /// The columns text drawings may fill (`profile`'s timeline): 80 unless
    /// a terminal says otherwise; kept between 60 and 240.
    pub fn set_width(&mut self, columns: usize) {
        self.interp.hooks.width = columns.clamp(60, 240);
    }

    /// Values and `mem` displays carry HTML too (for notebooks).
    pub fn enable_html(&mut self) {
        self.interp.hooks.html = true;
    }

    /// Outputs go to `f` as they happen (a long loop's `print`s stream out)
    /// instead of collecting in the `Outcome`.
    pub fn set_output_sink(&mut self, f: impl FnMut(Output) + 'static) {
        self.interp.hooks.sink = Some(Box::new(f));
    }

    /// The sink prints on this process's stdout and stderr (`cudash script`,
    /// the REPL): the program's `isatty()` and `os.get_terminal_size()`
    /// ask them.
    pub fn set_terminal_streams(&mut self) {
        self.interp.hooks.terminal = true;
    }

    /// Set from another thread (Ctrl-C, a Jupyter interrupt) to stop the running statement.
    pub fn interrupt_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.interp.rt.interrupt)
    }

    /// Ctrl-C stops this session's running statement (an `Interrupted` error
    /// at its span) rather than killing the process. Returns the flag, which
    /// stays set so the caller can stop too.
    pub fn interrupt_on_ctrl_c(&self) -> Arc<AtomicBool> {
        let flag = self.interrupt_handle();
        interrupt_on_ctrl_c(&flag);
        flag
    }

    /// The value bound to `name`, for programs (and Rust notebooks) that drive a session.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.interp.vars().get(name).cloned()
    }

    pub fn vars(&self) -> Vec<VarInfo> {
        let mut rows: Vec<VarInfo> = self
            .interp
            .vars()
            .iter()
            .map(|(name, v)| {
                let (summary, bytes) = match v {
                    Value::Tensor(t) => (
                        format!("{} {} @{}", t.dtype(), fmt_shape(t.shape()), t.device()),
                        t.nbytes(),
                    ),
                    // A model on one line: its class, its parameters and their bytes.
                    Value::Module(m) => {
                        let bytes = crate::nn::module::named_parameters(m, true)
                            .iter()
                            .map(|(_, p)| p.nbytes())
                            .sum();
                        let name = crate::runtime::lock::lock(m).type_name.to_string();
                        let summary = crate::nn::repr::summary(m);
                        (
                            format!("{name}: {}", summary.trim_start_matches("# ")),
                            bytes,
                        )
                    }
                    other => (crate::eval::show::repr(other), 0),
                };
                VarInfo {
                    name: name.clone(),
                    summary,
                    bytes,
                }
            })
            .collect();
        rows.sort_by(|a, b| a.name.cmp(&b.name));
        rows
    }

    /// Forgets every variable and reseeds the generators. Queued work is waited for first, so the freed
    /// memory returns to the caches without warnings about streams in flight.
    pub fn reset(&mut self) {
        // A driver failing the wait is reported by the next statement that syncs.
        let _ = self.devices.sync_all();
        // What the front end set up stays (`Hooks`): the interrupt flag it
        // holds, its progress display, where outputs go, HTML and width.
        let hooks = std::mem::take(&mut self.interp.hooks);
        self.interp = Interp::new(self.config.seed, Arc::clone(&self.devices), hooks);
        self.devices.take_hazards();
    }

    pub fn history(&self) -> &[Arc<str>] {
        &self.history
    }
}

impl Outcome {
    fn merge(&mut self, o: Outcome) {
        self.outputs.extend(o.outputs);
        if self.error.is_none() {
            self.error = o.error;
        }
    }

    /// Everything as plain text, in order (outputs, then the error report).
    pub fn plain_text(&self) -> String {
        let mut parts: Vec<String> = self
            .outputs
            .iter()
            .filter_map(|o| match o {
                Output::Warning(s) => Some(format!("warning: {s}")),
                Output::Clear { .. } => None,
                o => Some(o.text().to_string()),
            })
            .collect();
        if let Some(e) = &self.error {
            parts.push(e.report.trim_end().to_string());
        }
        parts.join("\n")
    }
}

/// The source of statement `i`: the comment lines just above it, the statement,
/// and a comment that ends its line.
fn statement_text<'a>(src: &'a str, stmts: &[Stmt], i: usize) -> &'a str {
    let span = stmts[i].span;
    let start_gap = if i == 0 {
        0
    } else {
        line_end(src, stmts[i - 1].span.end)
    };
    let mut start = span.start;
    let mut offset = start_gap.min(span.start);
    for line in src[offset..span.start].split_inclusive('\n') {
        if line.trim_start().starts_with('#') {
            start = offset;
            break;
        }
        offset += line.len();
    }
    &src[start..line_end(src, span.end)]
}

/// `at`, moved past the rest of its line when that rest is only blanks and a comment.
fn line_end(src: &str, at: usize) -> usize {
    let rest = &src[at..];
    let line = rest.split('\n').next().unwrap_or("");
    let trimmed = line.trim_start();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        at + line.trim_end_matches('\r').len()
    } else {
        at
    }
}

/// The one Ctrl-C (SIGINT) handler of the process: it raises `flag`, the
/// interrupt flag of the session that called last. A process has one
/// handler, installed on the first call; later calls point it at their flag.
pub fn interrupt_on_ctrl_c(flag: &Arc<AtomicBool>) {
    static TARGET: Mutex<Option<Arc<AtomicBool>>> = Mutex::new(None);
    static INSTALL: Once = Once::new();
    *TARGET.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(flag));
    INSTALL.call_once(|| {
        // ctrlc runs this on its own thread, not in the signal handler, so it may lock.
        let _ = ctrlc::set_handler(|| {
            if let Some(f) = TARGET.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                f.store(true, Ordering::Relaxed);
            }
        });
    });
}
