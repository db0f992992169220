//! Builtin functions: one table maps each name to its handler. Signatures
//! and help live in `docs.rs`; a test checks that the two list the same names,
//! so a builtin that is documented but not wired fails the tests, not a user.
//!
//! - `factories.rs`: tensors from data, shapes and random numbers, and joins;
//! - `math.rs`: reductions, elementwise functions, matmul;
//! - `activations.rs`: the activations with settings (`ELU`, `F.relu6`, `GLU`...);
//! - `conv.rs`: Conv1d/2d, ConvTranspose1d/2d and their functions;
//! - `pool.rs`: the max, average and adaptive pools and their functions;
//! - `resize.rs`: interpolate/Upsample, PixelShuffle, Unflatten, the padding layers;
//! - `fold.rs`: F.unfold and F.fold (im2col, col2im), nn.Unfold and nn.Fold;
//! - `composed_losses.rs`: kl_div, the margin and embedding losses, their modules;
//! - `along.rs`: scans, softmax, var, std, norm, sort, topk, tril/triu;
//! - `pointwise.rs`: maximum, minimum, logical ops, floor_divide,
//!   remainder, isnan, where, clamp;
//! - `masked.rs`: masked_fill and masked_fill_; `roll.rs`: roll;
//! - `devices.rs`: devices, streams and events, scatter/gather/replicate;
//! - `parallel.rs`: DataParallel, replicate of a module, parallel_apply;
//! - `collectives.rs`: all_reduce, reduce_scatter, all_gather, broadcast;
//! - `memory.rs`: the caching allocator's statistics;
//! - `teaching.rs`: print, clear_output, save and load;
//! - `python.rs`: Python's str, int, float, zip, sorted, ... and its
//!   sum/max/min/abs/round of numbers and lists.

pub(crate) mod activations;
pub(crate) mod along;
pub(crate) mod classes;
mod collectives;
mod combine;
mod composed_losses;
pub(crate) mod conv;
mod devices;
pub(crate) mod diagonals;
mod factories;
pub(crate) mod fold;
mod init;
pub(crate) mod lazy;
pub(crate) mod losses;
pub(crate) mod masked;
pub(crate) mod math;
mod memory;
pub(crate) mod nn;
mod parallel;
pub(crate) mod param_vector;
pub(crate) mod pointwise;
pub(crate) mod pool;
pub(crate) mod products;
pub(crate) mod python;
pub(crate) mod resize;
mod rnn_utils;
mod roll;
pub(crate) mod sampling;
mod teaching;
pub(crate) mod torch_generator;
mod transformer;
mod trunc_normal;
pub(crate) mod unique;

use super::args::{bind, ArgVal, Bound};
use super::docs::Doc;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::Device;

