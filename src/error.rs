//! Errors as data: a kind with structured fields plus the span it refers to.
//! They are rendered in one place, `diag::render`.

use std::sync::Arc;

use crate::vocab::{human_bytes, Device, Span};

fn human(b: usize) -> String {
    human_bytes(b as u128)
}

/// A raised instance of a program's exception class: the interpreter's
/// value, which `except E as e` binds again. Equal only to itself.
#[derive(Clone)]
pub struct Instance(pub Arc<dyn std::any::Any + Send + Sync>);

impl PartialEq for Instance {
    fn eq(&self, other: &Instance) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<exception instance>")
    }
}

/// What went wrong. Runtime functions return this without a span; the
/// evaluator attaches the span of the expression that failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    #[error("{message}")]
    Syntax {
        message: String,
        label: String,
        /// The input ended early: more lines would complete it.
        incomplete: bool,
    },
    #[error("name '{name}' is not defined")]
    UnknownName {
        name: String,
        suggestion: Option<String>,
    },
    #[error("{ty} has no method or property `{name}`")]
    UnknownAttr {
        ty: String,
        name: String,
        suggestion: Option<String>,
    },
    #[error("`{func}` has no argument named `{name}`")]
    UnknownKeyword {
        func: String,
        name: String,
        suggestion: Option<String>,
        signature: String,
    },
    #[error("`{func}` takes {expected}, but {found} given")]
    Arity {
        func: String,
        expected: String,
        found: String,
        signature: String,
    },
    #[error("{what} must be {expected}, not {found}")]
    WrongType {
        what: String,
        expected: String,
        found: String,
    },
    #[error("shapes {lhs} and {rhs} cannot be broadcast together for `{op}`")]
    Broadcast {
        op: String,
        lhs: String,
        rhs: String,
    },
    #[error("{message}")]
    Shape {
        message: String,
        help: Option<String>,
    },
    #[error("{message}")]
    DType {
        message: String,
        help: Option<String>,
    },
    #[error("index {index} is out of bounds for dimension {dim} with size {size}")]
    IndexOutOfRange { index: i64, dim: usize, size: usize },
    /// Indices into a dimension of size 0 (PyTorch's `AdvancedIndex`
    /// check, on the host before any kernel, on every device).
    #[error("index is out of bounds for dimension with size 0")]
    IndexIntoEmpty,
    #[error("Expected all tensors to be on the same device, but found at least two devices, {a} and {b}!")]
    DeviceMismatch { a: Device, b: Device },
    /// A failed driver, NVRTC or cuBLAS call on a real GPU. `sticky`: an
    /// error after which the device's context can run nothing more.
    #[error("CUDA error on {device}: {message}")]
    Cuda {
        device: Device,
        message: String,
        sticky: bool,
    },
    /// `CUDA_ERROR_ASSERT`: a kernel on `device` failed a device-side
    /// assertion (an index out of range, as PyTorch's kernels check), and
    /// CUDA runs nothing more there. The device prints which assertion
    /// failed on the process's standard output.
    #[error("CUDA error on {device}: device-side assert triggered")]
    DeviceAssert { device: Device },
    #[error("{device} does not exist: {reason}")]
    NoDevice { device: String, reason: String },
    #[error("{message}")]
    NotAvailable { message: String, help: String },
    /// PyTorch 2.15's message, word for word (`CUDACachingAllocator.cpp`'s
    /// `malloc`, read in libc10_cuda.so): the process's memory in use where
    /// NVML answers (the simulator and emu: the device's one process), the
    /// fraction's limit where one is set, and a last sentence that depends
    /// on whether expandable segments are on.
    #[error(
        "CUDA out of memory. Tried to allocate {}. GPU {} has a total capacity of {} of which {} is free. \
         {}{}Of the allocated memory {} is allocated by PyTorch, {}and {} is reserved by PyTorch but unallocated.{}",
        format_size(*segment), gpu_index(device), format_size(*capacity), format_size(*free),
        process_of(process), allowed_of(allowed), format_size(allocated + private), private_of(*private),
        format_size(reserved.saturating_sub(allocated + private)), oom_tail(*expandable)
    )]
    OutOfMemory {
        device: Device,
        /// The bytes asked for.
        requested: usize,
        /// What the allocator tried to allocate for them: the segment an
        /// ordinary request gets (2 MiB for a small one), as PyTorch reports.
        segment: usize,
        capacity: usize,
        free: usize,
        allocated: usize,
        reserved: usize,
        /// The free bytes cached in private pools (CUDA graphs'), which
        /// PyTorch counts as allocated.
        private: usize,
        /// `set_per_process_memory_fraction`'s limit, when one is set.
        allowed: Option<usize>,
        /// What this process holds on the device (NVML's figure), when known.
        process: Option<usize>,
        /// Whether expandable segments are on.
        expandable: bool,
    },
    /// A tensor larger than the host's available memory (checked before allocating).
    #[error("{message}")]
    HostOutOfMemory { message: String, needed: u64 },
    #[error("the statement was stopped (Ctrl-C); every variable keeps the value it had before it")]
    Interrupted,
    /// `sys.exit(code)`, argparse's exit: a script ends here with `code`.
    #[error("{code}")]
    Exit { code: i32 },
    #[error("cannot {action} `{path}`: {reason}")]
    Io {
        action: String,
        path: String,
        reason: String,
    },
    #[error("{message}")]
    Value {
        message: String,
        help: Option<String>,
    },
    /// A call of a user function that does not fit its parameters (a
    /// missing argument, one given twice): Python's `TypeError`.
    #[error("{message}")]
    Call { message: String, signature: String },
    /// What autograd refuses (backward twice, a saved tensor changed in
    /// place, an integer tensor that would require grad): PyTorch's
    /// `RuntimeError`, with what to do.
    #[error("{message}")]
    Autograd { message: String, help: String },
    /// `x.shape = ...`, `3 .grad = g`: a property that cannot be set
    /// (Python's `AttributeError`).
    #[error("{message}")]
    ReadOnly { message: String },
    /// An attribute an object does not have or cannot take, in Python's
    /// or PyTorch's words (`'Net' object has no attribute 'fc3'`, "cannot
    /// assign module before Module.__init__() call"): `AttributeError`.
    #[error("{message}")]
    Attribute {
        message: String,
        help: Option<String>,
    },
    /// A value of the wrong kind where Python or PyTorch raise
    /// `TypeError` in their own words ("cannot assign 'int' as child
    /// module 'fc'"), or a module's `RuntimeError` (`load_state_dict`).
    #[error("{message}")]
    Module {
        class: &'static str,
        message: String,
        help: Option<String>,
    },
    /// More calls deep than `MAX_CALLS`: Python's `RecursionError`.
    #[error("maximum recursion depth exceeded: {depth} calls deep, in `{function}`")]
    Recursion { function: String, depth: usize },
    /// A function's local read before the body assigned it: Python's
    /// `UnboundLocalError`.
    #[error("cannot read the local variable `{name}` before it is assigned")]
    Unbound { name: String },
    /// Python's `NameError` for a closure's variable the enclosing function
    /// has not assigned (yet, or any more).
    #[error("cannot access free variable '{name}' where it is not associated with a value in enclosing scope")]
    FreeUnbound { name: String },
    /// What a DataLoader worker's sample function raised, re-raised in the
    /// loop as PyTorch's `DataLoader` does ("Caught ValueError in DataLoader
    /// worker process 0"): its class, label and help are the error's own.
    #[error("Caught {} in DataLoader worker {worker}{}: {error}", .error.class(), making(.sample))]
    Worker {
        worker: usize,
        /// The sample being made, when one was.
        sample: Option<usize>,
        error: Box<Error>,
    },
    /// What a DataParallel replica's forward raised in its thread,
    /// re-raised by `parallel_apply` as PyTorch's `ExceptionWrapper`
    /// re-raises it ("Caught RuntimeError in replica 1 on device 1."), at
    /// the line of the forward that raised it.
    #[error("Caught {} in replica {replica} on device {device}.\nOriginal: {}", python_class(.error.error.class()), .error.error)]
    Replica {
        replica: usize,
        device: u32,
        error: Box<Diagnostic>,
    },
    /// A collective of `torch.distributed` that cannot complete (ranks
    /// that disagree, or wait for one another), or a process group used
    /// wrongly: PyTorch's `DistBackendError` and its `ValueError`s.
    #[error("{message}")]
    Distributed { message: String, help: String },
    /// What a rank of `spawn` raised, re-raised by `spawn` as PyTorch's
    /// `ProcessRaisedException` ("-- Process 2 terminated with the following
    /// error:"), at the line of the rank's function that raised it.
    #[error("\n\n-- Process {rank} terminated with the following error:\n{}: {}", python_class(.error.error.class()), .error.error)]
    Process { rank: usize, error: Box<Diagnostic> },
    /// An instance of one of the program's exception classes, raised
    /// (`raise TrainingError("loss is nan")`): `class` is the built-in
    /// class it derives from (what `except ValueError` asks), `name` its
    /// own class's, `message` its `str()`.
    #[error("{message}")]
    Raised {
        class: &'static str,
        name: String,
        message: String,
        instance: Instance,
    },
    /// An error that knows where it was raised already: one a backward
    /// hook's body raised, which ends the backward that called the hook.
    #[error("{}", .0.error)]
    Located(Box<Diagnostic>),
    /// Python or PyTorch written where cudash has its own form (`import
    /// torch`, `torch.zeros(2)`, `range(3)`, a `:` block): what it is here.
    #[error("{message}")]
    Spelling {
        message: String,
        /// Under the caret: `PyTorch's spelling`, `Python's block`.
        label: String,
        /// The cudash form.
        help: String,
        /// `SyntaxError` (the program did not parse), `NameError`, `AttributeError`.
        class: &'static str,
    },
}

