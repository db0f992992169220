//! The CUDA C kernels, embedded in the binary, and the name of every kernel the
//! runtime launches.
//!
//! Kernels compile in units of one file and one dtype (`-DONE_DTYPE
//! -DDTYPE_f32`): a first use compiles seconds of code, not a minute.

use crate::runtime::driver::{Kernel, Unit};
use crate::runtime::op::along::AlongOp;
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::factory::Distribution;
use crate::runtime::op::pow_shortcut::PowShortcut;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::DType;

/// Included first by every unit.
pub const COMMON: &str = include_str!("../../../kernels/common.cuh");

/// The kernel files, by name.
pub const FILES: [(&str, &str); 9] = [
    (
        "elementwise",
        include_str!("../../../kernels/elementwise.cu"),
    ),
    ("copy", include_str!("../../../kernels/copy.cu")),
    ("fill", include_str!("../../../kernels/fill.cu")),
    ("random", include_str!("../../../kernels/random.cu")),
    ("reduce", include_str!("../../../kernels/reduce.cu")),
    ("along", include_str!("../../../kernels/along.cu")),
    ("sort", include_str!("../../../kernels/sort.cu")),
    ("window", include_str!("../../../kernels/window.cu")),
    ("attention", include_str!("../../../kernels/attention.cu")),
];

impl Unit {
    /// The program's source: `common.cuh` and the file.
    pub fn source(&self) -> String {
        let body = FILES
            .iter()
            .find(|(name, _)| *name == self.file)
            .map(|(_, src)| *src)
            .unwrap_or_else(|| panic!("internal error: no kernel file `{}`", self.file));
        format!("{COMMON}\n{body}")
    }

    /// Preprocessor options selecting the unit's kernels.
    pub fn defines(&self) -> Vec<String> {
        match self.dtype {
            Some(dt) => vec!["-DONE_DTYPE".into(), format!("-DDTYPE_{}", dt.name())],
            None => vec![],
        }
    }

    /// A name for logs, cache files and errors: `elementwise.f32`.
    pub fn label(&self) -> String {
        match self.dtype {
            Some(dt) => format!("{}.{}", self.file, dt.name()),
            None => self.file.to_string(),
        }
    }
}

fn kernel(file: &'static str, dtype: Option<DType>, name: String) -> Kernel {
    Kernel {
        unit: Unit { file, dtype },
        name,
    }
}

/// `a op b` computed in `dt` (arithmetic or bitwise, or a comparison or
/// logical op giving bool). None where the simulator never computes that op
/// in that dtype (`check_binary` refuses it first).
pub fn binary(op: BinaryOp, dt: DType) -> Option<Kernel> {
    let family = if op.gives_bool() { "compare" } else { "binary" };
    let supported = match dt {
        _ if op.gives_bool() => true,
        DType::Bool => {
            matches!(
                op,
                BinaryOp::Add | BinaryOp::Mul | BinaryOp::Maximum | BinaryOp::Minimum
            ) || op.is_bitwise()
        }
        _ if dt.is_float() => !op.is_bitwise() && !op.is_shift(),
        _ => true,
    };
    supported.then(|| {
        kernel(
            "elementwise",
            Some(dt),
            format!("{family}_{}_{}", op.name(), dt.name()),
        )
    })
}

/// `a op s` of an f16/bf16 tensor and an f32 scalar (PyTorch's opmath for
/// `+`, `-`, `*`, `/` and `//` by a CPU scalar, `elementwise::opmath_scalar`);
/// `scalar_first`: `s op a` (`s - a` is `rsub`).
pub fn opmath(op: BinaryOp, dt: DType, scalar_first: bool) -> Option<Kernel> {
    let supported = matches!(dt, DType::F16 | DType::BF16)
        && matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::FloorDiv
        );
    let name = match (op, scalar_first) {
        (BinaryOp::Sub, true) => "rsub",
        (BinaryOp::Add | BinaryOp::Mul, _) | (_, false) => op.name(),
        _ => return None,
    };
    supported.then(|| {
        kernel(
            "elementwise",
            Some(dt),
            format!("scalar_{name}_{}", dt.name()),
        )
    })
}

/// `x ** number` by one of PyTorch's CUDA shortcuts, in a float `dt`.
pub fn pow_shortcut(s: PowShortcut, dt: DType) -> Option<Kernel> {
    dt.is_float().then(|| {
        kernel(
            "elementwise",
            Some(dt),
            format!("pow_{}_{}", s.name(), dt.name()),
        )
    })
}

