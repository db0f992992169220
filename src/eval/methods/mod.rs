//! Methods and properties (`x.to(cuda)`, `x.shape`, `s.sync()`, `e.record()`):
//! one table maps each receiver's member names to their handlers. Their
//! signatures and help live in `docs.rs`; a test checks that the two list
//! the same members, so a documented member that is not wired fails the
//! tests, not a user.
//!
//! - `tensor.rs`: tensor methods and properties;
//! - `shape.rs`: tensor methods that change the shape (views, `flip`, `repeat`);
//! - `stream.rs`: stream and event methods and properties;
//! - `list.rs`: a Python list's methods (`append`).

pub(crate) mod dict;
mod facts;
mod list;
mod math;
pub(crate) mod module;
pub(crate) mod random;
mod select;
pub(crate) mod set;
mod shape;
mod stream;
mod tensor;
mod view_in_place;

use std::sync::Arc;

use super::args::{bind, ArgVal, Bound};
use super::docs::{self, Kind};
use super::grad;
use super::{Interp, Value};
use crate::autograd::node::GraphFn;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Name;
use crate::lang::Span;
use crate::runtime::event::{Event, StreamRef};

/// Tensor methods that are torch's functions written in Python
/// (`stdlib/`): `x.det()` is `torch.det(x)`, found in this namespace (or
/// in this module of cudash's own).
const PYTHON_TENSOR_METHODS: &[(&str, &str)] = &[
    ("untyped_storage", "torch._storage"),
    ("storage", "torch._storage"),
    ("det", "torch"),
    ("svd", "torch"),
    ("cross", "torch"),
    ("matrix_exp", "torch"),
    ("inverse", "torch"),
    ("kthvalue", "torch"),
    ("cummax", "torch"),
    ("histogram", "torch"),
    ("frexp", "torch"),
    ("lgamma", "torch"),
    ("digamma", "torch"),
    ("erfc", "torch"),
    ("sinc", "torch"),
    ("mvlgamma", "torch"),
    ("divide", "torch"),
    ("multiply", "torch"),
    ("subtract", "torch"),
    ("negative", "torch"),
    ("absolute", "torch"),
    ("fix", "torch"),
    ("greater", "torch"),
    ("less", "torch"),
    ("greater_equal", "torch"),
    ("less_equal", "torch"),
    ("not_equal", "torch"),
    ("atan2", "torch"),
    ("arctan2", "torch"),
    ("heaviside", "torch"),
    ("gcd", "torch"),
    ("lcm", "torch"),
    ("renorm", "torch"),
    ("tile", "torch"),
    ("fill_diagonal_", "torch._more_ops"),
    ("hsplit", "torch._more_ops"),
    ("vsplit", "torch._more_ops"),
    ("dsplit", "torch._more_ops"),
    ("signbit", "torch._more_ops"),
    ("ldexp", "torch._more_ops"),
    ("atanh", "torch._more_ops"),
    ("asinh", "torch._more_ops"),
    ("acosh", "torch._more_ops"),
    ("arctanh", "torch._more_ops"),
    ("arcsinh", "torch._more_ops"),
    ("arccosh", "torch._more_ops"),
    ("copysign", "torch._more_ops"),
    ("apply_", "torch._more_ops"),
    ("scatter_reduce", "torch._more"),
    ("scatter_reduce_", "torch._more"),
    ("index_reduce", "torch._more"),
    ("index_reduce_", "torch._more"),
    ("cummin", "torch"),
    ("mode", "torch"),
    ("diff", "torch"),
    ("rot90", "torch"),
    ("fliplr", "torch"),
    ("flipud", "torch"),
    ("moveaxis", "torch"),
    ("tensor_split", "torch"),
    ("take_along_dim", "torch"),
    ("take", "torch"),
    ("nansum", "torch"),
    ("nanmean", "torch"),
    ("quantile", "torch"),
    ("nanquantile", "torch"),
    ("logcumsumexp", "torch"),
    ("logaddexp", "torch"),
    ("logit", "torch"),
    ("xlogy", "torch"),
    ("hypot", "torch"),
    ("true_divide", "torch"),
    ("float_power", "torch"),
    ("deg2rad", "torch"),
    ("rad2deg", "torch"),
    ("sgn", "torch"),
    ("msort", "torch"),
    ("slogdet", "torch"),
    ("logdet", "torch"),
    ("aminmax", "torch"),
    ("bincount", "torch"),
    ("histc", "torch"),
    ("addr", "torch"),
    ("inner", "torch"),
    ("matrix_power", "torch"),
    ("unique_consecutive", "torch"),
    ("cov", "torch"),
    ("corrcoef", "torch"),
    ("isin", "torch"),
    ("index_fill", "torch._sorting"),
    ("index_fill_", "torch._sorting"),
    ("index_copy", "torch._sorting"),
    ("index_copy_", "torch._sorting"),
    ("index_add", "torch._sorting"),
    ("index_add_", "torch._sorting"),
    ("index_put", "torch._sorting"),
    ("index_put_", "torch._sorting"),
];
use crate::runtime::Tensor;

type Call<R> = fn(&mut Interp, &'static str, &R, &Bound) -> Result<Value, Diagnostic>;

/// A member's handler, by receiver and by method or property.
#[derive(Clone, Copy)]
enum Member {
    TensorMethod(Call<Arc<Tensor>>),
    TensorProperty(fn(&Tensor) -> Result<Value, Error>),
    StreamMethod(Call<StreamRef>),
    StreamProperty(fn(&StreamRef) -> Value),
    EventMethod(Call<Arc<Event>>),
    ListMethod(Call<list::List>),
    DictMethod(Call<super::value::PyDict>),
    FileMethod(Call<super::pyfile::FileRef>),
    SetMethod(Call<super::value::PyDict>),
    OptimizerMethod(Call<Arc<std::sync::Mutex<crate::autograd::optim::Optimizer>>>),
    SamplerMethod(Call<Arc<crate::data::loader::Sampler>>),
    GeneratorMethod(Call<crate::data::generator::TorchGenerator>),
    HandleMethod(Call<Arc<crate::autograd::hooks::Handle>>),
    WorkMethod(Call<Arc<crate::runtime::dispatch::group::Work>>),
    GradFnMethod(Call<Arc<GraphFn>>),
    GradFnProperty(fn(&Arc<GraphFn>) -> Value),
    ModuleMethod(Call<crate::nn::ModuleRef>),
    SchedulerMethod(Call<Arc<super::value::LrScheduler>>),
    ScalerMethod(Call<Arc<std::sync::Mutex<crate::autograd::grad_scaler::GradScaler>>>),
    ParserMethod(Call<Arc<std::sync::Mutex<super::argparse::ArgumentParser<Value>>>>),
    SchedulerProperty(fn(&Arc<super::value::LrScheduler>) -> Value),
    OptimizerProperty(fn(&Arc<std::sync::Mutex<crate::autograd::optim::Optimizer>>) -> Value),
    /// A property that is a value of the program's language (`opt.state`,
    /// an instance of a class of `stdlib/`).
    OptimizerView(OptimizerView),
    LoaderProperty(fn(&Arc<crate::data::loader::DataLoader>) -> Value),
    DeviceProperty(fn(&Value) -> Value),
    DTypeProperty(fn(crate::runtime::DType) -> Value),
}

impl Member {
    fn receiver(self) -> &'static str {
        match self {
            Member::TensorMethod(_) | Member::TensorProperty(_) => "tensor",
            Member::StreamMethod(_) | Member::StreamProperty(_) => "stream",
            Member::EventMethod(_) => "event",
            Member::ListMethod(_) => "list",
            Member::DictMethod(_) => "dict",
            Member::FileMethod(_) => "file",
            Member::SetMethod(_) => "set",
            Member::OptimizerMethod(_) => "optimizer",
            Member::SamplerMethod(_) => "sampler",
            Member::GeneratorMethod(_) => "generator",
            Member::HandleMethod(_) => "handle",
            Member::WorkMethod(_) => "work",
            Member::GradFnMethod(_) | Member::GradFnProperty(_) => "grad_fn",
            Member::ModuleMethod(_) => "module",
            Member::SchedulerMethod(_) | Member::SchedulerProperty(_) => "scheduler",
            Member::ScalerMethod(_) => "grad_scaler",
            Member::ParserMethod(_) => "argument_parser",
            Member::OptimizerProperty(_) | Member::OptimizerView(_) => "optimizer",
            Member::LoaderProperty(_) => "dataloader",
            Member::DeviceProperty(_) => "device",
            Member::DTypeProperty(_) => "dtype",
        }
    }

    #[cfg(test)]
    fn kind(self) -> Kind {
        match self {
            Member::TensorProperty(_)
            | Member::StreamProperty(_)
            | Member::GradFnProperty(_)
            | Member::SchedulerProperty(_)
            | Member::OptimizerProperty(_)
            | Member::OptimizerView(_)
            | Member::LoaderProperty(_)
            | Member::DeviceProperty(_)
            | Member::DTypeProperty(_) => Kind::Property,
            _ => Kind::Method,
        }
    }
}