/// "Including non-PyTorch memory, this process has 1.2 GiB memory in use. "
/// (what PyTorch says where NVML answers), or nothing.
fn process_of(process: &Option<usize>) -> String {
    process.map_or(String::new(), |p| {
        format!(
            "Including non-PyTorch memory, this process has {} memory in use. ",
            format_size(p)
        )
    })
}

/// How PyTorch's out-of-memory message ends: the fragmentation hint, or,
/// with expandable segments on, a word on their address space.
fn oom_tail(expandable: bool) -> &'static str {
    match expandable {
        false => {
            " If reserved but unallocated memory is large try setting \
             PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See \
             documentation for Memory Management  \
             (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"
        }
        true => {
            " expandable_segments is enabled. If instead the process is running out of virtual \
             address space (VSZ), expandable segments may be over-reserving VA (each segment \
             reserves ~9/8 of device memory, times the number of streams); reduce it via \
             PYTORCH_CUDA_ALLOC_CONF expandable_segments_reserve / \
             expandable_segments_reserve_by_class."
        }
    }
}

/// "1.6 GiB allowed; " (PyTorch's words for a memory fraction's limit),
/// or nothing.
/// PyTorch's clause for memory cached in private pools, where there is some.
fn private_of(private: usize) -> String {
    match private {
        0 => String::new(),
        p => format!(
            "with {} allocated in private pools (e.g., CUDA Graphs), ",
            format_size(p)
        ),
    }
}