/// A builtin's handler: the name it was called by (one handler serves a
/// family: `zeros`, `ones`, `empty`) and its bound arguments.
type Handler = fn(&mut Interp, &'static str, &Bound) -> Result<Value, Diagnostic>;

/// Every builtin function, by name.
static BUILTINS: &[(&str, Handler)] = &[
    ("tensor", factories::tensor),
    ("as_tensor", factories::as_tensor),
    ("Tensor", factories::legacy_tensor),
    ("FloatTensor", factories::legacy_tensor),
    ("LongTensor", factories::legacy_tensor),
    ("IntTensor", factories::legacy_tensor),
    ("ByteTensor", factories::legacy_tensor),
    ("DoubleTensor", factories::legacy_tensor),
    ("HalfTensor", factories::legacy_tensor),
    ("BoolTensor", factories::legacy_tensor),
    ("zeros", factories::filled),
    ("ones", factories::filled),
    ("empty", factories::filled),
    ("empty_strided", factories::empty_strided),
    ("full", factories::full),
    ("arange", factories::arange),
    ("linspace", factories::linspace),
    ("logspace", factories::logspace),
    ("eye", factories::eye),
    ("rand", factories::random),
    ("randn", factories::random),
    ("randint", factories::randint),
    ("zeros_like", factories::like),
    ("ones_like", factories::like),
    ("full_like", factories::like),
    ("empty_like", factories::like),
    ("rand_like", factories::like),
    ("randn_like", factories::like),
    ("sparse_coo_tensor", sparse_coo_tensor),
    ("spmm", math::product),
    ("sparse_mm", math::product),
    ("sparse_sum", sparse_sum),
    ("cat", factories::join),
    ("stack", factories::join),
    ("seed", factories::seed),
    ("manual_seed", factories::seed),
    ("manual_seed_all", factories::seed),
    ("sum", math::reduce),
    ("mean", math::reduce),
    ("max", math::reduce),
    ("min", math::reduce),
    ("argmax", math::reduce),
    ("argmin", math::reduce),
    ("prod", math::reduce),
    ("exp", math::unary),
    ("log", math::unary),
    ("sqrt", math::unary),
    ("abs", math::unary),
    ("neg", math::unary),
    ("relu", math::unary),
    ("relu_", math::unary_in_place),
    ("sigmoid", math::unary),
    ("tanh", math::unary),
    ("erf", math::unary),
    ("erfinv", math::unary),
    ("log1p", math::unary),
    ("silu", math::unary),
    ("mish", math::unary),
    ("gelu", super::grad::gelu),
    ("sin", math::unary),
    ("cos", math::unary),
    ("floor", math::unary),
    ("ceil", math::unary),
    ("round", math::unary),
    ("trunc", math::unary),
    ("rsqrt", math::unary),
    ("sign", math::unary),
    ("tan", math::unary),
    ("atan", math::unary),
    ("asin", math::unary),
    ("acos", math::unary),
    ("sinh", math::unary),
    ("cosh", math::unary),
    ("reciprocal", math::unary),
    ("log2", math::unary),
    ("log10", math::unary),
    ("expm1", math::unary),
    ("exp2", math::unary),
    ("arctan", math::unary),
    ("arcsin", math::unary),
    ("arccos", math::unary),
    ("matmul", math::matmul),
    ("mm", math::product),
    ("equal", math::equal_allclose),
    ("allclose", math::equal_allclose),
    ("isclose", math::isclose),
    ("bmm", math::product),
    ("mv", math::product),
    ("dot", math::dot),
    ("pow", math::pow),
    ("maximum", pointwise::binary),
    ("minimum", pointwise::binary),
    ("floor_divide", pointwise::binary),
    ("remainder", pointwise::binary),
    ("fmod", pointwise::binary),
    ("logical_and", pointwise::binary),
    ("logical_or", pointwise::binary),
    ("logical_xor", pointwise::binary),
    ("logical_not", pointwise::unary),
    ("isnan", pointwise::unary),
    ("nan_to_num", pointwise::nan_to_num),
    ("hstack", combine::stack_family),
    ("vstack", combine::stack_family),
    ("row_stack", combine::stack_family),
    ("dstack", combine::stack_family),
    ("column_stack", combine::stack_family),
    ("one_hot", combine::one_hot),
    ("einsum", combine::einsum),
    ("pad", combine::pad),
    ("normalize", combine::normalize),
    ("cosine_similarity", combine::cosine_similarity),
    ("is_tensor", combine::is_tensor),
    ("bitwise_not", pointwise::unary),
    ("bitwise_and", pointwise::binary),
    ("bitwise_or", pointwise::binary),
    ("bitwise_xor", pointwise::binary),
    ("bitwise_left_shift", pointwise::binary),
    ("bitwise_right_shift", pointwise::binary),
    ("where", pointwise::where_),
    ("masked_fill", masked::masked_fill),
    ("roll", roll::roll),
    ("clamp", pointwise::clamp),
    ("cumsum", along::call),
    ("cumprod", along::call),
    ("softmax", along::call),
    ("log_softmax", along::call),
    ("var", along::call),
    ("var_mean", along::call),
    ("std_mean", along::call),
    ("median", along::call),
    ("nanmedian", along::call),
    ("std", along::call),
    ("norm", along::call),
    ("unique", unique::unique),
    ("diag", diagonals::function),
    ("addmm", products::function),
    ("addmv", products::function),
    ("baddbmm", products::function),
    ("addbmm", products::function),
    ("kron", products::function),
    ("dist", products::function),
    ("cdist", products::function),
    ("diagonal", diagonals::function),
    ("diag_embed", diagonals::function),
    ("trace", diagonals::function),
    ("vector_norm", along::call),
    ("linalg_norm", along::call),
    ("sort", along::call),
    ("argsort", along::call),
    ("topk", along::call),
    ("tril", along::call),
    ("triu", along::call),
    ("nonzero", along::call),
    ("argwhere", along::call),
    ("device", devices::device),
    ("devices", devices::list),
    ("device_count", devices::count),
    ("current_device", devices::current),
    ("set_device", devices::set_device),
    ("is_available", devices::is_available),
    ("get_device_name", devices::name),
    ("stream", devices::stream),
    ("current_stream", devices::current_stream),
    ("synchronize", devices::synchronize),
    ("event", devices::event),
    ("scatter", devices::scatter),
    ("gather", devices::gather),
    ("replicate", devices::replicate),
    ("DataParallel", parallel::data_parallel),
    (
        "DistributedDataParallel",
        crate::eval::ddp::distributed_data_parallel,
    ),
    ("parallel_apply", parallel::parallel_apply),
    ("all_reduce", collectives::all_reduce),
    ("reduce_scatter", collectives::reduce_scatter),
    ("all_gather", collectives::all_gather),
    ("broadcast", collectives::broadcast),
    ("spawn", crate::eval::distributed::spawn),
    (
        "init_process_group",
        crate::eval::distributed::init_process_group,
    ),
    ("get_rank", crate::eval::distributed::group_query),
    ("get_world_size", crate::eval::distributed::group_query),
    ("is_initialized", crate::eval::distributed::group_query),
    (
        "destroy_process_group",
        crate::eval::distributed::group_query,
    ),
    ("barrier", crate::eval::distributed::group_query),
    ("send", crate::eval::distributed::send_recv),
    ("recv", crate::eval::distributed::send_recv),
    ("isend", crate::eval::distributed::send_recv),
    ("irecv", crate::eval::distributed::send_recv),
    ("new_group", crate::eval::distributed::new_group),
    ("reduce", crate::eval::distributed::rooted),
    ("dist_gather", crate::eval::distributed::rooted),
    ("dist_scatter", crate::eval::distributed::rooted),
    ("empty_cache", memory::empty_cache),
    ("reset_peak", memory::reset_peak),
    (
        "set_per_process_memory_fraction",
        memory::set_memory_fraction,
    ),
    ("reset_peak_memory_stats", memory::reset_peak),
    ("reset_accumulated_memory_stats", memory::reset_accumulated),
    ("memory_summary", memory::summary),
    ("set_allocator_settings", memory::set_allocator_settings),
    ("memory_allocated", memory::stat),
    ("max_memory_allocated", memory::stat),
    ("memory_reserved", memory::stat),
    ("max_memory_reserved", memory::stat),
    ("memory_stats", memory::stats),
    ("record_memory_history", memory::record_memory_history),
    ("dump_snapshot", memory::dump_snapshot),
    ("save", teaching::save),
    ("load", teaching::load),
    ("print", teaching::print),
    ("clear_output", teaching::clear_output),
    ("sleep", teaching::sleep),
    ("len", teaching::len),
    ("id", python::id),
    ("hash", python::hash),
    ("enumerate", teaching::enumerate),
    ("range", teaching::range),
    ("str", python::str_or_repr),
    ("bytes", python::bytes_builtin),
    ("slice", python::slice_builtin),
    ("repr", python::str_or_repr),
    ("format", python::format_builtin),
    ("int", python::number),
    ("float", python::number),
    ("zip", python::zip),
    ("tuple", python::tuple),
    ("dict", python::dict),
    ("set", super::methods::set::set),
    ("sorted", python::sorted),
    ("reversed", python::reversed),
    ("any", python::any_all),
    ("iter", python::iter),
    ("map", python::map),
    ("filter", python::filter),
    ("next", python::next),
    ("all", python::any_all),
    ("staticmethod", python::method_kind),
    ("classmethod", python::method_kind),
    ("property", python::method_kind),
    ("getattr", python::getattr),
    ("hasattr", python::getattr),
    ("callable", python::callable),
    ("globals", crate::eval::exec::globals),
    ("exec", crate::eval::exec::exec),
    ("eval", crate::eval::exec::eval),
    ("divmod", python::divmod),
    ("chr", python::chr_ord),
    ("bin", python::radix),
    ("hex", python::radix),
    ("oct", python::radix),
    ("ord", python::chr_ord),
    ("frozenset", super::methods::set::frozenset),
    ("setattr", python::setattr),
    ("delattr", python::delattr),
    ("list", teaching::list),
    ("TensorDataset", super::data::tensor_dataset),
    ("Dataset", super::data::dataset),
    ("DataLoader", super::data::data_loader),
    ("DistributedSampler", super::data::distributed_sampler),
    ("RandomSampler", super::data::random_sampler),
    ("SequentialSampler", super::data::sequential_sampler),
    ("SubsetRandomSampler", super::data::subset_random_sampler),
    (
        "WeightedRandomSampler",
        super::data::weighted_random_sampler,
    ),
    ("BatchSampler", super::samplers::batch_sampler),
    ("Sampler", super::samplers::sampler_base),
    ("Subset", super::subset::subset),
    ("random_split", super::subset::random_split),
    ("SGD", super::grad::sgd),
    ("backward", super::grad::backward_of_many),
    ("grad", super::grad::grad_of),
    ("Variable", super::grad::variable),
    ("queue_callback", super::hooks::queue_callback),
    ("Adam", super::grad::adam),
    ("AdamW", super::grad::adam),
    ("RMSprop", super::grad::rmsprop),
    ("Adagrad", super::grad::adagrad),
    ("Adadelta", super::grad::adadelta),
    ("Adamax", super::grad::adam),
    ("RAdam", super::grad::adam),
    ("NAdam", super::grad::adam),
    ("StepLR", super::schedule::scheduler),
    ("ReduceLROnPlateau", super::schedule::plateau),
    ("MultiStepLR", super::schedule::scheduler),
    ("ExponentialLR", super::schedule::scheduler),
    ("CosineAnnealingLR", super::schedule::scheduler),
    ("LambdaLR", super::schedule::scheduler),
    ("OneCycleLR", super::schedule::scheduler),
    ("CyclicLR", super::schedule::scheduler),
    ("ConstantLR", super::schedule::scheduler),
    ("LinearLR", super::schedule::scheduler),
    ("PolynomialLR", super::schedule::scheduler),
    ("MultiplicativeLR", super::schedule::scheduler),
    ("CosineAnnealingWarmRestarts", super::schedule::scheduler),
    ("SequentialLR", super::schedule::combined),
    ("ChainedScheduler", super::schedule::combined),
    ("pad_sequence", rnn_utils::pad_sequence),
    ("clip_grad_norm_", super::schedule::clip_grad_norm_),
    ("parameters_to_vector", param_vector::parameters_to_vector),
    ("vector_to_parameters", param_vector::vector_to_parameters),
    ("autocast", super::amp::autocast),
    ("GradScaler", super::amp::grad_scaler),
    ("ArgumentParser", super::cmdline::argument_parser),
    ("vars", super::cmdline::vars),
    ("clip_grad_value_", super::schedule::clip_grad_value_),
    ("mse_loss", super::grad::mse_loss),
    ("binary_cross_entropy", losses::functional_loss),
    ("binary_cross_entropy_with_logits", losses::functional_loss),
    ("l1_loss", losses::functional_loss),
    ("smooth_l1_loss", losses::functional_loss),
    ("huber_loss", losses::functional_loss),
    ("nll_loss", super::grad::nll_loss),
    ("cross_entropy", super::grad::cross_entropy),
    ("linear", super::grad::linear),
    ("dropout", super::grad::dropout),
    (
        "scaled_dot_product_attention",
        super::grad::scaled_dot_product_attention,
    ),
    ("dropout2d", super::grad::dropout2d),
    ("Module", nn::layer),
    ("Function", nn::autograd_function),
    ("Linear", nn::layer),
    ("ReLU", nn::layer),
    ("Tanh", nn::layer),
    ("Sigmoid", nn::layer),
    ("Identity", nn::layer),
    ("Flatten", nn::layer),
    ("Dropout", nn::layer),
    ("Dropout2d", nn::layer),
    ("GELU", nn::layer),
    ("SiLU", nn::layer),
    ("Mish", nn::layer),
    ("Softmax", nn::layer),
    ("LogSoftmax", nn::layer),
    ("Sequential", nn::layer),
    ("ModuleList", nn::layer),
    ("ModuleDict", nn::layer),
    ("Softmax2d", nn::layer),
    ("Bilinear", nn::layer),
    ("EmbeddingBag", nn::layer),
    ("embedding_bag", super::grad::embedding_bag),
    ("bilinear", super::grad::bilinear),
    ("ParameterList", super::param_containers::constructor),
    ("ParameterDict", super::param_containers::constructor),
    ("Embedding", nn::layer),
    ("embedding", nn::embedding),
    ("BatchNorm1d", nn::layer),
    ("BatchNorm2d", nn::layer),
    ("LazyLinear", lazy::layer),
    ("LazyConv1d", lazy::layer),
    ("LazyConv2d", lazy::layer),
    ("LazyBatchNorm1d", lazy::layer),
    ("LazyBatchNorm2d", lazy::layer),
    ("LazyBatchNorm3d", lazy::layer),
    ("batch_norm", nn::batch_norm),
    ("InstanceNorm1d", nn::layer),
    ("InstanceNorm2d", nn::layer),
    ("InstanceNorm3d", nn::layer),
    ("BatchNorm3d", nn::layer),
    ("GroupNorm", nn::layer),
    ("group_norm", nn::group_norm),
    ("instance_norm", nn::instance_norm),
    ("LayerNorm", nn::layer),
    ("layer_norm", nn::layer_norm),
    ("RMSNorm", nn::layer),
    ("rms_norm", nn::rms_norm),
    ("Upsample", resize::layer),
    ("UpsamplingNearest2d", resize::layer),
    ("UpsamplingBilinear2d", resize::layer),
    ("PixelShuffle", resize::layer),
    ("PixelUnshuffle", resize::layer),
    ("Unflatten", resize::layer),
    ("ZeroPad1d", resize::layer),
    ("ZeroPad2d", resize::layer),
    ("ConstantPad1d", resize::layer),
    ("ConstantPad2d", resize::layer),
    ("ReflectionPad1d", resize::layer),
    ("ReflectionPad2d", resize::layer),
    ("ReplicationPad1d", resize::layer),
    ("ReplicationPad2d", resize::layer),
    ("CircularPad1d", resize::layer),
    ("CircularPad2d", resize::layer),
    ("interpolate", resize::interpolate),
    ("upsample", resize::interpolate),
    ("pixel_shuffle", resize::pixel_shuffle),
    ("pixel_unshuffle", resize::pixel_shuffle),
    ("unfold", fold::function),
    ("fold", fold::function),
    ("Unfold", fold::layer),
    ("Fold", fold::layer),
    ("Conv1d", conv::layer),
    ("Conv2d", conv::layer),
    ("ConvTranspose1d", conv::layer),
    ("ConvTranspose2d", conv::layer),
    ("MaxPool1d", pool::layer),
    ("MaxPool2d", pool::layer),
    ("MaxUnpool1d", pool::layer),
    ("MaxUnpool2d", pool::layer),
    ("AvgPool1d", pool::layer),
    ("AvgPool2d", pool::layer),
    ("AdaptiveAvgPool1d", pool::layer),
    ("AdaptiveAvgPool2d", pool::layer),
    ("AdaptiveMaxPool1d", pool::layer),
    ("AdaptiveMaxPool2d", pool::layer),
    ("conv1d", conv::function),
    ("conv2d", conv::function),
    ("conv_transpose1d", conv::function),
    ("conv_transpose2d", conv::function),
    ("max_pool1d", pool::function),
    ("max_pool2d", pool::function),
    ("max_pool1d_with_indices", pool::function),
    ("max_pool2d_with_indices", pool::function),
    ("max_unpool1d", pool::unpool),
    ("max_unpool2d", pool::unpool),
    ("avg_pool1d", pool::function),
    ("avg_pool2d", pool::function),
    ("adaptive_avg_pool1d", pool::adaptive),
    ("adaptive_avg_pool2d", pool::adaptive),
    ("adaptive_max_pool1d", pool::adaptive),
    ("adaptive_max_pool2d", pool::adaptive),
    ("MSELoss", nn::layer),
    ("LeakyReLU", activations::layer),
    ("LSTM", nn::layer),
    ("GRU", nn::layer),
    ("RNN", nn::layer),
    ("LSTMCell", nn::layer),
    ("GRUCell", nn::layer),
    ("RNNCell", nn::layer),
    ("MultiheadAttention", transformer::layer),
    ("TransformerEncoderLayer", transformer::layer),
    ("TransformerDecoderLayer", transformer::layer),
    ("TransformerEncoder", transformer::layer),
    ("TransformerDecoder", transformer::layer),
    ("Transformer", transformer::layer),
    (
        "generate_square_subsequent_mask",
        transformer::square_subsequent_mask,
    ),
    ("ELU", activations::layer),
    ("SELU", activations::layer),
    ("CELU", activations::layer),
    ("Softplus", activations::layer),
    ("Hardtanh", activations::layer),
    ("ReLU6", activations::layer),
    ("LogSigmoid", activations::layer),
    ("Hardswish", activations::layer),
    ("Hardsigmoid", activations::layer),
    ("Hardshrink", activations::layer),
    ("Softshrink", activations::layer),
    ("Threshold", activations::layer),
    ("Softsign", activations::layer),
    ("Tanhshrink", activations::layer),
    ("Softmin", activations::layer),
    ("GLU", activations::layer),
    ("PReLU", activations::layer),
    ("elu", activations::function),
    ("elu_", activations::function),
    ("selu", activations::function),
    ("selu_", activations::function),
    ("celu", activations::function),
    ("celu_", activations::function),
    ("softplus", activations::function),
    ("hardtanh", activations::function),
    ("hardtanh_", activations::function),
    ("relu6", activations::function),
    ("leaky_relu", activations::function),
    ("leaky_relu_", activations::function),
    ("logsigmoid", activations::function),
    ("hardswish", activations::function),
    ("hardsigmoid", activations::function),
    ("hardshrink", activations::function),
    ("softshrink", activations::function),
    ("threshold", activations::function),
    ("threshold_", activations::function),
    ("softsign", activations::composite),
    ("tanhshrink", activations::composite),
    ("softmin", activations::composite),
    ("glu", activations::composite),
    ("prelu", activations::composite),
    ("KLDivLoss", composed_losses::layer),
    ("kl_div", composed_losses::function),
    ("MarginRankingLoss", composed_losses::layer),
    ("margin_ranking_loss", composed_losses::function),
    ("HingeEmbeddingLoss", composed_losses::layer),
    ("hinge_embedding_loss", composed_losses::function),
    ("CosineEmbeddingLoss", composed_losses::layer),
    ("cosine_embedding_loss", composed_losses::function),
    ("TripletMarginLoss", composed_losses::layer),
    ("triplet_margin_loss", composed_losses::function),
    ("MultiLabelSoftMarginLoss", composed_losses::layer),
    ("multilabel_soft_margin_loss", composed_losses::function),
    ("PoissonNLLLoss", composed_losses::layer),
    ("poisson_nll_loss", composed_losses::function),
    ("GaussianNLLLoss", composed_losses::layer),
    ("gaussian_nll_loss", composed_losses::function),
    ("PairwiseDistance", composed_losses::layer),
    ("CosineSimilarity", composed_losses::layer),
    ("pairwise_distance", composed_losses::function),
    ("SoftMarginLoss", losses::loss_module),
    ("soft_margin_loss", losses::functional_loss),
    ("BCELoss", losses::loss_module),
    ("BCEWithLogitsLoss", losses::loss_module),
    ("L1Loss", losses::loss_module),
    ("SmoothL1Loss", losses::loss_module),
    ("HuberLoss", losses::loss_module),
    ("CrossEntropyLoss", nn::layer),
    ("NLLLoss", nn::layer),
    ("Parameter", nn::parameter),
    ("UninitializedParameter", lazy::uninitialized),
    ("UninitializedBuffer", lazy::uninitialized),
    ("uniform_", init::init),
    ("normal_", init::init),
    ("zeros_", init::init),
    ("ones_", init::init),
    ("constant_", init::init),
    ("xavier_uniform_", init::init),
    ("orthogonal_", init::init),
    ("xavier_normal_", init::init),
    ("kaiming_uniform_", init::init),
    ("kaiming_normal_", init::init),
    ("trunc_normal_", init::init),
    ("calculate_gain", init::calculate_gain),
    ("isinstance", nn::isinstance),
    ("issubclass", nn::issubclass),
    ("type", nn::type_),
    ("open", super::files::open),
    ("multinomial", sampling::multinomial),
    ("bernoulli", sampling::bernoulli),
    ("randint_like", sampling::randint_like),
    ("randperm", sampling::randperm),
    ("Generator", torch_generator::generator),
    ("super", nn::super_),
    ("flatten", nn::flatten),
];

impl Interp {
    pub(crate) fn call_builtin(
        &mut self,
        doc: &'static Doc,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let handler = handler(doc.name).ok_or_else(|| {
            Error::value(format!("internal error: `{}` has no handler", doc.name)).at(span)
        })?;
        // `print(cuda)` shows `cuda`, and `device("cuda")` is `cuda`, as
        // `torch.device("cuda")` has no index; Python's builtins of any
        // object keep a string a string (`str("cpu")` is 'cpu', as argparse's
        // `type=str` makes it); every other builtin takes `"cuda"` as the
        // current device.
        let args = match doc.name {
            "print" | "device" | "str" | "repr" | "len" | "type" | "format" | "open"
            | "isinstance" | "issubclass" | "callable" | "hash" | "getattr" | "hasattr"
            | "setattr" | "delattr" => args,
            _ => self.resolve_args(args),
        };
        // A sparse tensor among the arguments: PyTorch's sparse kernels
        // (`sparse.rs`), or the error that names `.to_dense()`.
        if let Some(r) = self.sparse_builtin(doc.name, &args, span) {
            self.begin_op(doc.name);
            return r;
        }
        // An instance with `__iter__` is iterated through it where Python's
        // builtins iterate (`list(stream)`, `iter(stream)`).
        let args = match doc.name {
            "list" | "tuple" | "sorted" | "reversed" | "sum" | "set" | "zip" | "min" | "max"
            | "any" | "all" | "enumerate" | "iter" | "dict" => args
                .into_iter()
                .map(|mut a| {
                    a.value = self.iter_method(a.value, a.span)?;
                    Ok(a)
                })
                .collect::<Result<Vec<_>, Diagnostic>>()?,
            _ => args,
        };
        // A generator is run to its end for what reads a sequence whole
        // (`list(g)`, `sum(g)`, `torch.stack(g)`); these take it as it is.
        let args = match doc.name {
            "next" | "iter" | "map" | "filter" | "enumerate" | "print" | "str" | "repr" | "len"
            | "type" | "format" | "isinstance" | "id" | "callable" | "hash" => args,
            _ => self.drain_generators(args)?,
        };
        // A NumPy array as a factory's data is the tensor under it
        // (`torch.tensor(a)` copies it, `torch.as_tensor(a)` shares it).
        let args = match doc.name {
            "tensor" | "as_tensor" | "Tensor" | "FloatTensor" | "LongTensor" | "IntTensor"
            | "ByteTensor" | "DoubleTensor" | "HalfTensor" | "BoolTensor" | "sparse_coo_tensor" => {
                self.arrays_as_tensors(args)?
            }
            _ => args,
        };
        // `out=` of a torch function (`torch.matmul(a, b, out=y)`): the
        // result written into it (`out_arg.rs`).
        let mut args = args;
        // (`layout=` is not `out=`: a factory's `torch.rand(2, out=c)`.)
        let own_out = doc.signature.contains(", out=") || doc.signature.contains("(out=");
        let out = match own_out {
            true => None,
            false => super::out_arg::take_out(&mut args),
        };
        // A factory's `out=` gives its device and dtype (`torch.rand(2, 2,
        // out=z)` draws on z's device), as PyTorch's factories take them.
        let factory = doc.signature.contains(" device=");
        if let (Some((Value::Tensor(o), at)), true) = (&out, factory) {
            for (param, value) in [
                ("device", Value::device(o.device())),
                ("dtype", Value::dtype(o.dtype())),
            ] {
                let given = args
                    .iter()
                    .any(|a| a.keyword.as_ref().is_some_and(|k| k.name == param));
                if !given {
                    args.push(ArgVal {
                        keyword: Some(crate::lang::ast::Name::new(param.into(), *at)),
                        value,
                        span: *at,
                    });
                }
            }
        }
        let b = bind(doc, args, span)?;
        self.begin_doc_op(doc);
        let v = match torch_generator::draws(doc.name, false) {
            true => self.drawing_from(&b, None, |me| handler(me, doc.name, &b))?,
            false => handler(self, doc.name, &b)?,
        };
        let v = match out {
            Some(out) => return self.write_out(doc.name, v, out),
            None => v,
        };
        // Autograd's check (`grad.rs`), where the result holds a tensor:
        // `len(xs)` never reads the list's items.
        if super::grad::holds_tensor(&v) && self.grad_inputs(b.values()) {
            self.check_recorded(doc.name, b.values(), &v, span)?;
        }
        let v = self.factory_memory(v, &b)?;
        match b.get("requires_grad") {
            Some(_) => super::grad::factory_requires_grad(v, &b),
            None => Ok(v),
        }
    }

    /// A factory's `layout=` (a dense tensor's, `torch.strided`: cudash
    /// makes a sparse one with `sparse_coo_tensor` or `x.to_sparse()`) and
    /// `pin_memory=True` (the tensor in page-locked host memory, where
    /// PyTorch allocates it).
    fn factory_memory(&mut self, v: Value, b: &Bound) -> Result<Value, Diagnostic> {
        if let Some((Value::Object(o), span)) = b.get("layout") {
            if !matches!(o.get("_name"), Some(Value::Str(s)) if s.as_str() == "strided") {
                return Err(Error::value_help(
                    "a factory makes a dense tensor (`layout=torch.strided`)",
                    "make a sparse COO tensor with `torch.sparse_coo_tensor(indices, values)` or \
                     `x.to_sparse()`",
                )
                .at(*span));
            }
        }
        if !b.bool("pin_memory", false)? {
            return Ok(v);
        }
        match v {
            Value::Tensor(t) if t.device().is_cuda() => Err(Error::Module {
                class: "RuntimeError",
                message: "Only dense CPU tensors can be pinned".into(),
                help: Some(
                    "pin_memory=True makes a host tensor: leave out device=, then copy it with \
                     `.to(device, non_blocking=True)`"
                        .into(),
                ),
            }
            .at(b.span_of("pin_memory"))),
            Value::Tensor(t) if t.is_pinned() => Ok(Value::Tensor(t)),
            Value::Tensor(t) => b.result(self.rt.pinned_copy(&t)),
            other => Ok(other),
        }
    }

    /// `device=` of a factory: cpu unless given; a device must exist.
    fn device_arg(&self, b: &Bound) -> Result<Device, Diagnostic> {
        match b.device("device")? {
            None => self
                .rt
                .check_device(self.default_device())
                .map_err(|e| e.at(b.span)),
            Some(d) => {
                let span = b.span_of("device");
                self.rt.check_device(d).map_err(|e| e.at(span))
            }
        }
    }
}

fn handler(name: &str) -> Option<Handler> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, h)| *h)
}

/// `torch.sparse_coo_tensor(indices, values, size, ...)`.
fn sparse_coo_tensor(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    me.sparse_coo_tensor(b)
}

/// `torch.sparse.sum(input)` of a dense tensor: its sum, as
/// `torch.sum` (a sparse input is taken by `sparse_builtin`).
fn sparse_sum(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    math::reduce(me, "sum", b)
}

#[cfg(test)]
mod tests {
    use super::super::docs::{Kind, DOCS};
    use super::*;

    #[test]
    fn every_documented_builtin_has_one_handler_and_every_handler_a_doc() {
        for d in DOCS.iter().filter(|d| d.kind == Kind::Function) {
            let n = BUILTINS.iter().filter(|(n, _)| *n == d.name).count();
            assert_eq!(n, 1, "`{}` is documented; handlers: {n}", d.name);
        }
        for (name, _) in BUILTINS {
            assert!(
                DOCS.iter()
                    .any(|d| d.kind == Kind::Function && d.name == *name),
                "`{name}` has a handler but no doc"
            );
        }
    }
}
