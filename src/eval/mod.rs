//! The interpreter: variables, statements and expressions over the runtime.
//! It resolves names, binds arguments and calls the runtime's op layer
//! (`runtime::dispatch`); builtins and members are found in tables
//! (`builtins/`, `methods/`). Front ends never call it directly; they go
//! through `Session`.

mod abstract_methods;
mod alloc_conf;
mod amp;
mod anomaly;
mod argparse;
pub mod args;
pub mod argv;
mod builtins;
mod bytes;
mod checkpoint;
pub mod class;
mod cmdline;
mod collections;
mod compiled;
mod context;
mod control;
mod cuda_graphs;
mod cuda_info;
mod cuda_legacy;
mod custom_function;
mod data;
mod dataclass;
mod ddp;
mod deepcopy;
mod dict_view;
pub mod distributed;
pub mod docs;
mod dunder_text;
mod dynamic_class;
mod enums;
mod environ;
mod exceptions;
mod exec;
mod expr;
mod files;
mod flow;
pub(crate) mod format;
mod forward_ad;
pub mod function;
pub mod generator;
mod glob;
mod globals;
mod grad;
mod hashable;
mod hooks;
pub mod imports;
mod inspect;
mod itertools;
mod json;
mod lazy_modules;
mod literal;
mod localtime;
mod measure;
mod memory;
mod methods;
mod module_pickle;
mod module_unpickle;
mod mp_objects;
mod mro;
mod np_random;
mod operators;
mod optimizer_live_state;
mod optimizer_state;
mod out_arg;
mod own_module;
mod packed_sequence;
mod parallel;
pub(crate) mod param_containers;
mod param_group;
mod parametrize;
mod pattern_match;
mod pil_image;
mod print_options;
mod processes;
mod program_clock;
mod pyfile;
mod pyrandom;
mod python_builtins;
mod python_re;
mod python_text;
mod quick;
mod recurrent;
mod rejection_sampling;
mod rng_state;
mod samplers;
mod saved_tensors;
mod schedule;
mod sequences;
pub mod show;
mod sparse;
pub mod spelling;
mod stateless;
mod stdlib;
mod stmt;
mod storage;
mod streams;
mod strings;
mod struct_module;
mod subset;
pub mod suggest;
mod tensorboard;
mod terminal;
mod torch_info;
mod torch_profiler;
mod transformer;
mod unicode_data;
mod user_text;
pub mod value;
mod vision_files;

use std::sync::Arc;

use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Name, Scope};
use crate::lang::Span;
pub use crate::runtime::counters::Counters;
use crate::runtime::devices::Devices;
use crate::runtime::dispatch::Runtime;
pub use globals::Globals;
pub use value::Value;

/// Deepest expression nesting evaluated; deeper input is an error, not a crash.
pub const MAX_DEPTH: usize = 256;

/// What a statement produced, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// The value of an expression statement (already rendered: later
    /// statements may change the tensor it showed).
    Value(Shown),
    /// A rich display that is not a value (`mem`): a notebook shows its HTML.
    Display(Shown),
    /// Text from `print`, `help`, `time`, `profile`.
    Text(String),
    /// A warning or a note about what the runtime did.
    Warning(String),
    /// What the program writes to stderr (argparse's usage and error):
    /// a script's stderr, a notebook's stderr stream.
    Stderr(String),
    /// The start of a line shown before the line ends: the program flushed
    /// it (`print(..., end="", flush=True)`, `sys.stderr.flush()`) or wrote
    /// a carriage return (a progress bar redrawn in place, as tqdm draws
    /// one). The line's end follows in a later `Text` or `Stderr`. Only a
    /// front end that shows outputs as they happen gets these (`Hooks::sink`).
    Partial { stderr: bool, text: String },
    /// `clear_output()`: clear what the cell (or the terminal) shows; with
    /// `wait`, only once the next output arrives.
    Clear { wait: bool },
}

impl Output {
    /// The plain text a terminal shows (warnings without their `warning:` prefix).
    pub fn text(&self) -> &str {
        match self {
            Output::Value(s) | Output::Display(s) => &s.text,
            Output::Text(s) | Output::Warning(s) | Output::Stderr(s) => s,
            Output::Partial { text, .. } => text,
            Output::Clear { .. } => "",
        }
    }
}

/// Something shown: plain text for terminals, and HTML for notebooks when
/// the front end asked for it (`Session::enable_html`).
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub text: String,
    pub html: Option<String>,
}