fn allowed_of(allowed: &Option<usize>) -> String {
    allowed.map_or(String::new(), |a| format!("{} allowed; ", format_size(a)))
}

/// A size as PyTorch's allocator messages write it (its `format_size`).
fn format_size(bytes: usize) -> String {
    let b = bytes as f64;
    match bytes {
        0..=1024 => format!("{bytes} bytes"),
        1025..=1_048_576 => format!("{:.2} KiB", b / 1024.0),
        1_048_577..=1_073_741_824 => format!("{:.2} MiB", b / 1_048_576.0),
        _ => format!("{:.2} GiB", b / 1_073_741_824.0),
    }
}

/// The number PyTorch's messages give a CUDA device (`GPU 0`).
fn gpu_index(device: &Device) -> u32 {
    match device {
        Device::Cuda(i) => *i,
        _ => 0,
    }
}

/// The Python class PyTorch raises for a cudash error class: its
/// `RuntimeError`s have finer names here (`ShapeError`, `DeviceError`).
fn python_class(class: &str) -> &str {
    match class {
        "ShapeError" | "DTypeError" | "DeviceError" | "CudaError" => "RuntimeError",
        c => c,
    }
}

/// " making sample 3" (a worker's error), or nothing.
fn making(sample: &Option<usize>) -> String {
    sample.map_or(String::new(), |i| format!(" making sample {i}"))
}