/// A property of an optimizer made by the interpreter.
type OptimizerView = fn(
    &mut Interp,
    &Arc<std::sync::Mutex<crate::autograd::optim::Optimizer>>,
    Span,
) -> Result<Value, Diagnostic>;

/// `opt.state` of a built-in optimizer: a view of its state as PyTorch's
/// dict of dicts (`stdlib/torch_optim_state.py`).
fn optimizer_state_view(
    me: &mut Interp,
    o: &Arc<std::sync::Mutex<crate::autograd::optim::Optimizer>>,
    span: Span,
) -> Result<Value, Diagnostic> {
    const MODULE: &str = "torch.optim._state";
    let path = super::stdlib::path_of(MODULE).expect("a module of stdlib/");
    let own = me.import_own(MODULE, path, span)?;
    let f = me.own_module_attr(&own, "_state_of", span)?;
    let arg = super::args::ArgVal::positional(Value::Optimizer(Arc::clone(o)), span);
    me.call_value(f, vec![arg], span)
}

/// `d.type`: "cuda" or "cpu", as `torch.device`'s.
fn device_type(v: &Value) -> Value {
    let cuda =
        matches!(v, Value::CurrentCuda) || matches!(v, Value::Device(d) if d.get().is_cuda());
    Value::Str(Arc::new(if cuda { "cuda" } else { "cpu" }.to_string()))
}

/// `d.index`: `cuda:1`'s 1; none for cpu and for `cuda` without an index.
fn device_index(v: &Value) -> Value {
    match v {
        Value::Device(d) => match d.get() {
            crate::runtime::Device::Cuda(i) => Value::Int(i64::from(i)),
            crate::runtime::Device::Cpu | crate::runtime::Device::Meta => Value::None,
        },
        _ => Value::None,
    }
}

