//! `save(obj, "x.pt")` and `load("x.pt")`: the values of a session as
//! `torch.save` writes them and `torch.load` reads them back (tensors with
//! their device and `Parameter` mark, dicts, lists, numbers, strings), so a
//! checkpoint moves between cudash and PyTorch in both directions.
//! Python's `pickle.dump`/`pickle.load` of the same values (tensors
//! left to `torch.save`) are here too, and NumPy's arrays in either
//! (`torch.save(array)`, CIFAR-10's files), read by a full load only.

use std::collections::HashMap;
use std::sync::Arc;

use super::module_unpickle::Loading;
use crate::eval::value::PyDict;

use super::value::{Key, Word};
use super::{Interp, Value};
use crate::autograd::meta;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::io::{NpDType, Pickled, Py2Strings, SavedArray, SavedTensor};
use crate::runtime::Device;

/// Whether a file name is one `torch.save` writes (PyTorch's tutorials use
/// `.pt`, `.pth`, and `.tar` for checkpoints; Hugging Face `.bin`).
pub(crate) fn is_torch_name(path: &str) -> bool {
    let ext = std::path::Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    matches!(ext, "pt" | "pth" | "tar" | "ckpt" | "bin")
}

/// A value as `torch.save` keeps it: each tensor read to the host (a sync
/// and a copy for a device tensor), keeping the device it came from.
pub(crate) fn to_pickled(me: &mut Interp, v: &Value, span: Span) -> Result<Pickled, Diagnostic> {
    Ok(match v {
        Value::None => Pickled::None,
        Value::Bool(b) => Pickled::Bool(b.get()),
        Value::Int(i) => Pickled::Int(*i),
        Value::Float(f) => Pickled::Float(f.get()),
        Value::Str(s) => Pickled::Str(s.to_string()),
        Value::DType(d) => Pickled::DType(d.get()),
        Value::Tensor(t) => {
            let host = me
                .rt
                .copy_to(t, Device::Cpu)
                .map_err(|e| e.at(span))?;
            let parameter = meta::is_parameter(t);
            Pickled::Tensor(SavedTensor {
                tensor: host,
                location: t.device().to_string(),
                requires_grad: meta::requires_grad(t) && (parameter || meta::is_leaf(t)),
                parameter,
                id: Some(Arc::as_ptr(t) as usize),
            })
        }
        // A tuple stays a tuple (`betas`), a list a list, as Python pickles them.
        Value::List(items) => Pickled::Tuple(
            items
                .iter()
                .map(|i| to_pickled(me, i, span))
                .collect::<Result<_, _>>()?,
        ),
        Value::MutList(items) => {
            let items = crate::runtime::lock::lock(items).clone();
            Pickled::List(
                items
                    .iter()
                    .map(|i| to_pickled(me, i, span))
                    .collect::<Result<_, _>>()?,
            )
        }
        Value::Dict(d) => {
            let pairs = d
                .items()
                .iter()
                .map(|(k, v)| Ok((to_pickled(me, &k.value(), span)?, to_pickled(me, v, span)?)))
                .collect::<Result<_, Diagnostic>>()?;
            match d.is_ordered() {
                true => Pickled::OrderedDict(pairs),
                false => Pickled::Dict(pairs),
            }
        }
        Value::Object(o) if is_ndarray(me, o, span)? => {
            let (t, name) = array_parts(o).ok_or_else(|| {
                Error::value("this NumPy array has lost its elements (`_t`)").at(span)
            })?;
            let dtype = NpDType::from_name(&name).ok_or_else(|| {
                Error::value(format!("cudash cannot save a NumPy array of dtype {name}")).at(span)
            })?;
            Pickled::Array(SavedArray {
                dtype,
                tensor: me.rt.copy_to(&t, Device::Cpu).map_err(|e| e.at(span))?,
            })
        }
        // A whole model (`torch.save(model, path)`), and an instance of
        // the program's classes: their class by name and their attributes.
        Value::Module(m) => super::module_pickle::save_module(me, m, span, to_pickled)?,
        Value::Object(o) if !o.class.is_module() => super::module_pickle::save_object(me, o, span, to_pickled)?,
        other => {
            return Err(Error::wrong_type(
                "what save() writes to a .pt file",
                "tensors, NumPy arrays, modules, instances of the program's classes, dicts, lists, numbers or strings",
                other.type_name(),
            )
            .at(span))
        }
    })
}