impl Error {
    pub fn value(message: impl Into<String>) -> Error {
        Error::Value {
            message: message.into(),
            help: None,
        }
    }

    pub fn value_help(message: impl Into<String>, help: impl Into<String>) -> Error {
        Error::Value {
            message: message.into(),
            help: Some(help.into()),
        }
    }

    /// Python's `TypeError`, in its words (`'int' object is not iterable`).
    pub fn type_error(message: impl Into<String>) -> Error {
        Error::Module {
            class: "TypeError",
            message: message.into(),
            help: None,
        }
    }

    /// An error PyTorch raises as a plain `RuntimeError`, in its words.
    pub fn runtime(message: impl Into<String>) -> Error {
        Error::Module {
            class: "RuntimeError",
            message: message.into(),
            help: None,
        }
    }

    /// Python's `NotImplementedError` (what PyTorch raises where an op
    /// has no kernel for a device, as the meta device's reads).
    pub fn not_implemented(message: impl Into<String>, help: impl Into<String>) -> Error {
        Error::Module {
            class: "NotImplementedError",
            message: message.into(),
            help: Some(help.into()),
        }
    }

    pub fn shape(message: impl Into<String>) -> Error {
        Error::Shape {
            message: message.into(),
            help: None,
        }
    }

    pub fn dtype(message: impl Into<String>, help: Option<String>) -> Error {
        Error::DType {
            message: message.into(),
            help,
        }
    }

    pub fn wrong_type(
        what: impl Into<String>,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Error {
        Error::WrongType {
            what: what.into(),
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// A Python-like class name, used as `ename` in Jupyter.
    pub fn class(&self) -> &'static str {
        match self {
            Error::Syntax { .. } => "SyntaxError",
            Error::UnknownName { .. } => "NameError",
            Error::UnknownAttr { .. } => "AttributeError",
            Error::UnknownKeyword { .. }
            | Error::Arity { .. }
            | Error::WrongType { .. }
            | Error::Call { .. } => "TypeError",
            Error::Recursion { .. } => "RecursionError",
            Error::Unbound { .. } => "UnboundLocalError",
            Error::FreeUnbound { .. } => "NameError",
            Error::Broadcast { .. } | Error::Shape { .. } => "ShapeError",
            Error::DType { .. } => "DTypeError",
            Error::IndexOutOfRange { .. } | Error::IndexIntoEmpty => "IndexError",
            Error::DeviceMismatch { .. } | Error::NoDevice { .. } | Error::NotAvailable { .. } => {
                "DeviceError"
            }
            Error::Cuda { .. } | Error::DeviceAssert { .. } => "CudaError",
            Error::Interrupted => "Interrupted",
            Error::Exit { .. } => "SystemExit",
            Error::OutOfMemory { .. } | Error::HostOutOfMemory { .. } => "OutOfMemoryError",
            Error::Io { .. } => "IOError",
            Error::Value { .. } => "ValueError",
            Error::Autograd { .. } => "RuntimeError",
            Error::ReadOnly { .. } | Error::Attribute { .. } => "AttributeError",
            Error::Module { class, .. } => class,
            Error::Spelling { class, .. } => class,
            Error::Worker { error, .. } => error.class(),
            Error::Replica { error, .. } => error.error.class(),
            Error::Distributed { .. } => "DistBackendError",
            Error::Process { .. } => "ProcessRaisedException",
            Error::Raised { class, .. } => class,
            Error::Located(d) => d.error.class(),
        }
    }

    /// The class's name as Python prints it: a program's own exception
    /// class's (`TrainingError`), else `class()`.
    pub fn python_name(&self) -> std::borrow::Cow<'static, str> {
        match self {
            Error::Raised { name, .. } => name.clone().into(),
            Error::Located(d) => d.error.python_name(),
            other => other.class().into(),
        }
    }

    /// The class a Python program sees: PyTorch's `RuntimeError` where
    /// cudash's cells name it finer (`ShapeError`, `DTypeError`), as
    /// `except RuntimeError` catches it.
    pub fn python_program_name(&self) -> std::borrow::Cow<'static, str> {
        match self.python_name() {
            std::borrow::Cow::Borrowed(c) => python_class(c).into(),
            owned => owned,
        }
    }

