//! Values a program computes with.

use std::sync::{Arc, Mutex};

use crate::runtime::event::{Event, StreamRef};
use crate::runtime::{DType, Device, Tensor};

use super::docs::Doc;
use crate::lang::ast::{Expr, ExprKind, FnDef, StmtKind};

// Two words, a pair of scalars to the compiler: a word of tag and a word
// of payload, every payload an integer or a pointer (`Word` keeps floats,
// bools, devices and dtypes as integers). So a value is passed and
// returned in two registers and moved as two words, never as one 16-byte
// copy of two 8-byte stores, which stalls the load right after them (the
// interpreter moves values all the time: a million calls ran in 54 ms
// with f64 and bool payloads, 43 ms without). `values_are_two_words`.
#[derive(Debug, Clone)]
#[repr(u64)]
pub enum Value {
    None,
    Bool(Word<bool>),
    Int(i64),
    Float(Word<f64>),
    Str(Arc<String>),
    /// Python's bytes (`b"..."`, `f.read()` of a file opened "rb",
    /// `s.encode()`): immutable, its items ints 0..=255 (`bytes.rs`).
    Bytes(Arc<Vec<u8>>),
    Device(Word<Device>),
    /// `cuda` without an index: the current CUDA device where it is used
    /// (a function's argument, `with`, `sync`, `mem`), as `torch.device('cuda')`.
    CurrentCuda,
    DType(Word<DType>),
    Tensor(Arc<Tensor>),
    /// A sparse COO tensor (`torch.sparse_coo_tensor`, `x.to_sparse()`):
    /// its indices and values (`eval::sparse`).
    Sparse(Arc<crate::autograd::sparse::SparseTensor>),
    /// A sequence that does not change: a tuple in Python's terms (`(2, 3)`,
    /// `x.chunk(2)`, a list literal of non-numbers).
    List(Arc<Vec<Value>>),
    /// Python's list (`list()`): shared by every name for it, grown by
    /// `.append`. Its items are copied on write: what reads the list as it
    /// is now (a builtin's argument, `xs[i]`, `len`) takes the inner `Arc`,
    /// and an append copies only while such a reading is alive.
    MutList(Arc<Mutex<Arc<Vec<Value>>>>),
    /// Python's dict: values by key in order (`{"lr": 0.1}`, a
    /// `state_dict`, `memory_stats()`), shared by every name for it; keys
    /// are strings, or ints (an optimizer's state by parameter number).
    Dict(PyDict),
    /// Python's set: its items as a dict's keys, in the order added.
    Set(PyDict),
    /// `d.keys()`, `d.values()`, `d.items()`: a live view of a dict.
    DictView(Arc<DictView>),
    /// A builtin function used as a value (`f = randn`).
    Builtin(&'static Doc),
    /// A function `fn` defined.
    Function(Arc<Function>),
    Stream(Arc<StreamRef>),
    Event(Arc<Event>),
    /// `SGD(...)`, `Adam(...)`: its parameters and state.
    Optimizer(Arc<Mutex<crate::autograd::optim::Optimizer>>),
    /// `y.grad_fn`: the autograd node that made `y` (`<MulBackward0>`),
    /// or a leaf's `<AccumulateGrad>` reached by `next_functions`.
    GradFn(Arc<crate::autograd::node::GraphFn>),
    /// `TensorDataset(x, t)`, `Dataset(get, n)`.
    Dataset(Arc<crate::data::dataset::Dataset>),
    /// `DataLoader(ds, batch_size=64, ...)`: iterated by `for`.
    DataLoader(Arc<crate::data::loader::DataLoader>),
    /// `DistributedSampler(ds, num_replicas=2, rank=0)`, `RandomSampler(ds)`, ...
    Sampler(Arc<crate::data::loader::Sampler>),
    /// `torch.Generator()`: a CPU generator the program seeds and gives
    /// to what draws (`random_split`, a sampler, a loader, `randperm`).
    Generator(crate::data::generator::TorchGenerator),
    /// What `t.register_hook(f)` returns: `h.remove()` takes the hook off
    /// (PyTorch's `RemovableHandle`).
    HookHandle(Arc<crate::autograd::hooks::Handle>),
    /// `model.no_sync()` of a DistributedDataParallel: what `with` runs a
    /// block under without reducing gradients.
    NoSync(crate::nn::ModuleRef),
    /// What a collective with `async_op=true` returns: `work.wait()`.
    Work(Arc<crate::runtime::dispatch::group::Work>),
    /// What `torch.cuda.CUDAGraph()` holds: a captured stream's work
    /// (`runtime::dispatch::graph`).
    CudaGraph(Arc<crate::runtime::dispatch::graph::CudaGraph>),
    /// `enumerate(xs, start=0)`: what `for i, x in` iterates, counting from
    /// `start` (lazily over a DataLoader, whose batches are made as asked).
    Enumerate(Arc<(Value, i64)>),
    /// `class Net(Module) { }`: a class the program defined.
    Class(Arc<Class>),
    /// An instance of a class that is not a module.
    Object(Arc<Object>),
    /// A module: a built-in layer (`Linear(4, 2)`) or an instance of a
    /// class derived from `Module`.
    Module(crate::nn::ModuleRef),
    /// `model.forward`: a method bound to its instance.
    Method(Arc<(Value, Arc<Function>)>),
    /// `d.get`, `xs.append`, `t.add`: a method of cudash's own bound to
    /// its receiver, called as `recv.name(...)` (`max(d, key=d.get)`).
    BuiltinMethod(Arc<(Value, &'static str)>),
    /// `super()` in a method: the instance, seen from the class above the
    /// one whose method asked.
    Super(Arc<(Value, Arc<Class>)>),
    /// `opt.param_groups[i]`: a group's settings, read and set by name
    /// (`g["lr"] = 0.01`): the optimizer and the group's number.
    ParamGroup(Arc<(Arc<Mutex<crate::autograd::optim::Optimizer>>, usize)>),
    /// `StepLR(opt, ...)`: a learning-rate schedule of an optimizer.
    Scheduler(Arc<LrScheduler>),
    /// `import torch.nn as nn`: a Python module, whose attributes are
    /// cudash's builtins under PyTorch's names (`eval::imports`).
    Namespace(&'static PyModule),
    /// A function of Python's modules (`time.time`, `math.sqrt`).
    Native(&'static Native),
    /// `torch.no_grad()`, `torch.enable_grad()`, `torch.set_grad_enabled(m)`:
    /// what `with` switches autograd's recording to, and back to.
    GradMode(Word<GradSetting>),
    /// `import datautils`: a module of the program's own file.
    OwnModule(Arc<OwnModule>),
    /// `argparse.ArgumentParser(...)`: the program's command-line options.
    ArgParser(Arc<Mutex<super::argparse::ArgumentParser<Value>>>),
    /// `@staticmethod`, `@classmethod` or `@property` over a function: how a
    /// class gives it when read from an instance.
    Decorated(Arc<Decorated>),
    /// `autocast(...)`: the mixed-precision region a `with` runs its block in.
    Autocast(crate::autograd::autocast::Region),
    /// `GradScaler(...)`: the loss scaler of mixed-precision training.
    GradScaler(Arc<Mutex<crate::autograd::grad_scaler::GradScaler>>),
    /// `range(start, stop, step)`: counted as a loop asks, never stored.
    Range(Arc<PyRange>),
    /// `ValueError`, `RuntimeError`: an exception class (`eval::exceptions`).
    ExcClass(&'static ExceptionClass),
    /// `ValueError("message")`, or what `except E as e` binds.
    Exception(Arc<PyException>),
    /// `iter(xs)`: what `next` takes items from, one at a time.
    Iterator(Arc<Mutex<PyIterator>>),
    /// A file `open()` gave.
    File(super::pyfile::FileRef),
    /// `x.shape`, `x.size()`: a tuple of ints, as PyTorch's `torch.Size`
    /// (shown `[2, 3]`; in an f-string or `str()`, `torch.Size([2, 3])`).
    Size(Arc<Vec<Value>>),
}

/// What an iterator has left: items, a DataLoader's batches, or a
/// generator's.
#[derive(Debug)]
pub enum PyIterator {
    Items(std::collections::VecDeque<Value>),
    /// `iter(loader)`: one pass, started by `iter` (its order drawn, its
    /// workers started and sent their first batches, as PyTorch's
    /// `_MultiProcessingDataLoaderIter`), each batch made or received as
    /// `next` asks (none while a batch is being made).
    Loader(Option<Box<crate::data::epoch::Epoch>>),
    /// A generator function's call (none while its body runs).
    Generator(Option<Box<Generator>>),
    /// An instance of a class with `__next__` (what its `__iter__` gave):
    /// each item its `__next__()`, until that raises StopIteration.
    Next(Value),
    /// `map(f, *iterables)`: `f` of the next item of each iterator, made
    /// as asked, until the shortest ends.
    Map(Arc<(Value, Vec<Arc<Mutex<PyIterator>>>)>),
    /// `filter(f, iterable)`: the next items `f` finds true (None: the
    /// items that are true themselves), made as asked.
    Filter(Arc<(Value, Arc<Mutex<PyIterator>>)>),
    /// `iter(range(...))` (and of `itertools.count()`): the next number,
    /// the end and the step, each number made as it is asked for.
    Range {
        next: i64,
        stop: i64,
        step: i64,
    },
    /// An instance whose class has `__getitem__` and no `__iter__` (a
    /// Dataset of the program's): `obj[0]`, `obj[1]`, ... until one
    /// raises IndexError (Python's sequence protocol); the next index.
    Indexed(Value, i64),
}

/// A generator between two items: the call's locals and where its body
/// stopped (run by `eval::generator`).
#[derive(Debug)]
pub struct Generator {
    pub(super) function: Arc<Function>,
    pub(super) slots: Vec<Option<Value>>,
    pub(super) cells: Vec<Cell>,
    /// The blocks entered, outermost (the body) first.
    pub(super) levels: Vec<Level>,
    /// How the next resume starts other than at the `yield`: `close()`
    /// leaves every block as a `return`, `throw(e)` raises `e` there.
    pub(super) entry: Option<Exit>,
}

/// A block the body is in: which statement of the block around it holds
/// it (and which branch of an `if`), the next statement to run, and what
/// happens when it ends.
#[derive(Debug)]
pub struct Level {
    pub(super) stmt: usize,
    pub(super) branch: usize,
    pub(super) at: usize,
    pub(super) repeat: Repeat,
}

#[derive(Debug)]
pub enum Repeat {
    /// The body, or an `if`'s branch: done when it ends.
    Once,
    /// A `for` loop's block: again with the next item.
    For(LoopItems),
    /// A `while` loop's block: again while its condition holds.
    While,
    /// `yield from xs`: no block, each item given in turn.
    YieldFrom(LoopItems),
    /// A part of a `try` statement (`Level::branch`: 0 its body, `1 + k`
    /// handler `k`, then `else`, then `finally`).
    Try(TryState),
    /// A `with` block: how its context is left.
    With(WithExit),
}

/// A `try` in a generator: the error its running handler took (what a
/// bare `raise` raises again), and what its `finally` goes on with once
/// it ends (an error, a `return`, a `break` or a `continue` that left
/// the block).
#[derive(Debug, Default)]
pub struct TryState {
    pub(super) caught: Option<crate::error::Diagnostic>,
    pub(super) pending: Option<Exit>,
}

/// How a generator's body leaves blocks other than by their end.
#[derive(Debug)]
pub enum Exit {
    Raise(crate::error::Diagnostic),
    Return,
    Break,
    Continue,
}

/// The context a generator's `with` block entered, to be left when the
/// block ends or is left.
#[derive(Debug)]
pub enum WithExit {
    /// An object of the program's: its `__exit__` called.
    Object(Value, crate::lang::Span),
    /// `with open(...) as f`: closed.
    File(super::pyfile::FileRef),
    /// `torch.no_grad()` and friends: the modes to go back to.
    Grad(GradBefore),
    /// `with torch.cuda.device(n)`: the current device to go back to.
    Device(u32),
    /// `with torch.device(d)`: the default device to go back to.
    DefaultDevice(Option<DefaultDevice>),
}

/// What a loop has left to iterate over, taken one at a time (a loop in a
/// generator, or a loop over one).
#[derive(Debug)]
pub enum LoopItems {
    Counted {
        next: i64,
        end: i64,
    },
    Range {
        range: Arc<super::value::PyRange>,
        next: usize,
    },
    Values(std::collections::VecDeque<Value>),
    /// Another iterator (a generator): asked for each item.
    Iterator(Arc<Mutex<PyIterator>>),
    /// `enumerate(it)` of one.
    Enumerate(Box<LoopItems>, i64),
}

/// An exception class: its name and the class above it.
#[derive(Debug, PartialEq, Eq)]
pub struct ExceptionClass {
    pub name: &'static str,
    pub parent: Option<&'static str>,
}

impl ExceptionClass {
    /// Its `__name__`: `error` for `struct.error` (a module's class is
    /// named with its module, as Python shows it).
    pub fn short_name(&self) -> &'static str {
        self.name.rsplit('.').next().unwrap_or(self.name)
    }
}

/// An exception: its class and message (`str(e)`).
#[derive(Debug)]
pub struct PyException {
    pub class: &'static ExceptionClass,
    /// `str(e)`: its one argument's text, or its arguments' tuple.
    pub message: String,
    /// `e.args`: what it was made with (a raised error's, its message).
    pub args: Vec<Value>,
    /// What it was raised from or while handling (`e.__cause__`,
    /// `e.__context__`), once raised.
    pub chain: Option<Box<crate::error::Chain>>,
}

/// A module a program can import (`eval::imports`): its dotted path.
#[derive(Debug, PartialEq, Eq)]
pub struct PyModule {
    pub path: &'static str,
}

/// A function of one of Python's modules (or `torch.no_grad`), called by
/// `Interp::call_native`: its full dotted name.
#[derive(Debug, PartialEq, Eq)]
pub struct Native {
    pub name: &'static str,
}

/// `collections.OrderedDict`, as `type(model.state_dict())` gives it: the
/// class `from collections import OrderedDict` names (Natives compare by
/// name).
pub static ORDERED_DICT: Native = Native {
    name: "collections.OrderedDict",
};

/// `collections.Counter` and `collections.defaultdict`, as `type(c)` gives
/// them.
pub static COUNTER: Native = Native {
    name: "collections.Counter",
};
pub static DEFAULT_DICT: Native = Native {
    name: "collections.defaultdict",
};

/// The classes `type(x)` gives of values that no builtin constructs
/// (`type(None)`, `type(f)`, `type(x.shape)`), shown `<class 'function'>`,
/// compared by name (`type(x) is type(None)`), asked by `isinstance`.
pub static TYPES: [Native; 13] = [
    Native {
        name: "builtins.NoneType",
    },
    Native {
        name: "builtins.function",
    },
    Native {
        name: "builtins.method",
    },
    Native {
        name: "builtins.builtin_function_or_method",
    },
    Native {
        name: "builtins.generator",
    },
    Native {
        name: "torch.dtype",
    },
    Native { name: "torch.Size" },
    Native {
        name: "builtins.dict_keys",
    },
    Native {
        name: "builtins.dict_values",
    },
    Native {
        name: "builtins.dict_items",
    },
    Native {
        name: "builtins.odict_keys",
    },
    Native {
        name: "builtins.odict_values",
    },
    Native {
        name: "builtins.odict_items",
    },
];

/// The class of `TYPES` named `name` (`function`, `torch.dtype`).
pub fn type_named(name: &str) -> Option<&'static Native> {
    TYPES
        .iter()
        .find(|t| t.name.strip_prefix("builtins.").unwrap_or(t.name) == name)
}

/// PyTorch's legacy constructors of CUDA tensors, each a class
/// (`eval::cuda_legacy` makes their tensors).
pub static LEGACY_CUDA_TYPES: [Native; 7] = [
    Native {
        name: "torch.cuda.FloatTensor",
    },
    Native {
        name: "torch.cuda.DoubleTensor",
    },
    Native {
        name: "torch.cuda.HalfTensor",
    },
    Native {
        name: "torch.cuda.LongTensor",
    },
    Native {
        name: "torch.cuda.IntTensor",
    },
    Native {
        name: "torch.cuda.ByteTensor",
    },
    Native {
        name: "torch.cuda.BoolTensor",
    },
];

/// The classes of autograd nodes `type(y.grad_fn)` gave so far.
static NODE_CLASSES: std::sync::Mutex<Vec<&'static Native>> = std::sync::Mutex::new(Vec::new());

/// The class of an autograd node, as `type(y.grad_fn)` gives it: one per
/// node name (`MulBackward0`, a builtin; `MyFnBackward`, the node of a
/// Python `Function`, in `torch.autograd.function`), made once and kept.
pub fn node_class(name: &str) -> &'static Native {
    let qualified = format!("{}.{name}", node_module(name));
    let mut classes = crate::runtime::lock::lock(&NODE_CLASSES);
    if let Some(c) = classes.iter().find(|c| c.name == qualified) {
        return c;
    }
    let made: &'static Native = Box::leak(Box::new(Native {
        name: Box::leak(qualified.into_boxed_str()),
    }));
    classes.push(made);
    made
}