/// Every method and property, by name (a receiver's names are unique).
static MEMBERS: &[(&str, Member)] = {
    use Member::*;
    &[
        ("to", TensorMethod(tensor::to)),
        ("cuda", TensorMethod(tensor::cuda)),
        ("cpu", TensorMethod(tensor::cpu)),
        ("copy_to", TensorMethod(tensor::copy_to)),
        ("pin", TensorMethod(tensor::pin)),
        ("pin_memory", TensorMethod(tensor::pin)),
        ("record_stream", TensorMethod(tensor::record_stream)),
        ("reshape", TensorMethod(tensor::reshape)),
        ("contiguous", TensorMethod(tensor::contiguous)),
        ("clone", TensorMethod(tensor::clone)),
        ("transpose", TensorMethod(tensor::transpose)),
        ("t", TensorMethod(tensor::t)),
        ("sum", TensorMethod(tensor::reduce)),
        ("mean", TensorMethod(tensor::reduce)),
        ("max", TensorMethod(tensor::reduce)),
        ("min", TensorMethod(tensor::reduce)),
        ("argmax", TensorMethod(tensor::reduce)),
        ("argmin", TensorMethod(tensor::reduce)),
        ("prod", TensorMethod(tensor::reduce)),
        ("exp", TensorMethod(tensor::unary)),
        ("log", TensorMethod(tensor::unary)),
        ("sqrt", TensorMethod(tensor::unary)),
        ("abs", TensorMethod(tensor::unary)),
        ("neg", TensorMethod(tensor::unary)),
        ("relu", TensorMethod(tensor::unary)),
        ("sigmoid", TensorMethod(tensor::unary)),
        ("tanh", TensorMethod(tensor::unary)),
        ("erf", TensorMethod(tensor::unary)),
        ("erfinv", TensorMethod(tensor::unary)),
        ("log1p", TensorMethod(tensor::unary)),
        ("sin", TensorMethod(tensor::unary)),
        ("cos", TensorMethod(tensor::unary)),
        ("floor", TensorMethod(tensor::unary)),
        ("ceil", TensorMethod(tensor::unary)),
        ("round", TensorMethod(tensor::unary)),
        ("trunc", TensorMethod(tensor::unary)),
        ("rsqrt", TensorMethod(tensor::unary)),
        ("sign", TensorMethod(tensor::unary)),
        ("tan", TensorMethod(tensor::unary)),
        ("atan", TensorMethod(tensor::unary)),
        ("asin", TensorMethod(tensor::unary)),
        ("acos", TensorMethod(tensor::unary)),
        ("sinh", TensorMethod(tensor::unary)),
        ("cosh", TensorMethod(tensor::unary)),
        ("reciprocal", TensorMethod(tensor::unary)),
        ("log2", TensorMethod(tensor::unary)),
        ("log10", TensorMethod(tensor::unary)),
        ("expm1", TensorMethod(tensor::unary)),
        ("exp2", TensorMethod(tensor::unary)),
        ("arctan", TensorMethod(tensor::unary)),
        ("arcsin", TensorMethod(tensor::unary)),
        ("arccos", TensorMethod(tensor::unary)),
        ("arctan_", TensorMethod(tensor::unary_)),
        ("arcsin_", TensorMethod(tensor::unary_)),
        ("arccos_", TensorMethod(tensor::unary_)),
        ("exp_", TensorMethod(tensor::unary_)),
        ("log_", TensorMethod(tensor::unary_)),
        ("sqrt_", TensorMethod(tensor::unary_)),
        ("abs_", TensorMethod(tensor::unary_)),
        ("neg_", TensorMethod(tensor::unary_)),
        ("relu_", TensorMethod(tensor::unary_)),
        ("sigmoid_", TensorMethod(tensor::unary_)),
        ("tanh_", TensorMethod(tensor::unary_)),
        ("erf_", TensorMethod(tensor::unary_)),
        ("erfinv_", TensorMethod(tensor::unary_)),
        ("log1p_", TensorMethod(tensor::unary_)),
        ("sin_", TensorMethod(tensor::unary_)),
        ("cos_", TensorMethod(tensor::unary_)),
        ("floor_", TensorMethod(tensor::unary_)),
        ("ceil_", TensorMethod(tensor::unary_)),
        ("round_", TensorMethod(tensor::unary_)),
        ("trunc_", TensorMethod(tensor::unary_)),
        ("rsqrt_", TensorMethod(tensor::unary_)),
        ("sign_", TensorMethod(tensor::unary_)),
        ("tan_", TensorMethod(tensor::unary_)),
        ("atan_", TensorMethod(tensor::unary_)),
        ("asin_", TensorMethod(tensor::unary_)),
        ("acos_", TensorMethod(tensor::unary_)),
        ("sinh_", TensorMethod(tensor::unary_)),
        ("cosh_", TensorMethod(tensor::unary_)),
        ("reciprocal_", TensorMethod(tensor::unary_)),
        ("log2_", TensorMethod(tensor::unary_)),
        ("log10_", TensorMethod(tensor::unary_)),
        ("expm1_", TensorMethod(tensor::unary_)),
        ("exp2_", TensorMethod(tensor::unary_)),
        ("gather", TensorMethod(select::gather)),
        ("index_select", TensorMethod(select::index_select)),
        ("masked_select", TensorMethod(select::masked_select)),
        ("scatter", TensorMethod(select::scatter)),
        ("scatter_", TensorMethod(select::scatter)),
        ("scatter_add", TensorMethod(select::scatter)),
        ("scatter_add_", TensorMethod(select::scatter)),
        ("amax", TensorMethod(math::amax)),
        ("amin", TensorMethod(math::amax)),
        ("logsumexp", TensorMethod(math::logsumexp)),
        ("addcmul", TensorMethod(math::addc)),
        ("addcdiv", TensorMethod(math::addc)),
        ("addcmul_", TensorMethod(math::addc)),
        ("addcdiv_", TensorMethod(math::addc)),
        ("lerp", TensorMethod(math::lerp)),
        ("lerp_", TensorMethod(math::lerp)),
        ("outer", TensorMethod(math::outer)),
        ("ger", TensorMethod(math::outer)),
        ("repeat_interleave", TensorMethod(math::repeat_interleave)),
        ("count_nonzero", TensorMethod(math::count_nonzero)),
        ("isinf", TensorMethod(math::is_inf)),
        ("isposinf", TensorMethod(math::is_inf)),
        ("isneginf", TensorMethod(math::is_inf)),
        ("isfinite", TensorMethod(math::is_inf)),
        ("clip", TensorMethod(facts::alias)),
        ("clip_", TensorMethod(facts::alias)),
        ("ravel", TensorMethod(facts::alias)),
        ("item", TensorMethod(tensor::item)),
        ("numel", TensorMethod(tensor::numel)),
        ("fill_", TensorMethod(tensor::fill_)),
        ("zero_", TensorMethod(tensor::fill_)),
        ("normal_", TensorMethod(tensor::normal_)),
        ("uniform_", TensorMethod(random::uniform_)),
        ("bernoulli_", TensorMethod(random::bernoulli_)),
        ("exponential_", TensorMethod(random::exponential_)),
        ("geometric_", TensorMethod(random::distribution_)),
        ("log_normal_", TensorMethod(random::distribution_)),
        ("cauchy_", TensorMethod(random::distribution_)),
        ("random_", TensorMethod(random::random_)),
        ("new_full", TensorMethod(tensor::new_full)),
        ("new_zeros", TensorMethod(tensor::new_full)),
        ("new_ones", TensorMethod(tensor::new_full)),
        ("new_empty", TensorMethod(tensor::new_full)),
        ("data_ptr", TensorMethod(tensor::data_ptr)),
        ("type", TensorMethod(tensor::type_)),
        ("new_tensor", TensorMethod(tensor::new_tensor)),
        ("copy_", TensorMethod(tensor::copy_)),
        ("matmul", TensorMethod(tensor::matmul)),
        ("mm", TensorMethod(tensor::product)),
        ("to_sparse", TensorMethod(tensor::to_sparse)),
        ("to_dense", TensorMethod(tensor::to_dense)),
        ("bmm", TensorMethod(tensor::product)),
        ("mv", TensorMethod(tensor::product)),
        ("dot", TensorMethod(crate::eval::builtins::math::dot_method)),
        ("any", TensorMethod(tensor::any_all)),
        ("all", TensorMethod(tensor::any_all)),
        ("trace", TensorMethod(crate::eval::builtins::diagonals::of)),
        ("diag", TensorMethod(crate::eval::builtins::diagonals::of)),
        ("addmm", TensorMethod(crate::eval::builtins::products::of)),
        ("addmv", TensorMethod(crate::eval::builtins::products::of)),
        ("baddbmm", TensorMethod(crate::eval::builtins::products::of)),
        ("addbmm", TensorMethod(crate::eval::builtins::products::of)),
        ("kron", TensorMethod(crate::eval::builtins::products::of)),
        ("dist", TensorMethod(crate::eval::builtins::products::of)),
        (
            "diagonal",
            TensorMethod(crate::eval::builtins::diagonals::of),
        ),
        (
            "diag_embed",
            TensorMethod(crate::eval::builtins::diagonals::of),
        ),
        ("float", TensorMethod(tensor::cast_to)),
        ("double", TensorMethod(tensor::cast_to)),
        ("half", TensorMethod(tensor::cast_to)),
        ("bfloat16", TensorMethod(tensor::cast_to)),
        ("int", TensorMethod(tensor::cast_to)),
        ("long", TensorMethod(tensor::cast_to)),
        ("byte", TensorMethod(tensor::cast_to)),
        ("char", TensorMethod(tensor::cast_to)),
        ("short", TensorMethod(tensor::cast_to)),
        ("bool", TensorMethod(tensor::cast_to)),
        ("eq", TensorMethod(tensor::compare)),
        ("ne", TensorMethod(tensor::compare)),
        ("lt", TensorMethod(tensor::compare)),
        ("le", TensorMethod(tensor::compare)),
        ("gt", TensorMethod(tensor::compare)),
        ("ge", TensorMethod(tensor::compare)),
        ("add", TensorMethod(tensor::arith)),
        ("sub", TensorMethod(tensor::arith)),
        ("mul", TensorMethod(tensor::arith)),
        ("div", TensorMethod(tensor::arith)),
        ("pow", TensorMethod(tensor::arith)),
        ("maximum", TensorMethod(tensor::pointwise)),
        ("minimum", TensorMethod(tensor::pointwise)),
        ("floor_divide", TensorMethod(tensor::pointwise)),
        ("remainder", TensorMethod(tensor::pointwise)),
        ("fmod", TensorMethod(tensor::pointwise)),
        ("logical_and", TensorMethod(tensor::pointwise)),
        ("logical_or", TensorMethod(tensor::pointwise)),
        ("logical_xor", TensorMethod(tensor::pointwise)),
        ("logical_not", TensorMethod(tensor::pointwise_unary)),
        ("isnan", TensorMethod(tensor::pointwise_unary)),
        (
            "nan_to_num",
            TensorMethod(crate::eval::builtins::pointwise::nan_to_num_of),
        ),
        ("bitwise_not", TensorMethod(tensor::pointwise_unary)),
        ("bitwise_and", TensorMethod(tensor::pointwise)),
        ("bitwise_or", TensorMethod(tensor::pointwise)),
        ("bitwise_xor", TensorMethod(tensor::pointwise)),
        ("bitwise_left_shift", TensorMethod(tensor::pointwise)),
        ("bitwise_right_shift", TensorMethod(tensor::pointwise)),
        ("where", TensorMethod(tensor::where_)),
        ("masked_fill", TensorMethod(tensor::masked_fill)),
        ("masked_fill_", TensorMethod(tensor::masked_fill_)),
        ("clamp", TensorMethod(tensor::clamp)),
        ("add_", TensorMethod(tensor::in_place)),
        ("sub_", TensorMethod(tensor::in_place)),
        ("mul_", TensorMethod(tensor::in_place)),
        ("div_", TensorMethod(tensor::in_place)),
        ("pow_", TensorMethod(tensor::in_place)),
        ("floor_divide_", TensorMethod(tensor::in_place)),
        ("remainder_", TensorMethod(tensor::in_place)),
        ("bitwise_and_", TensorMethod(tensor::in_place)),
        ("bitwise_or_", TensorMethod(tensor::in_place)),
        ("bitwise_xor_", TensorMethod(tensor::in_place)),
        ("bitwise_left_shift_", TensorMethod(tensor::in_place)),
        ("bitwise_right_shift_", TensorMethod(tensor::in_place)),
        ("clamp_", TensorMethod(tensor::clamp_)),
        ("cumsum", TensorMethod(tensor::along)),
        ("cumprod", TensorMethod(tensor::along)),
        ("softmax", TensorMethod(tensor::along)),
        ("log_softmax", TensorMethod(tensor::along)),
        ("var", TensorMethod(tensor::along)),
        ("median", TensorMethod(tensor::along)),
        ("nanmedian", TensorMethod(tensor::along)),
        ("std", TensorMethod(tensor::along)),
        ("norm", TensorMethod(tensor::along)),
        ("unique", TensorMethod(tensor::unique)),
        ("allclose", TensorMethod(tensor::close)),
        ("isclose", TensorMethod(tensor::close)),
        ("equal", TensorMethod(tensor::close)),
        ("sort", TensorMethod(tensor::along)),
        ("argsort", TensorMethod(tensor::along)),
        ("topk", TensorMethod(tensor::along)),
        ("tril", TensorMethod(tensor::along)),
        ("triu", TensorMethod(tensor::along)),
        ("nonzero", TensorMethod(tensor::along)),
        ("argwhere", TensorMethod(tensor::along)),
        ("view", TensorMethod(shape::view)),
        ("view_as", TensorMethod(shape::as_other)),
        ("expand_as", TensorMethod(shape::as_other)),
        ("reshape_as", TensorMethod(shape::as_other)),
        ("flatten", TensorMethod(shape::flatten)),
        ("unsqueeze", TensorMethod(shape::unsqueeze)),
        ("unsqueeze_", TensorMethod(view_in_place::view_in_place)),
        ("squeeze_", TensorMethod(view_in_place::view_in_place)),
        ("t_", TensorMethod(view_in_place::view_in_place)),
        ("transpose_", TensorMethod(view_in_place::view_in_place)),
        ("swapdims_", TensorMethod(view_in_place::view_in_place)),
        ("narrow", TensorMethod(shape::narrow)),
        ("as_strided", TensorMethod(shape::as_strided)),
        ("unfold", TensorMethod(shape::unfold)),
        ("select", TensorMethod(shape::select)),
        ("dim", TensorMethod(facts::fact)),
        ("ndimension", TensorMethod(facts::fact)),
        ("nelement", TensorMethod(facts::fact)),
        ("element_size", TensorMethod(facts::fact)),
        ("is_floating_point", TensorMethod(facts::fact)),
        ("is_signed", TensorMethod(facts::fact)),
        ("is_inference", TensorMethod(facts::fact)),
        ("get_device", TensorMethod(facts::fact)),
        ("is_contiguous", TensorMethod(facts::fact)),
        ("storage_offset", TensorMethod(facts::fact)),
        ("stride", TensorMethod(facts::stride)),
        ("swapaxes", TensorMethod(facts::alias)),
        ("swapdims", TensorMethod(facts::alias)),
        ("movedim", TensorMethod(facts::alias)),
        ("unflatten", TensorMethod(facts::alias)),
        ("square", TensorMethod(facts::alias)),
        ("square_", TensorMethod(facts::alias)),
        ("clamp_min", TensorMethod(facts::alias)),
        ("clamp_max", TensorMethod(facts::alias)),
        ("type_as", TensorMethod(facts::alias)),
        ("squeeze", TensorMethod(shape::squeeze)),
        ("permute", TensorMethod(shape::permute)),
        ("expand", TensorMethod(shape::expand)),
        ("repeat", TensorMethod(shape::repeat)),
        ("flip", TensorMethod(shape::flip)),
        ("roll", TensorMethod(shape::roll)),
        ("chunk", TensorMethod(shape::chunk)),
        ("split", TensorMethod(shape::split)),
        ("unbind", TensorMethod(shape::unbind)),
        ("size", TensorMethod(tensor::size)),
        ("tolist", TensorMethod(tensor::tolist)),
        ("is_cuda", TensorProperty(tensor::is_cuda)),
        (
            "is_cpu",
            TensorProperty(|t| Ok(Value::bool(!t.device().is_cuda()))),
        ),
        // Kinds of tensor and device cudash has none of: a program's
        // `if x.is_cuda or x.is_xpu` (DCGAN) asks.
        ("is_xpu", TensorProperty(|_| Ok(Value::bool(false)))),
        ("is_mps", TensorProperty(|_| Ok(Value::bool(false)))),
        (
            "is_meta",
            TensorProperty(|t| Ok(Value::bool(t.device().is_meta()))),
        ),
        ("is_sparse", TensorProperty(|_| Ok(Value::bool(false)))),
        ("is_quantized", TensorProperty(|_| Ok(Value::bool(false)))),
        ("is_nested", TensorProperty(|_| Ok(Value::bool(false)))),
        ("_version", TensorProperty(tensor::version)),
        ("shape", TensorProperty(|t| Ok(tensor::shape(t)))),
        ("dtype", TensorProperty(|t| Ok(Value::dtype(t.dtype())))),
        ("device", TensorProperty(|t| Ok(Value::device(t.device())))),
        ("ndim", TensorProperty(|t| Ok(Value::Int(t.ndim() as i64)))),
        ("nbytes", TensorProperty(tensor::nbytes)),
        ("itemsize", TensorProperty(tensor::itemsize)),
        ("T", TensorProperty(|t| Ok(Value::tensor(t.t())))),
        ("is_pinned", TensorProperty(tensor::is_pinned)),
        (
            "is_shared",
            TensorProperty(|t| Ok(Value::bool(t.is_shared()))),
        ),
        ("share_memory_", TensorMethod(tensor::share_memory_)),
        ("data", TensorProperty(tensor::data)),
        ("mT", TensorProperty(shape::matrix_transpose)),
        // A real tensor's conjugate transposes are its transposes.
        ("mH", TensorProperty(shape::matrix_transpose)),
        ("H", TensorProperty(shape::adjoint)),
        ("wait", StreamMethod(stream::wait)),
        ("sync", StreamMethod(stream::sync)),
        ("synchronize", StreamMethod(stream::sync)),
        ("wait_stream", StreamMethod(stream::wait_stream)),
        ("record_event", StreamMethod(stream::record_event)),
        ("wait_event", StreamMethod(stream::wait_event)),
        ("query", StreamMethod(stream::query)),
        ("device", StreamProperty(stream::device)),
        ("pending", StreamProperty(stream::pending)),
        ("record", EventMethod(stream::record)),
        ("sync", EventMethod(stream::event_sync)),
        ("synchronize", EventMethod(stream::event_sync)),
        ("query", EventMethod(stream::event_query)),
        ("elapsed", EventMethod(stream::elapsed)),
        ("elapsed_time", EventMethod(stream::elapsed)),
        ("append", ListMethod(list::append)),
        ("extend", ListMethod(list::list_method)),
        ("insert", ListMethod(list::list_method)),
        ("pop", ListMethod(list::list_method)),
        ("remove", ListMethod(list::list_method)),
        ("index", ListMethod(list::list_method)),
        ("count", ListMethod(list::list_method)),
        ("reverse", ListMethod(list::list_method)),
        ("sort", ListMethod(list::list_method)),
        ("clear", ListMethod(list::list_method)),
        ("copy", ListMethod(list::list_method)),
        ("keys", DictMethod(dict::dict_method)),
        ("values", DictMethod(dict::dict_method)),
        ("items", DictMethod(dict::dict_method)),
        ("get", DictMethod(dict::dict_method)),
        ("update", DictMethod(dict::dict_method)),
        ("pop", DictMethod(dict::dict_method)),
        ("setdefault", DictMethod(dict::dict_method)),
        ("popitem", DictMethod(dict::dict_method)),
        ("move_to_end", DictMethod(dict::dict_method)),
        ("most_common", DictMethod(dict::dict_method)),
        ("elements", DictMethod(dict::dict_method)),
        ("clear", DictMethod(dict::dict_method)),
        ("copy", DictMethod(dict::dict_method)),
        ("add", SetMethod(set::set_method)),
        ("update", SetMethod(set::set_method)),
        ("remove", SetMethod(set::set_method)),
        ("discard", SetMethod(set::set_method)),
        ("pop", SetMethod(set::set_method)),
        ("clear", SetMethod(set::set_method)),
        ("copy", SetMethod(set::set_method)),
        ("issubset", SetMethod(set::set_method)),
        ("issuperset", SetMethod(set::set_method)),
        ("isdisjoint", SetMethod(set::set_method)),
        ("symmetric_difference", SetMethod(set::set_method)),
        ("union", SetMethod(set::set_method)),
        ("intersection", SetMethod(set::set_method)),
        ("difference", SetMethod(set::set_method)),
        ("read", FileMethod(super::files::file_method)),
        ("readline", FileMethod(super::files::file_method)),
        ("readlines", FileMethod(super::files::file_method)),
        ("write", FileMethod(super::files::file_method)),
        ("writelines", FileMethod(super::files::file_method)),
        ("close", FileMethod(super::files::file_method)),
        ("seek", FileMethod(super::files::file_method)),
        ("tell", FileMethod(super::files::file_method)),
        ("flush", FileMethod(super::files::file_method)),
        ("isatty", FileMethod(super::files::file_method)),
        ("fileno", FileMethod(super::files::file_method)),
        (
            "requires_grad",
            TensorProperty(grad::requires_grad_property),
        ),
        ("is_leaf", TensorProperty(grad::is_leaf_property)),
        ("retains_grad", TensorProperty(grad::retains_grad_property)),
        ("grad", TensorProperty(grad::grad_property)),
        ("grad_fn", TensorProperty(grad::grad_fn_property)),
        ("backward", TensorMethod(grad::backward)),
        ("requires_grad_", TensorMethod(grad::requires_grad_)),
        ("detach", TensorMethod(grad::detach)),
        ("retain_grad", TensorMethod(grad::retain_grad)),
        ("register_hook", TensorMethod(super::hooks::register_hook)),
        (
            "register_post_accumulate_grad_hook",
            TensorMethod(super::hooks::register_hook),
        ),
        ("remove", HandleMethod(super::hooks::remove)),
        ("wait", WorkMethod(super::distributed::work_method)),
        ("is_completed", WorkMethod(super::distributed::work_method)),
        ("name", GradFnMethod(grad::grad_fn_name)),
        (
            "register_hook",
            GradFnMethod(super::hooks::register_node_hook),
        ),
        (
            "register_prehook",
            GradFnMethod(super::hooks::register_node_hook),
        ),
        ("next_functions", GradFnProperty(grad::next_functions)),
        ("metadata", GradFnProperty(grad::metadata)),
        ("step", OptimizerMethod(grad::step)),
        ("zero_grad", OptimizerMethod(grad::zero_grad)),
        ("add_param_group", OptimizerMethod(grad::add_param_group)),
        (
            "register_step_pre_hook",
            OptimizerMethod(grad::register_step_hook),
        ),
        (
            "register_step_post_hook",
            OptimizerMethod(grad::register_step_hook),
        ),
        (
            "state_dict",
            OptimizerMethod(super::optimizer_state::state_dict),
        ),
        (
            "load_state_dict",
            OptimizerMethod(super::optimizer_state::load_state_dict),
        ),
        ("set_epoch", SamplerMethod(super::data::set_epoch)),
        (
            "manual_seed",
            GeneratorMethod(super::builtins::torch_generator::method),
        ),
        (
            "initial_seed",
            GeneratorMethod(super::builtins::torch_generator::method),
        ),
        (
            "seed",
            GeneratorMethod(super::builtins::torch_generator::method),
        ),
        (
            "get_state",
            GeneratorMethod(super::builtins::torch_generator::method),
        ),
        (
            "set_state",
            GeneratorMethod(super::builtins::torch_generator::method),
        ),
        ("parameters", ModuleMethod(module::parameters)),
        ("named_parameters", ModuleMethod(module::parameters)),
        ("buffers", ModuleMethod(module::parameters)),
        ("named_buffers", ModuleMethod(module::parameters)),
        (
            "has_uninitialized_params",
            ModuleMethod(super::lazy_modules::has_uninitialized_params),
        ),
        ("children", ModuleMethod(module::modules)),
        ("named_children", ModuleMethod(module::modules)),
        ("modules", ModuleMethod(module::modules)),
        ("named_modules", ModuleMethod(module::modules)),
        ("train", ModuleMethod(module::train)),
        ("no_sync", ModuleMethod(super::ddp::method)),
        ("_get_ddp_logging_data", ModuleMethod(super::ddp::method)),
        ("eval", ModuleMethod(module::train)),
        ("zero_grad", ModuleMethod(module::zero_grad)),
        ("requires_grad_", ModuleMethod(module::requires_grad_)),
        (
            "reset_running_stats",
            ModuleMethod(module::reset_running_stats),
        ),
        ("share_memory", ModuleMethod(module::share_memory)),
        (
            "flatten_parameters",
            ModuleMethod(module::flatten_parameters),
        ),
        ("to", ModuleMethod(module::to)),
        ("cuda", ModuleMethod(module::to)),
        ("cpu", ModuleMethod(module::to)),
        ("half", ModuleMethod(module::to)),
        ("float", ModuleMethod(module::to)),
        ("double", ModuleMethod(module::to)),
        ("bfloat16", ModuleMethod(module::to)),
        ("state_dict", ModuleMethod(module::state_dict)),
        ("load_state_dict", ModuleMethod(module::load_state_dict)),
        ("to_empty", ModuleMethod(module::to_empty)),
        ("register_buffer", ModuleMethod(module::register_buffer)),
        ("register_parameter", ModuleMethod(module::register)),
        ("add_module", ModuleMethod(module::register)),
        ("apply", ModuleMethod(module::apply)),
        ("forward", ModuleMethod(module::forward)),
        ("append", ModuleMethod(module::append)),
        ("items", ModuleMethod(super::param_containers::method)),
        ("keys", ModuleMethod(super::param_containers::method)),
        ("values", ModuleMethod(super::param_containers::method)),
        ("extend", ModuleMethod(super::param_containers::method)),
        ("update", ModuleMethod(super::param_containers::method)),
        ("pop", ModuleMethod(super::param_containers::method)),
        ("get", ModuleMethod(super::param_containers::method)),
        ("step", SchedulerMethod(super::schedule::step)),
        ("scale", ScalerMethod(super::amp::method)),
        ("unscale_", ScalerMethod(super::amp::method)),
        ("step", ScalerMethod(super::amp::method)),
        ("update", ScalerMethod(super::amp::method)),
        ("get_scale", ScalerMethod(super::amp::method)),
        ("state_dict", ScalerMethod(super::amp::method)),
        ("load_state_dict", ScalerMethod(super::amp::method)),
        ("is_enabled", ScalerMethod(super::amp::method)),
        ("add_argument", ParserMethod(super::cmdline::method)),
        ("add_subparsers", ParserMethod(super::cmdline::method)),
        ("add_parser", ParserMethod(super::cmdline::method)),
        ("parse_args", ParserMethod(super::cmdline::method)),
        ("parse_known_args", ParserMethod(super::cmdline::method)),
        ("print_help", ParserMethod(super::cmdline::method)),
        ("format_help", ParserMethod(super::cmdline::method)),
        ("print_usage", ParserMethod(super::cmdline::method)),
        ("format_usage", ParserMethod(super::cmdline::method)),
        ("set_defaults", ParserMethod(super::cmdline::method)),
        ("error", ParserMethod(super::cmdline::method)),
        ("get_growth_factor", ScalerMethod(super::amp::method)),
        ("set_growth_factor", ScalerMethod(super::amp::method)),
        ("get_backoff_factor", ScalerMethod(super::amp::method)),
        ("set_backoff_factor", ScalerMethod(super::amp::method)),
        ("get_growth_interval", ScalerMethod(super::amp::method)),
        ("set_growth_interval", ScalerMethod(super::amp::method)),
        ("get_last_lr", SchedulerMethod(super::schedule::get_last_lr)),
        ("last_epoch", SchedulerProperty(super::schedule::last_epoch)),
        ("best", SchedulerProperty(super::schedule::plateau_best)),
        (
            "num_bad_epochs",
            SchedulerProperty(super::schedule::plateau_bad_epochs),
        ),
        (
            "dataset",
            LoaderProperty(|l| Interp::dataset_value(&l.dataset)),
        ),
        (
            "batch_size",
            LoaderProperty(|l| match l.batch_sampler {
                Some(_) => Value::None,
                None => Value::Int(l.batch_size as i64),
            }),
        ),
        (
            "sampler",
            LoaderProperty(|l| super::samplers::sampler_value(&l.sampler)),
        ),
        (
            "collate_fn",
            LoaderProperty(|l| {
                l.collate_fn
                    .as_ref()
                    .map_or(Value::None, super::data::session_value)
            }),
        ),
        (
            "num_workers",
            LoaderProperty(|l| Value::Int(l.num_workers as i64)),
        ),
        (
            "batch_sampler",
            LoaderProperty(super::samplers::batch_sampler_of),
        ),
        ("type", DeviceProperty(device_type)),
        ("index", DeviceProperty(device_index)),
        (
            "is_floating_point",
            DTypeProperty(|d| Value::bool(d.is_float())),
        ),
        ("is_signed", DTypeProperty(|d| Value::bool(d.is_signed()))),
        ("itemsize", DTypeProperty(|d| Value::Int(d.size() as i64))),
        (
            "param_groups",
            OptimizerProperty(super::schedule::param_groups),
        ),
        ("defaults", OptimizerProperty(grad::defaults)),
        ("state", OptimizerView(optimizer_state_view)),
        (
            "register_forward_hook",
            ModuleMethod(module::register_forward_hook),
        ),
        (
            "register_forward_pre_hook",
            ModuleMethod(module::register_forward_hook),
        ),
        (
            "register_full_backward_hook",
            ModuleMethod(module::register_forward_hook),
        ),
        (
            "register_full_backward_pre_hook",
            ModuleMethod(module::register_forward_hook),
        ),
        (
            "register_backward_hook",
            ModuleMethod(module::register_forward_hook),
        ),
    ]
};