    /// The short text under the caret.
    pub fn label(&self) -> String {
        match self {
            Error::Syntax { label, .. } => label.clone(),
            Error::UnknownName { .. } => "not defined".into(),
            Error::UnknownAttr { .. } => "no such method or property".into(),
            Error::UnknownKeyword { .. } => "unknown keyword".into(),
            Error::Arity { .. } => "wrong number of arguments".into(),
            Error::WrongType { found, .. } => format!("this is {found}"),
            Error::Broadcast { lhs, rhs, .. } => format!("{lhs} vs {rhs}"),
            Error::Shape { .. } => "shape mismatch".into(),
            Error::DType { .. } => "dtype problem".into(),
            Error::IndexOutOfRange { .. } | Error::IndexIntoEmpty => "out of range".into(),
            Error::DeviceMismatch { a, b } => format!("operands on {a} and {b}"),
            Error::NoDevice { .. } | Error::NotAvailable { .. } => "needs a CUDA device".into(),
            Error::Cuda { .. } => "failed on the GPU".into(),
            Error::DeviceAssert { .. } => "reported here".into(),
            Error::Interrupted => "stopped here".into(),
            Error::Exit { .. } => "the program exits here".into(),
            Error::OutOfMemory { requested, .. } => format!("asks for {}", human(*requested)),
            Error::HostOutOfMemory { needed, .. } => {
                format!("asks for {}", human_bytes(u128::from(*needed)))
            }
            Error::Io { .. } => "file problem".into(),
            Error::Value { .. } => "invalid value".into(),
            Error::Spelling { label, .. } => label.clone(),
            Error::Call { .. } => "in this call".into(),
            Error::Autograd { .. } => "autograd".into(),
            Error::ReadOnly { .. } => "cannot be set".into(),
            Error::Attribute { message, .. } if message.contains("has no attribute") => {
                "no such attribute".into()
            }
            Error::Attribute { .. } => "here".into(),
            Error::Module { .. } => "here".into(),
            Error::Recursion { .. } => "one call too many".into(),
            Error::Unbound { .. } | Error::FreeUnbound { .. } => "not assigned yet".into(),
            Error::Worker { error, .. } => error.label(),
            Error::Replica { error, .. } => error.error.label(),
            Error::Distributed { .. } => "here".into(),
            Error::Process { error, .. } => error.error.label(),
            Error::Raised { .. } => "raised here".into(),
            Error::Located(d) => d.error.label(),
        }
    }