/// The module of a node's class: a node of a Python `Function` (named
/// `XBackward`, without PyTorch's number) is made in
/// `torch.autograd.function`; the C++ nodes are builtins.
pub fn node_module(name: &str) -> &'static str {
    match name.ends_with("Backward") {
        true => "torch.autograd.function",
        false => "builtins",
    }
}

impl Native {
    /// Whether it is a class (`type(sd)`, `type(None)`, `type(y.grad_fn)`),
    /// not a function.
    pub fn is_class(&self) -> bool {
        *self == ORDERED_DICT
            || *self == COUNTER
            || *self == DEFAULT_DICT
            || TYPES.iter().any(|t| t == self)
            || crate::runtime::lock::lock(&NODE_CLASSES).contains(&self)
            || LEGACY_CUDA_TYPES.contains(self)
    }

    /// `<class 'function'>`, `<class 'torch.Size'>`: builtins unprefixed.
    pub fn class_text(&self) -> String {
        format!(
            "<class '{}'>",
            self.name.strip_prefix("builtins.").unwrap_or(self.name)
        )
    }
}

/// Python's range: `start`, `start + step`, ... up to `stop` (excluded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PyRange {
    pub start: i64,
    pub stop: i64,
    pub step: i64,
}

impl PyRange {
    /// How many numbers it holds (`step` is never 0).
    pub fn len(&self) -> usize {
        let (span, step) = match self.step > 0 {
            true => (self.stop as i128 - self.start as i128, self.step as i128),
            false => (self.start as i128 - self.stop as i128, -(self.step as i128)),
        };
        match span > 0 {
            true => ((span + step - 1) / step) as usize,
            false => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `x` is one of its numbers (`x in range(...)`).
    pub fn contains(&self, x: i64) -> bool {
        let (x, start, stop, step) = (
            x as i128,
            self.start as i128,
            self.stop as i128,
            self.step as i128,
        );
        let inside = match step > 0 {
            true => start <= x && x < stop,
            false => stop < x && x <= start,
        };
        inside && (x - start) % step == 0
    }

    /// The `k`th number (`k < len`).
    pub fn at(&self, k: usize) -> i64 {
        self.start + self.step * k as i64
    }
}

/// A scheduler, the optimizer it sets, and LambdaLR's function.
#[derive(Debug)]
pub struct LrScheduler {
    pub scheduler: Mutex<crate::autograd::schedule::Scheduler>,
    pub optimizer: Arc<Mutex<crate::autograd::optim::Optimizer>>,
    pub lambda: Option<Value>,
    /// `SequentialLR`'s and `ChainedScheduler`'s schedulers.
    pub parts: Vec<Arc<LrScheduler>>,
    /// `SequentialLR`'s milestones: the epochs where the next part takes over.
    pub milestones: Vec<i64>,
}

/// Python's dict: one for every name that holds it (`self.vocab[w] = i`
/// changes the dict the caller passed, as in Python). Its items are copied
/// on write, as a list's: a reading holds the inner `Arc` as it was.
#[derive(Clone, Debug, Default)]
pub struct PyDict(Arc<DictState>);

/// A dict's items, and what a key it lacks reads as (one word in `Value`).
#[derive(Debug, Default)]
pub struct DictState {
    items: Mutex<Items>,
    missing: Option<Missing>,
    /// A `collections.OrderedDict` (a `state_dict()`): shown as one.
    ordered: bool,
    /// A `frozenset`: no method changes it, and it is hashable.
    frozen: bool,
}

/// The hasher of dict keys: foldhash, as the interpreter's variables (the
/// order a dict shows is the order its keys came, never the hashes').
pub type KeyHasher = foldhash::fast::FixedState;

/// A dict's items in the order their keys came, found by hash.
pub type DictMap = indexmap::IndexMap<Key, Value, KeyHasher>;

/// A dict's items as one reading sees them.
type Items = Arc<DictMap>;

/// What `d[k]` of a key it lacks is, for the dicts of `collections`.
#[derive(Debug, Clone)]
pub enum Missing {
    /// `defaultdict(factory)`: `factory()`, kept under the key.
    Factory(Value),
    /// `Counter`: 0, not kept.
    Count,
}

/// The map of `items`: a repeated key keeps its first place and its last
/// value, as Python's dict literal.
fn map_of(items: Vec<(Key, Value)>) -> DictMap {
    let mut map = DictMap::with_capacity_and_hasher(items.len(), KeyHasher::default());
    map.extend(items);
    map
}

impl PyDict {
    /// `c.most_common(n=None)`: the items by count, largest first, ties in
    /// the order they came (Python's `sorted(..., reverse=True)` is stable).
    pub fn most_common(&self, n: Option<i64>) -> Value {
        let items = self.items();
        let mut items: Vec<(&Key, &Value)> = items.iter().collect();
        let count = |v: &Value| match v {
            Value::Int(i) => *i as f64,
            Value::Float(f) => f.get(),
            _ => 0.0,
        };
        items.sort_by(|a, b| count(b.1).total_cmp(&count(a.1)));
        if let Some(n) = n {
            items.truncate(n.max(0) as usize);
        }
        Value::list(
            items
                .into_iter()
                .map(|(k, v)| Value::List(Arc::new(vec![k.value(), v.clone()])))
                .collect(),
        )
    }

    pub fn new(items: Vec<(Key, Value)>) -> PyDict {
        PyDict::from_map(map_of(items))
    }

    /// A dict of the items of `map` (`d.copy()`).
    pub fn from_map(map: DictMap) -> PyDict {
        PyDict(Arc::new(DictState {
            items: Mutex::new(Arc::new(map)),
            ..DictState::default()
        }))
    }

    /// A `collections.OrderedDict` of `items` (what `state_dict()` returns).
    pub fn ordered(items: Vec<(Key, Value)>) -> PyDict {
        PyDict(Arc::new(DictState {
            items: Mutex::new(Arc::new(map_of(items))),
            ordered: true,
            ..DictState::default()
        }))
    }

    /// Whether it is a `collections.OrderedDict`.
    pub fn is_ordered(&self) -> bool {
        self.0.ordered
    }

    /// A dict of `map`'s items of the same class as this one (`d.copy()`
    /// of an OrderedDict is one; of a defaultdict a defaultdict of the same
    /// factory; of a Counter a Counter, as Python's).
    pub fn copy_with(&self, map: DictMap) -> PyDict {
        PyDict(Arc::new(DictState {
            items: Mutex::new(Arc::new(map)),
            ordered: self.0.ordered,
            missing: self.0.missing.clone(),
            frozen: self.0.frozen,
        }))
    }

    /// A `frozenset` of `map`'s keys.
    pub fn frozen(map: DictMap) -> PyDict {
        PyDict(Arc::new(DictState {
            items: Mutex::new(Arc::new(map)),
            frozen: true,
            ..DictState::default()
        }))
    }

    /// Whether it is a `frozenset`.
    pub fn is_frozen(&self) -> bool {
        self.0.frozen
    }

    /// A `defaultdict` or a `Counter` of `items`.
    pub fn with_missing(items: Vec<(Key, Value)>, missing: Missing) -> PyDict {
        PyDict(Arc::new(DictState {
            items: Mutex::new(Arc::new(map_of(items))),
            missing: Some(missing),
            ordered: false,
            frozen: false,
        }))
    }

    /// What a key it lacks reads as, if it is a `defaultdict` or a `Counter`.
    pub fn missing(&self) -> Option<&Missing> {
        self.0.missing.as_ref()
    }

    /// The items as they are now.
    pub fn items(&self) -> Items {
        Arc::clone(&crate::runtime::lock::lock(&self.0.items))
    }

    pub fn len(&self) -> usize {
        crate::runtime::lock::lock(&self.0.items).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, key: &Key) -> Option<Value> {
        crate::runtime::lock::lock(&self.0.items).get(key).cloned()
    }

    pub fn contains(&self, key: &Key) -> bool {
        crate::runtime::lock::lock(&self.0.items).contains_key(key)
    }

    /// `d[k] = v`: replaces the value of `k` in place, or adds it last.
    /// The items are copied only while a reading of them is alive.
    pub fn set(&self, key: Key, v: Value) {
        let mut items = crate::runtime::lock::lock(&self.0.items);
        Arc::make_mut(&mut items).insert(key, v);
    }

    /// `del d[k]` / `d.pop(k)`: the value it had, if any (the others keep
    /// their order, as Python's).
    pub fn remove(&self, key: &Key) -> Option<Value> {
        let mut items = crate::runtime::lock::lock(&self.0.items);
        if !items.contains_key(key) {
            return None;
        }
        Arc::make_mut(&mut items).shift_remove(key)
    }

    /// `d.popitem()`: the last item (the first unless `last`), removed.
    pub fn pop_end(&self, last: bool) -> Option<(Key, Value)> {
        let mut items = crate::runtime::lock::lock(&self.0.items);
        if items.is_empty() {
            return None;
        }
        let map = Arc::make_mut(&mut items);
        match last {
            true => map.pop(),
            false => map.shift_remove_index(0),
        }
    }

    /// `d.move_to_end(key, last)`: whether the dict has `key`, moved to the
    /// end (or the front) of the order.
    pub fn move_to_end(&self, key: &Key, last: bool) -> bool {
        let mut items = crate::runtime::lock::lock(&self.0.items);
        let Some(at) = items.get_index_of(key) else {
            return false;
        };
        let map = Arc::make_mut(&mut items);
        let to = if last { map.len() - 1 } else { 0 };
        map.move_index(at, to);
        true
    }

    /// `d.clear()`.
    pub fn clear(&self) {
        *crate::runtime::lock::lock(&self.0.items) = Arc::new(DictMap::default());
    }

    /// Whether both are the same dict (`is`).
    pub fn same(&self, other: &PyDict) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Its identity, for printing a dict that holds itself once.
    pub fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as *const () as usize
    }
}

/// `d.keys()`, `d.values()` or `d.items()` of one dict: a live view of
/// it (`eval::dict_view` has what it does).
#[derive(Debug)]
pub struct DictView {
    pub dict: PyDict,
    pub of: ViewOf,
}

/// Which of a dict's parts a view gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ViewOf {
    Keys,
    Values,
    Items,
}