/// What the front end hands the interpreter, as one value the `Session`
/// keeps across a reset: where outputs go as they happen, the loop progress
/// display, whether values are rendered as HTML too, the width of text
/// drawings, and the flag that stops the running statement.
pub struct Hooks {
    /// Where outputs go as they happen; when unset they collect in `out`.
    pub sink: Option<Box<dyn FnMut(Output)>>,
    /// The sink writes to this process's own stdout and stderr (a script,
    /// the REPL), so `sys.stdout.isatty()` and `os.get_terminal_size()`
    /// are theirs; elsewhere (a notebook, a transcript) they say no
    /// terminal, as ipykernel's streams and a pipe do.
    pub terminal: bool,
    /// Told `(done, total)` as the outermost `for` or `time` loop advances (the
    /// REPL draws a progress bar from it).
    pub progress: Option<Box<dyn FnMut(u64, u64)>>,
    /// Render HTML beside the text of values and displays.
    pub html: bool,
    /// Columns for text drawings (`profile`'s timeline); 80 in transcripts.
    pub width: usize,
    /// Set from another thread (Ctrl-C, a Jupyter interrupt) to stop the
    /// running statement; the runtime checks it between ops.
    pub interrupt: Arc<std::sync::atomic::AtomicBool>,
}

impl Default for Hooks {
    fn default() -> Hooks {
        Hooks {
            sink: None,
            terminal: false,
            progress: None,
            html: false,
            width: 80,
            interrupt: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        }
    }
}

pub struct Interp {
    vars: Globals,
    /// What each `torch.profiler.profile` recorded (`torch_profiler.rs`).
    profiles: Vec<crate::runtime::timeline::Timeline>,
    /// The variables of the program's own modules (`import datautils`),
    /// and the session's while a module's function runs (`own_module`).
    parked: Vec<Globals>,
    /// The modules this interpreter imported, in order.
    own_modules: Vec<Arc<value::OwnModule>>,
    /// The tables of the modules whose bodies are running (an import
    /// cycle finds them partially initialized).
    initializing: Vec<u64>,
    /// The session's module tables, as this interpreter (a rank's, a
    /// worker's) imported them again: (the session's number, this one's).
    module_alias: Vec<(u64, u64)>,
    /// The running calls of user functions, innermost last: each holds its
    /// locals (`function::Frame`).
    frames: Vec<function::Frame>,
    /// Slot vectors of calls that ended, emptied, for the next calls.
    spare_slots: Vec<Vec<Option<Value>>>,
    pub out: Vec<Output>,
    /// The op layer and the runtime state: devices, streams, the current
    /// device, the random generator, `profile`'s counters.
    pub rt: Runtime,
    /// Inside a loop body expression statements do not display.
    quiet: usize,
    /// What `print(..., end="")` wrote of a line not yet ended.
    pub(crate) partial_line: String,
    /// The same of the program's stderr (`sys.stderr.write`).
    partial_err: String,
    /// The errors whose `except` blocks are running, innermost last (what a
    /// bare `raise` raises again).
    handling: Vec<crate::error::Diagnostic>,
    /// The instances whose `__repr__` is running (`dunder_text`): a
    /// `str(self)` in it calls `__str__` alone, as Python's does.
    reprs_running: Vec<usize>,
    /// Whether a top-level expression statement shows its value (the REPL,
    /// a transcript); off when a file runs as Python runs one.
    echo: bool,
    /// Inside `profile { }`: the device values its expression statements
    /// show, shown after the profile (`exec_profile`).
    shown_after: Option<Vec<(Value, crate::lang::Span)>>,
    /// The front end's hooks (`Hooks`).
    pub hooks: Hooks,
    /// Warnings given by the running top-level statement, with repeat counts.
    warned: Vec<(String, u64)>,
    /// PyTorch's warnings given once a session (`TORCH_WARN_ONCE`).
    warned_in_session: Vec<&'static str>,
    /// Where a Python program has been warned: each warning and the
    /// source and statement it came from, shown once (Python's default
    /// filter).
    warned_at: std::collections::HashSet<(String, usize, usize)>,
    /// Where the innermost running statement starts (a warning's place).
    statement_at: std::cell::Cell<usize>,
    /// The clock the program reads (`time.perf_counter`, `time.time`).
    clock: program_clock::ProgramClock,
    /// Whether ops record autograd's graph (off inside `no_grad { }`).
    pub(crate) grad: crate::autograd::Mode,
    /// The script or cell running now: the functions it defines keep it.
    source: Option<Arc<crate::error::Source>>,
    /// In a DataParallel replica's thread: its turn with the GIL
    /// (`parallel.rs`).
    turn: Option<parallel::Turn>,
    /// Where factories and modules put what they make when no `device=` is
    /// given (`torch.set_default_device`, `with torch.device(d):`); none:
    /// the cpu. Per interpreter, as PyTorch's is per thread.
    pub(crate) default_device: Option<value::DefaultDevice>,
    /// The warning categories the program's `warnings` filters ignore.
    pub(crate) ignored_warnings: Vec<String>,
    /// Set by `torch.func.vmap` while an element other than the last runs:
    /// a backward keeps its graph, which PyTorch's one batched call would
    /// free only once (`stateless.rs`).
    pub(crate) vmap_retain: bool,
    /// In a DataLoader worker: which worker of the pass, and its copy of
    /// the dataset (`torch.utils.data.get_worker_info()`).
    pub(crate) worker_info: Option<(crate::data::epoch::WorkerSeat, Value)>,
    /// In a rank or a process this session started: its process id
    /// (`os.getpid()`); none: the session's own.
    pub(crate) pid: Option<u32>,
    /// Its name (`multiprocessing.current_process().name`: `Process-1`,
    /// a `spawn` rank's `SpawnProcess-1`).
    pub(crate) process_name: Option<String>,
    /// How many ranks and processes this interpreter has started (their
    /// process ids follow its own).
    children_started: u32,
    /// How many processes it has made (`Process()` and `spawn`'s ranks
    /// alike, as Python's one counter names them: `Process-3`).
    processes_named: u32,
    /// The processes `torch.multiprocessing.Process` started (`processes.rs`).
    processes: processes::Processes,
}