    /// What to try, when there is something useful to say.
    pub fn help(&self) -> Option<String> {
        match self {
            Error::UnknownName { suggestion, .. } | Error::UnknownAttr { suggestion, .. } => {
                suggestion.as_ref().map(|s| format!("did you mean `{s}`?"))
            }
            Error::UnknownKeyword {
                suggestion, signature, ..
            } => Some(match suggestion {
                Some(s) => format!("did you mean `{s}`? usage: {signature}"),
                None => format!("usage: {signature}"),
            }),
            Error::Arity { signature, .. } => Some(format!("usage: {signature}")),
            Error::Broadcast { .. } => Some(
                "dimensions are compared from the right; each pair must be equal, or one of them 1".into(),
            ),
            Error::DeviceMismatch { a, b } => Some(format!(
                "move one operand first, e.g. `.to({a})` on the {b} operand, or `.to({b})` on the {a} one"
            )),
            Error::NotAvailable { help, .. } => Some(help.clone()),
            Error::OutOfMemory {
                device,
                allowed: Some(a),
                ..
            } => Some(format!(
                "`set_per_process_memory_fraction` lets this process reserve {} of {device}: \
                 `del` tensors you no longer need, or raise the fraction (1.0 lifts it)",
                human(*a)
            )),
            Error::OutOfMemory { reserved, allocated, .. } if reserved > allocated => Some(
                "`del` tensors you no longer need (their blocks go back to the cache), then `empty_cache()` \
                 to return cached segments to the device; or use smaller shapes or dtypes. Memory reserved but \
                 unallocated that `empty_cache()` cannot return is fragmentation: \
                 `set_allocator_settings(\"expandable_segments:True\")` lets each stream's memory grow as one \
                 segment instead"
                    .into(),
            ),
            Error::OutOfMemory { .. } => Some(
                "`del` tensors you no longer need, use smaller shapes or a smaller dtype (f16, bf16), \
                 or spread the work over several devices"
                    .into(),
            ),
            Error::HostOutOfMemory { .. } => {
                Some("use a smaller shape or a smaller dtype (f16, bf16)".into())
            }
            Error::Shape { help, .. }
            | Error::DType { help, .. }
            | Error::Value { help, .. }
            | Error::Attribute { help, .. }
            | Error::Module { help, .. } => help.clone(),
            Error::Spelling { help, .. } => Some(help.clone()),
            Error::Call { signature, .. } => Some(format!("usage: {signature}")),
            Error::Autograd { help, .. } => Some(help.clone()),
            Error::ReadOnly { .. } => Some(
                "a tensor's `.grad` (a tensor or none), `.requires_grad` and `.data` can be set"
                    .into(),
            ),
            Error::Recursion { .. } => Some(
                "a recursive function needs a case that returns without calling itself".into(),
            ),
            Error::Unbound { name } => Some(format!(
                "the function assigns `{name}` somewhere, so `{name}` is its own local everywhere in it \
                 (Python's rule); assign it before reading it, or pass the value in as an argument"
            )),
            Error::Cuda { sticky: true, .. } => Some(
                "after this error CUDA runs nothing more on the device in this process: restart cudash. \
                 CUDA reports a fault at the first call after it, so the work that caused it may have \
                 been queued by an earlier statement; `--launch-blocking` reports each fault at the \
                 statement that caused it"
                    .into(),
            ),
            Error::DeviceAssert { device } => Some(format!(
                "a kernel on {device} failed an assertion: the device printed which one, and \
                 where, on the standard output of cudash (in Jupyter, of the kernel's process). \
                 CUDA reports this at the first call on {device} after the kernel ran, so the \
                 statement shown may not be the one that queued the kernel (`--launch-blocking` \
                 reports it at that statement). CUDA runs nothing more on {device} in this \
                 process: restart cudash (in Jupyter, restart the kernel)"
            )),
            Error::Worker { error, .. } => error.help(),
            Error::Replica { error, .. } => error.error.help(),
            Error::Distributed { help, .. } => Some(help.clone()),
            Error::Process { error, .. } => error.error.help(),
            Error::Located(d) => d.error.help(),
            Error::IndexOutOfRange { size: 0, .. } | Error::IndexIntoEmpty => {
                Some("the dimension has no elements, so no index is valid".into())
            }
            Error::IndexOutOfRange { size, .. } => Some(format!(
                "valid indices are 0..{size} (or -{size}..-1 counting from the end)"
            )),
            _ => None,
        }
    }