impl DictView {
    /// Python's name for its type: `dict_keys`, `odict_items`, ...
    pub fn python_type(&self) -> &'static str {
        match (self.dict.is_ordered(), self.of) {
            (false, ViewOf::Keys) => "dict_keys",
            (false, ViewOf::Values) => "dict_values",
            (false, ViewOf::Items) => "dict_items",
            (true, ViewOf::Keys) => "odict_keys",
            (true, ViewOf::Values) => "odict_values",
            (true, ViewOf::Items) => "odict_items",
        }
    }

    /// Its items now, in the dict's order (an item as a `(key, value)` tuple).
    pub fn elements(&self) -> Vec<Value> {
        let items = self.dict.items();
        match self.of {
            ViewOf::Keys => items.keys().map(Key::value).collect(),
            ViewOf::Values => items.values().cloned().collect(),
            ViewOf::Items => items
                .iter()
                .map(|(k, v)| Value::List(Arc::new(vec![k.value(), v.clone()])))
                .collect(),
        }
    }

    /// `dict_keys(['a', 'b'])`, each item as `repr` writes it.
    pub fn text(&self, repr: &dyn Fn(&Value) -> String) -> String {
        let items: Vec<String> = self.elements().iter().map(repr).collect();
        format!("{}([{}])", self.python_type(), items.join(", "))
    }
}

/// A dict's key or a set's item: a value Python can hash. Numbers equal as
/// Python's (`1`, `1.0` and `True` are one key); a tuple by its items;
/// a dtype or a device by what it names; anything else hashable (a
/// tensor, a module, an instance, a function, a class) by identity, as
/// Python's default `__hash__`. Lists, dicts and sets are not keys
/// (`Key::of` in `hashable.rs` makes keys of values).
#[derive(Clone, Debug)]
pub enum Key {
    Str(String),
    Int(i64),
    Bool(bool),
    Float(f64),
    None,
    Tuple(Arc<Vec<Key>>),
    DType(DType),
    /// A device; `None`: `cuda` without an index.
    Device(Option<Device>),
    /// Kept by identity: its `id()` and the value.
    Object(i64, Value),
    /// A value that hashes and compares as another key: a named tuple as
    /// the tuple of its items; an instance whose class defines `__hash__`
    /// as its class and that hash (`Interp::key`).
    Hashed(Arc<(Key, Value)>),
}