impl Interp {
    /// Each NumPy array among `args` replaced by the tensor under it (a
    /// factory's data: `torch.tensor(a)`, `torch.LongTensor(a)`).
    pub(crate) fn arrays_as_tensors(
        &mut self,
        args: Vec<super::args::ArgVal>,
    ) -> Result<Vec<super::args::ArgVal>, Diagnostic> {
        args.into_iter()
            .map(|mut a| {
                if let Value::Object(o) = &a.value {
                    if is_ndarray(self, o, a.span)? {
                        if let Some((t, name)) = array_parts(o) {
                            if name.starts_with("<U") {
                                return Err(Error::type_error(
                                    "can't convert np.ndarray of type numpy.str_. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.",
                                )
                                .at(a.span));
                            }
                            a.value = Value::Tensor(t);
                        }
                    }
                }
                Ok(a)
            })
            .collect()
    }
}

/// Whether `o` is a NumPy array of cudash's `numpy` (`stdlib/numpy.py`):
/// its class is that module's `ndarray`, or one derived from it.
fn is_ndarray(
    me: &mut Interp,
    o: &crate::eval::value::Object,
    span: Span,
) -> Result<bool, Diagnostic> {
    let named = |c: &crate::eval::value::Class| c.name == "ndarray";
    if !named(&o.class) && !o.class.mro.iter().any(|c| named(c)) {
        return Ok(false);
    }
    let Value::Class(ndarray) = numpy_attr(me, "ndarray", span)? else {
        return Ok(false);
    };
    Ok(Arc::ptr_eq(&o.class, &ndarray) || o.class.mro.iter().any(|c| Arc::ptr_eq(c, &ndarray)))
}

