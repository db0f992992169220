//! The pickle inside a `torch.save` file, read as `torch.load(weights_only=True)`
//! reads it: only the opcodes and globals of PyTorch's restricted unpickler
//! (dicts, lists, tuples, numbers, strings, tensors and their storages),
//! never a call of anything else. Anything outside that set is refused with
//! PyTorch's own message, so a checkpoint that PyTorch's safe load would
//! refuse is refused here too, and nothing in a file is executed.
//!
//! A full load (`pickle.load`, `torch.load(weights_only=False)`) reads
//! NumPy's arrays too (`numpy_pickle.rs`), and Python 2's strings as its
//! `encoding` says; still nothing else is called.
//!
//! And the same subset written, protocol 2 as `torch.save` writes it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use super::super::buffer::Buffer;
use super::super::{DType, Device, Tensor};
use super::numpy_pickle::{self, NpDType, SavedArray};
use super::opcodes::{global, int, ints_tuple, string};

/// A value `torch.save` wrote, as far as a state_dict or a checkpoint holds them.
#[derive(Clone, Debug)]
pub enum Pickled {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Tensor(SavedTensor),
    List(Vec<Pickled>),
    Tuple(Vec<Pickled>),
    Dict(Vec<(Pickled, Pickled)>),
    /// A `collections.OrderedDict` (a `state_dict()`).
    OrderedDict(Vec<(Pickled, Pickled)>),
    DType(DType),
    /// A NumPy array (read by a full load only).
    Array(SavedArray),
    /// An instance of a class (a whole `nn.Module`, an object of the
    /// program's): read by a full load only, nothing of its class run.
    Object(SavedObject),
}

/// An object as pickle keeps it: its class by module and name, made
/// without `__init__` (NEWOBJ, `cls.__new__(cls, *args)`) and given its
/// state (BUILD, its `__dict__`); or, `called`, what `cls(*args)` returns
/// (REDUCE: `set([...])`, `OrderedDict()`), written only.
#[derive(Clone, Debug)]
pub struct SavedObject {
    pub module: String,
    pub name: String,
    pub args: Vec<Pickled>,
    pub state: Option<Box<Pickled>>,
    pub called: bool,
}

/// How a pickle is read: as PyTorch's safe load (`torch.load`, whose
/// default is `weights_only=True`), or as Python's `pickle.load` and
/// `torch.load(weights_only=False)` (NumPy's arrays too).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unpickler {
    WeightsOnly,
    Full(Py2Strings),
}

/// What Python 2's strings (`str`, opcodes `U` and `T`) are read as: the
/// `encoding` of `pickle.load` (`"ASCII"` by default, `"latin1"` for
/// NumPy's arrays, `"bytes"`) or of `torch.load` (`"utf-8"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Py2Strings {
    Ascii,
    Utf8,
    Latin1,
    Bytes,
}

impl Py2Strings {
    /// From an `encoding=` argument, as Python names codecs.
    pub fn named(encoding: &str) -> Option<Py2Strings> {
        let e = encoding.to_ascii_lowercase().replace(['-', '_'], "");
        Some(match e.as_str() {
            "ascii" | "usascii" => Py2Strings::Ascii,
            "utf8" | "u8" | "utf" => Py2Strings::Utf8,
            "latin1" | "latin" | "iso88591" | "l1" | "8859" | "cp819" => Py2Strings::Latin1,
            "bytes" => Py2Strings::Bytes,
            _ => return None,
        })
    }
}

/// A tensor with what `torch.save` kept of it: the device it was saved
/// from (`"cpu"`, `"cuda:0"`), and whether it was an `nn.Parameter`.
#[derive(Clone, Debug)]
pub struct SavedTensor {
    /// On the host, contiguous.
    pub tensor: Arc<Tensor>,
    pub location: String,
    pub requires_grad: bool,
    pub parameter: bool,
    /// The session's tensor it was read from: one tensor met twice (an
    /// LSTM's `_flat_weights`, tied weights) is written once and named
    /// again, as pickle's memo does.
    pub id: Option<usize>,
}

/// A storage's element type from its legacy class name (`FloatStorage`).
fn storage_dtype(name: &str) -> Option<Result<DType, String>> {
    let dtype = match name {
        "FloatStorage" => DType::F32,
        "DoubleStorage" => DType::F64,
        "HalfStorage" => DType::F16,
        "BFloat16Storage" => DType::BF16,
        "LongStorage" => DType::I64,
        "IntStorage" => DType::I32,
        "BoolStorage" => DType::Bool,
        "ByteStorage" => DType::U8,
        "CharStorage" => DType::I8,
        "ShortStorage" => DType::I16,
        "ComplexFloatStorage" | "ComplexDoubleStorage" | "UntypedStorage" => {
            let of = name.trim_end_matches("Storage");
            return Some(Err(format!(
                "a tensor of {of} elements: cudash has bool, uint8, int8, int16, int32, int64, f16, bf16, f32 and f64 (convert it in PyTorch before saving)"
            )));
        }
        _ => return None,
    };
    Some(Ok(dtype))
}

fn storage_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "BoolStorage",
        DType::U8 => "ByteStorage",
        DType::I8 => "CharStorage",
        DType::I16 => "ShortStorage",
        DType::I32 => "IntStorage",
        DType::I64 => "LongStorage",
        DType::F16 => "HalfStorage",
        DType::BF16 => "BFloat16Storage",
        DType::F32 => "FloatStorage",
        DType::F64 => "DoubleStorage",
    }
}

fn dtype_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::U8 => "uint8",
        DType::I8 => "int8",
        DType::I16 => "int16",
        DType::I32 => "int32",
        DType::I64 => "int64",
        DType::F16 => "float16",
        DType::BF16 => "bfloat16",
        DType::F32 => "float32",
        DType::F64 => "float64",
    }
}