impl Key {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Key::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer a number key equals, if it equals one (`True` is 1,
    /// `2.0` is 2).
    pub fn as_integer(&self) -> Option<i64> {
        match self {
            Key::Int(i) => Some(*i),
            Key::Bool(b) => Some(*b as i64),
            Key::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Some(*f as i64),
            _ => None,
        }
    }

    /// Whether it is a number (an int, a float, a bool).
    pub fn is_number(&self) -> bool {
        matches!(self, Key::Int(_) | Key::Bool(_) | Key::Float(_))
    }

    /// The key as a value (`list(d)`, `for k in d`).
    pub fn value(&self) -> Value {
        match self {
            Key::Str(s) => Value::Str(Arc::new(s.clone())),
            Key::Int(i) => Value::Int(*i),
            Key::Bool(b) => Value::bool(*b),
            Key::Float(f) => Value::float(*f),
            Key::None => Value::None,
            Key::Tuple(items) => Value::List(Arc::new(items.iter().map(Key::value).collect())),
            Key::DType(t) => Value::dtype(*t),
            Key::Device(Some(d)) => Value::Device(Word::new(*d)),
            Key::Device(None) => Value::CurrentCuda,
            Key::Object(_, v) => v.clone(),
            Key::Hashed(h) => h.1.clone(),
        }
    }

    /// The key it hashes and compares as (itself, but for `Hashed`).
    fn inner(&self) -> &Key {
        match self {
            Key::Hashed(h) => h.0.inner(),
            other => other,
        }
    }

    /// As cudash shows the key: `"lr"` quoted, `0` bare, a tuple in
    /// parentheses.
    pub fn repr(&self) -> String {
        match self {
            Key::Str(s) => format!("{s:?}"),
            Key::Int(i) => i.to_string(),
            Key::Bool(b) => if *b { "True" } else { "False" }.into(),
            Key::Float(f) => crate::nn::repr::py_float(*f),
            Key::None => "None".into(),
            Key::Tuple(items) => match items.as_slice() {
                [one] => format!("({},)", one.repr()),
                _ => format!(
                    "({})",
                    items.iter().map(Key::repr).collect::<Vec<_>>().join(", ")
                ),
            },
            Key::DType(t) => format!("torch.{}", t.name()),
            Key::Device(Some(d)) => d.to_string(),
            Key::Device(None) => "cuda".into(),
            Key::Object(_, v) => format!("<{}>", v.type_name()),
            Key::Hashed(h) => h.0.repr(),
        }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        match (self.inner(), other.inner()) {
            (Key::Str(a), Key::Str(b)) => a == b,
            (Key::None, Key::None) => true,
            (Key::Tuple(a), Key::Tuple(b)) => a == b,
            (Key::DType(a), Key::DType(b)) => a == b,
            (Key::Device(a), Key::Device(b)) => a == b,
            (Key::Object(a, _), Key::Object(b, _)) => a == b,
            (a, b) => match (a.as_integer(), b.as_integer()) {
                (Some(a), Some(b)) => a == b,
                (Some(_), None) | (None, Some(_)) => false,
                // Floats that are not integers: by value, a NaN by its bits.
                (None, None) => match (a, b) {
                    (Key::Float(a), Key::Float(b)) => a == b || a.to_bits() == b.to_bits(),
                    _ => false,
                },
            },
        }
    }
}

impl Eq for Key {}

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        // Numbers equal to an integer hash as that integer (`1`, `1.0`, `True`).
        let integer = |h: &mut H, i: i64| {
            h.write_u8(1);
            h.write_i64(i)
        };
        match self {
            Key::Int(i) => integer(h, *i),
            Key::Bool(b) => integer(h, *b as i64),
            Key::Float(f) => match self.as_integer() {
                Some(i) => integer(h, i),
                None => {
                    h.write_u8(2);
                    h.write_u64(f.to_bits())
                }
            },
            Key::Str(s) => {
                h.write_u8(0);
                s.hash(h)
            }
            Key::None => h.write_u8(3),
            Key::Tuple(items) => {
                h.write_u8(4);
                items.hash(h)
            }
            Key::DType(t) => {
                h.write_u8(5);
                t.hash(h)
            }
            Key::Device(d) => {
                h.write_u8(6);
                d.hash(h)
            }
            Key::Object(id, _) => {
                h.write_u8(7);
                h.write_i64(*id)
            }
            Key::Hashed(k) => k.0.hash(h),
        }
    }
}

impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Key {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Key {
        Key::Str(s.to_string())
    }
}

impl From<String> for Key {
    fn from(s: String) -> Key {
        Key::Str(s)
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Str(s) => f.write_str(s),
            other => f.write_str(&other.repr()),
        }
    }
}

impl Value {
    pub fn tensor(t: Tensor) -> Value {
        Value::Tensor(Arc::new(t))
    }

    pub fn stream(s: StreamRef) -> Value {
        Value::Stream(Arc::new(s))
    }

    pub fn bool(b: bool) -> Value {
        Value::Bool(Word::new(b))
    }

    pub fn float(x: f64) -> Value {
        Value::Float(Word::new(x))
    }

    pub fn device(d: Device) -> Value {
        Value::Device(Word::new(d))
    }

    pub fn dtype(t: DType) -> Value {
        Value::DType(Word::new(t))
    }

    /// A new Python list (`list()`) of `items`.
    pub fn list(items: Vec<Value>) -> Value {
        Value::MutList(Arc::new(Mutex::new(Arc::new(items))))
    }

    /// PyTorch's `(values, indices)` result of `op` (`sort`, `topk`,
    /// `max`, `min`): a `torch.return_types.max`, the named tuple PyTorch
    /// gives, readable as `r.values`, `r[0]`, or unpacked.
    pub fn values_indices(op: &'static str, values: Arc<Tensor>, indices: Arc<Tensor>) -> Value {
        let class = format!("{RETURN_TYPES}{op}");
        let items = [
            ("values", Value::Tensor(values)),
            ("indices", Value::Tensor(indices)),
        ];
        Value::named_tuple(&class, &items)
    }

    /// An instance of the named tuple class `class` of cudash's own (one
    /// class per name, made once): PyTorch's results that are named
    /// tuples (`torch.return_types.max`, `_IncompatibleKeys`).
    pub fn named_tuple(class: &str, items: &[(&str, Value)]) -> Value {
        let object = Object::new(tuple_class(class, items.iter().map(|(f, _)| *f)));
        for (f, v) in items {
            object.set(f, v.clone());
        }
        Value::Object(Arc::new(object))
    }

    /// "a tensor", "an int": for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "none",
            Value::Bool(_) => "a bool",
            Value::Int(_) => "an int",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Bytes(_) => "bytes",
            Value::Device(_) | Value::CurrentCuda => "a device",
            Value::DType(_) => "a dtype",
            Value::Tensor(_) => "a tensor",
            Value::Sparse(_) => "a sparse tensor",
            Value::List(_) | Value::MutList(_) => "a list",
            Value::Dict(_) => "a dict",
            Value::Set(_) => "a set",
            Value::DictView(_) => "a dict view",
            Value::Builtin(_) | Value::Function(_) => "a function",
            Value::Stream(_) => "a stream",
            Value::Event(_) => "an event",
            Value::Optimizer(_) => "an optimizer",
            Value::GradFn(_) => "an autograd node",
            Value::Dataset(ds) => match **ds {
                crate::data::dataset::Dataset::Tensors(_) => "a TensorDataset",
                crate::data::dataset::Dataset::Function(_) => "a Dataset",
                crate::data::dataset::Dataset::Subset(_) => "a Subset",
            },
            Value::DataLoader(_) => "a DataLoader",
            Value::Sampler(_) => "a sampler",
            Value::Generator(_) => "a generator",
            Value::HookHandle(_) => "a hook handle",
            Value::Work(_) => "a work handle",
            Value::CudaGraph(_) => "a CUDA graph",
            Value::NoSync(_) => "a no_sync context",
            Value::Enumerate(_) => "an enumerate object",
            Value::File(_) => "a file",
            Value::Class(_) => "a class",
            Value::Object(_) => "an object",
            Value::Module(_) => "a module",
            Value::Method(_) | Value::BuiltinMethod(_) => "a method",
            Value::Super(_) => "a super object",
            Value::ParamGroup(_) => "a parameter group",
            Value::Scheduler(_) => "a learning-rate scheduler",
            Value::Namespace(_) => "a Python module",
            Value::Native(_) => "a function",
            Value::ArgParser(_) => "an ArgumentParser",
            Value::OwnModule(_) => "a Python module",
            Value::Decorated(d) => match **d {
                Decorated::Static(_) => "a staticmethod",
                Decorated::ClassMethod(_) => "a classmethod",
                Decorated::Property(..) | Decorated::CachedProperty(_) => "a property",
                Decorated::Apply(_) => "a function",
            },
            Value::GradMode(_) => "a grad mode",
            Value::Autocast(_) => "an autocast region",
            Value::GradScaler(_) => "a GradScaler",
            Value::Range(_) => "a range",
            Value::ExcClass(_) => "an exception class",
            Value::Exception(_) => "an exception",
            Value::Iterator(_) => "an iterator",
            Value::Size(_) => "a torch.Size",
        }
    }

    /// The type name used for method lookup and completion.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Tensor(_) => "tensor",
            Value::Sparse(_) => "sparse_tensor",
            Value::Device(_) | Value::CurrentCuda => "device",
            Value::DType(_) => "dtype",
            Value::List(_) | Value::MutList(_) => "list",
            Value::Dict(_) => "dict",
            Value::Set(_) => "set",
            Value::DictView(_) => "dict_view",
            Value::Str(_) => "string",
            Value::Bytes(_) => "bytes",
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => "number",
            Value::None => "none",
            Value::Builtin(_) | Value::Function(_) => "function",
            Value::Stream(_) => "stream",
            Value::Event(_) => "event",
            Value::Optimizer(_) => "optimizer",
            Value::GradFn(_) => "grad_fn",
            Value::Dataset(_) => "dataset",
            Value::DataLoader(_) => "dataloader",
            Value::Sampler(_) => "sampler",
            Value::Generator(_) => "generator",
            Value::HookHandle(_) => "handle",
            Value::Work(_) => "work",
            Value::CudaGraph(_) => "CUDAGraph",
            Value::NoSync(_) => "context",
            Value::Enumerate(_) => "enumerate",
            Value::File(_) => "file",
            Value::Class(_) => "class",
            Value::Object(_) => "object",
            Value::Module(_) => "module",
            Value::Method(_) | Value::BuiltinMethod(_) => "function",
            Value::Super(_) => "super",
            Value::ParamGroup(_) => "param_group",
            Value::Scheduler(_) => "scheduler",
            Value::Namespace(_) => "namespace",
            Value::Native(_) => "function",
            Value::Decorated(_) => "function",
            Value::ArgParser(_) => "argument_parser",
            Value::OwnModule(_) => "namespace",
            Value::GradMode(_) => "grad_mode",
            Value::Autocast(_) => "autocast",
            Value::GradScaler(_) => "grad_scaler",
            Value::Range(_) => "range",
            Value::ExcClass(_) => "exception_class",
            Value::Exception(_) => "exception",
            Value::Iterator(_) => "iterator",
            Value::Size(_) => "list",
        }
    }

    pub fn as_number(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(x) => Some(x.get()),
            Value::Bool(b) => Some(b.get() as i64 as f64),
            _ => None,
        }
    }
}