impl Interp {
    pub fn new(seed: u64, devices: Arc<Devices>, hooks: Hooks) -> Interp {
        Interp::with_runtime(Runtime::new(seed, devices), hooks)
    }

    /// An interpreter over `rt` (stopped by the hooks' interrupt flag).
    fn with_runtime(mut rt: Runtime, hooks: Hooks) -> Interp {
        rt.interrupt = Arc::clone(&hooks.interrupt);
        Interp {
            vars: Globals::default(),
            profiles: Vec::new(),
            parked: Vec::new(),
            own_modules: Vec::new(),
            initializing: Vec::new(),
            module_alias: Vec::new(),
            frames: Vec::new(),
            spare_slots: Vec::new(),
            out: Vec::new(),
            rt,
            quiet: 0,
            echo: true,
            partial_line: String::new(),
            partial_err: String::new(),
            handling: Vec::new(),
            reprs_running: Vec::new(),
            shown_after: None,
            hooks,
            warned: Vec::new(),
            warned_in_session: Vec::new(),
            warned_at: Default::default(),
            statement_at: std::cell::Cell::new(0),
            clock: Default::default(),
            grad: crate::autograd::Mode::default(),
            source: None,
            turn: None,
            default_device: None,
            ignored_warnings: Vec::new(),
            vmap_retain: false,
            worker_info: None,
            pid: None,
            process_name: None,
            children_started: 0,
            processes_named: 0,
            processes: Default::default(),
        }
    }

    /// Whether the running code is a Python program's (a `.py` file: its
    /// `[...]` are Python's lists, not tensor literals).
    pub(crate) fn python_program(&self) -> bool {
        // Inside a function, the text that defined it decides (a module's
        // Python called from a cell of cudash's language stays Python).
        self.running_source()
            .is_some_and(|s| crate::lang::Dialect::of(&s.name) == crate::lang::Dialect::Python)
    }

    /// The text the running code comes from: the running function's, else
    /// the script's or cell's.
    pub(crate) fn running_source(&self) -> Option<&Arc<crate::error::Source>> {
        match self.frames.last() {
            Some(frame) => frame.function.source.as_ref().or(self.source.as_ref()),
            None => self.source.as_ref(),
        }
    }

    /// Whether expression statements show their values (`echo`).
    pub fn set_echo(&mut self, on: bool) {
        self.echo = on;
    }

    /// The script or cell about to run (its name and text, for the errors
    /// of the functions it defines).
    pub fn set_source(&mut self, source: Arc<crate::error::Source>) {
        self.source = Some(source);
    }

