//! PyTorch-style text for tensor values: aligned columns, 4 decimals or
//! scientific notation as PyTorch chooses, summarised past 1000 elements;
//! each of those as `torch.set_printoptions` sets it ([`PrintOptions`]).

use std::cell::Cell as Slot;

use crate::runtime::buffer::Stored;
use crate::runtime::shape::{fmt_shape, python_tuple};
use crate::runtime::{DType, Tensor};
use crate::with_dtype;

/// `torch.set_printoptions`'s settings: digits after the point, how many
/// elements a tensor may have before it is summarised, how many items of
/// each dimension's ends a summary shows, the width lines wrap at, and
/// scientific notation forced on or off (None: PyTorch's choice).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrintOptions {
    pub precision: usize,
    pub threshold: f64,
    pub edgeitems: usize,
    pub linewidth: usize,
    pub sci_mode: Option<bool>,
}

impl PrintOptions {
    /// PyTorch's defaults (`profile="default"`).
    pub const DEFAULT: PrintOptions = PrintOptions {
        precision: 4,
        threshold: 1000.0,
        edgeitems: 3,
        linewidth: 80,
        sci_mode: None,
    };

    /// PyTorch's `profile=` presets: "default", "short", "full".
    pub fn profile(name: &str) -> Option<PrintOptions> {
        let d = PrintOptions::DEFAULT;
        Some(match name {
            "default" => d,
            "short" => PrintOptions {
                precision: 2,
                edgeitems: 2,
                ..d
            },
            "full" => PrintOptions {
                threshold: f64::INFINITY,
                ..d
            },
            _ => return None,
        })
    }
}

thread_local! {
    /// The options of the session on this thread (PyTorch's are the
    /// process's; each cudash session runs on a thread of its own).
    static OPTIONS: Slot<PrintOptions> = const { Slot::new(PrintOptions::DEFAULT) };
}

/// The print options in force on this thread.
pub fn print_options() -> PrintOptions {
    OPTIONS.with(Slot::get)
}

/// `torch.set_printoptions(...)`: the options for what this thread shows next.
pub fn set_print_options(o: PrintOptions) {
    OPTIONS.with(|s| s.set(o));
}

/// The tag shown with every tensor: `f32[2,3] @cuda:1`.
pub fn tag(t: &Tensor) -> String {
    let pinned = if t.is_pinned() { " pinned" } else { "" };
    let grad = crate::autograd::meta::describe(t)
        .map(|d| format!(" {d}"))
        .unwrap_or_default();
    format!(
        "{}{} @{}{pinned}{grad}",
        t.dtype(),
        fmt_shape(t.shape()),
        t.device()
    )
}

/// Values and tag: on one line when the values fit on one, else the tag on its own line.
pub fn render(t: &Tensor) -> String {
    let values = values(t);
    let tag = tag(t);
    if !values.contains('\n') && values.len() + tag.len() + 2 <= print_options().linewidth {
        format!("{values}  {tag}")
    } else {
        format!("{values}\n{tag}")
    }
}

/// A sparse COO tensor: its indices and values, PyTorch-style, then a tag
/// with its dtype, shape, device, layout and count of specified elements
/// (`f32[2,3] @cpu sparse_coo nnz=3`).
pub fn render_sparse(indices: &Tensor, vals: &Tensor, shape: &[usize]) -> String {
    let part = |name: &str, t: &Tensor| {
        let body = match t.numel() {
            0 => format!("[] (size {})", fmt_shape(t.shape())),
            _ => values(t),
        };
        let pad = format!("\n{}", " ".repeat(name.len() + 1));
        format!("{name}={}", body.replace('\n', &pad))
    };
    format!(
        "{}\n{}\n{}{} @{} sparse_coo nnz={}",
        part("indices", indices),
        part("values", vals),
        vals.dtype(),
        fmt_shape(shape),
        vals.device(),
        vals.shape().first().copied().unwrap_or(0)
    )
}

#[derive(Clone, Copy)]
enum Cell {
    F(f64),
    I(i64),
    B(bool),
}

/// Only the values, PyTorch-style (a meta tensor's are `...`: it has none).
pub fn values(t: &Tensor) -> String {
    values_at(t, 0, false)
}