/// The globals a file may name: those of PyTorch's safe set that a
/// state_dict or checkpoint uses.
#[derive(Clone, Debug, PartialEq)]
enum Global {
    OrderedDict,
    Counter,
    Set,
    Size,
    Device,
    RebuildTensor,
    RebuildParameter,
    RebuildParameterWithState,
    Storage(DType),
    DType(DType),
    /// NumPy's, and the codec its arrays' bytes go through at protocol 2:
    /// only for a full load.
    Reconstruct,
    NdArray,
    NumpyDType,
    FromBuffer,
    NumpyScalar,
    CodecsEncode,
    /// `bytes()`: protocol 2's empty bytes (`__builtin__.bytes` of no arguments).
    Bytes,
    /// Any other class, by module and name (a full load only): its
    /// instances are made by NEWOBJ and filled by BUILD, never called.
    Class(Rc<str>, Rc<str>),
}

impl Global {
    fn find(module: &str, name: &str, full: bool) -> Result<Global, String> {
        let numpy = matches!(
            module,
            "numpy.core.multiarray"
                | "numpy._core.multiarray"
                | "numpy.core.numeric"
                | "numpy._core.numeric"
                | "numpy"
        );
        if full && numpy {
            match name {
                "_reconstruct" => return Ok(Global::Reconstruct),
                "ndarray" => return Ok(Global::NdArray),
                "dtype" => return Ok(Global::NumpyDType),
                "_frombuffer" => return Ok(Global::FromBuffer),
                "scalar" => return Ok(Global::NumpyScalar),
                _ => {}
            }
        }
        if full && (module, name) == ("_codecs", "encode") {
            return Ok(Global::CodecsEncode);
        }
        if full
            && matches!(module, "builtins" | "__builtin__")
            && matches!(name, "bytes" | "bytearray")
        {
            return Ok(Global::Bytes);
        }
        let global = match (module, name) {
            ("collections", "OrderedDict") => Global::OrderedDict,
            ("collections", "Counter") => Global::Counter,
            ("builtins" | "__builtin__", "set") => Global::Set,
            ("torch", "Size") => Global::Size,
            ("torch", "device") => Global::Device,
            ("torch._utils", "_rebuild_tensor_v2") => Global::RebuildTensor,
            ("torch._utils", "_rebuild_parameter") => Global::RebuildParameter,
            ("torch._utils", "_rebuild_parameter_with_state") => Global::RebuildParameterWithState,
            ("torch", storage) if storage_dtype(storage).is_some() => {
                Global::Storage(storage_dtype(storage).expect("matched")?)
            }
            ("torch", dtype) => match DType::ALL.into_iter().find(|&d| dtype_name(d) == dtype) {
                Some(d) => Global::DType(d),
                None if full => Global::Class(module.into(), name.into()),
                None => return Err(unsupported(module, name)),
            },
            _ if full => Global::Class(module.into(), name.into()),
            _ => return Err(unsupported(module, name)),
        };
        Ok(global)
    }
}

fn unsupported(module: &str, name: &str) -> String {
    let full = format!("{module}.{name}");
    if full.starts_with("torch.") {
        format!(
            "the file uses {full}, which PyTorch's safe load allows but cudash does not read (cudash reads tensors, parameters, dicts, lists, tuples, numbers and strings)"
        )
    } else {
        let numpy = if full.starts_with("numpy") {
            " A NumPy array: if you trust the file, `torch.load(path, weights_only=False)` reads it."
        } else if module == "__main__" || full.starts_with("torch.nn.modules.") {
            " A whole model (`torch.save(model, path)`): if you trust the file, `torch.load(path, weights_only=False)` reads it; the program must define its class."
        } else {
            ""
        };
        format!(
            "Unsupported global: GLOBAL {full} was not an allowed global by default (PyTorch's torch.load(weights_only=True) refuses it too; nothing in the file was run). Save only tensors and plain values: `torch.save(model.state_dict(), path)`.{numpy}"
        )
    }
}

/// A storage: its element type, the bytes `data/<key>` holds, where it was saved from.
#[derive(Debug)]
struct Storage<'a> {
    dtype: DType,
    bytes: &'a [u8],
    location: String,
}

#[derive(Clone, Debug)]
enum Item<'a> {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    /// A Python 2 string read with `encoding="latin1"` that is not ASCII
    /// (an array's data, as CIFAR-10's files hold it): its characters are
    /// these bytes, kept as bytes until something needs its text, so an
    /// array's data is not made text and back.
    Latin1(Rc<[u8]>),
    List(Rc<RefCell<Vec<Item<'a>>>>),
    Tuple(Rc<Vec<Item<'a>>>),
    /// A dict, and whether it is a `collections.OrderedDict`.
    Dict(Rc<RefCell<Vec<(Item<'a>, Item<'a>)>>>, bool),
    Global(Global),
    Storage(Rc<Storage<'a>>),
    Tensor(Rc<SavedTensor>),
    Bytes(Rc<[u8]>),
    /// `numpy.dtype(descr)`, its byte order set by its state: big-endian?
    NumpyDType(Rc<RefCell<(NpDType, bool)>>),
    /// `_reconstruct(...)`'s array, filled by its state (BUILD).
    Array(Rc<RefCell<Option<SavedArray>>>),
    /// An instance of a class (NEWOBJ), filled by its state (BUILD).
    Object(Rc<RefCell<ObjectItem<'a>>>),
}

/// An object being read: its class, NEWOBJ's arguments, BUILD's state.
#[derive(Debug)]
struct ObjectItem<'a> {
    module: Rc<str>,
    name: Rc<str>,
    args: Vec<Item<'a>>,
    state: Option<Item<'a>>,
}

impl Item<'_> {
    fn kind(&self) -> &'static str {
        match self {
            Item::None => "None",
            Item::Bool(_) => "bool",
            Item::Int(_) => "int",
            Item::Float(_) => "float",
            Item::Str(_) | Item::Latin1(_) => "str",
            Item::List(_) => "list",
            Item::Tuple(_) => "tuple",
            Item::Dict(..) => "dict",
            Item::Global(_) => "a global",
            Item::Storage(_) => "a storage",
            Item::Tensor(_) => "a tensor",
            Item::Bytes(_) => "bytes",
            Item::NumpyDType(_) => "a NumPy dtype",
            Item::Array(_) => "a NumPy array",
            Item::Object(_) => "an object",
        }
    }
}

