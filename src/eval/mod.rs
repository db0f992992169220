//! The interpreter: variables, statements and expressions over the runtime.
//! Front ends never call it directly; they go through `Session`.

pub mod args;
mod builtins;
pub mod docs;
mod expr;
mod memory;
mod methods;
pub mod show;
mod stmt;
mod streams;
pub mod suggest;
mod transfer;
pub mod value;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::{Diagnostic, Error};
use crate::lang::Span;
pub use crate::runtime::counters::Counters;
use crate::runtime::devices::{Devices, Memory};
use crate::runtime::rng::Generator;
use crate::runtime::timing::Work;
use crate::runtime::{DType, Device, Tensor};
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
    /// `clear_output()`: clear what the cell (or the terminal) shows; with
    /// `wait`, only once the next output arrives.
    Clear { wait: bool },
}

impl Output {
    /// The plain text a terminal shows (warnings without their `warning:` prefix).
    pub fn text(&self) -> &str {
        match self {
            Output::Value(s) | Output::Display(s) => &s.text,
            Output::Text(s) | Output::Warning(s) => s,
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

pub struct Interp {
    vars: HashMap<String, Value>,
    /// Old values of names assigned by the running top-level statement, to undo on error.
    undo: HashMap<String, Option<Value>>,
    pub generator: Generator,
    pub interrupt: Arc<AtomicBool>,
    pub out: Vec<Output>,
    pub counters: Counters,
    pub devices: Arc<Devices>,
    /// The current CUDA device: what `cuda` means (`with device(n)` changes it).
    pub current_device: u32,
    /// Inside a loop body expression statements do not display.
    quiet: usize,
    /// Told `(done, total)` as the outermost `for` or `time` loop advances (the
    /// REPL draws a progress bar from it).
    pub on_progress: Option<Box<dyn FnMut(u64, u64)>>,
    /// Where outputs go as they happen; when unset they collect in `out`.
    pub sink: Option<Box<dyn FnMut(Output)>>,
    /// Render HTML beside the text of values and displays.
    pub html: bool,
    /// The op being evaluated, for the time model: device bytes its inputs
    /// take, and its floating point work (set where the op is dispatched).
    op_bytes: u64,
    op_flops: u64,
    op_half: bool,
    /// Warnings given by the running top-level statement, with repeat counts.
    warned: Vec<(String, u64)>,
}

impl Interp {
    pub fn new(seed: u64, devices: Arc<Devices>) -> Interp {
        Interp {
            vars: HashMap::new(),
            undo: HashMap::new(),
            generator: Generator::new(seed),
            interrupt: Arc::new(AtomicBool::new(false)),
            out: Vec::new(),
            counters: Counters::default(),
            devices,
            current_device: 0,
            quiet: 0,
            on_progress: None,
            sink: None,
            html: false,
            op_bytes: 0,
            op_flops: 0,
            op_half: false,
            warned: Vec::new(),
        }
    }

    pub fn vars(&self) -> &HashMap<String, Value> {
        &self.vars
    }

    pub fn reset_vars(&mut self) {
        self.vars.clear();
    }

    /// Runs one top-level statement; on error every name it assigned gets its old value back.
    pub fn run_top(&mut self, s: &crate::lang::ast::Stmt) -> Result<(), Diagnostic> {
        self.undo.clear();
        let r = self.exec(s);
        if r.is_err() {
            for (name, old) in self.undo.drain() {
                match old {
                    Some(v) => self.vars.insert(name, v),
                    None => self.vars.remove(&name),
                };
            }
        }
        // Values the statement replaced or deleted are freed here: report what that frees.
        self.undo.clear();
        self.flush_hazards();
        self.summarise_repeats();
        r
    }

    fn set_var(&mut self, name: &str, v: Value) {
        if let Value::Tensor(t) = &v {
            t.set_label(name);
        }
        let old = self.vars.insert(name.to_string(), v);
        if !self.undo.contains_key(name) {
            self.undo.insert(name.to_string(), old);
        }
    }

    fn remove_var(&mut self, name: &str) -> Option<Value> {
        let old = self.vars.remove(name);
        if !self.undo.contains_key(name) {
            self.undo.insert(name.to_string(), old.clone());
        }
        old
    }

    /// Hands an output to the front end: at once when it listens, else into `out`.
    pub(crate) fn emit(&mut self, o: Output) {
        match self.sink.as_mut() {
            Some(f) => f(o),
            None => self.out.push(o),
        }
    }

    /// Reports loop progress, for the outermost loop only.
    fn progress(&mut self, done: u64, total: u64) {
        if self.quiet == 1 {
            if let Some(f) = self.on_progress.as_mut() {
                f(done, total);
            }
        }
    }

    fn check_interrupt(&self, span: Span) -> Result<(), Diagnostic> {
        if self.interrupt.load(Ordering::Relaxed) {
            return Err(Error::Interrupted.at(span));
        }
        Ok(())
    }

    /// Wraps an op's result as a value: gives a CUDA tensor its block from the
    /// device's caching allocator, and counts the op for `profile`.
    fn made(&mut self, t: Tensor) -> Result<Value, Error> {
        self.made_tensor(t).map(Value::Tensor)
    }

    /// `made`, for callers that need the tensor itself. On a CUDA device the op
    /// is a kernel queued on the current stream, which writes the result.
    fn made_tensor(&mut self, t: Tensor) -> Result<Arc<Tensor>, Error> {
        self.counters.ops += 1;
        if let Device::Cuda(d) = t.device() {
            if t.memory().is_none() {
                let mem = self.alloc(d, t.nbytes())?;
                let _ = t.attach(mem);
            }
            let work = self.kernel_work(t.nbytes());
            self.issue(d, work, Some(&t));
        }
        Ok(Arc::new(t))
    }

    /// A matrix product's floating point work, for the time model.
    fn note_matmul(&mut self, a: &Tensor, out: &Tensor) {
        let k = a.shape().last().copied().unwrap_or(1) as u64;
        self.op_flops = 2 * out.numel() as u64 * k;
        self.op_half = matches!(out.dtype(), DType::F16 | DType::BF16);
    }

    /// The kernel of the op being evaluated, writing `out_bytes`.
    fn kernel_work(&mut self, out_bytes: usize) -> Work {
        Work::Kernel {
            bytes: std::mem::take(&mut self.op_bytes) + out_bytes as u64,
            flops: std::mem::take(&mut self.op_flops),
            half: std::mem::take(&mut self.op_half),
        }
    }

    /// Queues `work` on device `d`'s current stream; `out` is the new tensor it writes.
    fn issue(&mut self, d: u32, work: Work, out: Option<&Tensor>) {
        let (stream, seq) = self.devices.launch(d, work);
        if matches!(work, Work::Kernel { .. }) {
            self.counters.kernels += 1;
        }
        if let Some(info) = self.devices.info(d) {
            self.counters.device_ns += (work.duration(info.spec) * 1e9).round() as u64;
        }
        if let (Some(t), Some(gpu)) = (out, self.devices.gpu_handle(d)) {
            t.mark_written(gpu, stream, seq);
        }
    }

    /// An op that wrote `t` in place (`fill_`, `normal_`, `x[i] = v`): one kernel
    /// on a CUDA device (its write was registered by `Tensor::write`).
    fn wrote_in_place(&mut self, t: &Tensor) {
        self.counters.ops += 1;
        if let Device::Cuda(d) = t.device() {
            let work = self.kernel_work(t.nbytes());
            self.issue(d, work, None);
        }
    }

    /// A block of `bytes` on CUDA device `d`, or the out-of-memory error.
    fn alloc(&mut self, d: u32, bytes: usize) -> Result<Memory, Error> {
        let mem = self
            .devices
            .alloc(d, bytes)
            .map_err(|e| e.to_error(Device::Cuda(d)))?;
        self.counters.allocations += 1;
        self.counters.bytes += bytes as u64;
        Ok(mem)
    }

    /// Segments every device's allocator has reserved so far.
    fn total_segments(&self) -> u64 {
        (0..self.devices.count())
            .filter_map(|d| self.devices.gpu(d))
            .map(|g| g.allocator.stats().total_segments)
            .sum()
    }

    /// Reserves device memory for a tensor about to be built, so that a tensor too
    /// big for the device fails as a CUDA out-of-memory error before any host work.
    fn reserve(
        &mut self,
        device: Device,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Option<Memory>, Error> {
        match device {
            Device::Cpu => Ok(None),
            Device::Cuda(d) => {
                self.cuda(Some(d))?;
                let n = crate::runtime::shape::checked_numel(shape)?;
                let bytes = n
                    .checked_mul(dtype.size())
                    .ok_or_else(|| Error::value("this tensor is too large"))?;
                self.alloc(d, bytes).map(Some)
            }
        }
    }

    /// `made` for a tensor whose memory was reserved up front.
    fn made_in(&mut self, t: Tensor, mem: Option<Memory>) -> Result<Arc<Tensor>, Error> {
        if let Some(mem) = mem {
            let _ = t.attach(mem);
        }
        self.made_tensor(t)
    }

    /// Resolves `cuda:N` (or `cuda`, the current device), checking that it exists.
    fn cuda(&self, index: Option<u32>) -> Result<Device, Error> {
        let n = self.devices.count();
        let name = index.map_or("the current CUDA device (`cuda`)".to_string(), |i| {
            format!("cuda:{i}")
        });
        match index {
            _ if n == 0 => Err(Error::NoDevice {
                device: name,
                reason: "this session has no CUDA devices (started with --sim-devices 0)".into(),
            }),
            Some(i) if i >= n => Err(Error::NoDevice {
                device: name,
                reason: format!(
                    "this session has {n} CUDA device(s), cuda:0 to cuda:{}",
                    n - 1
                ),
            }),
            Some(i) => Ok(Device::Cuda(i)),
            None => Ok(Device::Cuda(self.current_device)),
        }
    }

    /// The names a completion or "did you mean" may offer.
    pub fn known_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.vars.keys().cloned().collect();
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

fn not_available(what: &str) -> Error {
    Error::NotAvailable {
        message: format!(
            "{what} needs a CUDA device, and this session has none (started with --sim-devices 0)"
        ),
        help: "streams, events, pinned memory and the caching allocator belong to CUDA devices; \
               on cpu every op runs synchronously"
            .into(),
    }
}
