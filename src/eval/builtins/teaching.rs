//! `print`, `clear_output`, and `save`/`load` (.npy, .safetensors).

use crate::eval::value::PyDict;
use std::path::Path;
use std::sync::Arc;

use super::super::args::Bound;
use super::super::checkpoint;
use super::super::format::str_of;
use super::super::{Interp, Output, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::io;

/// `print(*values, sep=" ", end="\n")`: each value as Python's `str()`
/// writes it (`True`, `None`, `torch.Size([2, 3])`, `torch.float32`,
/// strings in a list quoted), a tensor as cudash shows it (with its device).
pub(super) fn print(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let values: Vec<&Value> = b.rest.iter().map(|(v, _)| v).collect();
    let parts = me
        .host_read(&values, || {
            values.iter().map(|v| str_of(v)).collect::<Vec<_>>()
        })
        .map_err(|e| e.at(b.span))?;
    // A race the host's read ran into is said before what it printed.
    me.flush_hazards();
    // Python's `sep` and `end`: the lines that end are shown; what is left
    // of a line (`end=""`) waits for the next print or the statement's end.
    let sep = b.str("sep")?.unwrap_or_else(|| " ".into());
    let end = b.str("end")?.unwrap_or_else(|| "\n".into());
    let text = parts.join(&sep) + &end;
    // `flush=True`: a line left open (`end=""`) is shown now.
    let flush = b.bool("flush", false)?;
    let write = |me: &mut Interp, stderr: bool| {
        me.write_text(stderr, &text);
        if flush {
            me.flush_stream(stderr);
        }
    };
    match b.given("file") {
        None | Some((Value::None, _)) => write(me, false),
        // `print(..., file=sys.stderr)`.
        Some((Value::File(f), _)) if standard_stream(f).is_some() => {
            write(me, standard_stream(f) == Some(true))
        }
        // `print(..., file=f)`: an open file, or any object with `write`
        // (`io.StringIO`, a logger's stream), as Python's.
        Some((target @ (Value::File(_) | Value::Object(_)), _)) => {
            let s = Value::Str(Arc::new(text));
            let name = crate::lang::ast::Name::new("write".into(), b.span);
            let arg = crate::eval::args::ArgVal::positional(s, b.span);
            me.call_method(target.clone(), &name, vec![arg], b.span)?;
        }
        Some((other, span)) => {
            return Err(Error::Attribute {
                message: format!(
                    "'{}' object has no attribute 'write'",
                    super::super::format::python_type(other)
                ),
                help: Some("`file=` takes an open file or `sys.stderr`".into()),
            }
            .at(*span))
        }
    }
    Ok(Value::None)
}

/// Whether `f` is `sys.stderr` (Some(true)) or `sys.stdout`; the file's
/// lock is let go before its `write` takes it again.
fn standard_stream(f: &crate::eval::pyfile::FileRef) -> Option<bool> {
    crate::runtime::lock::lock(f).standard_stream()
}

pub(super) fn clear_output(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let wait = b.bool("wait", false)?;
    me.emit(Output::Clear { wait });
    Ok(Value::None)
}

/// `sleep(seconds)`: the host's time passes (`Runtime::sleep`). At most
/// an hour: a longer wait is a typo (milliseconds for seconds).
pub(super) fn sleep(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let seconds = b.float("seconds")?.unwrap_or(0.0);
    if !(0.0..=3600.0).contains(&seconds) {
        let span = b.span_of("seconds");
        return Err(Error::value_help(
            format!("sleep() takes 0 to 3600 seconds, not {seconds}"),
            "give the time in seconds: `sleep(0.02)` is 20 ms",
        )
        .at(span));
    }
    me.rt.sleep(seconds).map_err(|e| e.at(b.span))?;
    Ok(Value::None)
}

/// `save(tensor, path)`: the host reads the tensor (a copy from its device), then writes it.
pub(super) fn save(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    // To a file-like object (`io.BytesIO()`): the archive's bytes to its
    // `write`, its records under `archive/`, as PyTorch names them.
    if let Some((f @ Value::Object(_), fspan)) = b.get("path") {
        let (v, span) = b
            .get("tensor")
            .ok_or_else(|| Error::value("save() needs what to save").at(b.span))?;
        let saved = checkpoint::to_pickled(me, v, *span)?;
        let bytes = io::torch_bytes(&saved, "archive").map_err(|r| {
            Error::Io {
                action: "write".into(),
                path: "the buffer".into(),
                reason: r,
            }
            .at(b.span)
        })?;
        return crate::eval::files::write_to_object(me, f, bytes, *fspan).map(|()| Value::None);
    }
    // To a file opened with "wb": torch.save's format, whatever its name.
    if let Some((path, writing)) = binary_file(b) {
        if !writing {
            return Err(super::super::pyfile::unsupported("write").at(b.span_of("path")));
        }
        let (v, span) = b
            .get("tensor")
            .ok_or_else(|| Error::value("save() needs what to save").at(b.span))?;
        let saved = checkpoint::to_pickled(me, v, *span)?;
        io::save_torch(&saved, Path::new(&path)).map_err(|e| e.at(b.span))?;
        return Ok(Value::None);
    }
    // torch.save's format: any value a checkpoint holds. A Python
    // program's `torch.save` writes it whatever the name
    // (fast_neural_style's `epoch_2_....model`), but .npy and .safetensors.
    if let (Some((v, span)), Some((Value::Str(path), _))) = (b.get("tensor"), b.get("path")) {
        let other = [".npy", ".safetensors"].iter().any(|e| path.ends_with(e));
        if checkpoint::is_torch_name(path) || (me.python_program() && !other) {
            let saved = checkpoint::to_pickled(me, v, *span)?;
            io::save_torch(&saved, Path::new(path.as_str())).map_err(|e| e.at(b.span))?;
            return Ok(Value::None);
        }
    }
    // A dict of tensors (a model's `state_dict()`): each read to the host
    // (a sync and a copy for a device tensor), then one file.
    if let Some((Value::Dict(pairs), span)) = b.get("tensor") {
        let path = path_arg(b)?;
        let mut host = Vec::with_capacity(pairs.len());
        for (k, v) in pairs.items().iter() {
            let Value::Tensor(t) = v else {
                return Err(Error::wrong_type(
                    format!("the value of {}", k.repr()),
                    "a tensor",
                    v.type_name(),
                )
                .at(*span));
            };
            let t = me
                .rt
                .copy_to(t, crate::runtime::Device::Cpu)
                .map_err(|e| e.at(b.span))?;
            host.push((k.to_string(), t));
        }
        let named: Vec<(String, &crate::runtime::Tensor)> =
            host.iter().map(|(k, t)| (k.clone(), &**t)).collect();
        io::save_named(&named, Path::new(&path)).map_err(|e| e.at(b.span))?;
        return Ok(Value::None);
    }
    let x = b.tensor("tensor")?;
    let path = path_arg(b)?;
    me.rt
        .read_all(&x, || io::save(&x, Path::new(&path)))
        .and_then(|written| written)
        .map_err(|e| e.at(b.span))?;
    Ok(Value::None)
}

/// `load(path, device=cpu)`: one tensor, or a dict of several, copied to `device`.
pub(super) fn load(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let at = |e: Error| e.at(b.span);
    // From a file opened with "rb": torch.save's format, whatever its name.
    let binary = binary_file(b);
    if let Some((_, true)) = binary {
        return Err(super::super::pyfile::unsupported("read").at(b.span_of("path")));
    }
    // From a file-like object (`io.BytesIO(data)`): what its `read()` gives.
    let from_object = match b.get("path") {
        Some((f @ Value::Object(_), span)) => {
            Some(crate::eval::files::read_from_object(me, f, *span)?)
        }
        _ => None,
    };
    let path = match (&binary, &from_object) {
        (Some((path, _)), _) => path.clone(),
        (None, Some(_)) => String::new(),
        (None, None) => path_arg(b)?,
    };
    // `map_location=` is PyTorch's name for `device=`.
    let name = match b.given("device") {
        Some(_) => "device",
        None => "map_location",
    };
    let device = match b.device(name)? {
        Some(d) => Some(me.rt.check_device(d).map_err(|e| e.at(b.span_of(name)))?),
        None => None,
    };
    // PyTorch's default since 2.6 is the safe load; `weights_only=False`
    // reads NumPy's arrays too (still calling nothing else).
    let how = match b.given("weights_only") {
        Some((Value::Bool(w), _)) if !w.get() => io::Unpickler::Full(io::Py2Strings::Utf8),
        _ => io::Unpickler::WeightsOnly,
    };
    if let Some(bytes) = from_object {
        let saved = io::load_torch_bytes(&bytes, how, Path::new("the buffer")).map_err(at)?;
        return checkpoint::from_pickled(me, saved, device, b.span);
    }
    if binary.is_some() || checkpoint::is_torch_name(&path) || is_zip(&path) {
        let saved = io::load_torch(Path::new(&path), how).map_err(at)?;
        return checkpoint::from_pickled(me, saved, device, b.span);
    }
    let device = device.unwrap_or(crate::runtime::Device::Cpu);
    let mut loaded = io::load(Path::new(&path)).map_err(at)?;
    // One tensor `save` wrote (or a .npy) is that tensor; named ones (a
    // state_dict) are a dict, also when there is one.
    if loaded.len() == 1 && (loaded[0].0 == "tensor" || path.ends_with(".npy")) {
        let (_, t) = loaded.remove(0);
        return b.result(me.rt.copy_to(&t, device));
    }
    let mut pairs = Vec::with_capacity(loaded.len());
    for (k, t) in loaded {
        pairs.push((
            k.into(),
            Value::Tensor(me.rt.copy_to(&t, device).map_err(at)?),
        ));
    }
    Ok(Value::Dict(PyDict::new(pairs)))
}

/// Whether the file is a zip archive (torch.save's format under any name).
fn is_zip(path: &str) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && io::zip::is_zip(&head)
}