/// The values as PyTorch's `_tensor_str` writes them at column `indent`:
/// wrapped rows continue under the first value; booleans as Python writes
/// them (`True`) where `python`, else as cudash's language does (`true`).
fn values_at(t: &Tensor, indent: usize, python: bool) -> String {
    if t.device().is_meta() {
        return "...".into();
    }
    if t.numel() == 0 && t.ndim() > 0 {
        return "[]".into();
    }
    let shown = shown_indices(t);
    let cells = collect_cells(t, &shown);
    let mut fmt = CellFormat::new(t.dtype(), &cells);
    fmt.python_bools = python;
    let mut it = cells.iter();
    let mut out = String::new();
    if t.ndim() == 0 {
        return cells.first().map(|c| fmt.cell(*c)).unwrap_or_default();
    }
    layout(&shown, 0, indent, &fmt, &mut it, &mut out);
    out
}

/// PyTorch's `repr(tensor)` (`torch/_tensor_str.py`), what a Python
/// program's `print`, `str`, `repr` and f-strings write: `tensor([1., 2.],
/// device='cuda:0', dtype=torch.float16, grad_fn=<MulBackward0>)`. The
/// device is named unless it is the CPU, the dtype unless it is float32,
/// int64 or bool; an empty tensor names its size unless it is `(0,)`.
pub fn pytorch_repr(t: &Tensor) -> String {
    const PREFIX: &str = "tensor(";
    let mut suffixes: Vec<String> = device_suffix(t).into_iter().collect();
    let size = || format!("size={}", python_tuple(t.shape()));
    let dtype = format!("dtype={}", t.dtype().pytorch_name());
    let body = if t.device().is_meta() {
        suffixes.push(size());
        if t.dtype() != DType::F32 {
            suffixes.push(dtype);
        }
        "...".to_string()
    } else if t.numel() == 0 {
        if t.ndim() != 1 {
            suffixes.push(size());
        }
        if t.dtype() != DType::F32 {
            suffixes.push(dtype);
        }
        "[]".to_string()
    } else {
        if print_options().edgeitems == 0 {
            suffixes.push(size());
        }
        suffixes.extend(dtype_suffix(t));
        values_at(t, PREFIX.len(), true)
    };
    match crate::autograd::meta::describe(t).as_deref() {
        Some("requires_grad") => suffixes.push("requires_grad=True".into()),
        Some(grad_fn) => suffixes.push(grad_fn.to_string()),
        None => {}
    }
    // A dual tensor of forward-mode AD shows its tangent.
    if let Some(tangent) = crate::autograd::forward_ad::tangent(t) {
        suffixes.push(format!("tangent={}", pytorch_repr(&tangent)));
    }
    with_suffixes(&format!("{PREFIX}{body}"), &suffixes, PREFIX.len())
}

/// PyTorch's `repr` of a sparse COO tensor: `tensor(indices=tensor(...),`
/// then `values=tensor(...),` under it, then its size, nnz, dtype (unless
/// the default) and layout on a line of their own.
pub fn pytorch_sparse_repr(indices: &Tensor, vals: &Tensor, shape: &[usize]) -> String {
    const PREFIX: &str = "tensor(";
    let indent = PREFIX.len();
    let part = |name: &str, t: &Tensor| {
        let prefix = format!("{name}=tensor(");
        let mut body = values_at(t, indent + prefix.len(), true);
        if t.numel() == 0 {
            body = format!("[], size={}", python_tuple(t.shape()));
        }
        format!("{prefix}{body})")
    };
    let mut suffixes: Vec<String> = device_suffix(vals).into_iter().collect();
    suffixes.push(format!("size={}", python_tuple(shape)));
    suffixes.push(format!(
        "nnz={}",
        vals.shape().first().copied().unwrap_or(0)
    ));
    suffixes.extend(dtype_suffix(vals));
    suffixes.push("layout=torch.sparse_coo".into());
    let text = format!(
        "{PREFIX}{},\n{}{}",
        part("indices", indices),
        " ".repeat(indent),
        part("values", vals)
    );
    // The first suffix starts a line of its own (`force_newline`).
    let (first, rest) = suffixes.split_at(1);
    let text = format!("{text},\n{}{}", " ".repeat(indent), first[0]);
    with_suffixes(&text, rest, indent)
}

/// PyTorch's `device='cuda:0'`, for any device but the CPU.
fn device_suffix(t: &Tensor) -> Option<String> {
    (t.device() != crate::runtime::Device::Cpu).then(|| format!("device='{}'", t.device()))
}