    /// A DataLoader worker's interpreter: the session's variables `vars`,
    /// its own generator (`seed`) and host clock, stopped by `stop`.
    pub(crate) fn worker(
        seed: u64,
        devices: Arc<Devices>,
        stop: Arc<std::sync::atomic::AtomicBool>,
        vars: Vec<(String, Value)>,
    ) -> Interp {
        let mut shared = std::collections::HashSet::new();
        for (_, v) in &vars {
            v.each_tensor(&mut |t| {
                shared.insert(t.storage_id());
            });
        }
        let hooks = Hooks {
            interrupt: stop,
            ..Hooks::default()
        };
        Interp::with_globals(Runtime::for_worker(seed, devices, shared), hooks, vars)
    }

    /// An interpreter of another thread over `rt` whose globals are `vars`
    /// (a DataLoader worker's, a DataParallel replica's).
    fn with_globals(rt: Runtime, hooks: Hooks, vars: Vec<(String, Value)>) -> Interp {
        let mut it = Interp::with_runtime(rt, hooks);
        for (name, v) in vars {
            it.vars.insert(name, v);
        }
        it
    }

    pub fn vars(&self) -> &Globals {
        &self.vars
    }

    pub fn reset_vars(&mut self) {
        // Freed in name order, the same on every run.
        self.vars.clear();
    }

    /// Runs one top-level statement; on error every name it assigned gets its old value back.
    pub fn run_top(&mut self, s: &crate::lang::ast::Stmt) -> Result<(), Diagnostic> {
        self.vars.begin_statement();
        // `break`, `continue` and `return` out of place do not parse
        // (`lang::flow`), so a top-level statement always ends with `Next`.
        let r = self.exec(s).map(|_| ());
        if r.is_err() {
            // A failed call's frames end with it.
            self.frames.clear();
            self.vars.undo();
        }
        // Values the statement replaced or deleted are freed here: report what that frees.
        drop(self.vars.take_undo());
        self.flush_notes();
        self.flush_hazards();
        self.summarise_repeats();
        r
    }

    /// Ends a line `print(..., end="")` left open (the end of a script or
    /// a cell: the next print would have gone on with it).
    pub fn end_open_line(&mut self) {
        if !self.partial_line.is_empty() {
            let line = std::mem::take(&mut self.partial_line);
            self.emit(Output::Text(line));
        }
        if !self.partial_err.is_empty() {
            let line = std::mem::take(&mut self.partial_err);
            self.emit(Output::Stderr(line));
        }
    }

    /// `text` written to the program's stdout (where `print` writes) or
    /// stderr: the lines it ends are shown, the rest waits for more.
    pub(crate) fn write_text(&mut self, stderr: bool, text: &str) {
        let open = match stderr {
            true => &mut self.partial_err,
            false => &mut self.partial_line,
        };
        let mut all = std::mem::take(open);
        all.push_str(text);
        if let Some(k) = all.rfind('\n') {
            *open = all[k + 1..].to_string();
            all.truncate(k);
            self.emit(match stderr {
                true => Output::Stderr(all),
                false => Output::Text(all),
            });
        } else {
            *open = all;
        }
        // Python's standard streams are line-buffered, and a carriage
        // return flushes them too: a line redrawn in place shows at once.
        if text.contains('\r') {
            self.flush_stream(stderr);
        }
    }

    /// `sys.stdout.flush()`, `print(..., flush=True)`: the line the program
    /// left open is shown now (a `Partial`), its end when it comes, where
    /// the front end shows outputs as they happen (`Hooks::sink`: a script,
    /// the REPL, a notebook). A transcript shows each statement's outputs
    /// after it, so there the line waits for its end and stays whole.
    pub(crate) fn flush_stream(&mut self, stderr: bool) {
        if self.hooks.sink.is_none() {
            return;
        }
        let open = match stderr {
            true => &mut self.partial_err,
            false => &mut self.partial_line,
        };
        if !open.is_empty() {
            let text = std::mem::take(open);
            self.emit(Output::Partial { stderr, text });
        }
    }

    /// The session's names and the running call's own, with their values
    /// (what `mem map` and autograd's bookkeeping name things after).
    pub(crate) fn named_values(&self) -> impl Iterator<Item = (&String, &Value)> {
        let locals = self.frames.last().into_iter().flat_map(|f| f.vars());
        self.vars.iter().chain(locals)
    }