/// An array's tensor (`_t`) and its dtype's name (`_d.name`).
fn array_parts(o: &crate::eval::value::Object) -> Option<(Arc<crate::runtime::Tensor>, String)> {
    let attrs = crate::runtime::lock::lock(&o.attrs);
    let get = |name: &str| {
        attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let (Some(Value::Tensor(t)), Some(Value::Object(d))) = (get("_t"), get("_d")) else {
        return None;
    };
    let name = crate::runtime::lock::lock(&d.attrs)
        .iter()
        .find_map(|(n, v)| match (n.as_str(), v) {
            ("name", Value::Str(s)) => Some(s.to_string()),
            _ => None,
        })?;
    Some((t, name))
}

/// A name of cudash's `numpy` module, imported if the program has not.
fn numpy_attr(me: &mut Interp, name: &str, span: Span) -> Result<Value, Diagnostic> {
    let path = super::stdlib::path_of("numpy").expect("numpy is a module of stdlib/");
    let numpy = me.import_own("numpy", path, span)?;
    me.own_module_attr(&numpy, name, span)
}

/// A loaded value; each tensor on `device` when given (`map_location`),
/// else where it was saved from, as `torch.load` puts it.
pub(crate) fn from_pickled(
    me: &mut Interp,
    p: Pickled,
    device: Option<Device>,
    span: Span,
) -> Result<Value, Diagnostic> {
    let mut load = Loading {
        device,
        tensors: HashMap::new(),
        read: value,
    };
    value(me, p, &mut load, span)
}

/// [`from_pickled`] within a load.
fn value(me: &mut Interp, p: Pickled, load: &mut Loading, span: Span) -> Result<Value, Diagnostic> {
    let device = load.device;
    Ok(match p {
        Pickled::None => Value::None,
        Pickled::Bool(b) => Value::bool(b),
        Pickled::Int(i) => Value::Int(i),
        Pickled::Float(f) => Value::float(f),
        Pickled::Str(s) => Value::Str(Arc::new(s)),
        Pickled::DType(d) => Value::DType(Word::new(d)),
        // On the host, as NumPy's arrays are (`map_location` moves tensors only).
        Pickled::Array(a) => {
            let wrap = numpy_attr(me, "_unpickled", span)?;
            let args = vec![
                crate::eval::args::ArgVal::positional(Value::Tensor(a.tensor), span),
                crate::eval::args::ArgVal::positional(
                    Value::Str(Arc::new(a.dtype.name().to_string())),
                    span,
                ),
            ];
            me.call_value(wrap, args, span)?
        }
        Pickled::Tensor(saved) => {
            if let Some(t) = saved.id.and_then(|id| load.tensors.get(&id)) {
                return Ok(Value::Tensor(Arc::clone(t)));
            }
            let to = match device {
                Some(d) => d,
                None => saved_device(me, &saved.location).map_err(|e| e.at(span))?,
            };
            let t = me.rt.copy_to(&saved.tensor, to).map_err(|e| e.at(span))?;
            let t = if saved.parameter {
                Arc::new(meta::parameter(&t, saved.requires_grad))
            } else {
                if saved.requires_grad {
                    if let Some(m) = meta::leaf_meta(&t) {
                        meta::set_requires_grad(m, true);
                    }
                }
                t
            };
            if let Some(id) = saved.id {
                load.tensors.insert(id, Arc::clone(&t));
            }
            Value::Tensor(t)
        }
        Pickled::Tuple(items) => Value::List(Arc::new(
            items
                .into_iter()
                .map(|i| value(me, i, load, span))
                .collect::<Result<_, _>>()?,
        )),
        // A list is the program's to change (`ckpt["losses"].append(x)`).
        Pickled::List(items) => Value::list(
            items
                .into_iter()
                .map(|i| value(me, i, load, span))
                .collect::<Result<_, _>>()?,
        ),
        Pickled::Dict(pairs) => Value::Dict(PyDict::new(dict_items(me, pairs, load, span)?)),
        Pickled::OrderedDict(pairs) => {
            Value::Dict(PyDict::ordered(dict_items(me, pairs, load, span)?))
        }
        Pickled::Object(o) => super::module_unpickle::load_object(me, o, load, span)?,
    })
}

/// A pickled dict's items, each key one Python hashes.
fn dict_items(
    me: &mut Interp,
    pairs: Vec<(Pickled, Pickled)>,
    load: &mut Loading,
    span: Span,
) -> Result<Vec<(Key, Value)>, Diagnostic> {
    let mut out = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        // Strings, ints (an optimizer's state by parameter
        // number), and any other value Python hashes (a tuple).
        let what = kind(&k);
        let key = Key::of(&value(me, k, load, span)?).ok_or_else(|| {
            Error::value(format!(
                "the file has a dict keyed by {what}, which Python cannot hash"
            ))
            .at(span)
        })?;
        out.push((key, value(me, v, load, span)?));
    }
    Ok(out)
}

fn kind(p: &Pickled) -> &'static str {
    match p {
        Pickled::None => "None",
        Pickled::Bool(_) => "bools",
        Pickled::Float(_) => "floats",
        Pickled::Tensor(_) => "tensors",
        Pickled::List(_) => "lists",
        Pickled::Tuple(_) => "tuples",
        Pickled::Dict(_) | Pickled::OrderedDict(_) => "dicts",
        Pickled::DType(_) => "dtypes",
        Pickled::Int(_) => "ints",
        Pickled::Str(_) => "strings",
        Pickled::Array(_) => "NumPy arrays",
        Pickled::Object(_) => "objects",
    }
}

/// The device a tensor was saved from, as `torch.load` restores it: an
/// error that says `map_location` when this session has no such device.
fn saved_device(me: &Interp, location: &str) -> Result<Device, Error> {
    let device = match location {
        "cpu" => Some(Device::Cpu),
        "cuda" => Some(Device::Cuda(0)),
        other => other
            .strip_prefix("cuda:")
            .and_then(|i| i.parse().ok())
            .map(Device::Cuda),
    };
    let Some(device) = device else {
        return Err(Error::value_help(
            format!("a tensor in the file was saved from `{location}`, which cudash does not have"),
            "load it onto a device of this session: `load(path, map_location=cpu)`",
        ));
    };
    // PyTorch's messages, which name map_location.
    me.rt.check_device(device).map_err(|_| {
        let count = me.rt.devices.count();
        let message = if count == 0 {
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.".to_string()
        } else {
            format!(
                "Attempting to deserialize object on CUDA device {} but torch.cuda.device_count() is {count}. Please use torch.load with map_location to map your storages to an existing device.",
                location.trim_start_matches("cuda:")
            )
        };
        Error::value_help(message, "in cudash: `load(path, map_location=cpu)` or `map_location=cuda:0`")
    })
}