/// PyTorch's `dtype=torch.int32`, for any dtype but its defaults (float32,
/// int64, bool), which a tensor of values shows by them.
fn dtype_suffix(t: &Tensor) -> Option<String> {
    (!matches!(t.dtype(), DType::F32 | DType::I64 | DType::Bool))
        .then(|| format!("dtype={}", t.dtype().pytorch_name()))
}

/// PyTorch's `_add_suffixes`: each `, suffix` on the last line while it
/// fits the line width, else on a line of its own under the values.
fn with_suffixes(text: &str, suffixes: &[String], indent: usize) -> String {
    let mut out = text.to_string();
    // PyTorch's count: one more than the last line's length (two more
    // when there is only one line).
    let mut last_line = match text.rfind('\n') {
        Some(i) => text.len() - i + 1,
        None => text.len() + 2,
    };
    for suffix in suffixes {
        if last_line + suffix.len() + 2 > print_options().linewidth {
            out.push_str(&format!(",\n{}{suffix}", " ".repeat(indent)));
            last_line = indent + suffix.len();
        } else {
            out.push_str(&format!(", {suffix}"));
            last_line += suffix.len() + 2;
        }
    }
    out.push(')');
    out
}

/// The indices of each dimension a display shows; `None` marks the elided middle.
fn shown_indices(t: &Tensor) -> Vec<Vec<Option<usize>>> {
    let o = print_options();
    let summarize = t.numel() as f64 > o.threshold;
    let edge = o.edgeitems;
    t.shape()
        .iter()
        .map(|&n| {
            if summarize && n > edge.saturating_mul(2) {
                (0..edge)
                    .map(Some)
                    .chain([None])
                    .chain((n - edge..n).map(Some))
                    .collect()
            } else {
                (0..n).map(Some).collect()
            }
        })
        .collect()
}

/// What a display shows of a tensor, for layouts other than text (HTML tables).
pub struct Grid {
    /// Per dimension, the indices shown (`None`: the elided middle).
    pub shown: Vec<Vec<Option<usize>>>,
    /// The shown elements, formatted as the text display formats them, in logical order.
    pub cells: Vec<String>,
}

pub fn grid(t: &Tensor) -> Grid {
    let shown = shown_indices(t);
    let raw = collect_cells(t, &shown);
    let fmt = CellFormat::new(t.dtype(), &raw);
    Grid {
        cells: raw.iter().map(|c| fmt.cell(*c)).collect(),
        shown,
    }
}

/// Reads the shown elements in logical order straight from the storage.
fn collect_cells(t: &Tensor, shown: &[Vec<Option<usize>>]) -> Vec<Cell> {
    let mut offsets = Vec::new();
    let mut idx = vec![0usize; shown.len()];
    fn walk(
        t: &Tensor,
        shown: &[Vec<Option<usize>>],
        d: usize,
        idx: &mut [usize],
        out: &mut Vec<usize>,
    ) {
        if d == shown.len() {
            let off = t.offset() as isize
                + idx
                    .iter()
                    .zip(t.strides())
                    .map(|(&i, &s)| i as isize * s)
                    .sum::<isize>();
            out.push(off as usize);
            return;
        }
        for &i in shown[d].iter().flatten() {
            idx[d] = i;
            walk(t, shown, d + 1, idx, out);
        }
    }
    if t.numel() > 0 || t.ndim() == 0 {
        walk(t, shown, 0, &mut idx, &mut offsets);
    }
    let buf = t.read();
    with_dtype!(t.dtype(), T => {
        let s = buf.as_slice::<T>();
        offsets.iter().map(|&o| to_cell(s[o])).collect()
    })
}

fn to_cell<T: Stored>(x: T) -> Cell {
    match T::DTYPE {
        DType::Bool => Cell::B(x.to_bool()),
        d if d.is_int() => Cell::I(x.to_i64()),
        _ => Cell::F(x.to_f64()),
    }
}