fn member(receiver: &str, name: &str) -> Option<Member> {
    MEMBERS
        .iter()
        .find(|(n, m)| *n == name && m.receiver() == receiver)
        .map(|(_, m)| *m)
}

impl Interp {
    /// `recv.name(args)`.
    pub(crate) fn call_method(
        &mut self,
        recv: Value,
        name: &Name,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        // `torch.zeros(2)`, `nn.Linear(4, 2)`: the module's member, called.
        if let Value::Namespace(m) = recv {
            let f = self.namespace_member(m, &name.name, name.span)?;
            return self.call_value(f, args, span);
        }
        if let Value::OwnModule(m) = &recv {
            let f = self.own_module_attr(m, &name.name, name.span)?;
            return self.call_value(f, args, span);
        }
        // `wrapper.__wrapped__(x)`: a callable the program set on a function.
        if let Value::Function(f) = &recv {
            if let Some(v) = f.attr(&name.name) {
                return self.call_value(v, args, span);
            }
        }
        // `itertools.chain.from_iterable(xs)`, `str.upper(s)`.
        if let Some(f) = native_member(&recv, &name.name) {
            return self.call_value(f, args, span);
        }
        // `nn.Transformer.generate_square_subsequent_mask(n)`: a static
        // method of PyTorch's class (also called on a model).
        if name.name == "generate_square_subsequent_mask" {
            let transformer = match &recv {
                Value::Builtin(doc) => doc.name == "Transformer",
                Value::Module(m) => matches!(
                    crate::runtime::lock::lock(m).layer,
                    crate::nn::layers::Layer::Transformer { .. }
                ),
                _ => false,
            };
            if transformer {
                let f = docs::function(&name.name).map_or(Value::None, Value::Builtin);
                return self.call_value(f, args, span);
            }
        }
        // `t.numpy()`: an array of cudash's NumPy over the tensor
        // (`stdlib/numpy.py`).
        if let (Value::Tensor(_), "numpy") = (&recv, name.name.as_str()) {
            let path = super::stdlib::path_of("numpy").expect("numpy is one of stdlib/");
            let numpy = self.import_own("numpy", path, span)?;
            let f = self.own_module_attr(&numpy, "_from_tensor", span)?;
            return self.call_value(f, vec![ArgVal::positional(recv, span)], span);
        }
        // A sparse tensor's methods (`sparse.rs`).
        if let Value::Sparse(s) = &recv {
            let args = self.resolve_args(args);
            return self.sparse_method(s, name, args, span);
        }
        // A shape's methods are a tuple's, and `numel()`: the product.
        let recv = match recv {
            Value::Size(items) if name.name == "numel" && args.is_empty() => {
                let mut n = 1i64;
                for v in items.iter() {
                    if let Value::Int(d) = v {
                        n = n.saturating_mul(*d);
                    }
                }
                return Ok(Value::Int(n));
            }
            Value::Size(items) => Value::List(items),
            other => other,
        };
        // A generator given to a builtin method is read whole (`"
        // ".join(g)`, `xs.extend(g)`), as for the builtins; a program's
        // method takes it as it is (below).
        let program = matches!(
            recv,
            Value::Object(_) | Value::Module(_) | Value::Class(_) | Value::Super(_)
        );
        let args = match program {
            true => args,
            false => self.drain_generators(args)?,
        };
        if let (Value::Int(n), "to_bytes") = (&recv, name.name.as_str()) {
            return super::bytes::int_to_bytes(*n, &args).map_err(|e| e.at(span));
        }
        // Python's int and float methods that take no arguments.
        let number = match (&recv, name.name.as_str(), args.is_empty()) {
            (Value::Int(n), "bit_length", true) => {
                Some(Value::Int(64 - n.unsigned_abs().leading_zeros() as i64))
            }
            (Value::Int(n), "bit_count", true) => {
                Some(Value::Int(n.unsigned_abs().count_ones() as i64))
            }
            (Value::Int(_), "is_integer", true) => Some(Value::bool(true)),
            (Value::Float(x), "is_integer", true) => {
                Some(Value::bool(x.get().is_finite() && x.get().fract() == 0.0))
            }
            (Value::Int(_) | Value::Float(_), "conjugate", true) => Some(recv.clone()),
            _ => None,
        };
        if let Some(v) = number {
            return Ok(v);
        }
        if let Value::Bytes(b) = &recv {
            return self
                .bytes_method(b, &name.name, args)
                .map_err(|e| e.at(span));
        }
        if let (Value::Str(s), "encode") = (&recv, name.name.as_str()) {
            return super::bytes::str_encode(s, &args).map_err(|e| e.at(span));
        }
        if let Value::Str(s) = &recv {
            if super::strings::STR_METHODS.contains(&name.name.as_str()) {
                return self.str_method(s, &name.name, args).map_err(|e| e.at(span));
            }
        }
        // A named tuple's `_asdict()` and `_replace(**fields)`.
        if let Value::Object(o) = &recv {
            if o.class.tuple && matches!(name.name.as_str(), "_asdict" | "_replace") {
                return self.named_tuple_method(o, &name.name, args, span);
            }
        }
        // A class's methods, an instance's callable attributes, `super()`.
        let (recv, args) = match &recv {
            Value::Object(_) | Value::Module(_) | Value::Class(_) | Value::Super(_) => {
                match self.call_object_method(&recv, &name.name, args, span)? {
                    Ok(v) => return Ok(v),
                    Err(args) => (
                        self.module_receiver(recv, name)?,
                        self.drain_generators(args)?,
                    ),
                }
            }
            _ => (recv, args),
        };
        // A generator's `close()` and `throw(e)`.
        if let Value::Iterator(i) = &recv {
            if let Some(r) = self.generator_method(i, &name.name, &args, span) {
                return r;
            }
        }
        // A parameter group's dict methods that read (`g.keys()`,
        // `g.items()`, `g.get("momentum", 0)`) read it as a dict; its
        // settings change by `g[key] = v`.
        if let Value::ParamGroup(g) = &recv {
            if matches!(
                name.name.as_str(),
                "keys" | "items" | "values" | "get" | "copy"
            ) {
                let d = super::param_group::group_dict(&g.0, g.1);
                return self.call_method(Value::Dict(d), name, args, span);
            }
            // `g.setdefault("initial_lr", g["lr"])`, as a scheduler of the
            // program's starts: the group's value, else `default` set.
            if name.name == "setdefault" {
                let (key, default) = match args.as_slice() {
                    [k, d] => (k, d.value.clone()),
                    [k] => (k, Value::None),
                    _ => {
                        return Err(Error::value("setdefault(key, default=None)").at(span));
                    }
                };
                let Value::Str(k) = &key.value else {
                    return Err(Error::wrong_type(
                        "a parameter group's key",
                        "a str",
                        key.value.type_name(),
                    )
                    .at(key.span));
                };
                if let Ok(v) = super::param_group::group_get(&g.0, g.1, k) {
                    return Ok(v);
                }
                super::param_group::group_set(&g.0, g.1, k, &default).map_err(|e| e.at(span))?;
                return Ok(default);
            }
        }
        // `A.det()`, `A.svd()`: torch's functions cudash writes in Python
        // (`stdlib/`), called with the tensor first.
        if let (Value::Tensor(_), Some(&(_, namespace))) = (
            &recv,
            PYTHON_TENSOR_METHODS
                .iter()
                .find(|(n, _)| *n == name.name.as_str()),
        ) {
            // A namespace of PyTorch's (`torch.det`), or one of cudash's own
            // modules for a method PyTorch has no function of (`index_fill_`).
            let f = match crate::eval::imports::MODULES
                .iter()
                .find(|m| m.path == namespace)
            {
                Some(m) => self.namespace_member(m, &name.name, span)?,
                None => {
                    let path = super::stdlib::path_of(namespace).expect("a module of stdlib/");
                    let own = self.import_own(namespace, path, span)?;
                    self.own_module_attr(&own, &name.name, span)?
                }
            };
            let first = ArgVal {
                keyword: None,
                value: recv,
                span,
            };
            let args = std::iter::once(first).chain(args).collect();
            return self.call_value(f, args, span);
        }
        let doc = docs::member(recv.kind(), &name.name)
            .filter(|_| !matches!(recv, Value::List(_)))
            .ok_or_else(|| no_member(&recv, name))?;
        if doc.kind == Kind::Property {
            // `x.nbytes()` and friends: accept the call form when nothing is passed.
            if args.is_empty() {
                return self.property(&recv, &name.name, name.span);
            }
            return Err(property_called(&name.name).at(name.span));
        }
        // A parser's and a file's strings stay strings (`default="cpu"`,
        // `f.write("cuda")`); elsewhere `"cuda"` is the current device.
        let args = match recv {
            Value::ArgParser(_) | Value::File(_) => args,
            _ => self.resolve_args(args),
        };
        let b = bind(doc, args, span)?;
        self.begin_doc_op(doc);
        // Autograd's check: a result of tensors that require grad must be
        // one autograd recorded (`grad.rs`), asked after the call where the
        // result holds a tensor. A list's, a dict's or a set's methods give
        // back the items it holds, never new tensors: the receiver is not
        // walked (an `append` would read the whole list).
        let container = matches!(recv, Value::MutList(_) | Value::Dict(_) | Value::Set(_));
        let inputs = || {
            b.values()
                .chain(std::iter::once(&recv).filter(|_| !container))
        };
        let v = match (member(recv.kind(), doc.name), &recv) {
            (Some(Member::TensorMethod(f)), Value::Tensor(t))
                if super::builtins::torch_generator::draws(doc.name, true) =>
            {
                self.drawing_from(&b, Some(t.device()), |me| f(me, doc.name, t, &b))
            }
            (Some(Member::TensorMethod(f)), Value::Tensor(t)) => f(self, doc.name, t, &b),
            (Some(Member::StreamMethod(f)), Value::Stream(s)) => f(self, doc.name, s, &b),
            (Some(Member::EventMethod(f)), Value::Event(e)) => f(self, doc.name, e, &b),
            (Some(Member::ListMethod(f)), Value::MutList(xs)) => f(self, doc.name, xs, &b),
            (Some(Member::DictMethod(f)), Value::Dict(d)) => f(self, doc.name, d, &b),
            (Some(Member::FileMethod(f)), Value::File(file)) => f(self, doc.name, file, &b),
            (Some(Member::SetMethod(f)), Value::Set(s)) => f(self, doc.name, s, &b),
            (Some(Member::OptimizerMethod(f)), Value::Optimizer(o)) => f(self, doc.name, o, &b),
            (Some(Member::SamplerMethod(f)), Value::Sampler(s)) => f(self, doc.name, s, &b),
            (Some(Member::GeneratorMethod(f)), Value::Generator(g)) => f(self, doc.name, g, &b),
            (Some(Member::HandleMethod(f)), Value::HookHandle(h)) => f(self, doc.name, h, &b),
            (Some(Member::WorkMethod(f)), Value::Work(w)) => f(self, doc.name, w, &b),
            (Some(Member::GradFnMethod(f)), Value::GradFn(n)) => f(self, doc.name, n, &b),
            (Some(Member::ModuleMethod(f)), Value::Module(m)) => f(self, doc.name, m, &b),
            (Some(Member::SchedulerMethod(f)), Value::Scheduler(s)) => f(self, doc.name, s, &b),
            (Some(Member::ScalerMethod(f)), Value::GradScaler(s)) => f(self, doc.name, s, &b),
            (Some(Member::ParserMethod(f)), Value::ArgParser(p)) => f(self, doc.name, p, &b),
            _ => Err(unwired(recv.kind(), doc.name).at(span)),
        }?;
        if super::grad::holds_tensor(&v) && self.grad_inputs(inputs()) {
            self.check_recorded(doc.name, inputs(), &v, span)?;
        }
        Ok(v)
    }