/// A unary op on `dt` (already the op's output dtype).
pub fn unary(op: UnaryOp, dt: DType) -> Option<Kernel> {
    let supported = match dt {
        DType::Bool => op == UnaryOp::BitNot,
        _ if dt.is_float() => op != UnaryOp::BitNot,
        _ => op.keeps_int(),
    };
    supported.then(|| {
        kernel(
            "elementwise",
            Some(dt),
            format!("unary_{}_{}", op.name(), dt.name()),
        )
    })
}

/// `where` (a bool condition, values in `dt`), `clamp` or `add_scaled` in `dt`.
pub fn ternary(op: TernaryOp, dt: DType) -> Option<Kernel> {
    let supported = op == TernaryOp::Where || dt != DType::Bool;
    supported.then(|| {
        kernel(
            "elementwise",
            Some(dt),
            format!("{}_{}", op.name(), dt.name()),
        )
    })
}

/// A strided copy from `from` elements to `to` elements.
pub fn cast(from: DType, to: DType) -> Kernel {
    kernel(
        "copy",
        Some(from),
        format!("cast_{}_{}", from.name(), to.name()),
    )
}

/// Advanced indexing's gather (`x[i]`, `x[mask]`) of `dt` elements.
pub fn take(dt: DType) -> Kernel {
    kernel("copy", Some(dt), format!("take_{}", dt.name()))
}

/// Advanced indexing's write (`x[i] = v`) of `dt` elements.
pub fn put(dt: DType) -> Kernel {
    kernel("copy", Some(dt), format!("put_{}", dt.name()))
}

/// Advanced indexing's accumulating write (`x[i] += v`, atomic adds): f32 and f64.
pub fn put_add(dt: DType) -> Option<Kernel> {
    matches!(dt, DType::F32 | DType::F64)
        .then(|| kernel("copy", Some(dt), format!("put_add_{}", dt.name())))
}

/// `tril` / `triu` of `dt` matrices.
pub fn tri(dt: DType) -> Kernel {
    kernel("copy", Some(dt), format!("tri_{}", dt.name()))
}

/// A window op (`im2col`, `col2im`, `max_pool`, `max_pool_backward`) of
/// `dt` images: im2col for every dtype, max_pool for all but bool, the
/// sums (col2im, the gradient) for floats.
pub fn window(op: &str, dt: DType) -> Option<Kernel> {
    let has = match op {
        "im2col" => true,
        "max_pool" => dt != DType::Bool,
        _ => dt.is_float(),
    };
    has.then(|| kernel("window", Some(dt), format!("{op}_{}", dt.name())))
}

/// A fused attention kernel (`attention`, `attention_backward_q`,
/// `attention_backward_kv`) of `dt` inputs: floats only.
pub fn attention(op: &str, dt: DType) -> Option<Kernel> {
    dt.is_float()
        .then(|| kernel("attention", Some(dt), format!("{op}_{}", dt.name())))
}

/// The fused attention kernels' names.
pub const ATTENTION_OPS: [&str; 3] = ["attention", "attention_backward_q", "attention_backward_kv"];

/// The window ops' names.
pub const WINDOW_OPS: [&str; 4] = ["im2col", "col2im", "max_pool", "max_pool_backward"];

/// A scan, softmax, var, std or norm along one dimension of a `dt` input.
pub fn along(op: AlongOp, dt: DType) -> Option<Kernel> {
    op.takes(dt)
        .then(|| kernel("along", Some(dt), format!("{}_{}", op.name(), dt.name())))
}

/// One merge pass of a sort of `dt` elements.
pub fn sort_pass(dt: DType) -> Kernel {
    kernel("sort", Some(dt), format!("sort_pass_{}", dt.name()))
}

/// Fills elements of `size` bytes with one bit pattern.
pub fn fill(size: usize) -> Kernel {
    kernel("fill", None, format!("fill_{size}"))
}

pub fn arange(dt: DType) -> Option<Kernel> {
    (dt != DType::Bool).then(|| kernel("fill", None, format!("arange_{}", dt.name())))
}

/// `linspace` in a number dtype (`factory::Linspace` says how).
pub fn linspace(dt: DType) -> Option<Kernel> {
    (dt != DType::Bool).then(|| kernel("fill", None, format!("linspace_{}", dt.name())))
}

/// `rand` (uniform) or `randn` / `normal_` (normal) in a float dtype.
pub fn random(dist: Distribution, dt: DType) -> Option<Kernel> {
    let made = match dist {
        Distribution::Integers { .. } | Distribution::Full => dt != DType::Bool,
        _ => dt.is_float(),
    };
    made.then(|| kernel("random", Some(dt), format!("{}_{}", dist.name(), dt.name())))
}

/// The three passes of a reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Partial results per (row, chunk) along a contiguous axis.
    Rows,
    /// Combines a row's partial results into the output.
    Finish,
    /// One thread per output along a strided axis.
    Cols,
}