/// Reads the pickle; `storage(key)` gives the bytes of `data/<key>`.
pub fn unpickle<'a>(
    data: &[u8],
    storage: impl Fn(&str) -> Option<&'a [u8]>,
    how: Unpickler,
) -> Result<Pickled, String> {
    let mut r = Reader {
        data,
        at: 0,
        stack: Vec::new(),
        marks: Vec::new(),
        memo: HashMap::new(),
        storage: &storage,
        how,
    };
    let top = r.run()?;
    to_pickled(&top, 0)
}

struct Reader<'d, 'a, F: Fn(&str) -> Option<&'a [u8]>> {
    data: &'d [u8],
    at: usize,
    stack: Vec<Item<'a>>,
    marks: Vec<usize>,
    memo: HashMap<u32, Item<'a>>,
    storage: &'d F,
    how: Unpickler,
}

impl<'a, F: Fn(&str) -> Option<&'a [u8]>> Reader<'_, 'a, F> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let bytes = self
            .at
            .checked_add(n)
            .and_then(|end| self.data.get(self.at..end))
            .ok_or("the pickle is cut short")?;
        self.at += n;
        Ok(bytes)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn line(&mut self) -> Result<String, String> {
        let rest = &self.data[self.at.min(self.data.len())..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or("the pickle is cut short")?;
        let text = String::from_utf8_lossy(&rest[..end]).into_owned();
        self.at += end + 1;
        Ok(text)
    }

    fn u64(&mut self) -> Result<usize, String> {
        let n = u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes"));
        usize::try_from(n).map_err(|_| "the pickle is damaged (a length too large)".into())
    }

    fn text(&mut self, n: usize) -> Result<Item<'a>, String> {
        let bytes = self.take(n)?;
        let s = std::str::from_utf8(bytes).map_err(|_| "a string in the pickle is not UTF-8")?;
        Ok(Item::Str(s.into()))
    }

    fn bytes(&mut self, n: usize) -> Result<Item<'a>, String> {
        Ok(Item::Bytes(self.take(n)?.into()))
    }

    /// A Python 2 `str` of `n` bytes, read as the load's `encoding` says.
    fn py2_string(&mut self, n: usize) -> Result<Item<'a>, String> {
        let strings = match self.how {
            Unpickler::WeightsOnly => Py2Strings::Utf8,
            Unpickler::Full(s) => s,
        };
        let bytes = self.take(n)?;
        Ok(match strings {
            Py2Strings::Bytes => Item::Bytes(bytes.into()),
            Py2Strings::Latin1 => match std::str::from_utf8(bytes) {
                Ok(ascii) if bytes.is_ascii() => Item::Str(ascii.into()),
                _ => Item::Latin1(bytes.into()),
            },
            Py2Strings::Utf8 => match std::str::from_utf8(bytes) {
                Ok(s) => Item::Str(s.into()),
                Err(_) => return Err("a string in the pickle is not UTF-8 (a Python 2 string: `encoding=\"latin1\"` reads it)".into()),
            },
            Py2Strings::Ascii => match bytes.iter().position(|b| !b.is_ascii()) {
                None => Item::Str(String::from_utf8_lossy(bytes).into()),
                Some(i) => return Err(format!(
                    "UnicodeDecodeError: 'ascii' codec can't decode byte 0x{:02x} in position {i}: ordinal not in range(128) (a Python 2 string: `pickle.load(f, encoding=\"latin1\")` reads NumPy arrays saved by Python 2)",
                    bytes[i]
                )),
            },
        })
    }

    fn pop(&mut self) -> Result<Item<'a>, String> {
        if self.marks.last().is_some_and(|&m| m >= self.stack.len()) {
            return Err("the pickle is damaged (a value was expected after a mark)".into());
        }
        self.stack
            .pop()
            .ok_or_else(|| "the pickle is damaged (empty stack)".into())
    }

    fn pop_mark(&mut self) -> Result<Vec<Item<'a>>, String> {
        let mark = self.marks.pop().ok_or("the pickle is damaged (no mark)")?;
        Ok(self.stack.split_off(mark.min(self.stack.len())))
    }

    fn top(&mut self) -> Result<&mut Item<'a>, String> {
        self.stack
            .last_mut()
            .ok_or_else(|| "the pickle is damaged (empty stack)".into())
    }

    fn run(&mut self) -> Result<Item<'a>, String> {
        loop {
            let op = self.u8()?;
            match op {
                0x80 => {
                    // PROTO
                    let v = self.u8()?;
                    if v > 5 {
                        return Err(format!("pickle protocol {v} is newer than Python's"));
                    }
                }
                0x95 => {
                    // FRAME
                    self.take(8)?;
                }
                b'.' => return self.pop(),
                b'(' => self.marks.push(self.stack.len()),
                b'N' => self.stack.push(Item::None),
                0x88 => self.stack.push(Item::Bool(true)),
                0x89 => self.stack.push(Item::Bool(false)),
                b'J' => {
                    let v = i32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes"));
                    self.stack.push(Item::Int(v.into()));
                }
                b'K' => {
                    let v = self.u8()?;
                    self.stack.push(Item::Int(v.into()));
                }
                b'M' => {
                    let v = u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes"));
                    self.stack.push(Item::Int(v.into()));
                }
                0x8a => {
                    // LONG1: little-endian two's complement
                    let n = usize::from(self.u8()?);
                    let bytes = self.take(n)?;
                    if n > 8 {
                        return Err("an integer in the file does not fit in 64 bits".into());
                    }
                    let fill = if bytes.last().is_some_and(|b| b & 0x80 != 0) { 0xff } else { 0 };
                    let mut full = [fill; 8];
                    full[..n].copy_from_slice(bytes);
                    self.stack.push(Item::Int(i64::from_le_bytes(full)));
                }
                b'G' => {
                    let v = f64::from_be_bytes(self.take(8)?.try_into().expect("8 bytes"));
                    self.stack.push(Item::Float(v));
                }
                b'X' => {
                    let n = self.u32()? as usize;
                    let s = self.text(n)?;
                    self.stack.push(s);
                }
                0x8c => {
                    let n = usize::from(self.u8()?);
                    let s = self.text(n)?;
                    self.stack.push(s);
                }
                b'U' => {
                    // SHORT_BINSTRING (Python 2's str)
                    let n = usize::from(self.u8()?);
                    let s = self.py2_string(n)?;
                    self.stack.push(s);
                }
                b'T' => {
                    // BINSTRING (Python 2's str)
                    let n = i32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes"));
                    let n = usize::try_from(n).map_err(|_| "BINSTRING pickle has negative byte count")?;
                    let s = self.py2_string(n)?;
                    self.stack.push(s);
                }
                0x8d => {
                    // BINUNICODE8
                    let n = self.u64()?;
                    let s = self.text(n)?;
                    self.stack.push(s);
                }
                b'C' => {
                    // SHORT_BINBYTES
                    let n = usize::from(self.u8()?);
                    let b = self.bytes(n)?;
                    self.stack.push(b);
                }
                b'B' => {
                    // BINBYTES
                    let n = self.u32()? as usize;
                    let b = self.bytes(n)?;
                    self.stack.push(b);
                }
                0x8e | 0x96 => {
                    // BINBYTES8, BYTEARRAY8 (an array's in-band buffer, protocol 5)
                    let n = self.u64()?;
                    let b = self.bytes(n)?;
                    self.stack.push(b);
                }
                b')' => self.stack.push(Item::Tuple(Rc::new(Vec::new()))),
                b']' => self.stack.push(Item::List(Rc::default())),
                b'}' => self.stack.push(Item::Dict(Rc::default(), false)),
                0x8f => self.stack.push(Item::List(Rc::default())), // EMPTY_SET, as a list
                b't' => {
                    let items = self.pop_mark()?;
                    self.stack.push(Item::Tuple(Rc::new(items)));
                }
                0x85..=0x87 => {
                    let n = usize::from(op - 0x84);
                    if self.stack.len() < n || self.marks.last().is_some_and(|&m| m > self.stack.len() - n) {
                        return Err("the pickle is damaged (a tuple without its items)".into());
                    }
                    let items = self.stack.split_off(self.stack.len() - n);
                    self.stack.push(Item::Tuple(Rc::new(items)));
                }
                b'a' => {
                    let v = self.pop()?;
                    match self.top()? {
                        Item::List(l) => l.borrow_mut().push(v),
                        other => return Err(format!("Can only append to lists, but got {}", other.kind())),
                    }
                }
                b'e' | 0x90 => {
                    // APPENDS, ADDITEMS
                    let items = self.pop_mark()?;
                    match self.top()? {
                        Item::List(l) => l.borrow_mut().extend(items),
                        other => return Err(format!("Can only append to lists, but got {}", other.kind())),
                    }
                }
                b's' => {
                    let v = self.pop()?;
                    let k = self.pop()?;
                    self.set_items(vec![k, v])?;
                }
                b'u' => {
                    let items = self.pop_mark()?;
                    self.set_items(items)?;
                }
                b'q' => {
                    let key = u32::from(self.u8()?);
                    let v = self.top()?.clone();
                    self.memo.insert(key, v);
                }
                b'r' => {
                    let key = self.u32()?;
                    let v = self.top()?.clone();
                    self.memo.insert(key, v);
                }
                0x94 => {
                    // MEMOIZE
                    let key = self.memo.len() as u32;
                    let v = self.top()?.clone();
                    self.memo.insert(key, v);
                }
                b'h' | b'j' => {
                    let key = if op == b'h' { u32::from(self.u8()?) } else { self.u32()? };
                    let v = self.memo.get(&key).cloned().ok_or("the pickle is damaged (a memo entry is missing)")?;
                    self.stack.push(v);
                }
                b'c' => {
                    let module = self.line()?;
                    let name = self.line()?;
                    let full = self.how != Unpickler::WeightsOnly;
                    self.stack.push(Item::Global(Global::find(&module, &name, full)?));
                }
                0x93 => {
                    // STACK_GLOBAL
                    let name = self.pop()?;
                    let module = self.pop()?;
                    let (Item::Str(module), Item::Str(name)) = (module, name) else {
                        return Err("the pickle is damaged (a global's name is not a string)".into());
                    };
                    let full = self.how != Unpickler::WeightsOnly;
                    self.stack.push(Item::Global(Global::find(&module, &name, full)?));
                }
                b'Q' => {
                    let pid = self.pop()?;
                    let storage = self.persistent(pid)?;
                    self.stack.push(storage);
                }
                b'R' => {
                    let args = self.pop()?;
                    let func = self.pop()?;
                    let Item::Tuple(args) = args else {
                        return Err("the pickle is damaged (a call's arguments are not a tuple)".into());
                    };
                    let result = self.reduce(func, &args)?;
                    self.stack.push(result);
                }
                0x81 => {
                    // NEWOBJ: an instance of a class a full load names
                    // (`cls.__new__(cls, *args)`, no `__init__`).
                    let args = self.pop()?;
                    let cls = self.pop()?;
                    let (Item::Global(Global::Class(module, name)), Item::Tuple(args)) = (&cls, args) else {
                        return Err(format!(
                            "the file creates an object of {} (NEWOBJ); cudash reads tensors and plain values",
                            cls.kind()
                        ));
                    };
                    self.stack.push(Item::Object(Rc::new(RefCell::new(ObjectItem {
                        module: module.clone(),
                        name: name.clone(),
                        args: args.to_vec(),
                        state: None,
                    }))));
                }
                b'b' => {
                    // BUILD: an OrderedDict's attributes (a state_dict's
                    // `_metadata`), a Parameter's state, a NumPy dtype's
                    // byte order or a NumPy array's shape and elements
                    let state = self.pop()?;
                    match self.top()? {
                        Item::Dict(..) | Item::Tensor(_) => {}
                        Item::NumpyDType(d) => {
                            let d = Rc::clone(d);
                            set_byte_order(&d, &state)?;
                        }
                        Item::Array(a) => {
                            let a = Rc::clone(a);
                            *a.borrow_mut() = Some(array_state(&state)?);
                        }
                        Item::Object(o) => o.borrow_mut().state = Some(state),
                        other => {
                            return Err(format!(
                                "Can only build Tensor, Parameter, OrderedDict, but got {}",
                                other.kind()
                            ))
                        }
                    }
                }
                b'0' => {
                    self.pop()?;
                }
                b'1' => {
                    self.pop_mark()?;
                }
                b'2' => {
                    let v = self.top()?.clone();
                    self.stack.push(v);
                }
                other => {
                    return Err(format!(
                        "Unsupported operand {other} (PyTorch's safe load refuses it too; nothing in the file was run)"
                    ))
                }
            }
            if self.stack.len() > 1 << 20 {
                return Err("the pickle is damaged (its stack grows without end)".into());
            }
        }
    }

    fn set_items(&mut self, items: Vec<Item<'a>>) -> Result<(), String> {
        if !items.len().is_multiple_of(2) {
            return Err("the pickle is damaged (a key without a value)".into());
        }
        let Item::Dict(d, _) = self.top()? else {
            return Err(
                "Can only SETITEM for dict, collections.OrderedDict, collections.Counter".into(),
            );
        };
        let d = d.clone();
        let mut d = d.borrow_mut();
        let mut it = items.into_iter();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            match d.iter_mut().find(|(old, _)| same_key(old, &k)) {
                Some(slot) => slot.1 = v,
                None => d.push((k, v)),
            }
        }
        Ok(())
    }

    /// A storage: `('storage', FloatStorage, '0', 'cuda:0', numel)`.
    fn persistent(&mut self, pid: Item<'a>) -> Result<Item<'a>, String> {
        let Item::Tuple(pid) = pid else {
            return Err("the pickle is damaged (a storage reference is not a tuple)".into());
        };
        let [Item::Str(kind), Item::Global(Global::Storage(dtype)), Item::Str(key), Item::Str(location), Item::Int(numel)] =
            &pid[..]
        else {
            return Err("the pickle is damaged (a storage reference is not ('storage', type, key, location, size))".into());
        };
        if &**kind != "storage" {
            return Err(format!("unsupported persistent id `{kind}`"));
        }
        let bytes = (self.storage)(key)
            .ok_or_else(|| format!("the archive has no data/{key} (its storage)"))?;
        let need = usize::try_from(*numel)
            .ok()
            .and_then(|n| n.checked_mul(dtype.size()))
            .ok_or("the pickle is damaged (a storage's size)")?;
        let bytes = bytes.get(..need).ok_or_else(|| {
            format!(
                "storage data/{key} holds {} bytes, not the {need} its tensor needs",
                bytes.len()
            )
        })?;
        Ok(Item::Storage(Rc::new(Storage {
            dtype: *dtype,
            bytes,
            location: location.to_string(),
        })))
    }

    fn reduce(&mut self, func: Item<'a>, args: &[Item<'a>]) -> Result<Item<'a>, String> {
        let Item::Global(g) = func else {
            return Err(format!(
                "Trying to call reduce for unrecognized function {}",
                func.kind()
            ));
        };
        let bad = |what: &str| format!("the pickle is damaged ({what} with unexpected arguments)");
        Ok(match g {
            Global::OrderedDict | Global::Counter => match args {
                [] => Item::Dict(Rc::default(), g == Global::OrderedDict),
                [Item::List(pairs)] => {
                    let d = Item::Dict(Rc::default(), g == Global::OrderedDict);
                    self.stack.push(d.clone());
                    let mut flat = Vec::new();
                    for p in pairs.borrow().iter() {
                        match p {
                            Item::Tuple(kv) if kv.len() == 2 => flat.extend(kv.iter().cloned()),
                            _ => return Err(bad("OrderedDict")),
                        }
                    }
                    self.set_items(flat)?;
                    self.stack.pop();
                    d
                }
                _ => return Err(bad("OrderedDict")),
            },
            Global::Set => match args {
                [] => Item::List(Rc::default()),
                [Item::List(l)] => Item::List(Rc::new(RefCell::new(l.borrow().clone()))),
                _ => return Err(bad("set")),
            },
            Global::Size => match args {
                [Item::Tuple(t)] => Item::Tuple(t.clone()),
                _ => return Err(bad("torch.Size")),
            },
            Global::Device => match args {
                [Item::Str(kind)] => Item::Str(kind.clone()),
                [Item::Str(kind), Item::Int(i)] => Item::Str(format!("{kind}:{i}").into()),
                _ => return Err(bad("torch.device")),
            },
            Global::RebuildTensor => match args {
                [Item::Storage(s), Item::Int(offset), Item::Tuple(size), Item::Tuple(stride), Item::Bool(requires_grad), _hooks, ..] =>
                {
                    let tensor = rebuild(s, *offset, size, stride)?;
                    // The memo names it again where the file has it twice
                    // (tied weights): one tensor, one id.
                    let id = Some(Arc::as_ptr(&tensor) as usize);
                    Item::Tensor(Rc::new(SavedTensor {
                        tensor,
                        location: s.location.clone(),
                        requires_grad: *requires_grad,
                        parameter: false,
                        id,
                    }))
                }
                _ => return Err(bad("_rebuild_tensor_v2")),
            },
            Global::RebuildParameter | Global::RebuildParameterWithState => match args {
                [Item::Tensor(t), Item::Bool(requires_grad), ..] => {
                    Item::Tensor(Rc::new(SavedTensor {
                        requires_grad: *requires_grad,
                        parameter: true,
                        ..(**t).clone()
                    }))
                }
                _ => return Err(bad("_rebuild_parameter")),
            },
            Global::Storage(_) | Global::DType(_) => {
                return Err(
                    "the file calls a storage type or dtype; cudash reads tensors and plain values"
                        .into(),
                )
            }
            Global::CodecsEncode => match args {
                [s @ (Item::Str(_) | Item::Latin1(_)), Item::Str(codec)]
                    if Py2Strings::named(codec) == Some(Py2Strings::Latin1) =>
                {
                    Item::Bytes(latin1_encoded(s)?)
                }
                [Item::Str(s), Item::Str(codec)] if Py2Strings::named(codec) == Some(Py2Strings::Utf8) => {
                    Item::Bytes(s.as_bytes().into())
                }
                _ => return Err(bad("_codecs.encode")),
            },
            Global::NumpyDType => match args {
                [Item::Str(descr), ..] => {
                    let d = NpDType::from_descr(descr)?;
                    Item::NumpyDType(Rc::new(RefCell::new((d, descr.starts_with('>')))))
                }
                _ => return Err(bad("numpy.dtype")),
            },
            Global::Reconstruct => match args {
                [Item::Global(Global::NdArray), ..] => Item::Array(Rc::default()),
                [other, ..] => {
                    return Err(format!(
                        "the file rebuilds an array of a subclass ({}), not numpy.ndarray: cudash reads plain arrays",
                        other.kind()
                    ))
                }
                _ => return Err(bad("numpy's _reconstruct")),
            },
            Global::FromBuffer => match args {
                [buffer, Item::NumpyDType(d), Item::Tuple(shape), Item::Str(order)] => {
                    let (dtype, big) = *d.borrow();
                    let data = byte_data(buffer)?;
                    let a = numpy_pickle::array(dtype, big, &ints(shape)?, &**order == "F", &data)?;
                    Item::Array(Rc::new(RefCell::new(Some(a))))
                }
                _ => return Err(bad("numpy's _frombuffer")),
            },
            Global::NumpyScalar => match args {
                [Item::NumpyDType(d), data] => {
                    let (dtype, big) = *d.borrow();
                    match numpy_pickle::scalar(dtype, big, &byte_data(data)?)? {
                        numpy_pickle::Scalar::Float(f) => Item::Float(f),
                        numpy_pickle::Scalar::Int(i) => Item::Int(i),
                        numpy_pickle::Scalar::Bool(b) => Item::Bool(b),
                    }
                }
                _ => return Err(bad("numpy's scalar")),
            },
            Global::Bytes => match args {
                [] => Item::Bytes(Rc::from(&[][..])),
                [Item::Bytes(b)] => Item::Bytes(Rc::clone(b)),
                [s @ (Item::Str(_) | Item::Latin1(_)), Item::Str(codec)]
                    if Py2Strings::named(codec) == Some(Py2Strings::Latin1) =>
                {
                    Item::Bytes(latin1_encoded(s)?)
                }
                _ => return Err(bad("bytes")),
            },
            Global::NdArray => {
                return Err("the file calls numpy.ndarray itself; cudash reads arrays as NumPy pickles them".into())
            }
            Global::Class(module, name) => {
                return Err(format!(
                    "the file calls {module}.{name}(...) to make a value; cudash's unpickler calls nothing (it reads dicts, lists, tuples, numbers, strings, tensors, NumPy arrays, and objects pickled with their attributes, as models are)"
                ))
            }
        })
    }
}

