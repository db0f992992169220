//! Short readable forms of every value.

use super::python_text::pytorch_text;
use super::value::object_id;
use super::Value;
use crate::display::tensor;

/// What an expression statement shows; `None` shows nothing (like Python's REPL).
pub fn display_text(v: &Value) -> Option<String> {
    match v {
        Value::None => None,
        Value::Tensor(t) => Some(tensor_text(t)),
        // The model as PyTorch prints it, then what its parameters are.
        Value::Module(m) => Some(format!(
            "{}\n{}",
            crate::nn::repr::repr(m),
            crate::nn::repr::summary(m)
        )),
        other => Some(repr(other)),
    }
}

thread_local! {
    /// The `list()`s being shown, outermost first (`repr` of a list that
    /// holds itself).
    static SHOWING: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `show()` of the `list()` at address `at`, or `[...]` where it is
/// already being shown (a list that holds itself, as Python's repr).
pub(crate) fn once_inside(at: usize, show: impl FnOnce() -> String) -> String {
    once_inside_as(at, "[...]", show)
}

/// `once_inside`, with `again` for a value already being shown (`{...}`
/// for a dict, as Python writes one that holds itself).
pub(crate) fn once_inside_as(at: usize, again: &str, show: impl FnOnce() -> String) -> String {
    if SHOWING.with(|s| s.borrow().contains(&at)) {
        return again.into();
    }
    SHOWING.with(|s| s.borrow_mut().push(at));
    let text = show();
    SHOWING.with(|s| s.borrow_mut().pop());
    text
}

/// A tuple's or a list's items in brackets.
fn sequence(items: &[Value]) -> String {
    let parts: Vec<String> = items.iter().map(repr).collect();
    if parts.iter().any(|p| p.contains('\n')) {
        // Tensors that take several lines: one item after the other, indented.
        let items: Vec<String> = parts
            .iter()
            .map(|p| format!("  {}", p.replace('\n', "\n  ")))
            .collect();
        format!("[\n{},\n]", items.join(",\n"))
    } else {
        format!("[{}]", parts.join(", "))
    }
}

/// Python's `repr(b)`: `b'...'` (in double quotes when the bytes hold a
/// `'` and no `"`), printable ASCII as itself, `\t \n \r \\` and the
/// quote escaped, every other byte `\xNN`.
pub fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = format!("b{quote}");
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            c if c as char == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(c as char),
            _ => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push(quote);
    out
}

