//! The interpreter: variables, statements and expressions over the runtime.
//! Front ends never call it directly; they go through `Session`.

pub mod args;
mod builtins;
pub mod docs;
mod expr;
mod methods;
mod stmt;
pub mod suggest;
pub mod value;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::rng::Generator;
use crate::runtime::{Device, Tensor};
pub use value::Value;

/// Deepest expression nesting evaluated; deeper input is an error, not a crash.
pub const MAX_DEPTH: usize = 256;

/// What a statement produced, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// The value of an expression statement (text already rendered: later
    /// statements may change the tensor it showed).
    Value(String),
    /// Text from `print`, `help`, `time`, `profile`.
    Text(String),
    /// A warning or a note about what the runtime did.
    Warning(String),
}

/// Counters behind `profile { }`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters {
    pub ops: u64,
    pub allocations: u64,
    pub bytes: u64,
    pub copies: u64,
    pub host_syncs: u64,
}

pub struct Interp {
    vars: HashMap<String, Value>,
    /// Old values of names assigned by the running top-level statement, to undo on error.
    undo: HashMap<String, Option<Value>>,
    pub generator: Generator,
    pub interrupt: Arc<AtomicBool>,
    pub out: Vec<Output>,
    pub counters: Counters,
    /// Number of CUDA devices (none yet: the cpu backend is the only one).
    pub cuda_devices: u32,
    /// Inside a loop body expression statements do not display.
    quiet: usize,
}

impl Interp {
    pub fn new(seed: u64) -> Interp {
        Interp {
            vars: HashMap::new(),
            undo: HashMap::new(),
            generator: Generator::new(seed),
            interrupt: Arc::new(AtomicBool::new(false)),
            out: Vec::new(),
            counters: Counters::default(),
            cuda_devices: 0,
            quiet: 0,
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
        self.undo.clear();
        r
    }

    fn set_var(&mut self, name: &str, v: Value) {
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

    fn check_interrupt(&self, span: Span) -> Result<(), Diagnostic> {
        if self.interrupt.load(Ordering::Relaxed) {
            return Err(Error::Interrupted.at(span));
        }
        Ok(())
    }

    /// Wraps a new tensor as a value and counts it for `profile`.
    fn made(&mut self, t: Tensor) -> Value {
        self.counters.ops += 1;
        self.counters.allocations += 1;
        self.counters.bytes += t.nbytes() as u64;
        Value::tensor(t)
    }

    /// Resolves `cuda:N`, checking that the device exists.
    fn cuda(&self, index: Option<u32>) -> Result<Device, Error> {
        let n = self.cuda_devices;
        let name = index.map_or("cuda".to_string(), |i| format!("cuda:{i}"));
        match index {
            _ if n == 0 => Err(Error::NoDevice {
                device: name,
                reason: "this session has no CUDA devices; it runs on the cpu backend only".into(),
            }),
            Some(i) if i >= n => Err(Error::NoDevice {
                device: name,
                reason: format!(
                    "this session has {n} CUDA device(s), cuda:0 to cuda:{}",
                    n - 1
                ),
            }),
            Some(i) => Ok(Device::Cuda(i)),
            None => Ok(Device::Cuda(0)),
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
        message: format!("{what} needs a CUDA device, and this session has none (cpu backend)"),
        help: "streams, events, pinned memory and the caching allocator belong to CUDA devices; \
               on cpu every op runs synchronously"
            .into(),
    }
}