/// `_codecs.encode(s, 'latin1')` of a str: its bytes (as they were read,
/// for a Python 2 string kept as bytes).
fn latin1_encoded(s: &Item) -> Result<Rc<[u8]>, String> {
    match s {
        Item::Latin1(b) => Ok(Rc::clone(b)),
        Item::Str(s) => numpy_pickle::latin1(s).map(Rc::from),
        other => Err(format!(
            "the pickle is damaged (latin1 of {})",
            other.kind()
        )),
    }
}

/// The bytes an array's state or buffer holds: bytes, or (a Python 2
/// string read with `encoding="latin1"`) the text whose characters they are.
fn byte_data(item: &Item) -> Result<Vec<u8>, String> {
    match item {
        Item::Bytes(b) | Item::Latin1(b) => Ok(b.to_vec()),
        Item::Str(s) => numpy_pickle::latin1(s),
        Item::List(_) => Err(
            "a NumPy array of Python objects (dtype=object): cudash reads arrays of numbers".into(),
        ),
        other => Err(format!(
            "the pickle is damaged (an array's data is {})",
            other.kind()
        )),
    }
}

/// A NumPy dtype's state: `(3, byteorder, ...)`.
fn set_byte_order(d: &RefCell<(NpDType, bool)>, state: &Item) -> Result<(), String> {
    let Item::Tuple(items) = state else {
        return Err("the pickle is damaged (a NumPy dtype's state is not a tuple)".into());
    };
    match items.get(1) {
        Some(Item::Str(order)) => d.borrow_mut().1 = &**order == ">",
        Some(Item::Bytes(order)) => d.borrow_mut().1 = &**order == b">",
        _ => return Err("the pickle is damaged (a NumPy dtype's byte order)".into()),
    }
    if items.get(2).is_some_and(|sub| !matches!(sub, Item::None)) {
        return Err(
            "a NumPy array of a structured or sub-array dtype: cudash reads arrays of numbers"
                .into(),
        );
    }
    Ok(())
}