pub fn repr(v: &Value) -> String {
    if pytorch_text() {
        if let Some(text) = python_object_text(v) {
            return text;
        }
    }
    match v {
        Value::None => "none".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => float(x.get()),
        Value::Str(s) => format!("{:?}", s.as_ref()),
        Value::Bytes(b) => bytes_repr(b),
        Value::Device(d) => d.to_string(),
        Value::CurrentCuda => "cuda".into(),
        Value::DType(d) => d.to_string(),
        Value::Tensor(t) => tensor_text(t),
        Value::Sparse(s) => sparse_text(s),
        // A tuple shows as a list does (a shape as `[2, 3]`, close to
        // PyTorch's `torch.Size([2, 3])`).
        Value::List(items) | Value::Size(items) => sequence(items),
        Value::MutList(list) => once_inside(std::sync::Arc::as_ptr(list) as usize, || {
            sequence(&v.items().unwrap_or_default())
        }),
        Value::Builtin(doc) => match super::builtins::classes::qualified(doc.name) {
            Some(class) => format!("<class '{class}'>"),
            None if pytorch_text() => format!("<built-in function {}>", doc.name),
            None => format!("<builtin {}>", doc.signature),
        },
        // Python's text, with the address `id()` gives, in a Python program.
        Value::Function(f) if pytorch_text() => {
            let name = match f.attr("__qualname__") {
                Some(Value::Str(q)) => q.to_string(),
                _ => f.def.name.name.clone(),
            };
            format!("<function {name} at {:#x}>", object_id(v))
        }
        Value::Function(f) => format!("<function {}>", f.signature()),
        Value::Stream(s) => s.describe(),
        Value::Event(e) => e.describe(),
        Value::GradFn(f) if pytorch_text() => {
            let module = match super::value::node_module(f.name()) {
                "builtins" => String::new(),
                module => format!("{module}."),
            };
            format!("<{module}{} object at {:#x}>", f.name(), object_id(v))
        }
        Value::GradFn(f) => format!("<{}>", f.name()),
        Value::Dataset(ds) => match &**ds {
            crate::data::dataset::Dataset::Tensors(t) => format!(
                "TensorDataset of {} samples ({} tensors)",
                t.len(),
                t.tensors.len()
            ),
            crate::data::dataset::Dataset::Function(f) => format!("{f:?}"),
            crate::data::dataset::Dataset::Subset(s) => format!(
                "Subset of {} samples of {}",
                s.indices.len(),
                s.dataset.describe()
            ),
        },
        Value::DataLoader(l) => l.describe(),
        Value::Sampler(s) => s.describe(),
        Value::Generator(g) => format!(
            "<torch._C.Generator object at {:#x}>",
            std::sync::Arc::as_ptr(&g.0) as usize
        ),
        Value::HookHandle(_) => "<torch.utils.hooks.RemovableHandle>".into(),
        Value::Work(w) => format!("{w:?}"),
        Value::CudaGraph(g) => format!("{g:?}"),
        Value::NoSync(_) => "<contextlib._GeneratorContextManager (no_sync)>".into(),
        Value::Enumerate(_) => "<enumerate object>".into(),
        Value::Module(m) => {
            super::user_text::module_repr(m).unwrap_or_else(|| crate::nn::repr::repr(m))
        }
        // PyTorch's result classes name their module already.
        Value::Class(c) if c.name.starts_with(super::value::RETURN_TYPES) => {
            format!("<class '{}'>", c.name)
        }
        // Python's builtins print without a module (`<class 'slice'>`).
        Value::Class(c)
            if std::sync::Arc::ptr_eq(c, &super::value::slice_class())
                || std::sync::Arc::ptr_eq(c, &super::value::object_class()) =>
        {
            format!("<class '{}'>", c.name)
        }
        Value::Class(c) => format!("<class '{}.{}'>", c.module(), c.name),
        Value::Object(o) if super::user_text::repr_of(o).is_some() => {
            super::user_text::repr_of(o).unwrap_or_default()
        }
        Value::Object(o) if o.is_namespace() => o.namespace_text(&repr),
        Value::Object(o)
            if super::dataclass::is_dataclass(o) && o.class.find("__repr__").is_none() =>
        {
            super::dataclass::text(o, &repr)
        }
        Value::Object(o)
            if [true, false]
                .iter()
                .any(|&f| std::sync::Arc::ptr_eq(&o.class, &super::value::dtype_info_class(f))) =>
        {
            dtype_info_text(o)
        }
        Value::Object(o)
            if std::sync::Arc::ptr_eq(&o.class, &super::value::device_properties_class()) =>
        {
            let get = |k: &str| match o.get(k) {
                Some(Value::Str(s)) => s.to_string(),
                Some(Value::Int(i)) => i.to_string(),
                _ => String::new(),
            };
            let mb = o
                .get("total_memory")
                .and_then(|v| v.as_number())
                .unwrap_or(0.0)
                / 1048576.0;
            format!(
                "_CudaDeviceProperties(name='{}', major={}, minor={}, total_memory={}MB)",
                get("name"),
                get("major"),
                get("minor"),
                mb.floor()
            )
        }
        Value::Object(o) if pytorch_text() => format!(
            "<{}.{} object at {:#x}>",
            o.class.module(),
            o.class.name,
            object_id(v)
        ),
        Value::Object(o) => format!("<{}.{} object>", o.class.module(), o.class.name),
        Value::OwnModule(m) => format!("<module '{}' from '{}'>", m.name, m.path.display()),
        Value::ArgParser(p) => {
            let p = crate::runtime::lock::lock(p);
            if let Some(main) = &p.commands_of {
                let main = crate::runtime::lock::lock(main);
                let dest = main.subcommands.as_ref().and_then(|s| s.dest.clone());
                return format!(
                    "_SubParsersAction(option_strings=[], dest={}, nargs='A...')",
                    dest.map_or("'==SUPPRESS=='".into(), |d| format!("'{d}'"))
                );
            }
            format!(
                "ArgumentParser(prog={:?}, description={})",
                p.prog,
                p.description
                    .as_ref()
                    .map_or("none".into(), |d| format!("{d:?}"))
            )
        }
        Value::BuiltinMethod(m) => format!("<built-in method {} of {}>", m.1, m.0.type_name()),
        Value::Method(m) => {
            let owner = super::value::class_of(&m.0).map_or("?".into(), |c| c.name.clone());
            format!("<bound method {owner}.{}>", m.1.name())
        }
        Value::Super(s) => format!("<super: <class '{}'>>", s.1.name),
        // As its dict: "params" then the settings.
        Value::ParamGroup(g) => repr(&Value::Dict(super::param_group::group_dict(&g.0, g.1))),
        Value::Namespace(m) => format!("<module '{}'>", m.path),
        Value::ExcClass(c) => format!("<class '{}'>", c.name),
        Value::Iterator(i) => match &*crate::runtime::lock::lock(i) {
            super::value::PyIterator::Generator(Some(g)) => {
                format!(
                    "<generator object {} at {:#x}>",
                    g.name(),
                    std::sync::Arc::as_ptr(i) as usize
                )
            }
            super::value::PyIterator::Generator(None) => "<generator object (running)>".into(),
            _ => "<iterator>".into(),
        },
        Value::File(f) => crate::runtime::lock::lock(f).repr(),
        Value::Exception(x) => format!("{}({:?})", x.class.name, x.message),
        Value::Range(r) if r.step == 1 => format!("range({}, {})", r.start, r.stop),
        Value::Range(r) => format!("range({}, {}, {})", r.start, r.stop, r.step),
        Value::Native(f) if f.is_class() => f.class_text(),
        // Python's own builtins print without their module.
        Value::Native(f) => format!(
            "<built-in function {}>",
            f.name.strip_prefix("builtins.").unwrap_or(f.name)
        ),
        Value::Decorated(d) => {
            let (kind, f) = match &**d {
                super::value::Decorated::Static(f) => ("staticmethod", f),
                super::value::Decorated::ClassMethod(f) => ("classmethod", f),
                super::value::Decorated::Property(f, _) => ("property", f),
                super::value::Decorated::CachedProperty(f) => ("functools.cached_property", f),
                super::value::Decorated::Apply(c) => {
                    return format!(
                        "<built-in method apply of FunctionMeta object ({})>",
                        c.name
                    )
                }
            };
            format!("<{kind} of {}>", repr(f))
        }
        Value::Autocast(r) => autocast_region(r),
        Value::GradScaler(s) => grad_scaler(&crate::runtime::lock::lock(s)),
        Value::GradMode(on) if on.get().inference.is_some() => {
            "<torch.autograd.grad_mode.inference_mode object>".into()
        }
        Value::GradMode(on) if on.get().restore.is_some() => {
            "<torch.autograd.grad_mode.set_grad_enabled object>".into()
        }
        Value::GradMode(on) => match on.get().enabled {
            false => "<torch.autograd.grad_mode.no_grad object>".into(),
            true => "<torch.autograd.grad_mode.enable_grad object>".into(),
        },
        Value::Scheduler(s) => {
            let s = crate::runtime::lock::lock(&s.scheduler);
            format!(
                "<{} at epoch {}, lr={}>",
                s.name(),
                s.last_epoch,
                s.last_lrs
                    .iter()
                    .map(|&x| float(x))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        Value::Optimizer(o) => {
            let o = crate::runtime::lock::lock(o);
            o.describe()
        }
        Value::Set(items) => set_text(items, |k| k.repr()),
        Value::DictView(view) => view.text(&repr),
        Value::Dict(pairs) if pairs.is_empty() => "{}".into(),
        Value::Dict(pairs) => once_inside_as(pairs.addr(), "{...}", || {
            let width = pairs
                .items()
                .iter()
                .map(|(k, _)| k.repr().len())
                .max()
                .unwrap_or(0);
            let rows: Vec<String> = pairs
                .items()
                .iter()
                .map(|(k, v)| {
                    // Continuation lines (a matrix's rows) under the value's first.
                    let indent = format!("\n{}", " ".repeat(width + 5));
                    format!(
                        "  {:<width$}  {}",
                        format!("{}:", k.repr()),
                        repr(v).replace('\n', &indent),
                        width = width + 1
                    )
                })
                .collect();
            format!("{{\n{}\n}}", rows.join("\n"))
        }),
    }
}

/// A lazy module's parameter or buffer before its first forward, as
/// PyTorch shows it (`<UninitializedParameter>`).
pub(super) fn uninitialized_name(t: &crate::runtime::Tensor) -> &'static str {
    match crate::autograd::meta::is_parameter(t) {
        true => "<UninitializedParameter>",
        false => "<UninitializedBuffer>",
    }
}

/// A tensor as shown: a module's parameter under PyTorch's
/// "Parameter containing:" line.
pub(super) fn tensor_text(t: &crate::runtime::Tensor) -> String {
    if crate::autograd::meta::is_uninitialized(t) {
        return uninitialized_name(t).to_string();
    }
    let text = match pytorch_text() {
        true => tensor::pytorch_repr(t),
        false => tensor::render(t),
    };
    match crate::autograd::meta::is_parameter(t) {
        true => format!("Parameter containing:\n{text}"),
        false => text,
    }
}

/// A sparse tensor's text: PyTorch's repr in a Python program, else its
/// values and tag.
fn sparse_text(s: &crate::autograd::sparse::SparseTensor) -> String {
    match pytorch_text() {
        true => tensor::pytorch_sparse_repr(&s.indices, &s.values, &s.shape),
        false => tensor::render_sparse(&s.indices, &s.values, &s.shape),
    }
}

/// In a Python program, Python's `<class object at 0x...>` of what cudash
/// shows in its own words in a cell (a DataLoader, a dataset, a sampler, a
/// hook's handle, an iterator, a scheduler), with the address `id()` gives.
fn python_object_text(v: &Value) -> Option<String> {
    let class = match v {
        Value::Dataset(ds) => match &**ds {
            crate::data::dataset::Dataset::Tensors(_) => "torch.utils.data.dataset.TensorDataset",
            crate::data::dataset::Dataset::Subset(_) => "torch.utils.data.dataset.Subset",
            crate::data::dataset::Dataset::Function(_) => return None,
        }
        .to_string(),
        Value::DataLoader(_) => "torch.utils.data.dataloader.DataLoader".into(),
        Value::Sampler(s) => super::builtins::classes::qualified(s.name())?,
        Value::HookHandle(_) => "torch.utils.hooks.RemovableHandle".into(),
        Value::Enumerate(_) => "enumerate".into(),
        Value::Scheduler(s) => format!(
            "torch.optim.lr_scheduler.{}",
            crate::runtime::lock::lock(&s.scheduler).name()
        ),
        Value::Iterator(i) => match &*crate::runtime::lock::lock(i) {
            super::value::PyIterator::Items(_) | super::value::PyIterator::Indexed(..) => {
                "list_iterator".into()
            }
            super::value::PyIterator::Map(_) => "map".into(),
            super::value::PyIterator::Range { .. } => "range_iterator".into(),
            super::value::PyIterator::Filter(_) => "filter".into(),
            super::value::PyIterator::Loader(Some(e)) => match e.has_workers() {
                true => "torch.utils.data.dataloader._MultiProcessingDataLoaderIter".into(),
                false => "torch.utils.data.dataloader._SingleProcessDataLoaderIter".into(),
            },
            _ => return None,
        },
        _ => return None,
    };
    Some(format!("<{class} object at {:#x}>", object_id(v)))
}

/// Python's float repr: `2.0`, `0.1`, `1e+20`, `nan`.
/// Python's `repr` of a float: the shortest digits that read back the
/// same, in exponent form below 1e-4 and from 1e16 (`1e-06`, `1e+16`),
/// with `.0` on a whole number (`2.0`).
pub fn float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `1.5e-7`. Of
    // the strings of that length that read back as `x`, Python's repr
    // writes the nearest (ties to even: 1020.6172485351562 for
    // 1020.61724853515625, where Rust's shortest ends in 3): `{:.*e}`
    // rounds correctly at that length.
    let shortest = format!("{x:e}");
    let digits = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.chars().filter(char::is_ascii_digit).count());
    let nearest = format!("{x:.*e}", digits.saturating_sub(1));
    let sci = match nearest.parse::<f64>() {
        Ok(y) if y == x => nearest,
        _ => shortest,
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..16).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let negative = x < 0.0;
    let point = exp + 1; // digits before the decimal point
    let mut s = String::new();
    if negative {
        s.push('-');
    }
    if point <= 0 {
        s.push_str("0.");
        s.push_str(&"0".repeat((-point) as usize));
        s.push_str(&digits);
    } else if (point as usize) >= digits.len() {
        s.push_str(&digits);
        s.push_str(&"0".repeat(point as usize - digits.len()));
        s.push_str(".0");
    } else {
        s.push_str(&digits[..point as usize]);
        s.push('.');
        s.push_str(&digits[point as usize..]);
    }
    s
}