    /// `sys.exit(code)`'s code, where this error is that exit.
    pub fn exit_code(&self) -> Option<i32> {
        match self {
            Error::Exit { code } => Some(*code),
            Error::Located(d) => d.error.exit_code(),
            _ => None,
        }
    }

    /// This error at `span`, unless it knows where it was raised already
    /// (`Error::Located`).
    pub fn at_or_where_raised(self, span: Span) -> Diagnostic {
        match self {
            Error::Located(d) => *d,
            Error::Replica { ref error, .. } | Error::Process { ref error, .. } => {
                let (at, source) = (error.span, error.source.clone());
                let mut d = self.at(at);
                d.0.source = source;
                d
            }
            e => e.at(span),
        }
    }

    pub fn at(self, span: Span) -> Diagnostic {
        Diagnostic(Box::new(Located {
            error: self,
            span,
            source: None,
            called_from: Vec::new(),
            more_calls: 0,
            chain: None,
        }))
    }
}

/// An error with the span of source it refers to. Boxed: a `Result` of
/// the interpreter's stays the size of its value, so the calls that return
/// one (every expression evaluated) move a few words, not the whole error.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic(Box<Located>);

/// What a `Diagnostic` holds: the error and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    pub error: Error,
    pub span: Span,
    /// The script or cell `span` is in, when it is not the one that ran (a
    /// function defined in an earlier cell); none: the running one.
    pub source: Option<Arc<Source>>,
    /// The calls of the program's functions the error left, innermost
    /// first: Python's traceback, read upwards (at most `SHOWN_CALLS`).
    pub called_from: Vec<CallSite>,
    /// Calls left beyond those (a deep recursion).
    pub more_calls: usize,
    /// The exceptions it is chained to, as Python's (`__cause__`,
    /// `__context__`): shown before it when it goes uncaught.
    pub chain: Option<Box<Chain>>,
}

/// Python's chained exceptions: what an exception was raised from, and
/// the one being handled when it was raised.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Chain {
    /// `raise X from Y`: Y (`__cause__`); none for `from None`, or no `from`.
    pub cause: Option<Diagnostic>,
    /// A `from` was written (`__suppress_context__`): the context is not shown.
    pub suppress_context: bool,
    /// The exception a handler was handling when this one was raised
    /// (`__context__`).
    pub context: Option<Diagnostic>,
}

/// Where a function the error left was called.
#[derive(Debug, Clone, PartialEq)]
pub struct CallSite {
    pub span: Span,
    /// The text the call is in; none: the running script or cell.
    pub source: Option<Arc<Source>>,
    /// The function the call is in; none: a module's top level.
    pub within: Option<String>,
    /// The same call again right after, as a recursion makes it.
    pub repeats: usize,
}

/// How many different calls a report lists; a call repeated right after
/// the one before (a recursion) is counted on it, as Python says
/// "[Previous line repeated 996 more times]".
pub const SHOWN_CALLS: usize = 20;

/// A script or cell's text and the name an error report gives it.
#[derive(Debug, PartialEq)]
pub struct Source {
    pub name: String,
    pub text: Arc<str>,
}

impl std::ops::Deref for Diagnostic {
    type Target = Located;
    fn deref(&self) -> &Located {
        &self.0
    }
}

impl std::ops::DerefMut for Diagnostic {
    fn deref_mut(&mut self) -> &mut Located {
        &mut self.0
    }
}

impl Diagnostic {
    /// This diagnostic, as raised in `source` (a function's body), unless
    /// a body it called already said where.
    pub fn in_source(mut self, source: &Arc<Source>) -> Diagnostic {
        if self.0.source.is_none() {
            self.0.source = Some(Arc::clone(source));
        }
        // The calls made from that text say so too (the last one listed
        // is in it, made before its text was known).
        for c in &mut self.0.called_from {
            if c.source.is_none() {
                c.source = Some(Arc::clone(source));
            }
        }
        self
    }