impl Value {
    /// A tensor's items along its first dimension, as Python iterates one
    /// (views, no copy); a 0-d tensor has none to give.
    pub fn rows(t: &Tensor) -> Result<Vec<Value>, crate::error::Error> {
        use crate::runtime::op::index::{select, Index};
        (0..t.shape()[0] as i64)
            .map(|i| select(t, &[Index::At(i)]).map(Value::tensor))
            .collect()
    }

    /// What `for` iterates over and unpacking takes apart: a list's or a
    /// tuple's items, a tensor's rows; None for anything else.
    pub fn elements(&self) -> Option<Result<Vec<Value>, crate::error::Error>> {
        match self {
            Value::Tensor(t) if t.ndim() > 0 => Some(Value::rows(t)),
            Value::List(items) | Value::Size(items) => Some(Ok(items.to_vec())),
            Value::MutList(items) => Some(Ok(crate::runtime::lock::lock(items).to_vec())),
            Value::Object(o) if o.class.tuple => Some(Ok(o.tuple_items())),
            Value::Bytes(b) => Some(Ok(b.iter().map(|&c| Value::Int(c as i64)).collect())),
            // A Sequential's or a ModuleList's modules, a ParameterList's
            // parameters; a ModuleDict's or a ParameterDict's names.
            Value::Module(m) => {
                use crate::nn::layers::Layer;
                let m = crate::runtime::lock::lock(m);
                let children = m.children().into_iter();
                match m.layer {
                    Layer::Sequential | Layer::ModuleList => {
                        Some(Ok(children.map(|(_, c)| Value::Module(c)).collect()))
                    }
                    Layer::ModuleDict => {
                        Some(Ok(children.map(|(k, _)| Value::Str(Arc::new(k))).collect()))
                    }
                    Layer::ParameterList => Some(Ok(m
                        .parameters
                        .iter()
                        .map(|(_, p)| p.clone().map_or(Value::None, Value::Tensor))
                        .collect())),
                    Layer::ParameterDict => Some(Ok(m
                        .parameters
                        .iter()
                        .map(|(k, _)| Value::Str(Arc::new(k.clone())))
                        .collect())),
                    _ => None,
                }
            }
            // `list(count())` would never end (Python's MemoryError, or a hang).
            Value::Range(r) if r.len() > 1 << 32 => Some(Err(crate::error::Error::value(format!(
                "cannot hold the {} numbers of this range at once: iterate it with `for`, which counts as it goes",
                r.len()
            )))),
            Value::Range(r) => Some(Ok((0..r.len()).map(|k| Value::Int(r.at(k))).collect())),
            // What is left, taken: a loop over an iterator uses it up.
            Value::Set(items) => Some(Ok(items.items().iter().map(|(k, _)| k.value()).collect())),
            Value::DictView(view) => Some(Ok(view.elements())),
            // An Enum's members, in order.
            Value::Class(c) if c.enum_members().is_some() => c.enum_members().map(Ok),
            // A file's lines not read yet (`for line in f`).
            Value::File(f) => Some(
                crate::runtime::lock::lock(f)
                    .rest_lines()
                    .map(|lines| lines.into_iter().map(|l| Value::Str(Arc::new(l))).collect()),
            ),
            Value::Iterator(it) => match &mut *crate::runtime::lock::lock(it) {
                PyIterator::Items(items) => Some(Ok(items.drain(..).collect())),
                PyIterator::Loader(_)
                | PyIterator::Generator(_)
                | PyIterator::Next(_)
                | PyIterator::Map(_)
                | PyIterator::Filter(_)
                | PyIterator::Range { .. }
                | PyIterator::Indexed(..) => None,
            },
            Value::Enumerate(e) => e.0.elements().map(|items| {
                items.map(|items| {
                    (e.1..)
                        .zip(items)
                        .map(|(i, v)| Value::List(Arc::new(vec![Value::Int(i), v])))
                        .collect()
                })
            }),
            _ => None,
        }
    }

    /// How many items a list, a tuple or a result with parts holds, without
    /// copying them; None for anything else.
    pub fn count(&self) -> Option<usize> {
        match self {
            Value::List(items) | Value::Size(items) => Some(items.len()),
            Value::MutList(items) => Some(crate::runtime::lock::lock(items).len()),
            Value::Dict(pairs) | Value::Set(pairs) => Some(pairs.len()),
            Value::DictView(view) => Some(view.dict.len()),
            Value::Class(c) => c.enum_members().map(|m| m.len()),
            Value::Range(r) => Some(r.len()),
            Value::Module(_) => self.elements().and_then(Result::ok).map(|c| c.len()),
            Value::Object(o) if o.class.tuple => Some(o.class.fields.len()),
            Value::Bytes(b) => Some(b.len()),
            _ => None,
        }
    }

    /// Whether showing this value reads device memory (a sync and a copy).
    pub fn on_a_device(&self) -> bool {
        self.any_inside(&mut |v| matches!(v, Value::Tensor(t) if t.device().is_cuda()))
    }

    /// Calls `f` with every tensor this value holds: itself, or a list's
    /// or a dict's, at any depth.
    pub fn each_tensor(&self, f: &mut dyn FnMut(&Tensor)) {
        self.any_inside(&mut |v| {
            match v {
                Value::Tensor(t) => f(t),
                // A sparse tensor's two tensors.
                Value::Sparse(s) => {
                    f(&s.indices);
                    f(&s.values);
                }
                _ => {}
            }
            false
        });
    }

    /// Whether `f` holds for this value or any value it holds (the items of
    /// lists, tuples and dicts, at any depth), asked in order until it
    /// does. A list that holds itself (`c.append(c)`) is walked once, and no
    /// list's lock is held while `f` runs.
    pub fn any_inside(&self, f: &mut dyn FnMut(&Value) -> bool) -> bool {
        fn walk(
            v: &Value,
            f: &mut dyn FnMut(&Value) -> bool,
            seen: &mut foldhash::HashSet<usize>,
        ) -> bool {
            if f(v) {
                return true;
            }
            match v {
                Value::List(items) => items.iter().any(|x| walk(x, f, seen)),
                Value::MutList(list) => {
                    let at = Arc::as_ptr(list) as usize;
                    if !seen.insert(at) {
                        return false;
                    }
                    let items = Arc::clone(&crate::runtime::lock::lock(list));
                    items.iter().any(|x| walk(x, f, seen))
                }
                Value::Dict(pairs) => {
                    if !seen.insert(pairs.addr()) {
                        return false;
                    }
                    pairs.items().iter().any(|(_, x)| walk(x, f, seen))
                }
                _ => false,
            }
        }
        walk(self, f, &mut foldhash::HashSet::default())
    }

    /// A list's items as they are now (a `list()`'s too), for what reads a
    /// sequence; None for anything else.
    pub fn items(&self) -> Option<Arc<Vec<Value>>> {
        match self {
            Value::List(items) | Value::Size(items) => Some(Arc::clone(items)),
            Value::MutList(items) => Some(Arc::clone(&crate::runtime::lock::lock(items))),
            Value::Object(o) if o.class.tuple => Some(Arc::new(o.tuple_items())),
            _ => None,
        }
    }
}

/// A class the program defined.
#[derive(Debug)]
pub struct Class {
    pub name: String,
    /// What the parentheses name, in order (none: `object`).
    pub bases: Vec<Base>,
    /// Python's method resolution order after this class: the program's
    /// classes above it, in the order `find` and `super()` look (C3,
    /// `mro.rs`).
    pub mro: Vec<Arc<Class>>,
    /// Methods (functions) and class attributes, in the body's order.
    pub attrs: Mutex<Vec<(String, Value)>>,
    /// The names the body annotates (`n_layer: int = 4`), in order: a
    /// dataclass's fields.
    pub fields: Vec<String>,
    /// Whether `@dataclass` made it one (`eval::dataclass`).
    pub dataclass: std::sync::atomic::AtomicBool,
    /// `@dataclass(frozen=True, order=True, unsafe_hash=True)`: the
    /// options that change its instances (`dataclass::FROZEN`, ...).
    pub dataclass_options: std::sync::atomic::AtomicU8,
    /// Whether `collections.namedtuple` made it: a dataclass whose
    /// instances are also tuples of their fields (iterated, indexed,
    /// unpacked, `len`).
    pub tuple: bool,
}