/// What the scaler shows: its scale as the host knows it (no device read)
/// and the steps it took and skipped.
pub(super) fn grad_scaler(s: &crate::autograd::grad_scaler::GradScaler) -> String {
    if !s.enabled {
        return "GradScaler(enabled=False)".into();
    }
    format!(
        "GradScaler(scale={}, growth_factor={}, backoff_factor={}, growth_interval={}; {} steps, {} skipped)",
        float(s.known_scale()),
        float(s.growth_factor),
        float(s.backoff_factor),
        s.growth_interval,
        s.steps,
        s.skipped
    )
}

/// What an autocast region shows.
pub(super) fn autocast_region(r: &crate::autograd::autocast::Region) -> String {
    format!(
        "<torch.autocast(device_type='{}', dtype={}, enabled={})>",
        if r.cuda { "cuda" } else { "cpu" },
        r.dtype.pytorch_name(),
        if r.enabled { "True" } else { "False" }
    )
}

/// A set as `{a, b}` (`set()` when empty), a frozenset as
/// `frozenset({a, b})`, each item as `key` writes it.
pub(super) fn set_text(
    items: &super::value::PyDict,
    key: impl Fn(&super::value::Key) -> String,
) -> String {
    let frozen = items.is_frozen();
    if items.is_empty() {
        return if frozen { "frozenset()" } else { "set()" }.into();
    }
    let keys: Vec<String> = items.items().iter().map(|(k, _)| key(k)).collect();
    match frozen {
        true => format!("frozenset({{{}}})", keys.join(", ")),
        false => format!("{{{}}}", keys.join(", ")),
    }
}