/// The pickle (protocol 2) of the first argument, Python's values only.
fn pickled_first(
    me: &mut Interp,
    positional: &[&crate::eval::args::ArgVal],
    name: &str,
    span: Span,
) -> Result<Vec<u8>, Diagnostic> {
    let obj = positional
        .first()
        .ok_or_else(|| Error::value(format!("{name}() needs what to dump")).at(span))?;
    let p = to_pickled(me, &obj.value, obj.span)?;
    if holds_tensor(&p) {
        return Err(Error::value_help(
            "cudash pickles Python's values, not tensors",
            "save tensors with `torch.save(obj, f)`, which PyTorch's torch.load reads",
        )
        .at(obj.span));
    }
    Ok(crate::runtime::io::pickle_bytes(&p))
}

/// Python's `pickle.dump(obj, f)` and `pickle.load(f)` of a file opened
/// in binary mode (nanoGPT's `meta.pkl` of its vocabulary): dicts, lists,
/// tuples, strings, numbers, bools and None, in pickle's protocol 2 (which
/// every Python reads); `load` reads what Python's pickle wrote of those
/// (protocols 2 to 5). Tensors go through `torch.save`; instances of
/// classes are refused, never run.
pub(crate) fn call_pickle(
    me: &mut Interp,
    name: &str,
    args: Vec<crate::eval::args::ArgVal>,
    span: Span,
) -> Result<Value, Diagnostic> {
    let positional: Vec<&crate::eval::args::ArgVal> =
        args.iter().filter(|a| a.keyword.is_none()).collect();
    // The file's path, whether it is written, whether gzip packs it.
    let file = |k: usize| -> Result<(String, bool, bool), Diagnostic> {
        let a = positional.get(k).ok_or_else(|| {
            Error::value(format!("{name}() needs a file opened in binary mode")).at(span)
        })?;
        match &a.value {
            Value::File(f) => {
                let f = crate::runtime::lock::lock(f);
                f.binary()
                    .map(|(p, w)| (p.to_string(), w, f.gzipped()))
                    .ok_or_else(|| {
                        Error::value_help(
                            format!("{name}() takes a file opened in binary mode"),
                            "open it with \"wb\" to dump, \"rb\" to load",
                        )
                        .at(a.span)
                    })
            }
            other => {
                Err(
                    Error::wrong_type(format!("the file of {name}()"), "a file", other.type_name())
                        .at(a.span),
                )
            }
        }
    };
    // A file-like object (`io.BytesIO`) at argument `k`, if that is one.
    let object = |k: usize| {
        positional
            .get(k)
            .copied()
            .filter(|a| matches!(a.value, Value::Object(_)))
    };
    match name {
        // `pickle.dumps(obj)`: the bytes `dump` would write.
        "pickle.dumps" => {
            let bytes = pickled_first(me, &positional, "pickle.dumps", span)?;
            Ok(Value::Bytes(Arc::new(bytes)))
        }
        // `pickle.loads(data)`: what `load` reads of those bytes.
        "pickle.loads" => {
            let data = match positional.first().map(|a| (&a.value, a.span)) {
                Some((Value::Bytes(b), _)) => Arc::clone(b),
                Some((other, s)) => {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!(
                            "a bytes-like object is required, not '{}'",
                            super::format::python_type(other)
                        ),
                        help: None,
                    }
                    .at(s))
                }
                None => return Err(Error::value("pickle.loads() needs bytes").at(span)),
            };
            let p = crate::runtime::io::unpickle_bytes(&data, Py2Strings::Ascii).map_err(|r| {
                Error::Module {
                    class: "UnpicklingError",
                    message: r,
                    help: None,
                }
                .at(span)
            })?;
            from_pickled(me, p, None, span)
        }
        "pickle.dump" => {
            let mut bytes = pickled_first(me, &positional, "pickle.dump", span)?;
            // A file-like object of the program's (`io.BytesIO()`): its `write`.
            if let Some(f) = object(1) {
                return super::files::write_to_object(me, &f.value, bytes, f.span)
                    .map(|()| Value::None);
            }
            let (path, writing, gzip) = file(1)?;
            if !writing {
                return Err(
                    Error::value("pickle.dump() writes to a file opened with \"wb\"").at(span),
                );
            }
            use std::io::Write;
            if gzip {
                let mut packer =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                packer.write_all(&bytes).expect("writing to memory");
                bytes = packer.finish().expect("writing to memory");
            }
            std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .and_then(|mut f| f.write_all(&bytes))
                .map_err(|e| {
                    Error::Io {
                        action: "write the pickle".into(),
                        path: path.clone(),
                        reason: e.to_string(),
                    }
                    .at(span)
                })?;
            Ok(Value::None)
        }
        _ => {
            let (path, writing, gzip, given) = match object(0) {
                Some(f) => {
                    let bytes = super::files::read_from_object(me, &f.value, f.span)?;
                    ("the buffer".to_string(), false, false, Some(bytes))
                }
                None => {
                    let (path, writing, gzip) = file(0)?;
                    (path, writing, gzip, None)
                }
            };
            if writing {
                return Err(Error::value("pickle.load() reads a file opened with \"rb\"").at(span));
            }
            let io = |reason: String| {
                Error::Io {
                    action: "load the pickle".into(),
                    path: path.clone(),
                    reason,
                }
                .at(span)
            };
            // Python 2's strings: `encoding="ASCII"` unless the call says
            // (`"latin1"` for NumPy's arrays, as CIFAR-10's files need).
            let strings = match args
                .iter()
                .find(|a| a.keyword.as_ref().is_some_and(|k| k.name == "encoding")) {
                None => Py2Strings::Ascii,
                Some(a) => match &a.value {
                    Value::Str(e) => Py2Strings::named(e).ok_or_else(|| {
                        Error::value_help(
                            format!("pickle.load(): cudash reads encoding=\"ASCII\", \"latin1\", \"utf-8\" or \"bytes\", not {e:?}"),
                            "NumPy arrays pickled by Python 2 load with encoding=\"latin1\"",
                        )
                        .at(a.span)
                    })?,
                    other => {
                        return Err(Error::wrong_type("encoding", "a string", other.type_name()).at(a.span))
                    }
                },
            };
            let mut bytes = match given {
                Some(b) => b.to_vec(),
                None => std::fs::read(&path).map_err(|e| io(e.to_string()))?,
            };
            if gzip {
                use std::io::Read;
                if !bytes.starts_with(&[0x1f, 0x8b]) {
                    return Err(io(
                        "Not a gzipped file (gzip.open reads what gzip packed)".into()
                    ));
                }
                let mut unpacked = Vec::new();
                flate2::read::MultiGzDecoder::new(&bytes[..])
                    .read_to_end(&mut unpacked)
                    .map_err(|e| io(format!("a damaged gzip file ({e})")))?;
                bytes = unpacked;
            }
            let p = crate::runtime::io::unpickle_bytes(&bytes, strings).map_err(io)?;
            from_pickled(me, p, None, span)
        }
    }
}

/// Whether a pickled value holds a tensor anywhere.
fn holds_tensor(p: &Pickled) -> bool {
    match p {
        Pickled::Tensor(_) => true,
        Pickled::List(items) | Pickled::Tuple(items) => items.iter().any(holds_tensor),
        Pickled::Dict(pairs) | Pickled::OrderedDict(pairs) => pairs
            .iter()
            .any(|(k, v)| holds_tensor(k) || holds_tensor(v)),
        Pickled::Object(o) => {
            o.args.iter().any(holds_tensor) || o.state.as_deref().is_some_and(holds_tensor)
        }
        _ => false,
    }
}