    /// This diagnostic, having left a function called at `span` from
    /// `within` (none: a top level), in the text running there.
    pub fn called_at(mut self, span: Span, within: Option<String>) -> Diagnostic {
        if let Some(last) = self.0.called_from.last_mut() {
            if last.span == span && last.within == within {
                last.repeats += 1;
                return self;
            }
        }
        if self.0.called_from.len() < SHOWN_CALLS {
            self.0.called_from.push(CallSite {
                span,
                source: None,
                within,
                repeats: 0,
            });
        } else {
            self.0.more_calls += 1;
        }
        self
    }

    pub fn syntax(span: Span, message: impl Into<String>) -> Diagnostic {
        Error::Syntax {
            message: message.into(),
            label: "here".into(),
            incomplete: false,
        }
        .at(span)
    }

    pub fn unexpected(span: Span, found: String, expected: Vec<String>) -> Diagnostic {
        Error::Syntax {
            message: format!("unexpected {found}"),
            label: expected_text(&expected),
            incomplete: false,
        }
        .at(span)
    }

    pub fn incomplete(start: usize, end: usize, expected: Vec<String>) -> Diagnostic {
        Error::Syntax {
            message: "the input ended early".into(),
            label: expected_text(&expected),
            incomplete: true,
        }
        .at(Span::from(start..end))
    }

    pub fn mismatched(
        span: Span,
        found: crate::lang::token::Punct,
        open_span: Span,
        open: crate::lang::token::Punct,
        want: &str,
    ) -> Diagnostic {
        Error::Syntax {
            message: format!(
                "`{}` closes the `{}` opened at byte {}, which needs `{want}`",
                found.as_str(),
                open.as_str(),
                open_span.start
            ),
            label: format!("expected `{want}`"),
            incomplete: false,
        }
        .at(span)
    }

    pub fn unclosed(open_span: Span, open: crate::lang::token::Punct, _len: usize) -> Diagnostic {
        let want = open.closer().map(|c| c.as_str()).unwrap_or("?");
        Error::Syntax {
            message: format!(
                "the input ended early: this `{}` is never closed",
                open.as_str()
            ),
            label: format!("needs a matching `{want}`"),
            incomplete: true,
        }
        .at(open_span)
    }

    pub fn incomplete_input(&self) -> bool {
        matches!(
            self.error,
            Error::Syntax {
                incomplete: true,
                ..
            }
        )
    }
}

fn expected_text(expected: &[String]) -> String {
    match expected {
        [] => "not expected here".into(),
        [one] => format!("expected {one}"),
        [init @ .., last] => format!("expected {} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::Error;
    use crate::vocab::Device;

    #[test]
    fn a_device_assert_says_where_it_is_reported_and_where_the_device_printed() {
        let e = Error::DeviceAssert {
            device: Device::Cuda(1),
        };
        let help = e.help().unwrap();
        assert!(help.contains("the device printed which one"), "{help}");
        assert!(help.contains("first call on cuda:1"), "{help}");
        assert!(help.contains("--launch-blocking"), "{help}");
        assert!(help.contains("restart cudash"), "{help}");
        assert_eq!(e.class(), "CudaError");
        assert_eq!(
            e.to_string(),
            "CUDA error on cuda:1: device-side assert triggered"
        );
    }

    #[test]
    fn sizes_read_as_pytorchs_allocator_writes_them() {
        use super::format_size;
        assert_eq!(format_size(0), "0 bytes");
        assert_eq!(format_size(1024), "1024 bytes");
        assert_eq!(format_size(1025), "1.00 KiB");
        assert_eq!(format_size(1 << 20), "1024.00 KiB");
        assert_eq!(format_size(3 << 19), "1.50 MiB");
        assert_eq!(format_size(1 << 30), "1024.00 MiB");
        assert_eq!(format_size(80 << 30), "80.00 GiB");
    }

    #[test]
    fn a_sticky_cuda_error_says_the_session_must_restart() {
        let e = |sticky| Error::Cuda {
            device: Device::Cuda(0),
            message: "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS".into(),
            sticky,
        };
        assert!(e(true).help().unwrap().contains("restart cudash"));
        assert_eq!(e(false).help(), None);
    }
}