/// `1.500000e+03`: C's `%e`.
pub(super) fn exponent(a: f64, precision: usize) -> String {
    let t = format!("{a:.precision$e}");
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// C's `%g`: `precision` significant digits, fixed or exponent form,
/// trailing zeros dropped (kept with `#`).
pub(super) fn general(a: f64, precision: usize, alternate: bool) -> String {
    let p = precision.max(1);
    if a == 0.0 {
        return if alternate {
            format!("{:.*}", p - 1, 0.0)
        } else {
            "0".into()
        };
    }
    // The exponent after rounding to p digits.
    let rounded = format!("{:.*e}", p - 1, a);
    let exp: i32 = rounded
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let t = if exp < -4 || exp >= p as i32 {
        exponent(a, p - 1)
    } else {
        format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, a)
    };
    if alternate {
        return t;
    }
    match t.split_once('e') {
        Some((m, e)) => format!("{}e{e}", trim_zeros(m)),
        None => trim_zeros(&t).to_string(),
    }
}

fn trim_zeros(t: &str) -> &str {
    match t.contains('.') {
        true => t.trim_end_matches('0').trim_end_matches('.'),
        false => t,
    }
}

/// `torch.finfo(dt)` / `torch.iinfo(dt)` as PyTorch prints them: each
/// limit as C's `%g` writes it (`max=3.40282e+38`, and an int64's
/// `max=9.22337e+18` too).
fn dtype_info_text(o: &super::value::Object) -> String {
    let fields: &[&str] = match o.get("eps") {
        Some(_) => &["resolution", "min", "max", "eps", "smallest_normal", "tiny"],
        None => &["min", "max"],
    };
    let mut parts: Vec<String> = fields
        .iter()
        .map(|&f| {
            let x = o.get(f).and_then(|v| v.as_number()).unwrap_or(0.0);
            let g = general(x, 6, false);
            format!("{f}={g}")
        })
        .collect();
    let dtype = match o.get("dtype") {
        Some(Value::Str(s)) => s.to_string(),
        _ => String::new(),
    };
    parts.push(format!("dtype={dtype}"));
    let name = if fields.len() > 2 { "finfo" } else { "iinfo" };
    format!("{name}({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    /// CPython 3.11's `repr` of each.
    #[test]
    fn floats_read_as_pythons_repr() {
        for (x, python) in [
            (0.1, "0.1"),
            (4e-06, "4e-06"),
            (1.0 / 3.0, "0.3333333333333333"),
            (1e16, "1e+16"),
            (0.30000000000000004, "0.30000000000000004"),
            (-2.5e-5, "-2.5e-05"),
            // A float32's value, halfway between two 17-digit strings:
            // Python writes the even one.
            (1020.0 + 0.617_248_535_156_25, "1020.6172485351562"),
            (f64::from(0.1f32), "0.10000000149011612"),
            (5e-324, "5e-324"),
        ] {
            assert_eq!(super::float(x), python, "{x:e}");
        }
    }
}

#[cfg(test)]
mod bytes_tests {
    use super::bytes_repr;

    #[test]
    fn bytes_show_as_pythons_repr() {
        assert_eq!(bytes_repr(b"ab\x00\xff\n'"), r#"b"ab\x00\xff\n'""#);
        assert_eq!(bytes_repr(b"it's \"q\""), r#"b'it\'s "q"'"#);
        assert_eq!(bytes_repr(b"\x89PNG\r\n"), r"b'\x89PNG\r\n'");
    }
}