struct CellFormat {
    mode: FloatMode,
    width: usize,
    precision: usize,
    python_bools: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum FloatMode {
    Int,
    Fixed,
    Sci,
}

impl CellFormat {
    fn new(dtype: DType, cells: &[Cell]) -> Self {
        let o = print_options();
        let mode = if dtype.is_float() {
            float_mode(cells, o.sci_mode)
        } else {
            FloatMode::Int
        };
        let mut f = CellFormat {
            mode,
            width: 0,
            precision: o.precision,
            python_bools: false,
        };
        // PyTorch's `_Formatter` measures a float tensor's nonzero finite
        // values only (`[nan, 2.]`, `[-0., 0.]` are not padded to them).
        let measured = |c: &&Cell| match c {
            Cell::F(x) => x.is_finite() && *x != 0.0,
            _ => true,
        };
        f.width = cells
            .iter()
            .filter(measured)
            .map(|c| f.cell(*c).len())
            .max()
            .unwrap_or(1);
        f
    }

    fn cell(&self, c: Cell) -> String {
        match c {
            Cell::B(b) if self.python_bools => if b { "True" } else { "False" }.into(),
            Cell::B(b) => b.to_string(),
            Cell::I(i) => i.to_string(),
            Cell::F(x) if x.is_nan() => "nan".into(),
            Cell::F(x) if x.is_infinite() => {
                if x > 0.0 {
                    "inf".into()
                } else {
                    "-inf".into()
                }
            }
            Cell::F(x) => match self.mode {
                FloatMode::Int => format!("{x:.0}."),
                FloatMode::Fixed => format!("{x:.p$}", p = self.precision),
                FloatMode::Sci => sci(x, self.precision),
            },
        }
    }

    fn padded(&self, c: Cell) -> String {
        format!("{:>w$}", self.cell(c), w = self.width)
    }
}

/// PyTorch's choice (its `_Formatter`): a wide range (a ratio past 1000)
/// or tiny or huge values in scientific notation, else whole numbers as
/// `1.`; `sci_mode` forces scientific notation on or off.
fn float_mode(cells: &[Cell], sci_mode: Option<bool>) -> FloatMode {
    let finite: Vec<f64> = cells
        .iter()
        .filter_map(|c| match c {
            Cell::F(x) if x.is_finite() => Some(*x),
            _ => None,
        })
        .collect();
    let nonzero: Vec<f64> = finite
        .iter()
        .map(|x| x.abs())
        .filter(|&x| x != 0.0)
        .collect();
    let max = nonzero.iter().copied().fold(f64::NAN, f64::max);
    let min = nonzero.iter().copied().fold(f64::NAN, f64::min);
    if nonzero.is_empty() {
        return FloatMode::Int;
    }
    let sci = sci_mode.unwrap_or(max / min > 1000.0 || max > 1e8 || min < 1e-4);
    match (sci, finite.iter().all(|x| x.fract() == 0.0)) {
        (true, _) => FloatMode::Sci,
        (false, true) => FloatMode::Int,
        (false, false) => FloatMode::Fixed,
    }
}

/// `1.2346e+08`, as Python formats `{:.4e}` (`precision` digits).
fn sci(x: f64, precision: usize) -> String {
    let s = format!("{x:.precision$e}");
    match s.split_once('e') {
        Some((mant, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mant}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// PyTorch's `_tensor_str_with_formatter` for dimension `d` of the values
/// that start at column `indent`: a row holds as many cells as fit the line
/// width, a summarised row's middle is ` ...`, a summarised dimension's is
/// `...` on a line of its own.
fn layout<'a>(
    shown: &[Vec<Option<usize>>],
    d: usize,
    indent: usize,
    fmt: &CellFormat,
    cells: &mut impl Iterator<Item = &'a Cell>,
    out: &mut String,
) {
    out.push('[');
    if d + 1 == shown.len() {
        let items: Vec<String> = shown[d]
            .iter()
            .map(|i| match i {
                Some(_) => cells.next().map(|c| fmt.padded(*c)).unwrap_or_default(),
                None => " ...".into(),
            })
            .collect();
        let width = print_options().linewidth;
        let per_line = ((width.saturating_sub(indent)) / (fmt.width + 2)).max(1);
        let lines: Vec<String> = items.chunks(per_line).map(|c| c.join(", ")).collect();
        out.push_str(&lines.join(&format!(",\n{}", " ".repeat(indent + 1))));
    } else {
        let sep = format!(
            ",{}{}",
            "\n".repeat(shown.len() - d - 1),
            " ".repeat(indent + 1)
        );
        for (k, i) in shown[d].iter().enumerate() {
            if k > 0 {
                out.push_str(&sep);
            }
            match i {
                Some(_) => layout(shown, d + 1, indent + 1, fmt, cells, out),
                None => out.push_str("..."),
            }
        }
    }
    out.push(']');
}