    /// `recv.name`.
    pub(crate) fn property(
        &mut self,
        recv: &Value,
        name: &str,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        // `m.__class__.__name__` (DCGAN's `weights_init`): `type(m)`, for
        // a built-in layer, a tensor or a number as for an instance.
        if name == "__class__"
            && !matches!(
                recv,
                Value::Class(_) | Value::Super(_) | Value::Namespace(_) | Value::OwnModule(_)
            )
        {
            if let Some(f) = docs::function("type") {
                let arg = super::args::ArgVal::positional(recv.clone(), span);
                return self.call_value(Value::Builtin(f), vec![arg], span);
            }
        }
        if let Value::Object(_) | Value::Module(_) | Value::Class(_) | Value::Super(_) = recv {
            return self.object_attr(recv, name, span);
        }
        if let Value::Namespace(m) = recv {
            return self.namespace_member(m, name, span);
        }
        if let Value::OwnModule(m) = recv {
            return self.own_module_attr(m, name, span);
        }
        if let Value::Sparse(s) = recv {
            return self.sparse_property(s, name, span);
        }
        // `y.grad_fn._saved_self`: what the node saved, under PyTorch's names.
        if let (Value::GradFn(f), true) = (
            recv,
            name.starts_with("_saved_") || name.starts_with("_raw_saved_"),
        ) {
            return self.saved_attr(f, name, span);
        }
        if let (Value::Tensor(_), "layout") = (recv, name) {
            return self.layout("strided", span);
        }
        // A lazy module's parameter before its first forward: PyTorch's
        // error for its shape (and what reads it).
        if let (Value::Tensor(t), "shape" | "data" | "T" | "mT") = (recv, name) {
            if crate::autograd::meta::is_uninitialized(t) {
                return Err(Error::Module {
                    class: "RuntimeError",
                    message:
                        "Can't access the shape of an uninitialized parameter or buffer. This \
                              error usually happens in `load_state_dict` when trying to load an \
                              uninitialized parameter into an initialized one. Call `forward` to \
                              initialize the parameters before accessing their attributes."
                            .into(),
                    help: Some("a lazy module's parameters are made at its first call".into()),
                }
                .at(span));
            }
        }
        // A parser's `prog`, `description` and `epilog`.
        if let (Value::ArgParser(p), "prog" | "description" | "epilog") = (recv, name) {
            let p = crate::runtime::lock::lock(p);
            let text = match name {
                "prog" => Some(p.prog.clone()),
                "description" => p.description.clone(),
                _ => p.epilog.clone(),
            };
            return Ok(text.map_or(Value::None, |t| Value::Str(Arc::new(t))));
        }
        if let Value::Dataset(ds) = recv {
            return super::subset::dataset_attr(ds, name).map_err(|e| e.at(span));
        }
        // `itertools.chain.from_iterable`, `str.upper`.
        if let Some(f) = native_member(recv, name) {
            return Ok(f);
        }
        // `e.args`: what an exception was made with.
        if let (Value::Exception(x), "args") = (recv, name) {
            return Ok(Value::List(Arc::new(x.args.clone())));
        }
        // `e.__cause__`, `e.__context__`, `e.__suppress_context__`.
        if let Value::Exception(x) = recv {
            if let Some(v) = super::exceptions::chain_attr(x.chain.as_deref(), name) {
                return Ok(v);
            }
        }
        // `SystemExit.code`: its one argument, none without, else the tuple.
        if let (Value::Exception(x), "code") = (recv, name) {
            if x.class.name == "SystemExit" {
                return Ok(match x.args.as_slice() {
                    [] => Value::None,
                    [one] => one.clone(),
                    many => Value::List(Arc::new(many.to_vec())),
                });
            }
        }
        // `type(x).__name__`, `int.__name__`.
        match (recv, name) {
            (Value::Builtin(doc), "__name__") => {
                return Ok(Value::Str(Arc::new(doc.name.to_string())))
            }
            // A static method of PyTorch's class.
            (Value::Builtin(doc), "generate_square_subsequent_mask")
                if doc.name == "Transformer" =>
            {
                if let Some(f) = docs::function(name) {
                    return Ok(Value::Builtin(f));
                }
            }
            (Value::ExcClass(c), "__name__") => {
                return Ok(Value::Str(Arc::new(c.short_name().to_string())))
            }
            // `type(True).__name__`: the class `bool` (the dtype's name in
            // cudash's language).
            (Value::DType(d), "__name__") if d.get() == crate::runtime::DType::Bool => {
                return Ok(Value::Str(Arc::new("bool".into())))
            }
            // `type(sd).__name__` of an OrderedDict, `type(None).__name__`.
            (Value::Native(f), "__name__" | "__qualname__") => {
                let short = f.name.rsplit('.').next().unwrap_or(f.name);
                return Ok(Value::Str(Arc::new(short.to_string())));
            }
            (Value::Native(f), "__module__") if f.is_class() => {
                let module = f.name.rsplit_once('.').map_or("builtins", |(m, _)| m);
                return Ok(Value::Str(Arc::new(module.to_string())));
            }
            // What the program set on a function (`functools.wraps`'s
            // `__name__`, `f.calls`), else a decorator's `fn.__name__`,
            // its docstring.
            (Value::Function(f), _) if f.attr(name).is_some() => {
                return Ok(f.attr(name).unwrap_or(Value::None))
            }
            (Value::Function(f), "__name__" | "__qualname__") => {
                return Ok(Value::Str(Arc::new(f.name().to_string())))
            }
            (Value::Function(f), "__doc__") => {
                return Ok(f.doc().map_or(Value::None, |d| Value::Str(Arc::new(d))))
            }
            _ => {}
        }
        let as_name = || Name::new(name.into(), span);
        // `s.values` of `s = x.sort()`: a dict's keys read as fields, as
        // PyTorch's named tuples.
        if let Value::Dict(pairs) = recv {
            if let Some(v) = pairs.get(&super::value::Key::from(name)) {
                return Ok(v);
            }
        }
        // `"a b".split`: a string's method, bound to it (a Python program's;
        // in cudash's own language a method read without a call is an
        // error that says to call it).
        if matches!(recv, Value::Str(_)) && self.python_program() {
            if let Some(m) = super::strings::STR_METHODS.iter().find(|m| **m == name) {
                return Ok(Value::BuiltinMethod(Arc::new((recv.clone(), m))));
            }
        }
        match docs::member(recv.kind(), name) {
            None => Err(no_member(recv, &as_name())),
            // `d.get`, `xs.append`: the method bound to its receiver, a
            // value to call later (`max(d, key=d.get)`), as Python's.
            Some(d) if d.kind == Kind::Method && self.python_program() => {
                Ok(Value::BuiltinMethod(Arc::new((recv.clone(), d.name))))
            }
            Some(d) if d.kind == Kind::Method => Err(Error::value_help(
                format!("`.{name}` is a method"),
                format!(
                    "call it: `{}()`",
                    d.signature.split('(').next().unwrap_or(name)
                ),
            )
            .at(span)),
            Some(d) => match (member(recv.kind(), d.name), recv) {
                (Some(Member::TensorProperty(f)), Value::Tensor(t)) => {
                    if name == "grad" && grad::non_leaf_without_grad(t) {
                        self.warn_once(grad::NON_LEAF_GRAD.into());
                    }
                    let v = f(t).map_err(|e| e.at(span))?;
                    Ok(self.transposed(t, name, v))
                }
                (Some(Member::StreamProperty(f)), Value::Stream(s)) => Ok(f(s)),
                (Some(Member::GradFnProperty(f)), Value::GradFn(n)) => Ok(f(n)),
                (Some(Member::SchedulerProperty(f)), Value::Scheduler(s)) => Ok(f(s)),
                (Some(Member::OptimizerProperty(f)), Value::Optimizer(o)) => Ok(f(o)),
                (Some(Member::OptimizerView(f)), Value::Optimizer(o)) => f(self, o, span),
                (Some(Member::LoaderProperty(f)), Value::DataLoader(l)) => Ok(f(l)),
                (Some(Member::DeviceProperty(f)), v @ (Value::Device(_) | Value::CurrentCuda)) => {
                    Ok(f(v))
                }
                (Some(Member::DTypeProperty(f)), Value::DType(d)) => Ok(f(d.get())),
                _ => Err(unwired(recv.kind(), name).at(span)),
            },
        }
    }
}