/// A NumPy array's state: `(1, shape, dtype, is_fortran, data)` (or,
/// from old NumPys, without the version).
fn array_state(state: &Item) -> Result<SavedArray, String> {
    let Item::Tuple(items) = state else {
        return Err("the pickle is damaged (a NumPy array's state is not a tuple)".into());
    };
    let fields = match &items[..] {
        [Item::Int(_), rest @ ..] if rest.len() == 4 => rest,
        rest if rest.len() == 4 => rest,
        _ => return Err("the pickle is damaged (a NumPy array's state)".into()),
    };
    let [Item::Tuple(shape), Item::NumpyDType(d), fortran, data] = fields else {
        return Err("the pickle is damaged (a NumPy array's state)".into());
    };
    let fortran = matches!(fortran, Item::Bool(true) | Item::Int(1));
    let (dtype, big) = *d.borrow();
    numpy_pickle::array(dtype, big, &ints(shape)?, fortran, &byte_data(data)?)
}

fn same_key(a: &Item, b: &Item) -> bool {
    match (a, b) {
        (Item::Str(x), Item::Str(y)) => x == y,
        (Item::Latin1(x), Item::Latin1(y)) => x == y,
        (Item::Int(x), Item::Int(y)) => x == y,
        (Item::Bool(x), Item::Bool(y)) => x == y,
        (Item::None, Item::None) => true,
        _ => false,
    }
}