/// The `path` argument when it is a file opened in binary mode: its path
/// and whether it is written.
fn binary_file(b: &Bound) -> Option<(String, bool)> {
    match b.get("path") {
        Some((Value::File(f), _)) => {
            let f = crate::runtime::lock::lock(f);
            f.binary().map(|(p, w)| (p.to_string(), w))
        }
        _ => None,
    }
}

fn path_arg(b: &Bound) -> Result<String, Diagnostic> {
    match b.get("path") {
        Some((v, _)) if crate::eval::value::fspath(v).is_some() => {
            Ok(crate::eval::value::fspath(v).expect("a path"))
        }
        Some((v, s)) => Err(Error::wrong_type("the path", "a string", v.type_name()).at(*s)),
        None => Err(Error::value("a path is needed").at(b.span)),
    }
}

/// `len(x)`: Python's: a tensor's first dimension (PyTorch: a 0-d tensor has
/// none), a list's or dict's items, a string's characters.
/// `list(items)`: a Python list, empty or with the items of a list, a
/// result's parts or a tensor's first dimension.
pub(super) fn list(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let items: Vec<Value> = match b.get("items") {
        None | Some((Value::None, _)) => Vec::new(),
        // A dict's keys and a string's characters, as Python's list(d).
        Some((v, span)) => super::python::items_of(me, v, *span, "list()")?,
    };
    Ok(Value::list(items))
}