impl Interp {
    /// What a method no class defines is asked of: a module's `Module`
    /// methods, or the AttributeError of an instance.
    fn module_receiver(&mut self, recv: Value, name: &Name) -> Result<Value, Diagnostic> {
        let this = match &recv {
            Value::Super(s) => s.0.clone(),
            other => other.clone(),
        };
        match &this {
            Value::Module(m) => match docs::member("module", &name.name) {
                Some(_) => Ok(this.clone()),
                None => Err(super::class::no_attribute(
                    &crate::runtime::lock::lock(m).type_name,
                    &name.name,
                    name.span,
                )),
            },
            Value::Object(o) => Err(super::class::no_attribute(
                &o.class.name,
                &name.name,
                name.span,
            )),
            _ => Err(Error::Attribute {
                message: format!("'super' object has no attribute '{}'", name.name),
                help: None,
            }
            .at(name.span)),
        }
    }

    /// `x.T` and `x.mT` recorded for autograd (the other properties are
    /// not tensors computed from `x`).
    fn transposed(&self, t: &Arc<Tensor>, name: &str, v: Value) -> Value {
        use crate::autograd::node::Backward;
        let Value::Tensor(x) = v else { return v };
        let n = t.ndim();
        let recorded = match name {
            "T" => {
                let dims = (0..n).rev().collect();
                self.recorded(t, x, "PermuteBackward0", Backward::Permute { dims })
            }
            "mT" | "mH" | "H" if n >= 2 => {
                let backward = Backward::Transpose {
                    d0: n - 2,
                    d1: n - 1,
                };
                self.recorded(t, x, "TransposeBackward0", backward)
            }
            _ => x,
        };
        Value::Tensor(recorded)
    }
}