/// What a class derives from.
#[derive(Debug)]
pub enum Base {
    /// PyTorch's `nn.Module`.
    Module,
    /// A built-in layer (`nn.Linear`, `nn.Sequential`): its instances are
    /// that layer, with the class's methods (`super().__init__(4, 2)`
    /// makes the layer's parameters, `super().forward(x)` runs it).
    Layer(&'static str),
    /// `torch.autograd.Function`: a class of static `forward` and
    /// `backward`, called through `apply` (`custom_function.rs`).
    AutogradFunction,
    /// `torch.utils.data.Dataset`: a map-style dataset's class.
    Dataset,
    /// `torch.utils.data.Sampler`: a sampler's class (`eval::samplers`).
    Sampler,
    /// One of Python's exception classes (`class TrainingError(Exception)`):
    /// its instances are raised and caught (`exceptions.rs`).
    Exception(&'static ExceptionClass),
    Class(Arc<Class>),
}

/// `import datautils`: a module of the program's own (`own_module.rs`).
#[derive(Debug)]
pub struct OwnModule {
    pub name: String,
    pub path: std::path::PathBuf,
    /// The number of the table that holds its variables (in the
    /// interpreter that imported it first).
    pub table: u64,
}

/// The class of what `torch.distributed.new_group` returns: a plain object
/// holding its `ranks` (cudash's groups are the whole world's ranks).
pub fn process_group_class() -> Arc<Class> {
    static CLASS: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    plain_class(&CLASS, "ProcessGroup")
}

/// The class of what argparse's `parse_args` returns (`Namespace`): a
/// plain object whose attributes are the arguments.
pub fn namespace_class() -> Arc<Class> {
    static CLASS: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    plain_class(&CLASS, "Namespace")
}

/// The class of what `torch.finfo` (`float`) or `torch.iinfo` gives.
pub fn dtype_info_class(float: bool) -> Arc<Class> {
    static FINFO: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    static IINFO: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    match float {
        true => plain_class(&FINFO, "finfo"),
        false => plain_class(&IINFO, "iinfo"),
    }
}

/// Where tensors go when a factory or a module is given no `device=`
/// (PyTorch's `DeviceContext`, set by `torch.set_default_device(d)` and
/// `with torch.device(d):`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DefaultDevice {
    At(crate::runtime::Device),
    /// `torch.device("cuda")`: the device current when each tensor is made.
    CurrentCuda,
}

impl DefaultDevice {
    /// The default a device value sets (cpu: none, PyTorch's own default).
    pub(crate) fn of(v: &Value) -> Option<Option<DefaultDevice>> {
        match v {
            Value::CurrentCuda => Some(Some(DefaultDevice::CurrentCuda)),
            Value::Device(d) if d.get() == crate::runtime::Device::Cpu => Some(None),
            Value::Device(d) => Some(Some(DefaultDevice::At(d.get()))),
            _ => None,
        }
    }
}

/// `torch.utils.data.get_worker_info()`'s class.
pub fn worker_info_class() -> Arc<Class> {
    static CLASS: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    plain_class(&CLASS, "WorkerInfo")
}

/// `torch.cuda.get_device_properties(d)`'s class.
pub fn device_properties_class() -> Arc<Class> {
    static CLASS: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    plain_class(&CLASS, "_CudaDeviceProperties")
}

/// Python's `object`: `class Vocab(object):` is a class with no base, and
/// `object()` a plain instance (a sentinel).
pub fn object_class() -> Arc<Class> {
    static CLASS: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    plain_class(&CLASS, "object")
}

/// Python's `slice`: what `obj[a:b]` hands a class's `__getitem__` (with
/// `start`, `stop` and `step`, each an int or None).
pub fn slice_class() -> Arc<Class> {
    static CLASS: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    plain_class(&CLASS, "slice")
}

/// Python's `Ellipsis` (`...`): what `obj[...]` hands a class's
/// `__getitem__` (`Tuple[int, ...]`), one object.
pub fn ellipsis() -> Value {
    static CLASS: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    static ONE: std::sync::OnceLock<Arc<Object>> = std::sync::OnceLock::new();
    let class = plain_class(&CLASS, "ellipsis");
    Value::Object(Arc::clone(ONE.get_or_init(|| Arc::new(Object::new(class)))))
}

/// Whether `v` is Python's `Ellipsis`.
pub fn is_ellipsis(v: &Value) -> bool {
    matches!((v, ellipsis()), (Value::Object(a), Value::Object(b)) if Arc::ptr_eq(a, &b))
}

/// `slice(start, stop, step)`.
pub fn slice_value(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Value {
    let o = Object::new(slice_class());
    let part = |p: Option<i64>| p.map_or(Value::None, Value::Int);
    o.set("start", part(start));
    o.set("stop", part(stop));
    o.set("step", part(step));
    Value::Object(Arc::new(o))
}

/// A path as Python's `os.fspath` gives one: a str, or the text of a
/// `pathlib` path (`stdlib/pathlib.py` keeps it in `_raw`), which every
/// builtin that takes a path accepts, as Python's accept `os.PathLike`.
pub fn fspath(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.to_string()),
        Value::Object(o) => {
            let pathlike = |c: &Class| {
                matches!(
                    c.name.as_str(),
                    "PurePath" | "Path" | "PurePosixPath" | "PosixPath"
                )
            };
            if !pathlike(&o.class) && !o.class.mro.iter().any(|c| pathlike(c)) {
                return None;
            }
            match o.get("_raw") {
                Some(Value::Str(s)) => Some(s.to_string()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The bounds of a `slice` object, if `v` is one.
pub fn slice_bounds(v: &Value) -> Option<(Option<i64>, Option<i64>, Option<i64>)> {
    let Value::Object(o) = v else { return None };
    if !Arc::ptr_eq(&o.class, &slice_class()) {
        return None;
    }
    let part = |name: &str| match o.get(name) {
        Some(Value::Int(i)) => Some(i),
        _ => None,
    };
    Some((part("start"), part("stop"), part("step")))
}

/// A class of cudash's own with no methods, made once in `cell`.
fn plain_class(cell: &'static std::sync::OnceLock<Arc<Class>>, name: &str) -> Arc<Class> {
    Arc::clone(cell.get_or_init(|| {
        Arc::new(Class {
            name: name.into(),
            bases: Vec::new(),
            mro: Vec::new(),
            attrs: Mutex::new(Vec::new()),
            fields: Vec::new(),
            dataclass: Default::default(),
            dataclass_options: Default::default(),
            tuple: false,
        })
    }))
}

/// The named tuple class `name` of cudash's own with `fields`, made once.
fn tuple_class<'a>(name: &str, fields: impl Iterator<Item = &'a str>) -> Arc<Class> {
    static CLASSES: Mutex<Vec<Arc<Class>>> = Mutex::new(Vec::new());
    let mut classes = crate::runtime::lock::lock(&CLASSES);
    if let Some(c) = classes.iter().find(|c| c.name == name) {
        return Arc::clone(c);
    }
    let class = Arc::new(Class {
        name: name.to_string(),
        bases: Vec::new(),
        mro: Vec::new(),
        attrs: Mutex::new(Vec::new()),
        fields: fields.map(str::to_string).collect(),
        dataclass: std::sync::atomic::AtomicBool::new(true),
        dataclass_options: Default::default(),
        tuple: true,
    });
    classes.push(Arc::clone(&class));
    class
}

/// Where PyTorch's result classes live (`torch.return_types.max`).
pub const RETURN_TYPES: &str = "torch.return_types.";

impl Class {
    /// The module its class statement ran in (`__module__`): `__main__`
    /// for the program's own file or cell.
    pub fn module(&self) -> String {
        // Its own, not a base class's: every class statement sets one.
        let attrs = crate::runtime::lock::lock(&self.attrs);
        match attrs.iter().find(|(n, _)| n == "__module__") {
            Some((_, Value::Str(m))) => m.to_string(),
            _ => "__main__".into(),
        }
    }

    /// What `type(x).__name__` says: the name without a module
    /// (`torch.return_types.max` is `max`).
    pub fn short_name(&self) -> &str {
        self.name.strip_prefix(RETURN_TYPES).unwrap_or(&self.name)
    }
}

/// The class of what `dataclasses.field(...)` gives (its `default` and
/// `default_factory`, read by `eval::dataclass`).
pub fn field_class() -> Arc<Class> {
    static CLASS: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    plain_class(&CLASS, "Field")
}

/// The class of the `ctx` a `torch.autograd.Function`'s `forward` and
/// `backward` take (PyTorch's `FunctionCtx`): attributes of the program's,
/// `save_for_backward`, `saved_tensors` and `needs_input_grad`.
pub fn function_ctx_class() -> Arc<Class> {
    static CLASS: std::sync::OnceLock<Arc<Class>> = std::sync::OnceLock::new();
    plain_class(&CLASS, "FunctionCtx")
}

impl Object {
    /// Whether this is a `Namespace` of `parse_args`.
    pub fn is_namespace(&self) -> bool {
        Arc::ptr_eq(&self.class, &namespace_class())
    }

    /// `Namespace(lr=0.1, epochs=3)`, each value as `item` writes it.
    pub fn namespace_text(&self, item: &dyn Fn(&Value) -> String) -> String {
        let attrs = crate::runtime::lock::lock(&self.attrs).clone();
        let fields: Vec<String> = attrs
            .iter()
            .map(|(k, v)| format!("{k}={}", item(v)))
            .collect();
        format!("Namespace({})", fields.join(", "))
    }
}

/// What a decorator in a class body makes of a method.
#[derive(Debug)]
pub enum Decorated {
    /// `@staticmethod`: read from an instance or the class, not bound.
    Static(Value),
    /// `@classmethod`: bound to the class.
    ClassMethod(Value),
    /// `@property`: read as an attribute, by calling its getter with the
    /// instance; set, where it has a setter (`@name.setter`), by calling
    /// that with the instance and the value.
    Property(Value, Option<Value>),
    /// `@functools.cached_property`: read as a property the first time,
    /// its value then kept on the instance under the function's name
    /// (later reads find it there).
    CachedProperty(Value),
    /// `MyFunction.apply` of a `torch.autograd.Function` class.
    Apply(Arc<Class>),
}

/// An instance: its class and its own attributes.
#[derive(Debug)]
pub struct Object {
    pub class: Arc<Class>,
    pub attrs: Mutex<Vec<(String, Value)>>,
    /// Whether an attribute of its own has the name of one of its class's
    /// (`self.f = g` over a method `f`): until one does, a method call
    /// needs no look at the instance's own attributes.
    pub shadows: std::sync::atomic::AtomicBool,
}

impl Object {
    /// The value of a member of an Enum of values of a type (`class
    /// Mode(str, Enum)`, an IntEnum's: its class derives from enum's
    /// `_ValueMixin`), which it hashes as; None for another object.
    pub fn mixed_enum_value(&self) -> Option<Value> {
        let mixed = self.class.derives_from("enum", "_ValueMixin");
        mixed.then(|| self.get("_value_")).flatten()
    }

    /// Whether it is a member of an Enum (`eval::enums` made it): one
    /// object however it is copied, as Python's.
    pub fn is_enum_member(&self) -> bool {
        self.class.derives_from("enum", "Enum") && self.get("_name_").is_some()
    }

    /// A named tuple's items: its fields' values, in the fields' order.
    pub fn tuple_items(&self) -> Vec<Value> {
        let attrs = crate::runtime::lock::lock(&self.attrs);
        self.class
            .fields
            .iter()
            .map(|f| {
                attrs
                    .iter()
                    .find(|(k, _)| k == f)
                    .map(|(_, v)| v.clone())
                    .unwrap_or(Value::None)
            })
            .collect()
    }
}

impl Class {
    /// `name` on this class or the classes above it, in MRO order.
    pub fn find(&self, name: &str) -> Option<Value> {
        self.own(name)
            .or_else(|| self.mro.iter().find_map(|c| c.own(name)))
    }

    /// Whether it is the class `name` of cudash's Python module `module`
    /// (`stdlib/`: enum's `Enum`, abc's `ABC`).
    pub fn is_stdlib(&self, module: &str, name: &str) -> bool {
        self.name == name && self.module() == module
    }

    /// Whether a class above it is the class `name` of `stdlib/`'s
    /// `module` (`Enum`, `_ValueMixin` of enum; `ABC` of abc).
    pub fn derives_from(&self, module: &str, name: &str) -> bool {
        self.mro.iter().any(|c| c.is_stdlib(module, name))
    }

    /// An Enum's members in order (`eval::enums` made them); None for
    /// another class.
    pub fn enum_members(&self) -> Option<Vec<Value>> {
        let names = self.own("_member_names_")?.elements()?.ok()?;
        Some(
            names
                .iter()
                .filter_map(|n| match n {
                    Value::Str(n) => self.own(n),
                    _ => None,
                })
                .collect(),
        )
    }

    /// `name` in this class's own body (or set on it since).
    pub fn own(&self, name: &str) -> Option<Value> {
        crate::runtime::lock::lock(&self.attrs)
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    /// The built-in class it derives from (`Module`, a layer, `Function`,
    /// `Dataset`): the first its own bases or the classes above it name.
    pub fn builtin(&self) -> Option<&Base> {
        fn first(bases: &[Base]) -> Option<&Base> {
            bases.iter().find(|b| !matches!(b, Base::Class(_)))
        }
        std::iter::once(self)
            .chain(self.mro.iter().map(|c| &**c))
            .find_map(|c| first(&c.bases))
    }

    /// Whether its instances are modules.
    pub fn is_module(&self) -> bool {
        matches!(self.builtin(), Some(Base::Module | Base::Layer(_)))
    }

    /// The built-in layer its instances are (`class Linear(Bottle,
    /// nn.Linear)`), if any.
    pub fn layer(&self) -> Option<&'static str> {
        match self.builtin() {
            Some(Base::Layer(name)) => Some(name),
            _ => None,
        }
    }

    /// Whether it derives from `torch.autograd.Function`.
    pub fn is_autograd_function(&self) -> bool {
        matches!(self.builtin(), Some(Base::AutogradFunction))
    }

    /// The built-in exception class it derives from, if it is one.
    pub fn exception(&self) -> Option<&'static ExceptionClass> {
        match self.builtin() {
            Some(Base::Exception(c)) => Some(c),
            _ => None,
        }
    }

    /// Whether it derives from `torch.utils.data.Dataset`.
    pub fn is_dataset(&self) -> bool {
        matches!(self.builtin(), Some(Base::Dataset))
    }

    /// Whether it derives from `torch.utils.data.Sampler`.
    pub fn is_sampler(&self) -> bool {
        matches!(self.builtin(), Some(Base::Sampler))
    }

    /// Whether it is `torch.optim.Optimizer` (written in Python, in
    /// `stdlib/torch_optim_optimizer.py`), of which the built-in
    /// optimizers (`SGD`, `Adam`) are instances too.
    pub fn is_optimizer_base(&self) -> bool {
        self.name == "Optimizer"
            && matches!(self.own("__init__"), Some(Value::Function(f))
                if f.source.as_ref().is_some_and(|s| s.name.ends_with("torch.optim.optimizer.py")))
    }

    /// Whether it is `other` or derives from it.
    pub fn derives(self: &Arc<Self>, other: &Arc<Class>) -> bool {
        Arc::ptr_eq(self, other)
            || Arc::ptr_eq(other, &object_class())
            || self.mro.iter().any(|c| Arc::ptr_eq(c, other))
    }

    /// The classes `super()` looks in, from a method of `owner` on an
    /// instance of this class: those after `owner` in this class's MRO.
    pub fn after(self: &Arc<Self>, owner: &Arc<Class>) -> Vec<Arc<Class>> {
        let mut order = std::iter::once(Arc::clone(self)).chain(self.mro.iter().cloned());
        match order.position(|c| Arc::ptr_eq(&c, owner)) {
            Some(_) => order.collect(),
            // `super(Other, self)` where `self` is no `Other`: above `Other`.
            None => owner.mro.clone(),
        }
    }
}

impl Object {
    /// `vars(obj)`, `obj.__dict__`: its own attributes, as a new dict.
    pub fn attrs_dict(&self) -> PyDict {
        let attrs = crate::runtime::lock::lock(&self.attrs).clone();
        PyDict::new(attrs.into_iter().map(|(k, v)| (Key::Str(k), v)).collect())
    }

    /// A new instance of `class` with no attributes of its own.
    pub fn new(class: Arc<Class>) -> Object {
        Object {
            class,
            attrs: Mutex::new(Vec::new()),
            shadows: Default::default(),
        }
    }

    /// A new instance of the same class, with no attributes yet, that may
    /// shadow its class's names as this one may (a copy's start).
    pub fn sibling(&self) -> Object {
        let copy = Object::new(Arc::clone(&self.class));
        copy.shadows
            .store(self.may_shadow(), std::sync::atomic::Ordering::Relaxed);
        copy
    }

    /// Whether the instance may have an attribute named as its class's
    /// (then `has` says which).
    pub fn may_shadow(&self) -> bool {
        self.shadows.load(std::sync::atomic::Ordering::Relaxed)
            || CLASS_GREW.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether the instance has an attribute `name` of its own.
    pub fn has(&self, name: &str) -> bool {
        crate::runtime::lock::lock(&self.attrs)
            .iter()
            .any(|(n, _)| n == name)
    }

    pub fn get(&self, name: &str) -> Option<Value> {
        crate::runtime::lock::lock(&self.attrs)
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    pub fn set(&self, name: &str, v: Value) {
        let mut attrs = crate::runtime::lock::lock(&self.attrs);
        match attrs.iter_mut().find(|(n, _)| n == name) {
            Some((_, slot)) => *slot = v,
            None => {
                if self.class.find(name).is_some() {
                    self.shadows
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
                attrs.push((name.to_string(), v))
            }
        }
    }

    pub fn remove(&self, name: &str) {
        crate::runtime::lock::lock(&self.attrs).retain(|(n, _)| n != name);
    }
}

/// Whether a class gained an attribute after it was defined (`C.g = f`):
/// from then on an instance's `shadows` flag cannot be trusted alone.
pub static CLASS_GREW: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The instance a module made from a user's class holds, if any.
pub fn object_of(m: &crate::nn::ModuleRef) -> Option<Arc<Object>> {
    let any = crate::runtime::lock::lock(m).object.clone()?;
    any.downcast::<Object>().ok()
}

/// The instance a locked module made from a user's class holds, if any.
pub fn object_of_module(m: &crate::nn::Module) -> Option<Arc<Object>> {
    m.object.clone()?.downcast::<Object>().ok()
}

/// The class of what `v` is an instance of (a user class's).
pub fn class_of(v: &Value) -> Option<Arc<Class>> {
    match v {
        Value::Object(o) => Some(Arc::clone(&o.class)),
        Value::Module(m) => object_of(m).map(|o| Arc::clone(&o.class)),
        _ => None,
    }
}

/// A variable functions share: an enclosing function's local that a
/// function defined in it reads (empty until assigned).
pub type Cell = Arc<Mutex<Option<Value>>>;

/// A function's cells of its enclosing functions' locals. Shown by count
/// only: a cell may hold the function itself (a recursive inner function).
#[derive(Clone, Default)]
pub struct Closure(pub Vec<Cell>);

impl std::ops::Deref for Closure {
    type Target = Vec<Cell>;
    fn deref(&self) -> &Vec<Cell> {
        &self.0
    }
}

impl std::fmt::Debug for Closure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Closure({} cells)", self.0.len())
    }
}

/// A function value: its definition and its defaults, evaluated once when
/// `fn` ran (as Python evaluates them at `def`).
#[derive(Debug)]
pub struct Function {
    pub def: Arc<FnDef>,
    /// The body, compiled once (`compiled`), run by every call.
    pub(crate) code: super::flow::Code,
    pub defaults: Vec<Option<Value>>,
    /// The cells of the enclosing functions' locals it reads
    /// (`FnDef::free`), taken when it was made: Python's closure.
    pub closure: Closure,
    /// The script or cell it was defined in: an error in its body is shown
    /// in that text, wherever the call is.
    pub source: Option<Arc<crate::error::Source>>,
    /// The class whose body defined it, for `super()` in its body.
    pub owner: std::sync::OnceLock<std::sync::Weak<Class>>,
    /// `@torch.no_grad()`, `@torch.enable_grad()`, `@torch.inference_mode()`:
    /// the grad mode its calls run in.
    pub grad_mode: Option<GradSetting>,
    /// `@abstractmethod` over it: a class derived from `abc.ABC` that
    /// leaves it so is not instantiated.
    pub abstract_method: bool,
    /// The number of the globals it was defined in: a module's function
    /// runs with its module's (`own_module`).
    pub home: u64,
    /// Attributes the program set on it (`f.calls = 0`, and `__name__`,
    /// `__doc__`, `__wrapped__` from `functools.wraps`).
    pub attrs: Mutex<Vec<(String, Value)>>,
}

impl Function {
    /// `name(a, b=1)`, defaults shown as they were evaluated.
    pub fn signature(&self) -> String {
        let params: Vec<String> = self
            .def
            .params
            .iter()
            .zip(&self.defaults)
            .map(|(p, d)| match (p.spread, d) {
                (crate::lang::ast::Spread::Items, _) => format!("*{}", p.name.name),
                (crate::lang::ast::Spread::Entries, _) => format!("**{}", p.name.name),
                (_, Some(v)) => format!("{}={}", p.name.name, short(v)),
                (_, None) => p.name.name.clone(),
            })
            .collect();
        format!("{}({})", self.def.name.name, params.join(", "))
    }

    pub fn name(&self) -> &str {
        &self.def.name.name
    }

    /// An attribute the program set on it.
    pub fn attr(&self, name: &str) -> Option<Value> {
        let attrs = crate::runtime::lock::lock(&self.attrs);
        attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    /// Its docstring: the string its body starts with, if any.
    pub fn doc(&self) -> Option<String> {
        match &self.def.body.first()?.kind {
            StmtKind::Expr(Expr {
                kind: ExprKind::Str(s),
                ..
            }) => Some(s.clone()),
            _ => None,
        }
    }
}

/// A default as a signature shows it: numbers, strings, bools and none as
/// written, anything else by its kind.
fn short(v: &Value) -> String {
    match v {
        Value::None => "none".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => format!("{x:?}"),
        Value::Str(s) => format!("{s:?}"),
        Value::DType(d) => d.to_string(),
        Value::Device(d) => d.to_string(),
        other => format!("<{}>", other.kind()),
    }
}

/// A payload of `Value` kept in one integer word: a float by its bits, a
/// bool, a device or a dtype by a number. With every payload one integer
/// or pointer word, a `Value` is a pair of scalars to the compiler, moved
/// and passed as two words (see `Value`); `get` gives the payload back.
#[derive(Clone, Copy)]
pub struct Word<T>(u64, std::marker::PhantomData<fn() -> T>);

/// What a `Word` can hold.
pub trait Packed: Copy {
    fn pack(self) -> u64;
    fn unpack(w: u64) -> Self;
}

impl<T: Packed> Word<T> {
    #[inline(always)]
    pub fn new(x: T) -> Word<T> {
        Word(x.pack(), std::marker::PhantomData)
    }

    #[inline(always)]
    pub fn get(self) -> T {
        T::unpack(self.0)
    }
}

impl<T: Packed + std::fmt::Debug> std::fmt::Debug for Word<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl<T: Packed + std::fmt::Display> std::fmt::Display for Word<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl Packed for f64 {
    #[inline(always)]
    fn pack(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn unpack(w: u64) -> f64 {
        f64::from_bits(w)
    }
}

/// What a grad-mode context sets: `enabled` in its block, and after it
/// the mode it found (`torch.no_grad()`, `torch.enable_grad()`) or, for
/// `torch.set_grad_enabled(mode)`, which set the mode when it was called,
/// the mode before that call (`restore`). `torch.inference_mode(mode)`
/// also turns inference mode on or off in its block (`inference`), and
/// grad mode the other way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GradSetting {
    pub enabled: bool,
    pub restore: Option<bool>,
    pub inference: Option<bool>,
}

impl GradSetting {
    /// `torch.no_grad()` (false) or `torch.enable_grad()` (true).
    pub fn scoped(enabled: bool) -> GradSetting {
        GradSetting {
            enabled,
            restore: None,
            inference: None,
        }
    }

    /// `torch.inference_mode(mode)`: inference mode as `mode` says and
    /// grad mode the other way in its block (PyTorch's `InferenceMode`
    /// guard), both as they were after it.
    pub fn inference_mode(mode: bool) -> GradSetting {
        GradSetting {
            enabled: !mode,
            restore: None,
            inference: Some(mode),
        }
    }
}

/// What a grad setting's block found, to put back when it ends: the grad
/// mode, and inference mode where the setting changed it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GradBefore {
    pub enabled: bool,
    pub inference: Option<bool>,
}

impl Packed for GradSetting {
    #[inline(always)]
    fn pack(self) -> u64 {
        let restore = match self.restore {
            None => 0,
            Some(false) => 2,
            Some(true) => 4,
        };
        let inference = match self.inference {
            None => 0,
            Some(false) => 8,
            Some(true) => 16,
        };
        self.enabled as u64 | restore | inference
    }
    #[inline(always)]
    fn unpack(w: u64) -> GradSetting {
        GradSetting {
            enabled: w & 1 != 0,
            restore: match w & 6 {
                0 => None,
                2 => Some(false),
                _ => Some(true),
            },
            inference: match w & 24 {
                0 => None,
                8 => Some(false),
                _ => Some(true),
            },
        }
    }
}

impl Packed for bool {
    #[inline(always)]
    fn pack(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn unpack(w: u64) -> bool {
        w != 0
    }
}

impl Packed for Device {
    /// cpu is all ones, meta all ones but the last; `cuda:i` is i.
    fn pack(self) -> u64 {
        match self {
            Device::Cpu => u64::MAX,
            Device::Meta => u64::MAX - 1,
            Device::Cuda(i) => i as u64,
        }
    }
    fn unpack(w: u64) -> Device {
        match u32::try_from(w) {
            Ok(i) => Device::Cuda(i),
            Err(_) if w == u64::MAX - 1 => Device::Meta,
            Err(_) => Device::Cpu,
        }
    }
}

impl Packed for DType {
    /// Its place in `DType::ALL`.
    fn pack(self) -> u64 {
        self as u64
    }
    fn unpack(w: u64) -> DType {
        DType::ALL[w as usize % DType::ALL.len()]
    }
}

/// Python's `id(obj)`: the same number for the same object (`is`), its
/// address where it is one (a tensor, a list, a module...), else a number
/// made of the value (equal numbers and strings share one, as CPython's
/// cached ones do).
pub fn object_id(v: &Value) -> i64 {
    fn addr<T: ?Sized>(a: &Arc<T>) -> i64 {
        Arc::as_ptr(a) as *const u8 as usize as i64
    }
    match v {
        Value::Tensor(x) => addr(x),
        Value::List(x) => addr(x),
        Value::MutList(x) => addr(x),
        Value::Function(x) => addr(x),
        Value::Optimizer(x) => addr(x),
        Value::HookHandle(x) => addr(x),
        Value::Module(x) => addr(x),
        Value::Object(x) => addr(x),
        Value::Dict(x) | Value::Set(x) => x.addr() as i64,
        Value::Class(x) => addr(x),
        Value::Dataset(x) => addr(x),
        Value::DataLoader(x) => addr(x),
        Value::Sampler(x) => addr(x),
        Value::Generator(x) => addr(&x.0),
        Value::Stream(x) => addr(x),
        Value::Event(x) => addr(x),
        Value::Scheduler(x) => addr(x),
        Value::Exception(x) => addr(x),
        Value::Iterator(x) => addr(x),
        Value::File(x) => addr(x),
        Value::OwnModule(x) => addr(x),
        Value::Method(x) => addr(x),
        Value::Decorated(x) => addr(x),
        Value::Builtin(x) => *x as *const Doc as usize as i64,
        Value::Native(x) => *x as *const Native as usize as i64,
        Value::ExcClass(x) => *x as *const ExceptionClass as usize as i64,
        Value::Namespace(x) => *x as *const PyModule as usize as i64,
        Value::GradFn(x) => x.addr() as i64,
        Value::Enumerate(x) => addr(x),
        other => {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            format!("{other:?}").hash(&mut h);
            (h.finish() >> 1) as i64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Value;

    /// A value is two words, and so is what holds one (a result, an
    /// option, a statement's flow): they are returned in registers, and
    /// loops move them all the time.
    #[test]
    fn values_are_two_words() {
        assert_eq!(std::mem::size_of::<Value>(), 16);
        assert_eq!(std::mem::size_of::<Option<Value>>(), 16);
        assert_eq!(
            std::mem::size_of::<Result<Value, crate::error::Diagnostic>>(),
            16
        );
        assert_eq!(
            std::mem::size_of::<Result<super::super::flow::Flow, crate::error::Diagnostic>>(),
            16
        );
    }

    /// A word gives back what it was given.
    #[test]
    fn words_round_trip() {
        use super::{DType, Device, Word};
        for t in DType::ALL {
            assert_eq!(Word::new(t).get(), t);
        }
        for d in [
            Device::Cpu,
            Device::Cuda(0),
            Device::Cuda(7),
            Device::Cuda(u32::MAX),
        ] {
            assert_eq!(Word::new(d).get(), d);
        }
        for x in [0.0, -0.0, 1.5, f64::INFINITY, f64::MIN_POSITIVE, f64::NAN] {
            assert_eq!(Word::new(x).get().to_bits(), x.to_bits());
        }
        assert!(Word::new(true).get() && !Word::new(false).get());
    }
}