/// `enumerate(iterable, start=0)`: `for i, x in enumerate(xs)` counts the
/// items (a DataLoader's batches as they are made).
pub(super) fn enumerate(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (v, span) = b
        .get("iterable")
        .cloned()
        .ok_or_else(|| Error::value("enumerate() needs something to iterate").at(b.span))?;
    let start = b.int("start")?.unwrap_or(0);
    // A class's `__iter__` gives what is counted.
    let v = match v {
        Value::Object(_) | Value::Sampler(_) => me.iter_method(v, span)?,
        other => other,
    };
    // A generator's items and a DataLoader pass's batches are made as the
    // loop asks (`for` takes them so).
    let lazy = match &v {
        Value::Iterator(i) => super::super::generator::is_lazy(i),
        Value::DataLoader(_) => true,
        _ => false,
    };
    if lazy {
        return Ok(Value::Enumerate(Arc::new((v, start))));
    }
    // Other items are taken once, here (an iterator's or a file's would be
    // used up by asking twice): a string's characters, a dict's keys as
    // Python's.
    let items = super::python::items_of(me, &v, span, "enumerate()")?;
    let v = match v {
        Value::Iterator(_) | Value::Str(_) | Value::Dict(_) | Value::File(_) => {
            Value::List(Arc::new(items))
        }
        other => other,
    };
    Ok(Value::Enumerate(Arc::new((v, start))))
}