    /// The running call's slot for `name`, when it is a local (`Scope`).
    fn local_mut(&mut self, name: &Name) -> Option<&mut Option<Value>> {
        match name.scope {
            Scope::Local(k) => self.frames.last_mut()?.slots.get_mut(k as usize),
            _ => None,
        }
    }

    /// The cell that holds `name`, when the running call shares it with
    /// functions it defined, or took it from the function around it.
    fn cell(&self, name: &Name) -> Option<&value::Cell> {
        let frame = self.frames.last()?;
        match name.scope {
            Scope::Cell(k) => frame.cells.get(k as usize),
            Scope::Free(k) => frame.function.closure.get(k as usize),
            _ => None,
        }
    }

    #[inline]
    fn set_var(&mut self, name: &Name, v: Value) {
        // `_` is Python's name for a value thrown away: warnings keep the
        // tensor's own name (`_ = h.copy_(d)` still says `h`).
        // Inside a call every name the body assigns is the call's own; it
        // names a tensor only when the session has not (the caller's
        // tensor keeps the caller's name).
        let tensor = match &v {
            Value::Tensor(t) if name.name != "_" => Some(t),
            _ => None,
        };
        if let Some(slot) = self.local_mut(name) {
            if let Some(t) = tensor {
                t.label_if_unnamed(&name.name);
            }
            *slot = Some(v);
            return;
        }
        if let Some(cell) = self.cell(name) {
            if let Some(t) = tensor {
                t.label_if_unnamed(&name.name);
            }
            *crate::runtime::lock::lock(cell) = Some(v);
            return;
        }
        if let Some(t) = tensor {
            t.set_label(&name.name);
        }
        self.vars.assign(name, v);
    }

    /// The value `name` holds where the running code reads it: the call's
    /// own local, or else the session's variable.
    fn get_var(&self, name: &Name) -> Option<std::borrow::Cow<'_, Value>> {
        use std::borrow::Cow;
        match (name.scope, self.frames.last()) {
            (Scope::Local(k), Some(frame)) => {
                frame.slots.get(k as usize)?.as_ref().map(Cow::Borrowed)
            }
            (Scope::Cell(_) | Scope::Free(_), Some(_)) => {
                crate::runtime::lock::lock(self.cell(name)?)
                    .clone()
                    .map(Cow::Owned)
            }
            _ => self.vars.read(name).map(Cow::Borrowed),
        }
    }

    fn remove_var(&mut self, name: &Name) -> Option<Value> {
        if let Some(slot) = self.local_mut(name) {
            return slot.take();
        }
        if let Some(cell) = self.cell(name) {
            return crate::runtime::lock::lock(cell).take();
        }
        self.vars.delete(&name.name)
    }

    /// Hands an output to the front end: at once when it listens, else into `out`.
    pub(crate) fn emit(&mut self, o: Output) {
        match self.hooks.sink.as_mut() {
            Some(f) => f(o),
            None => self.out.push(o),
        }
    }

    /// Reports loop progress, for the outermost loop only.
    fn progress(&mut self, done: u64, total: u64) {
        if self.quiet == 1 {
            if let Some(f) = self.hooks.progress.as_mut() {
                f(done, total);
            }
        }
    }

    /// A statement at `span` starts: the allocators' history attributes
    /// what follows to it (inside a call, to the statement that made the
    /// call: a function's body may come from another cell), unless Ctrl-C
    /// asked to stop.
    pub(super) fn enter(&self, span: Span) -> Result<(), Diagnostic> {
        self.statement_at.set(span.start);
        if self.frames.is_empty() {
            self.rt.at_statement(span.start);
        }
        self.check_interrupt(span)
    }

    fn check_interrupt(&self, span: Span) -> Result<(), Diagnostic> {
        if self.rt.interrupted() {
            return Err(Error::Interrupted.at(span));
        }
        Ok(())
    }

    /// The names a completion or "did you mean" may offer.
    pub fn known_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.vars.keys().cloned().collect();
        names.extend(["inf".to_string(), "nan".to_string()]);
        names.extend(spelling::VALUES.iter().map(|(n, _)| n.to_string()));
        names.extend(
            docs::DOCS
                .iter()
                .filter(|d| d.kind == docs::Kind::Function)
                .map(|d| d.name.to_string()),
        );
        names.sort();
        names.dedup();
        names
    }
}