/// A member the docs list and the table does not (the tests rule it out).
fn unwired(receiver: &str, name: &str) -> Error {
    Error::value(format!(
        "internal error: the {receiver} member `.{name}` has no handler"
    ))
}

fn no_member(v: &Value, name: &Name) -> Diagnostic {
    if let Some(hint) = super::spelling::member_hint(v.kind(), &name.name) {
        return hint.at(name.span);
    }
    let suggestion = match v {
        Value::Tensor(_) | Value::Stream(_) | Value::Event(_) => {
            super::suggest::closest(&name.name, docs::members(v.kind()).map(|d| d.name))
        }
        Value::Dict(pairs) => super::suggest::closest(
            &name.name,
            pairs.items().iter().filter_map(|(k, _)| k.as_str()),
        ),
        _ => None,
    };
    Error::UnknownAttr {
        ty: v.type_name().to_string(),
        name: name.name.clone(),
        suggestion,
    }
    .at(name.span)
}

fn property_called(name: &str) -> Error {
    Error::value_help(
        format!("`.{name}` is a property, not a method"),
        format!("write `.{name}` without parentheses"),
    )
}

/// `recv.name` where `recv` is a function of Python's or the class `str`
/// or `dict`: the function of that full name
/// (`itertools.chain.from_iterable`, `str.upper`, `dict.fromkeys`), if
/// cudash has it.
fn native_member(recv: &Value, name: &str) -> Option<Value> {
    let owner = match recv {
        Value::Native(f) => f.name,
        Value::Builtin(doc) if doc.name == "str" => "str",
        Value::Builtin(doc) if doc.name == "dict" => "dict",
        Value::Builtin(doc) if doc.name == "int" => "int",
        Value::Builtin(doc) if doc.name == "bytes" => "bytes",
        _ => return None,
    };
    super::imports::native_member(owner, name)
}

#[cfg(test)]
mod tests {
    use super::super::docs::DOCS;
    use super::*;

    #[test]
    fn every_documented_member_has_one_handler_and_every_handler_a_doc() {
        for d in DOCS
            .iter()
            .filter(|d| matches!(d.kind, Kind::Method | Kind::Property))
        {
            let found: Vec<Member> = MEMBERS
                .iter()
                .filter(|(n, m)| *n == d.name && m.receiver() == d.receiver())
                .map(|(_, m)| *m)
                .collect();
            assert_eq!(found.len(), 1, "{} `.{}`", d.receiver(), d.name);
            assert_eq!(found[0].kind(), d.kind, "{} `.{}`", d.receiver(), d.name);
        }
        for (name, m) in MEMBERS {
            assert!(
                docs::member(m.receiver(), name).is_some(),
                "{} `.{name}` has a handler but no doc",
                m.receiver()
            );
        }
    }
}