fn ints(items: &[Item]) -> Result<Vec<i64>, String> {
    items
        .iter()
        .map(|i| match i {
            Item::Int(v) => Ok(*v),
            _ => {
                Err("the pickle is damaged (a tensor's size or stride is not integers)".to_string())
            }
        })
        .collect()
}

/// A tensor from its storage: `size` elements `stride` apart from `offset`,
/// copied into a contiguous host buffer (checked against the storage's end).
fn rebuild(
    s: &Storage,
    offset: i64,
    size: &[Item],
    stride: &[Item],
) -> Result<Arc<Tensor>, String> {
    let (size, stride) = (ints(size)?, ints(stride)?);
    let bad = || "the pickle is damaged (a tensor reaches past its storage)".to_string();
    if size.len() != stride.len() || offset < 0 || size.iter().chain(&stride).any(|&v| v < 0) {
        return Err(bad());
    }
    let shape: Vec<usize> = size.iter().map(|&d| d as usize).collect();
    let numel = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(bad)?;
    let width = s.dtype.size();
    let elements = s.bytes.len() / width;
    // A view larger than its storage repeats elements (stride 0, as
    // `expand` makes); cudash copies it, so only up to a bound.
    if numel > elements && numel.saturating_mul(width) > 1 << 30 {
        return Err(format!(
            "a tensor of {numel} elements viewing a storage of {elements}: save it with `.clone()` in PyTorch"
        ));
    }
    if numel > 0 {
        let last = size
            .iter()
            .zip(&stride)
            .try_fold(offset, |a, (&d, &st)| {
                a.checked_add((d - 1).checked_mul(st)?)
            })
            .ok_or_else(bad)?;
        if last as u64 >= elements as u64 {
            return Err(bad());
        }
    }
    // A view laid out in order over its storage (what torch.save writes of
    // a parameter): one slice of bytes.
    let mut dense = 1i64;
    let in_order = size.iter().zip(&stride).rev().all(|(&d, &st)| {
        let ok = d <= 1 || st == dense;
        dense *= d;
        ok
    });
    if in_order {
        let start = offset as usize * width;
        let bytes = s.bytes.get(start..start + numel * width).ok_or_else(bad)?;
        return Ok(Arc::new(Tensor::new(
            Buffer::from_le_bytes(s.dtype, bytes),
            shape,
            Device::Cpu,
        )));
    }
    let mut out = Vec::with_capacity(numel * width);
    let mut index = vec![0usize; shape.len()];
    for _ in 0..numel {
        let at = offset as usize
            + index
                .iter()
                .zip(&stride)
                .map(|(&i, &st)| i * st as usize)
                .sum::<usize>();
        out.extend_from_slice(&s.bytes[at * width..(at + 1) * width]);
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(Arc::new(Tensor::new(
        Buffer::from_le_bytes(s.dtype, &out),
        shape,
        Device::Cpu,
    )))
}

fn to_pickled(item: &Item, depth: usize) -> Result<Pickled, String> {
    if depth > 100 {
        return Err("the file's values nest more than 100 deep (or refer to themselves)".into());
    }
    let all = |items: &[Item]| {
        items
            .iter()
            .map(|i| to_pickled(i, depth + 1))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(match item {
        Item::None => Pickled::None,
        Item::Bool(b) => Pickled::Bool(*b),
        Item::Int(i) => Pickled::Int(*i),
        Item::Float(f) => Pickled::Float(*f),
        Item::Str(s) => Pickled::Str(s.to_string()),
        Item::Latin1(b) => Pickled::Str(numpy_pickle::latin1_text(b)),
        Item::List(l) => Pickled::List(all(&l.borrow())?),
        Item::Tuple(t) => Pickled::Tuple(all(t)?),
        Item::Dict(d, ordered) => {
            let pairs = d
                .borrow()
                .iter()
                .map(|(k, v)| Ok((to_pickled(k, depth + 1)?, to_pickled(v, depth + 1)?)))
                .collect::<Result<_, String>>()?;
            match ordered {
                true => Pickled::OrderedDict(pairs),
                false => Pickled::Dict(pairs),
            }
        }
        Item::Tensor(t) => Pickled::Tensor((**t).clone()),
        Item::Global(Global::DType(d)) => Pickled::DType(*d),
        Item::Array(a) => match &*a.borrow() {
            Some(a) => Pickled::Array(a.clone()),
            None => return Err("the pickle is damaged (a NumPy array without its state)".into()),
        },
        Item::Object(o) => {
            let o = o.borrow();
            Pickled::Object(SavedObject {
                module: o.module.to_string(),
                name: o.name.to_string(),
                args: all(&o.args)?,
                state: match &o.state {
                    Some(s) => Some(Box::new(to_pickled(s, depth + 1)?)),
                    None => None,
                },
                called: false,
            })
        }
        Item::Bytes(_) => {
            return Err("the file holds bytes (a Python 3 `bytes`, or a Python 2 string read with encoding=\"bytes\"): cudash has no bytes values; `pickle.load(f, encoding=\"latin1\")` reads Python 2's strings as str".into())
        }
        Item::Global(_) | Item::Storage(_) | Item::NumpyDType(_) => {
            return Err(format!(
                "the file holds {} where a value was expected",
                item.kind()
            ))
        }
    })
}

/// The value as pickle protocol 2, as `torch.save` writes it; each tensor's
/// bytes are pushed to `storages`, whose index is its key (`data/0`, ...).
pub fn pickle(v: &Pickled, storages: &mut Vec<Vec<u8>>) -> Vec<u8> {
    let mut w = Writer {
        storages,
        memo: HashMap::new(),
        out: vec![0x80, 2],
    };
    w.value(v);
    w.out.push(b'.');
    w.out
}

/// The pickle being written, and the tensors written so far (by the
/// session's tensor, to their memo entry).
struct Writer<'s> {
    storages: &'s mut Vec<Vec<u8>>,
    memo: HashMap<usize, u32>,
    out: Vec<u8>,
}

impl Writer<'_> {
    /// SETITEMS of the dict on top of the stack (none when it has none).
    fn set_items(&mut self, pairs: &[(Pickled, Pickled)]) {
        if pairs.is_empty() {
            return;
        }
        self.out.push(b'(');
        for (k, v) in pairs {
            self.value(k);
            self.value(v);
        }
        self.out.push(b'u');
    }

    fn value(&mut self, v: &Pickled) {
        match v {
            Pickled::None => self.out.push(b'N'),
            Pickled::Bool(b) => self.out.push(if *b { 0x88 } else { 0x89 }),
            Pickled::Int(i) => int(&mut self.out, *i),
            Pickled::Float(f) => {
                self.out.push(b'G');
                self.out.extend(f.to_be_bytes());
            }
            Pickled::Str(s) => string(&mut self.out, s),
            Pickled::List(items) => {
                self.out.extend([b']', b'(']);
                items.iter().for_each(|i| self.value(i));
                self.out.push(b'e');
            }
            Pickled::Tuple(items) => {
                self.out.push(b'(');
                items.iter().for_each(|i| self.value(i));
                self.out.push(b't');
            }
            Pickled::Dict(pairs) => {
                self.out.push(b'}');
                self.set_items(pairs);
            }
            // As Python's pickle writes one: `OrderedDict()`, then its items.
            Pickled::OrderedDict(pairs) => {
                global(&mut self.out, "collections", "OrderedDict");
                self.out.extend([b')', b'R']);
                self.set_items(pairs);
            }
            Pickled::DType(d) => global(&mut self.out, "torch", dtype_name(*d)),
            Pickled::Array(a) => numpy_pickle::write(&mut self.out, a),
            Pickled::Tensor(t) => self.tensor(t),
            Pickled::Object(o) => {
                global(&mut self.out, &o.module, &o.name);
                self.out.push(b'(');
                o.args.iter().for_each(|a| self.value(a));
                self.out.push(b't');
                self.out.push(if o.called { b'R' } else { 0x81 });
                if let Some(state) = &o.state {
                    self.value(state);
                    self.out.push(b'b');
                }
            }
        }
    }

    /// `_rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
    /// hooks)`, within `_rebuild_parameter(tensor, requires_grad, hooks)`
    /// for a Parameter; a tensor written before is named from the memo.
    fn tensor(&mut self, t: &SavedTensor) {
        if let Some(&entry) = t.id.and_then(|id| self.memo.get(&id)) {
            self.out.push(b'j');
            self.out.extend(entry.to_le_bytes());
            return;
        }
        let out = &mut self.out;
        if t.parameter {
            global(out, "torch._utils", "_rebuild_parameter");
            out.push(b'(');
        }
        global(out, "torch._utils", "_rebuild_tensor_v2");
        out.push(b'(');
        // The storage: ('storage', FloatStorage, key, location, numel).
        let key = self.storages.len();
        self.storages
            .push(t.tensor.contiguous_buffer().to_le_bytes());
        out.push(b'(');
        string(out, "storage");
        global(out, "torch", storage_name(t.tensor.dtype()));
        string(out, &key.to_string());
        string(out, &t.location);
        int(out, t.tensor.numel() as i64);
        out.extend([b't', b'Q']);
        int(out, 0);
        let shape = t.tensor.shape();
        ints_tuple(out, shape.iter().map(|&d| d as i64));
        let mut strides = vec![1i64; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1] as i64;
        }
        ints_tuple(out, strides);
        out.push(if t.requires_grad && !t.parameter {
            0x88
        } else {
            0x89
        });
        global(out, "collections", "OrderedDict");
        out.extend([b')', b'R', b't', b'R']);
        if t.parameter {
            out.push(if t.requires_grad { 0x88 } else { 0x89 });
            global(out, "collections", "OrderedDict");
            out.extend([b')', b'R', b't', b'R']);
        }
        if let Some(id) = t.id {
            let entry = self.memo.len() as u32;
            self.memo.insert(id, entry);
            self.out.push(b'r');
            self.out.extend(entry.to_le_bytes());
        }
    }
}