/// `range(stop)`, `range(start, stop, step=1)`: Python's, counted as a
/// `for` asks (`for i in range(3)` is `for i in 0..3`).
pub(super) fn range(_: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let first = b.int("start")?.unwrap_or(0);
    let (start, stop) = match b.int("stop")? {
        Some(stop) => (first, stop),
        None => (0, first),
    };
    let step = b.int("step")?.unwrap_or(1);
    if step == 0 {
        let span = b.get("step").map_or(b.span, |(_, s)| *s);
        return Err(Error::value("range() arg 3 must not be zero").at(span));
    }
    Ok(Value::Range(Arc::new(crate::eval::value::PyRange {
        start,
        stop,
        step,
    })))
}

pub(super) fn len(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (v, span) = b
        .get("obj")
        .ok_or_else(|| Error::value("len() needs a value").at(b.span))?;
    if let Value::Bytes(bytes) = v {
        return Ok(Value::Int(bytes.len() as i64));
    }
    // A named tuple's fields; an instance's `__len__` (a Dataset's).
    if let Value::Object(o) = v {
        if o.class.tuple {
            return Ok(Value::Int(o.class.fields.len() as i64));
        }
        if o.class.find("__len__").is_none() && o.class.builtin().is_none() {
            return Err(Error::type_error(format!(
                "object of type '{}' has no len()",
                o.class.short_name()
            ))
            .at(*span));
        }
        let name = crate::lang::ast::Name::new("__len__".into(), *span);
        return me.call_method(v.clone(), &name, Vec::new(), b.span);
    }
    // `len(iter(loader))`: the pass's batches, as PyTorch's iterator's.
    if let Some(n) = match v {
        Value::Iterator(i) => super::super::generator::loader_len(i),
        _ => None,
    } {
        return Ok(Value::Int(n as i64));
    }
    let n = match v {
        Value::Tensor(t) if t.ndim() == 0 => {
            return Err(Error::value_help(
                "len() of a 0-d tensor: it has no first dimension",
                "`x.numel()` counts its elements (1)",
            )
            .at(*span))
        }
        Value::Tensor(t) => t.shape()[0],
        Value::List(_)
        | Value::MutList(_)
        | Value::Dict(_)
        | Value::Set(_)
        | Value::DictView(_)
        | Value::Range(_)
        | Value::Size(_) => v.count().unwrap_or(0),
        Value::Str(s) => s.chars().count(),
        Value::Dataset(ds) => ds.len(),
        Value::DataLoader(l) => me.loader_len(l, *span)?,
        Value::Sampler(s) => me.sampler_len(s, *span)?,
        Value::Module(_) if v.elements().is_some() => v.count().unwrap_or(0),
        // An Enum's members.
        Value::Class(c) if c.enum_members().is_some() => v.count().unwrap_or(0),
        other => {
            return Err(Error::wrong_type(
                "the argument of len()",
                "a tensor, a list, a dict, a string, a dataset or a DataLoader",
                other.type_name(),
            )
            .at(*span))
        }
    };
    Ok(Value::Int(n as i64))
}