pub fn reduce(pass: Pass, op: ReduceOp, dt: DType) -> Option<Kernel> {
    if op == ReduceOp::Mean && !dt.is_float() {
        return None;
    }
    let pass = match pass {
        Pass::Rows => "rows",
        Pass::Finish => "finish",
        Pass::Cols => "cols",
    };
    Some(kernel(
        "reduce",
        Some(dt),
        format!("reduce_{pass}_{}_{}", op.name(), dt.name()),
    ))
}

pub const BINARY_OPS: [BinaryOp; 24] = BinaryOp::ALL;

pub const UNARY_OPS: [UnaryOp; 35] = UnaryOp::ALL;

pub const REDUCE_OPS: [ReduceOp; 7] = ReduceOp::ALL;

/// Every kernel the runtime can ask for, sorted.
pub fn all_kernels() -> Vec<Kernel> {
    let mut out = Vec::new();
    for dt in DType::ALL {
        out.extend(BINARY_OPS.iter().filter_map(|&op| binary(op, dt)));
        out.extend(BINARY_OPS.iter().filter_map(|&op| opmath(op, dt, false)));
        out.extend(opmath(BinaryOp::Sub, dt, true));
        out.extend(PowShortcut::ALL.iter().filter_map(|&s| pow_shortcut(s, dt)));
        out.extend(UNARY_OPS.iter().filter_map(|&op| unary(op, dt)));
        out.extend(
            [TernaryOp::Where, TernaryOp::Clamp, TernaryOp::AddScaled]
                .iter()
                .filter_map(|&op| ternary(op, dt)),
        );
        out.extend(DType::ALL.iter().map(|&to| cast(dt, to)));
        out.push(take(dt));
        out.push(put(dt));
        out.extend(put_add(dt));
        out.push(tri(dt));
        out.extend(AlongOp::ALL.iter().filter_map(|&op| along(op, dt)));
        out.push(sort_pass(dt));
        out.extend(WINDOW_OPS.iter().filter_map(|&op| window(op, dt)));
        out.extend(ATTENTION_OPS.iter().filter_map(|&op| attention(op, dt)));
        out.extend(arange(dt));
        out.extend(linspace(dt));
        let integers = Distribution::Integers { low: 0, range: 1 };
        out.extend(
            [Distribution::Uniform, Distribution::Normal, integers]
                .iter()
                .filter_map(|&d| random(d, dt)),
        );
        for op in REDUCE_OPS {
            for pass in [Pass::Rows, Pass::Finish, Pass::Cols] {
                out.extend(reduce(pass, op, dt));
            }
        }
    }
    out.extend([1, 2, 4, 8].map(fill));
    out.sort();
    out
}

/// Every compile unit, sorted.
pub fn all_units() -> Vec<Unit> {
    let mut units: Vec<Unit> = all_kernels().into_iter().map(|k| k.unit).collect();
    units.sort();
    units.dedup();
    units
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The kernel names the sources define for `unit`, read from their macros'
    /// expansion by a tiny model of them: every `extern "C" __global__` name
    /// pattern with `##dt` replaced. The real check is compiling them
    /// (tests/kernels_host.rs, tests/nvrtc.rs); this one runs everywhere.
    #[test]
    fn every_file_is_embedded_and_every_unit_has_kernels() {
        for (name, src) in FILES {
            assert!(
                src.contains("extern \"C\" __global__"),
                "{name}.cu defines no kernels"
            );
        }
        let units: BTreeSet<String> = all_units().iter().map(Unit::label).collect();
        for file in [
            "elementwise",
            "copy",
            "random",
            "reduce",
            "along",
            "sort",
            "window",
        ] {
            for dt in DType::ALL {
                let label = format!("{file}.{}", dt.name());
                let has = units.contains(&label);
                let expect = file != "random" || dt != DType::Bool;
                assert_eq!(has, expect, "{label}");
            }
        }
        assert!(units.contains("fill"));
    }

    #[test]
    fn kernel_names_are_unique_and_name_their_dtype() {
        let all = all_kernels();
        let names: BTreeSet<&str> = all.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names.len(), all.len());
        for k in &all {
            if let Some(dt) = k.unit.dtype {
                assert!(k.name.contains(&format!("_{}", dt.name())), "{}", k.name);
            }
        }
        assert_eq!(all.len(), 910);
    }

    #[test]
    fn a_unit_selects_its_dtype() {
        let u = Unit {
            file: "elementwise",
            dtype: Some(DType::BF16),
        };
        assert_eq!(u.defines(), vec!["-DONE_DTYPE", "-DDTYPE_bf16"]);
        assert!(u.source().starts_with("// Shared by every kernel"));
        assert_eq!(u.label(), "elementwise.bf16");
    }
}
