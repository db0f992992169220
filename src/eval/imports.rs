//! The Python modules a PyTorch program imports: `import torch`, `import
//! torch.nn as nn`, `from torch.utils.data import DataLoader`, `import
//! time`. A module is a namespace whose attributes are cudash's builtins
//! under PyTorch's names (`torch.zeros` is `zeros`, `nn.Linear` is
//! `Linear`, `optim.SGD` is `SGD`), its dtypes (`torch.float32`), its
//! submodules, and the few functions of Python's own modules a training
//! script uses (`time.time`, `math.sqrt`, `os.environ`). A name PyTorch has
//! that cudash lacks is an `AttributeError` that says so: never a stand-in.

use crate::eval::value::PyDict;
use std::sync::Arc;

use super::args::ArgVal;
use super::docs::{self, Doc};
use super::spelling;
use super::value::{GradSetting, Native, PyModule, Word};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::lock::lock;
use crate::runtime::DType;
use crate::vocab::Span;

/// Every module cudash gives (the parents of each are in it too).
pub static MODULES: &[PyModule] = &[
    PyModule { path: "torch" },
    PyModule { path: "torch.nn" },
    PyModule {
        path: "torch.nn.functional",
    },
    PyModule {
        path: "torch.nn.init",
    },
    PyModule {
        path: "torch.nn.utils",
    },
    PyModule {
        path: "torch.nn.utils.rnn",
    },
    PyModule {
        path: "torch.linalg",
    },
    PyModule {
        path: "torch.nn.parallel",
    },
    PyModule { path: "torch.cuda" },
    PyModule {
        path: "torch.random",
    },
    PyModule { path: "torch.amp" },
    PyModule {
        path: "torch.sparse",
    },
    PyModule {
        path: "torch.cuda.amp",
    },
    PyModule {
        path: "torch.accelerator",
    },
    PyModule {
        path: "torch.cuda.memory",
    },
    PyModule { path: "torch._C" },
    PyModule {
        path: "torch._C._profiler",
    },
    PyModule {
        path: "torch.cuda.comm",
    },
    PyModule {
        path: "torch.optim",
    },
    PyModule {
        path: "torch.optim.lr_scheduler",
    },
    PyModule {
        path: "torch.utils",
    },
    PyModule {
        path: "torch.utils.data",
    },
    PyModule {
        path: "torch.utils.data.distributed",
    },
    PyModule {
        path: "torch.utils.data.dataloader",
    },
    PyModule {
        path: "torch.utils.data.dataset",
    },
    PyModule {
        path: "torch.utils.data.sampler",
    },
    PyModule {
        path: "torch.distributed",
    },
    // `dist.ReduceOp.SUM` is the reduction's name, as `op="sum"` takes it.
    PyModule {
        path: "torch.distributed.ReduceOp",
    },
    PyModule {
        path: "torch.multiprocessing",
    },
    PyModule {
        path: "torch.autograd",
    },
    PyModule { path: "time" },
    // `from __future__ import print_function`: already so.
    PyModule { path: "__future__" },
    PyModule { path: "math" },
    PyModule { path: "os" },
    PyModule { path: "glob" },
    // `gzip.open(path, "rb")` for `pickle.load`; `shutil`'s file copies.
    PyModule { path: "gzip" },
    // `struct.unpack(">IIII", f.read(16))`: numbers in bytes.
    PyModule { path: "struct" },
    PyModule { path: "shutil" },
    PyModule { path: "string" },
    PyModule { path: "os.path" },
    PyModule { path: "gc" },
    PyModule {
        path: "unicodedata",
    },
    // What cudash's own Python modules (`stdlib/inspect.py`) ask of the
    // interpreter.
    PyModule { path: "_cudash" },
    PyModule { path: "sys" },
    PyModule { path: "random" },
    PyModule { path: "itertools" },
    PyModule { path: "copy" },
    PyModule { path: "json" },
    // `pickle.dump(obj, f)`, `pickle.load(f)` of Python's values.
    PyModule { path: "pickle" },
    PyModule { path: "argparse" },
    // `from ast import literal_eval` (nanoGPT's configurator).
    PyModule { path: "ast" },
    // `OrderedDict`: a dict (cudash's keep their order, as Python's since 3.7).
    PyModule {
        path: "collections",
    },
    // `from io import open`: Python 2's way to Python 3's `open`.
    PyModule { path: "io" },
    PyModule {
        path: "torch.backends",
    },
    PyModule {
        path: "torch.backends.cudnn",
    },
    // `torch.backends.cuda.matmul.allow_tf32 = True` (nanoGPT): a flag.
    PyModule {
        path: "torch.backends.cuda",
    },
    PyModule {
        path: "torch.backends.cuda.matmul",
    },
    // Apple's GPUs: none here (`"mps" if torch.backends.mps.is_available()`).
    PyModule {
        path: "torch.backends.mps",
    },
    // oneDNN, which PyTorch's CPU wheels run an LSTM with: not cudash's
    // (`enabled = False` asks PyTorch for its own kernels, as cudash's are).
    PyModule {
        path: "torch.backends.mkldnn",
    },
    // Intel's GPUs: none here (`elif torch.xpu.is_available():`).
    PyModule { path: "torch.xpu" },
    // `torch.version.cuda`: the versions cudash stands for.
    PyModule {
        path: "torch.version",
    },
    // Imported at the top of programs that export only when asked
    // (word_language_model's `--onnx-export`): it imports, and each of
    // its functions is an AttributeError that says cudash has none.
    PyModule { path: "torch.onnx" },
];

/// `torch.X(input, ...)` of a tensor method `X` (PyTorch's functions of
/// the same name and arguments): `input.X(...)`, when cudash has no
/// function `X` of its own. Only the names PyTorch has as functions
/// (`torch.view` stays an error, as in PyTorch).
static TENSOR_FUNCTIONS: &[Native] = &[
    Native { name: "torch.abs" },
    Native { name: "torch.exp_" },
    Native { name: "torch.log_" },
    Native {
        name: "torch.sqrt_",
    },
    Native { name: "torch.abs_" },
    Native { name: "torch.neg_" },
    Native {
        name: "torch.relu_",
    },
    Native {
        name: "torch.sigmoid_",
    },
    Native {
        name: "torch.tanh_",
    },
    Native { name: "torch.erf_" },
    Native {
        name: "torch.log1p_",
    },
    Native { name: "torch.sin_" },
    Native { name: "torch.cos_" },
    Native {
        name: "torch.floor_",
    },
    Native {
        name: "torch.ceil_",
    },
    Native {
        name: "torch.round_",
    },
    Native {
        name: "torch.trunc_",
    },
    Native {
        name: "torch.rsqrt_",
    },
    Native { name: "torch.tan_" },
    Native {
        name: "torch.atan_",
    },
    Native {
        name: "torch.asin_",
    },
    Native {
        name: "torch.acos_",
    },
    Native {
        name: "torch.sinh_",
    },
    Native {
        name: "torch.cosh_",
    },
    Native {
        name: "torch.reciprocal_",
    },
    Native {
        name: "torch.log2_",
    },
    Native {
        name: "torch.log10_",
    },
    Native {
        name: "torch.expm1_",
    },
    Native {
        name: "torch.exp2_",
    },
    Native {
        name: "torch.arctan_",
    },
    Native {
        name: "torch.arcsin_",
    },
    Native {
        name: "torch.arccos_",
    },
    Native { name: "torch.amax" },
    Native { name: "torch.amin" },
    Native {
        name: "torch.logsumexp",
    },
    Native {
        name: "torch.addcmul",
    },
    Native {
        name: "torch.addcdiv",
    },
    Native { name: "torch.lerp" },
    Native {
        name: "torch.outer",
    },
    Native { name: "torch.ger" },
    Native {
        name: "torch.repeat_interleave",
    },
    Native {
        name: "torch.count_nonzero",
    },
    Native {
        name: "torch.isinf",
    },
    Native {
        name: "torch.isposinf",
    },
    Native {
        name: "torch.isneginf",
    },
    Native {
        name: "torch.isfinite",
    },
    Native { name: "torch.clip" },
    Native {
        name: "torch.ravel",
    },
    Native {
        name: "torch.gather",
    },
    Native {
        name: "torch.scatter",
    },
    Native {
        name: "torch.scatter_add",
    },
    Native {
        name: "torch.index_select",
    },
    Native {
        name: "torch.masked_select",
    },
    Native { name: "torch.add" },
    Native { name: "torch.all" },
    Native { name: "torch.any" },
    Native {
        name: "torch.argmax",
    },
    Native {
        name: "torch.argmin",
    },
    Native {
        name: "torch.argsort",
    },
    Native {
        name: "torch.argwhere",
    },
    Native {
        name: "torch.bitwise_not",
    },
    Native {
        name: "torch.bitwise_and",
    },
    Native { name: "torch.fmod" },
    Native {
        name: "torch.bitwise_or",
    },
    Native {
        name: "torch.bitwise_xor",
    },
    Native { name: "torch.bmm" },
    Native { name: "torch.ceil" },
    Native {
        name: "torch.chunk",
    },
    Native {
        name: "torch.clamp",
    },
    Native {
        name: "torch.clamp_",
    },
    Native {
        name: "torch.clamp_max",
    },
    Native {
        name: "torch.clamp_min",
    },
    Native {
        name: "torch.clone",
    },
    Native { name: "torch.cos" },
    Native {
        name: "torch.cumprod",
    },
    Native {
        name: "torch.cumsum",
    },
    Native {
        name: "torch.detach",
    },
    Native { name: "torch.div" },
    Native { name: "torch.eq" },
    Native { name: "torch.erf" },
    Native { name: "torch.exp" },
    Native {
        name: "torch.fill_",
    },
    Native {
        name: "torch.flatten",
    },
    Native { name: "torch.flip" },
    Native {
        name: "torch.floor",
    },
    Native {
        name: "torch.floor_divide",
    },
    Native { name: "torch.ge" },
    Native { name: "torch.gt" },
    Native {
        name: "torch.is_floating_point",
    },
    Native {
        name: "torch.is_inference",
    },
    Native {
        name: "torch.isnan",
    },
    Native { name: "torch.le" },
    Native { name: "torch.log" },
    Native {
        name: "torch.log1p",
    },
    Native {
        name: "torch.log_softmax",
    },
    Native {
        name: "torch.logical_and",
    },
    Native {
        name: "torch.logical_not",
    },
    Native {
        name: "torch.logical_or",
    },
    Native {
        name: "torch.logical_xor",
    },
    Native { name: "torch.lt" },
    Native {
        name: "torch.masked_fill",
    },
    Native {
        name: "torch.matmul",
    },
    Native { name: "torch.max" },
    Native {
        name: "torch.maximum",
    },
    Native { name: "torch.mean" },
    Native { name: "torch.min" },
    Native {
        name: "torch.minimum",
    },
    Native { name: "torch.mm" },
    Native {
        name: "torch.movedim",
    },
    Native { name: "torch.mul" },
    Native { name: "torch.mv" },
    Native {
        name: "torch.narrow",
    },
    Native {
        name: "torch.as_strided",
    },
    Native { name: "torch.ne" },
    Native {
        name: "torch.nonzero",
    },
    Native { name: "torch.norm" },
    Native {
        name: "torch.numel",
    },
    Native {
        name: "torch.permute",
    },
    Native { name: "torch.pow" },
    Native { name: "torch.prod" },
    Native { name: "torch.relu" },
    Native {
        name: "torch.remainder",
    },
    Native {
        name: "torch.reshape",
    },
    Native { name: "torch.roll" },
    Native {
        name: "torch.round",
    },
    Native {
        name: "torch.select",
    },
    Native {
        name: "torch.sigmoid",
    },
    Native { name: "torch.sin" },
    Native {
        name: "torch.softmax",
    },
    Native { name: "torch.sort" },
    Native {
        name: "torch.split",
    },
    Native { name: "torch.sqrt" },
    Native {
        name: "torch.square",
    },
    Native {
        name: "torch.squeeze",
    },
    Native { name: "torch.std" },
    Native { name: "torch.sub" },
    Native { name: "torch.sum" },
    Native {
        name: "torch.swapaxes",
    },
    Native {
        name: "torch.swapdims",
    },
    Native { name: "torch.t" },
    Native { name: "torch.tanh" },
    Native { name: "torch.topk" },
    Native {
        name: "torch.transpose",
    },
    Native { name: "torch.tril" },
    Native { name: "torch.triu" },
    Native {
        name: "torch.trunc",
    },
    Native {
        name: "torch.unbind",
    },
    Native {
        name: "torch.unflatten",
    },
    Native {
        name: "torch.unsqueeze",
    },
    Native { name: "torch.var" },
    Native {
        name: "torch.where",
    },
    Native {
        name: "torch.zero_",
    },
];

static NATIVES: &[Native] = &[
    Native {
        name: "torch.cuda.memory._snapshot",
    },
    Native {
        name: "unicodedata.normalize",
    },
    Native {
        name: "unicodedata.is_normalized",
    },
    Native {
        name: "unicodedata.category",
    },
    Native {
        name: "unicodedata.combining",
    },
    Native {
        name: "itertools.chain.from_iterable",
    },
    Native {
        name: "dict.fromkeys",
    },
    Native { name: "str.upper" },
    Native { name: "str.lower" },
    Native { name: "str.strip" },
    Native { name: "str.lstrip" },
    Native { name: "str.rstrip" },
    Native { name: "str.split" },
    Native { name: "str.rsplit" },
    Native { name: "str.join" },
    Native { name: "str.title" },
    Native {
        name: "str.capitalize",
    },
    Native {
        name: "str.casefold",
    },
    Native {
        name: "str.isdigit",
    },
    Native {
        name: "str.isalpha",
    },
    Native {
        name: "str.isalnum",
    },
    Native {
        name: "str.isspace",
    },
    Native {
        name: "str.isupper",
    },
    Native {
        name: "str.islower",
    },
    Native {
        name: "str.replace",
    },
    Native {
        name: "str.startswith",
    },
    Native {
        name: "str.endswith",
    },
    Native { name: "str.format" },
    Native {
        name: "str.splitlines",
    },
    Native { name: "str.count" },
    Native { name: "str.find" },
    Native { name: "str.zfill" },
    Native {
        name: "str.maketrans",
    },
    Native {
        name: "str.translate",
    },
    Native { name: "str.center" },
    Native { name: "str.ljust" },
    Native { name: "str.rjust" },
    Native {
        name: "_cudash.parameters",
    },
    Native {
        name: "pickle.dump",
    },
    Native {
        name: "pickle.load",
    },
    Native {
        name: "pickle.dumps",
    },
    Native {
        name: "pickle.loads",
    },
    Native {
        name: "_cudash.kind",
    },
    Native {
        name: "_cudash.swap_module_tensors",
    },
    Native {
        name: "_cudash.vmap_retain",
    },
    Native {
        name: "_cudash.process_start",
    },
    Native {
        name: "_cudash.process_join",
    },
    Native {
        name: "_cudash.process_alive",
    },
    Native {
        name: "_cudash.cpu_sample",
    },
    Native {
        name: "_cudash.process_name",
    },
    Native {
        name: "_cudash.process_number",
    },
    Native {
        name: "_cudash.mp_make",
    },
    Native {
        name: "_cudash.mp_call",
    },
    Native {
        name: "_cudash.vmap_random_refused",
    },
    Native {
        name: "_cudash.abstractmethod",
    },
    Native {
        name: "_cudash.tb_open",
    },
    Native {
        name: "_cudash.saved_hooks_push",
    },
    Native {
        name: "_cudash.profiler_start",
    },
    Native {
        name: "_cudash.profiler_range_begin",
    },
    Native {
        name: "_cudash.profiler_range_end",
    },
    Native {
        name: "_cudash.profiler_stop",
    },
    Native {
        name: "_cudash.profiler_table",
    },
    Native {
        name: "_cudash.profiler_trace",
    },
    Native {
        name: "_cudash.saved_hooks_pop",
    },
    Native {
        name: "_cudash.saved_hooks_disable",
    },
    Native {
        name: "_cudash.tb_scalar",
    },
    Native {
        name: "_cudash.hostname",
    },
    Native {
        name: "_cudash.pack_padded",
    },
    Native {
        name: "int.from_bytes",
    },
    Native {
        name: "struct.pack",
    },
    Native {
        name: "struct.unpack",
    },
    Native {
        name: "struct.unpack_from",
    },
    Native {
        name: "struct.calcsize",
    },
    Native {
        name: "struct.iter_unpack",
    },
    Native {
        name: "bytes.fromhex",
    },
    Native {
        name: "_cudash.frombuffer",
    },
    Native {
        name: "_cudash.rnn_packed",
    },
    Native {
        name: "ast.literal_eval",
    },
    // PyTorch's deprecated spellings: they warn, then are `torch.amp`'s.
    Native {
        name: "torch.cuda.amp.GradScaler",
    },
    Native {
        name: "torch.cuda.amp.autocast",
    },
    Native {
        name: "_cudash.np_seed",
    },
    Native {
        name: "_cudash.re_compile",
    },
    Native {
        name: "_cudash.re_find",
    },
    Native {
        name: "_cudash.re_all",
    },
    Native {
        name: "_cudash.re_findall",
    },
    Native {
        name: "_cudash.re_pieces",
    },
    Native {
        name: "_cudash.np_f32_text",
    },
    Native {
        name: "_cudash.np_uniform",
    },
    Native {
        name: "_cudash.np_gauss",
    },
    Native {
        name: "_cudash.np_randint",
    },
    Native {
        name: "_cudash.np_permutation",
    },
    Native {
        name: "_cudash.np_read",
    },
    Native {
        name: "_cudash.read_idx",
    },
    Native {
        name: "_cudash.download",
    },
    Native {
        name: "_cudash.gunzip",
    },
    Native {
        name: "_cudash.untar",
    },
    Native {
        name: "_cudash.tar_members",
    },
    Native {
        name: "_cudash.tar_close",
    },
    Native {
        name: "_cudash.md5",
    },
    Native {
        name: "_cudash.write_png",
    },
    Native {
        name: "_cudash.encode_figure",
    },
    Native {
        name: "_cudash.show_png",
    },
    Native {
        name: "_cudash.png_data_uri",
    },
    Native {
        name: "_cudash.show_html",
    },
    Native {
        name: "_cudash.notebook",
    },
    Native {
        name: "_cudash.image_open",
    },
    Native {
        name: "_cudash.image_resize",
    },
    Native {
        name: "_cudash.read_file",
    },
    Native {
        name: "torch.finfo",
    },
    Native {
        name: "torch.set_printoptions",
    },
    Native {
        name: "torch.iinfo",
    },
    Native {
        name: "torch.get_default_dtype",
    },
    Native {
        name: "torch.set_default_dtype",
    },
    Native { name: "torch.Size" },
    Native {
        name: "torch.broadcast_shapes",
    },
    Native {
        name: "torch.broadcast_tensors",
    },
    Native {
        name: "torch.meshgrid",
    },
    Native {
        name: "torch.normal",
    },
    Native {
        name: "torch.no_grad",
    },
    Native {
        name: "torch.set_grad_enabled",
    },
    Native {
        name: "torch.enable_grad",
    },
    Native {
        name: "torch.inference_mode",
    },
    Native {
        name: "torch.is_grad_enabled",
    },
    Native {
        name: "torch.is_inference_mode_enabled",
    },
    Native {
        name: "torch.is_autocast_enabled",
    },
    Native {
        name: "torch.get_autocast_dtype",
    },
    Native {
        name: "torch.is_autocast_cache_enabled",
    },
    Native {
        name: "torch._C._current_graph_task_id",
    },
    Native {
        name: "torch.autograd._is_checkpoint_valid",
    },
    Native {
        name: "torch.set_anomaly_enabled",
    },
    Native {
        name: "_cudash.optimizer_steps",
    },
    Native {
        name: "_cudash.storage_ptr",
    },
    Native {
        name: "_cudash.graph_new",
    },
    Native {
        name: "_cudash.graph_capture_begin",
    },
    Native {
        name: "_cudash.graph_capture_end",
    },
    Native {
        name: "_cudash.graph_replay",
    },
    Native {
        name: "_cudash.graph_reset",
    },
    Native {
        name: "_cudash.is_current_stream_capturing",
    },
    Native {
        name: "_cudash.graph_pool",
    },
    Native {
        name: "_cudash.graph_pool_handle",
    },
    Native {
        name: "_cudash.optim_state_params",
    },
    Native {
        name: "_cudash.enter_dual_level",
    },
    Native {
        name: "_cudash.exit_dual_level",
    },
    Native {
        name: "_cudash.make_dual",
    },
    Native {
        name: "_cudash.unpack_dual",
    },
    Native {
        name: "_cudash.optim_state_of",
    },
    Native {
        name: "_cudash.optim_state_set",
    },
    Native {
        name: "torch.cuda.set_stream",
    },
    Native {
        name: "_cudash.own_forward",
    },
    Native {
        name: "_cudash.storage_nbytes",
    },
    Native {
        name: "_cudash.storage_bytes",
    },
    Native {
        name: "torch.is_anomaly_enabled",
    },
    Native {
        name: "torch.is_anomaly_check_nan_enabled",
    },
    Native {
        name: "torch.accelerator.is_available",
    },
    Native {
        name: "torch.accelerator.current_accelerator",
    },
    Native {
        name: "torch.accelerator.device_count",
    },
    Native {
        name: "torch.distributed.get_default_backend_for_device",
    },
    Native {
        name: "torch.distributed.get_backend",
    },
    Native {
        name: "torch.accelerator.current_device_index",
    },
    Native {
        name: "torch.cuda.current_device",
    },
    Native {
        name: "torch.set_default_device",
    },
    Native {
        name: "_cudash.warn",
    },
    Native {
        name: "torch.result_type",
    },
    Native {
        name: "torch.promote_types",
    },
    Native {
        name: "_cudash.get_worker_info",
    },
    Native {
        name: "_cudash.default_collate",
    },
    Native {
        name: "_cudash.worker_copy",
    },
    Native {
        name: "torch.initial_seed",
    },
    Native {
        name: "torch.cuda.get_device_properties",
    },
    Native {
        name: "torch.cuda.get_device_capability",
    },
    Native {
        name: "torch.cuda.mem_get_info",
    },
    Native {
        name: "torch.cuda.set_sync_debug_mode",
    },
    Native {
        name: "torch.cuda.get_sync_debug_mode",
    },
    Native {
        name: "torch.cuda.get_allocator_backend",
    },
    Native {
        name: "torch.cuda.is_bf16_supported",
    },
    Native {
        name: "torch.cuda.default_stream",
    },
    Native {
        name: "torch.set_float32_matmul_precision",
    },
    Native {
        name: "torch.get_float32_matmul_precision",
    },
    Native {
        name: "torch.get_num_threads",
    },
    Native {
        name: "torch.set_num_threads",
    },
    Native {
        name: "_cudash.ignore_warnings",
    },
    Native {
        name: "torch.get_default_device",
    },
    Native { name: "time.time" },
    Native {
        name: "time.localtime",
    },
    Native {
        name: "time.strftime",
    },
    Native { name: "time.ctime" },
    Native {
        name: "time.asctime",
    },
    Native { name: "gc.collect" },
    Native {
        name: "time.perf_counter",
    },
    Native {
        name: "time.perf_counter_ns",
    },
    Native {
        name: "time.monotonic_ns",
    },
    Native {
        name: "time.time_ns",
    },
    Native {
        name: "time.monotonic",
    },
    Native { name: "math.sqrt" },
    Native { name: "math.exp" },
    Native { name: "math.log" },
    Native { name: "math.log2" },
    Native { name: "math.prod" },
    Native { name: "math.log10" },
    Native { name: "math.sin" },
    Native { name: "math.cos" },
    Native { name: "math.tan" },
    Native { name: "math.atan" },
    Native { name: "math.tanh" },
    Native { name: "math.fabs" },
    Native { name: "math.pow" },
    Native { name: "math.floor" },
    Native {
        name: "math.isclose",
    },
    Native { name: "math.gcd" },
    Native {
        name: "math.factorial",
    },
    Native { name: "math.comb" },
    Native { name: "math.perm" },
    Native { name: "math.lcm" },
    Native { name: "math.isqrt" },
    Native { name: "math.atan2" },
    Native { name: "math.hypot" },
    Native { name: "math.asin" },
    Native { name: "math.acos" },
    Native { name: "math.sinh" },
    Native {
        name: "math.lgamma",
    },
    Native {
        name: "math.copysign",
    },
    Native { name: "math.gamma" },
    Native { name: "math.erf" },
    Native { name: "math.erfc" },
    Native { name: "math.log1p" },
    Native { name: "math.expm1" },
    Native { name: "math.cosh" },
    Native {
        name: "math.degrees",
    },
    Native {
        name: "math.radians",
    },
    Native { name: "math.trunc" },
    Native { name: "math.ceil" },
    Native { name: "math.isnan" },
    Native { name: "math.isinf" },
    Native {
        name: "math.isfinite",
    },
    Native { name: "os.getenv" },
    Native {
        name: "os.makedirs",
    },
    Native {
        name: "os.path.exists",
    },
    Native {
        name: "os.path.isfile",
    },
    Native {
        name: "os.path.isdir",
    },
    Native {
        name: "os.path.islink",
    },
    Native {
        name: "os.path.join",
    },
    Native {
        name: "os.path.basename",
    },
    Native {
        name: "os.path.dirname",
    },
    Native {
        name: "os.path.split",
    },
    Native {
        name: "os.path.splitext",
    },
    Native {
        name: "os.path.expanduser",
    },
    Native {
        name: "os.path.abspath",
    },
    Native {
        name: "os.path.normpath",
    },
    Native {
        name: "os.path.relpath",
    },
    Native {
        name: "os.path.realpath",
    },
    Native {
        name: "os.path.isabs",
    },
    Native {
        name: "os.path.getsize",
    },
    Native { name: "os.listdir" },
    Native { name: "glob.glob" },
    Native { name: "gzip.open" },
    Native {
        name: "shutil.copyfile",
    },
    Native {
        name: "shutil.copy",
    },
    Native {
        name: "shutil.copy2",
    },
    Native {
        name: "shutil.move",
    },
    Native {
        name: "shutil.rmtree",
    },
    Native {
        name: "shutil.copytree",
    },
    Native { name: "glob.iglob" },
    Native {
        name: "collections.defaultdict",
    },
    Native {
        name: "collections.Counter",
    },
    Native {
        name: "collections.OrderedDict",
    },
    Native {
        name: "collections.namedtuple",
    },
    Native { name: "os.remove" },
    Native { name: "os.rmdir" },
    Native { name: "os.getpid" },
    Native {
        name: "_cudash.random_hex",
    },
    Native {
        name: "_cudash.host_clock",
    },
    Native {
        name: "_cudash.return_type",
    },
    Native { name: "os.unlink" },
    Native { name: "os.getcwd" },
    Native { name: "os.chdir" },
    Native { name: "os.fspath" },
    Native {
        name: "os.get_terminal_size",
    },
    Native {
        name: "shutil.get_terminal_size",
    },
    Native { name: "sys.exit" },
    Native {
        name: "random.seed",
    },
    Native {
        name: "random.getstate",
    },
    Native {
        name: "random.setstate",
    },
    Native {
        name: "torch.get_rng_state",
    },
    Native {
        name: "torch.set_rng_state",
    },
    Native {
        name: "torch.random.get_rng_state",
    },
    Native {
        name: "torch.random.set_rng_state",
    },
    Native {
        name: "torch.cuda.get_rng_state",
    },
    Native {
        name: "torch.cuda.set_rng_state",
    },
    Native {
        name: "torch.cuda.get_rng_state_all",
    },
    Native {
        name: "torch.cuda.set_rng_state_all",
    },
    Native {
        name: "random.random",
    },
    Native {
        name: "random.randint",
    },
    Native {
        name: "random.randrange",
    },
    Native {
        name: "random.choice",
    },
    Native {
        name: "random.choices",
    },
    Native {
        name: "random.shuffle",
    },
    Native {
        name: "random.uniform",
    },
    Native {
        name: "random.sample",
    },
    Native {
        name: "random.getrandbits",
    },
    Native {
        name: "itertools.count",
    },
    Native {
        name: "itertools.chain",
    },
    Native {
        name: "itertools.islice",
    },
    Native {
        name: "itertools.product",
    },
    Native {
        name: "itertools.repeat",
    },
    Native {
        name: "itertools.combinations",
    },
    Native {
        name: "itertools.permutations",
    },
    Native {
        name: "itertools.zip_longest",
    },
    Native {
        name: "itertools.pairwise",
    },
    Native { name: "copy.copy" },
    // A Python program's bare `sum`, `max`, `min` (`python_builtins.rs`).
    Native {
        name: "builtins.sum",
    },
    Native {
        name: "builtins.max",
    },
    Native {
        name: "builtins.min",
    },
    Native { name: "json.dumps" },
    Native { name: "json.dump" },
    Native { name: "json.loads" },
    Native { name: "json.load" },
    Native {
        name: "copy.deepcopy",
    },
    Native {
        name: "torch.backends.cudnn.is_available",
    },
    Native {
        name: "torch.backends.cudnn.version",
    },
    Native {
        name: "torch.backends.mps.is_available",
    },
    Native {
        name: "torch.compile",
    },
    Native {
        name: "torch.use_deterministic_algorithms",
    },
    Native {
        name: "torch.are_deterministic_algorithms_enabled",
    },
    // `scaled_dot_product_attention`'s backends (`autograd::sdp`), for
    // `torch.backends.cuda.enable_flash_sdp` and `sdpa_kernel`.
    Native {
        name: "_cudash.sdp_enabled",
    },
    Native {
        name: "_cudash.enable_sdp",
    },
    Native {
        name: "torch.backends.mps.is_built",
    },
    Native {
        name: "torch.backends.mkldnn.is_available",
    },
    Native {
        name: "torch.xpu.is_available",
    },
    Native {
        name: "torch.xpu.device_count",
    },
    Native {
        name: "os.cpu_count",
    },
    Native {
        name: "torch.multiprocessing.cpu_count",
    },
    Native {
        name: "torch.distributed.is_available",
    },
    Native {
        name: "_cudash.dataclass",
    },
    Native {
        name: "_cudash.asdict",
    },
    Native {
        name: "_cudash.dataclass_field",
    },
    Native {
        name: "_cudash.dataclass_fields",
    },
    Native {
        name: "_cudash.cached_property",
    },
];

/// PyTorch's names that are cudash's under another name or in another place.
const RENAMED: &[(&str, &str)] = &[
    ("torch.manual_seed", "manual_seed"),
    ("torch.accelerator.set_device_index", "set_device"),
    ("io.open", "open"),
    ("torch.utils.data.dataloader.DataLoader", "DataLoader"),
    ("torch.cuda.manual_seed", "manual_seed"),
    ("torch.cuda.manual_seed_all", "manual_seed_all"),
    ("torch.device", "device"),
    ("torch.cuda.Stream", "stream"),
    ("torch.cuda.stream", "stream"),
    ("torch.cuda.Event", "event"),
    (
        "torch.cuda.memory._record_memory_history",
        "record_memory_history",
    ),
    ("torch.cuda.memory._dump_snapshot", "dump_snapshot"),
    (
        "torch.cuda.memory._set_allocator_settings",
        "set_allocator_settings",
    ),
    ("torch.sparse.mm", "sparse_mm"),
    ("torch.sparse.sum", "sparse_sum"),
    ("torch.utils.data.Dataset", "Dataset"),
    ("torch.utils.data.dataset.Dataset", "Dataset"),
    ("torch.utils.data.dataset.TensorDataset", "TensorDataset"),
    ("torch.utils.data.dataset.Subset", "Subset"),
    ("torch.utils.data.dataset.random_split", "random_split"),
    ("torch.utils.data.sampler.RandomSampler", "RandomSampler"),
    (
        "torch.utils.data.sampler.WeightedRandomSampler",
        "WeightedRandomSampler",
    ),
    (
        "torch.utils.data.sampler.SequentialSampler",
        "SequentialSampler",
    ),
    (
        "torch.utils.data.sampler.SubsetRandomSampler",
        "SubsetRandomSampler",
    ),
    ("torch.utils.data.sampler.Sampler", "Sampler"),
    ("torch.utils.data.sampler.BatchSampler", "BatchSampler"),
    ("torch.nn.functional.relu", "relu"),
    ("torch.nn.functional.sigmoid", "sigmoid"),
    ("torch.nn.functional.tanh", "tanh"),
    ("torch.nn.functional.gelu", "gelu"),
    ("torch.nn.functional.silu", "silu"),
    ("torch.nn.functional.mish", "mish"),
    ("torch.nn.functional.softmax", "softmax"),
    ("torch.nn.functional.log_softmax", "log_softmax"),
    ("time.sleep", "sleep"),
    ("argparse.ArgumentParser", "ArgumentParser"),
    ("torch.autograd.Function", "Function"),
    ("torch.linalg.norm", "linalg_norm"),
    ("torch.linalg.matmul", "matmul"),
    ("torch.linalg.vector_norm", "vector_norm"),
    ("torch.distributed.gather", "dist_gather"),
    ("torch.distributed.scatter", "dist_scatter"),
];

/// `torch.use_deterministic_algorithms(mode)`, read back by
/// `are_deterministic_algorithms_enabled()`.
static DETERMINISTIC: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `torch.backends.cudnn.benchmark = True` and the other flags a program
/// sets: read back as set. cudash's convolutions are not cuDNN's
/// (docs/python-programs.md), so they select nothing.
static FLAGS: std::sync::Mutex<Vec<(String, bool)>> = std::sync::Mutex::new(Vec::new());

/// The flags a module has, with their defaults (PyTorch's).
const MODULE_FLAGS: &[(&str, bool)] = &[
    ("torch.backends.cudnn.benchmark", false),
    ("torch.backends.cudnn.deterministic", false),
    ("torch.backends.cudnn.enabled", true),
    ("torch.backends.cudnn.allow_tf32", true),
    ("torch.backends.mkldnn.enabled", true),
    // On, f32 products on a GPU of compute capability 8.0 or later round
    // their operands to TF32 (`Runtime::allow_tf32`), as cuBLAS's TF32 mode.
    ("torch.backends.cuda.matmul.allow_tf32", false),
    (
        "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
        true,
    ),
    (
        "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
        true,
    ),
    // Read back as set; cudash's f16 products accumulate in f32 (its default).
    ("torch.backends.cuda.matmul.allow_fp16_accumulation", false),
];

/// `module.name = v` of a flag: set; anything else is PyTorch's and not
/// settable here.
pub fn set_flag(m: &PyModule, name: &str, v: &Value) -> Result<(), Error> {
    let full = format!("{}.{name}", m.path);
    if !MODULE_FLAGS.iter().any(|(f, _)| *f == full) {
        return Err(Error::ReadOnly {
            message: format!("cudash cannot set `{full}`"),
        });
    }
    let on = match v {
        Value::Bool(b) => b.get(),
        Value::Int(i) => *i != 0,
        other => {
            return Err(Error::wrong_type(
                format!("`{full}`"),
                "a bool",
                other.type_name(),
            ))
        }
    };
    let mut flags = lock(&FLAGS);
    match flags.iter_mut().find(|(f, _)| *f == full) {
        Some((_, old)) => *old = on,
        None => flags.push((full, on)),
    }
    Ok(())
}

/// `torch.set_float32_matmul_precision`'s setting ("highest" by default).
static PRECISION: std::sync::Mutex<&'static str> = std::sync::Mutex::new("highest");

/// Sets a flag of `MODULE_FLAGS` by its full name (what
/// `torch.set_float32_matmul_precision` changes).
fn set_flag_named(full: &str, on: bool) {
    let mut flags = lock(&FLAGS);
    match flags.iter_mut().find(|(f, _)| *f == full) {
        Some((_, old)) => *old = on,
        None => flags.push((full.to_string(), on)),
    }
}

/// `torch.backends.cuda.matmul.allow_tf32` as set.
pub fn tf32_allowed() -> bool {
    flag("torch.backends.cuda.matmul.allow_tf32").unwrap_or(false)
}

fn flag(full: &str) -> Option<bool> {
    let default = MODULE_FLAGS.iter().find(|(f, _)| *f == full)?.1;
    let set = lock(&FLAGS)
        .iter()
        .find(|(f, _)| f == full)
        .map(|(_, on)| *on);
    Some(set.unwrap_or(default))
}

/// The module at `path`, as `import` finds it.
pub fn module(path: &str) -> Result<&'static PyModule, Error> {
    MODULES
        .iter()
        .find(|m| m.path == path)
        .ok_or_else(|| missing_module(path))
}

fn missing_module(path: &str) -> Error {
    let top = path.split('.').next().unwrap_or(path);
    let (message, help) = match top {
        "torchvision" => (
            format!("cudash's torchvision has no `{path}`"),
            "it has `torchvision.datasets` (MNIST, FashionMNIST, KMNIST, FakeData), \
             `torchvision.transforms` (those that do not resample), `torchvision.models` \
             (ResNets, VGGs, AlexNet) and `torchvision.utils` (make_grid, save_image); \
             docs/python-programs.md lists them"
                .to_string(),
        ),
        "torchaudio" | "torchtext" => (
            format!("cudash has no {top}: its datasets and transforms read files it downloads"),
            "make the data in the program (`torch.randn(60000, 1, 28, 28)` and \
             `torch.randint(0, 10, (60000,))` in MNIST's shapes), or `torch.load` \
             a file of tensors saved with `torch.save`"
                .to_string(),
        ),
        "numpy" => (
            format!("cudash's NumPy has no `{path}`"),
            "it has `numpy` itself: arrays over CPU tensors, their math, `np.random`'s \
             legacy draws and `memmap`; docs/python-programs.md lists them"
                .to_string(),
        ),
        "torch" => (
            format!("cudash has no `{path}`"),
            format!(
                "it has {}; docs/pytorch.md says which of PyTorch's names each holds",
                torch_modules()
            ),
        ),
        _ => (
            format!("cudash has no module `{path}`"),
            format!(
                "a program imports `torch` and its parts, `torchvision`'s datasets and \
                 transforms, Python's {}, and a file of its own beside it (`import datautils` reads `datautils.py`); \
                 docs/python-programs.md lists what each holds",
                python_modules()
            ),
        ),
    };
    Error::Spelling {
        message,
        label: "not in cudash".into(),
        help,
        class: "ModuleNotFoundError",
    }
}

/// The standard library's modules cudash has, for the hint of a module it has not.
fn python_modules() -> String {
    MODULES
        .iter()
        .filter(|m| {
            // `__future__`, and cudash's own `_cudash`.
            !m.path.starts_with("torch") && !m.path.contains('.') && !m.path.starts_with('_')
        })
        .map(|m| m.path)
        // `torch.distributions` is one of torch's parts, not Python's;
        // `collections._deque` a part of `collections`, `tqdm.auto` of `tqdm`.
        .chain(super::stdlib::names().filter(|n| {
            let part_of_one = n
                .rsplit_once('.')
                .is_some_and(|(top, _)| super::stdlib::names().any(|m| m == top));
            !n.starts_with("torch") && !n.contains("._") && !part_of_one
        }))
        .map(|m| format!("`{m}`"))
        .collect::<Vec<_>>()
        .join(", ")
        .rsplit_once(", ")
        .map_or(String::new(), |(most, last)| format!("{most} and {last}"))
}

fn torch_modules() -> String {
    MODULES
        .iter()
        .filter(|m| m.path.starts_with("torch"))
        .map(|m| format!("`{}`", m.path))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `f.name` of a function of Python's (`itertools.chain.from_iterable`),
/// or of a builtin class (`str.upper`): the function of that full name.
pub fn native_member(owner: &str, name: &str) -> Option<Value> {
    let full = format!("{owner}.{name}");
    NATIVES.iter().find(|f| f.name == full).map(Value::Native)
}

/// `module.name`: a submodule, a builtin under PyTorch's name, a dtype, a
/// constant or a function of Python's modules.
pub fn member(m: &'static PyModule, name: &str) -> Result<Value, Error> {
    let full = format!("{}.{name}", m.path);
    if let Some(sub) = MODULES.iter().find(|s| s.path == full) {
        return Ok(Value::Namespace(sub));
    }
    let legacy = super::value::LEGACY_CUDA_TYPES.iter();
    if let Some(f) = NATIVES.iter().chain(legacy).find(|f| f.name == full) {
        return Ok(Value::Native(f));
    }
    if let Some(v) = constant(&full) {
        return Ok(v);
    }
    if m.path == "__future__" {
        return Ok(Value::bool(true));
    }
    if let Some((_, to)) = RENAMED.iter().find(|(from, _)| *from == full) {
        if let Some(doc) = docs::function(to) {
            return Ok(Value::Builtin(doc));
        }
    }
    if m.path.starts_with("torch") {
        if let Some(doc) = docs::functions().find(|d| d.name == name && holds(d, &full)) {
            return Ok(Value::Builtin(doc));
        }
    }
    if let Some(f) = TENSOR_FUNCTIONS.iter().find(|f| f.name == full) {
        return Ok(Value::Native(f));
    }
    // `torch.cuda.memory` defines what `torch.cuda` then exports: its
    // names are `torch.cuda`'s (`torch.cuda.memory.empty_cache`).
    if m.path == "torch.cuda.memory" && CUDA_MEMORY_EXPORTS.contains(&name) {
        if let Some(cuda) = MODULES.iter().find(|s| s.path == "torch.cuda") {
            return member(cuda, name).map_err(|_| missing_member(m, name));
        }
    }
    Err(missing_member(m, name))
}

/// What PyTorch's `torch/cuda/memory.py` exports (its `__all__`).
const CUDA_MEMORY_EXPORTS: &[&str] = &[
    "caching_allocator_alloc",
    "caching_allocator_delete",
    "caching_allocator_disabled",
    "caching_allocator_enable",
    "get_per_process_memory_fraction",
    "set_per_process_memory_fraction",
    "empty_cache",
    "memory_stats",
    "memory_stats_as_nested_dict",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "reset_max_memory_allocated",
    "reset_max_memory_cached",
    "host_memory_stats",
    "host_memory_stats_as_nested_dict",
    "reset_accumulated_host_memory_stats",
    "reset_peak_host_memory_stats",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "memory_cached",
    "max_memory_cached",
    "memory_snapshot",
    "memory_summary",
    "list_gpu_processes",
    "mem_get_info",
    "get_allocator_backend",
    "CUDAPluggableAllocator",
    "change_current_allocator",
    "MemPool",
    "use_mem_pool",
];

/// Does PyTorch name `doc` `full` (`torch.nn.Linear`)? As its help shows
/// it (`docs::pytorch_name`, alternatives split at ` / `, `F.` spelled
/// out), or `torch.X` for a tensor function.
fn holds(doc: &Doc, full: &str) -> bool {
    if matches!(doc.group, docs::Group::Tensors | docs::Group::Math)
        && full == format!("torch.{}", doc.name)
    {
        return true;
    }
    let Some(names) = docs::pytorch_name(doc) else {
        return false;
    };
    names.split(" / ").any(|n| {
        let n = n.trim();
        let n = n.split(['(', ' ']).next().unwrap_or(n);
        let n = match n.strip_prefix("F.") {
            Some(rest) => format!("torch.nn.functional.{rest}"),
            None => n.to_string(),
        };
        n == full
    })
}

/// A dtype (`torch.float32`, `torch.long`) or a number (`math.pi`).
/// A `struct_time`: nine ints.
fn struct_time(v: &Value) -> Option<[i64; 9]> {
    let items = match v {
        Value::List(items) => items.to_vec(),
        Value::MutList(items) => crate::runtime::lock::lock(items).to_vec(),
        _ => return None,
    };
    let ints: Vec<i64> = items
        .iter()
        .map(|x| match x {
            Value::Int(i) => Some(*i),
            _ => None,
        })
        .collect::<Option<_>>()?;
    ints.try_into().ok()
}

/// `glob.glob(pathname, recursive=False)`, `glob.iglob(...)`: a list of
/// the matching paths.
fn glob_call(args: &[ArgVal], span: Span) -> Result<Value, Diagnostic> {
    let mut pattern = None;
    let mut recursive = false;
    for a in args {
        match (a.keyword.as_ref().map(|k| k.name.as_str()), &a.value) {
            (None | Some("pathname"), Value::Str(s)) if pattern.is_none() => {
                pattern = Some(s.to_string())
            }
            (Some("recursive"), Value::Bool(b)) => recursive = b.get(),
            (Some("root_dir" | "dir_fd" | "include_hidden"), _) => {
                return Err(Error::value(
                    "cudash's glob takes a pattern and `recursive` (no root_dir, dir_fd or \
                     include_hidden)",
                )
                .at(a.span))
            }
            (_, other) => {
                return Err(
                    Error::wrong_type("glob's pattern", "a string", other.type_name()).at(a.span),
                )
            }
        }
    }
    let pattern = pattern
        .ok_or_else(|| Error::value("glob() needs a pattern (`\"data/*.txt\"`)").at(span))?;
    let found = super::glob::glob(&pattern, recursive)
        .into_iter()
        .map(|p| Value::Str(Arc::new(p)))
        .collect();
    Ok(Value::list(found))
}

fn constant(full: &str) -> Option<Value> {
    let (module, name) = full.rsplit_once('.')?;
    match module {
        // Python's `string` constants.
        "string" => {
            let lower = "abcdefghijklmnopqrstuvwxyz";
            let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
            let digits = "0123456789";
            let punctuation = r##"!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~"##;
            let text = match name {
                "ascii_lowercase" => lower.to_string(),
                "ascii_uppercase" => upper.to_string(),
                "ascii_letters" => format!("{lower}{upper}"),
                "digits" => digits.to_string(),
                "hexdigits" => "0123456789abcdefABCDEF".to_string(),
                "octdigits" => "01234567".to_string(),
                "punctuation" => punctuation.to_string(),
                "whitespace" => " \t\n\r\x0b\x0c".to_string(),
                "printable" => format!("{digits}{lower}{upper}{punctuation} \t\n\r\x0b\x0c"),
                _ => return None,
            };
            Some(Value::Str(Arc::new(text)))
        }
        // `torch.cuda.OutOfMemoryError`, `torch.OutOfMemoryError`
        "torch" | "torch.cuda" if name == "OutOfMemoryError" => {
            super::exceptions::named(name).map(Value::ExcClass)
        }
        "json" if name == "JSONDecodeError" => super::exceptions::named(name).map(Value::ExcClass),
        "struct" if name == "error" => {
            super::exceptions::named("struct.error").map(Value::ExcClass)
        }
        "_cudash" if name == "FrozenInstanceError" => {
            super::exceptions::named(name).map(Value::ExcClass)
        }
        "pickle" if name == "UnpicklingError" => {
            super::exceptions::named(name).map(Value::ExcClass)
        }
        // The PyTorch whose behaviour cudash follows.
        "torch" | "torch.version" if name == "__version__" => {
            Some(Value::Str(Arc::new("2.15.0".to_string())))
        }
        // The CUDA version cudash is built against (cudarc's `cuda-13000`
        // API), as PyTorch's is the toolkit its wheel was built with; no
        // ROCm, no XPU, no debug build.
        "torch.version" => match name {
            "cuda" => Some(Value::Str(Arc::new("13.0".to_string()))),
            "hip" | "rocm" | "xpu" => Some(Value::None),
            "debug" => Some(Value::bool(false)),
            _ => None,
        },
        "torch" => {
            let renamed = spelling::RENAMED
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, to)| *to);
            match renamed {
                Some("bool") => Some(Value::dtype(DType::Bool)),
                Some(to) => spelling::value(to).filter(|v| matches!(v, Value::DType(_))),
                None => match name {
                    "bool" => Some(Value::dtype(DType::Bool)),
                    _ => spelling::value(name).filter(|v| matches!(v, Value::DType(_))),
                },
            }
        }
        "math" => {
            let x = match name {
                "pi" => std::f64::consts::PI,
                "e" => std::f64::consts::E,
                "tau" => std::f64::consts::TAU,
                "inf" => f64::INFINITY,
                "nan" => f64::NAN,
                _ => return None,
            };
            Some(Value::Float(Word::new(x)))
        }
        "torch.distributed.ReduceOp" => match name {
            "SUM" | "AVG" | "MAX" | "MIN" | "PRODUCT" => {
                Some(Value::Str(Arc::new(name.to_lowercase())))
            }
            _ => None,
        },
        // `sys.stdout`, `sys.stderr`: files whose writes are the program's output.
        "sys" if matches!(name, "stdout" | "stderr") => Some(Value::File(Arc::new(
            std::sync::Mutex::new(super::pyfile::PyFile::standard(name == "stderr")),
        ))),
        // Python's name of the system (`linux`, `darwin`, `win32`).
        "sys" if name == "platform" => Some(Value::Str(Arc::new(
            match std::env::consts::OS {
                "macos" => "darwin",
                "windows" => "win32",
                other => other,
            }
            .to_string(),
        ))),
        "sys" if name == "path" => Some(super::argv::sys_path()),
        // The Python whose behaviour cudash follows (its tests compare with 3.11).
        "sys" if name == "version_info" => Some(Value::named_tuple(
            "sys.version_info",
            &[
                ("major", Value::Int(3)),
                ("minor", Value::Int(11)),
                ("micro", Value::Int(0)),
                ("releaselevel", Value::Str(Arc::new("final".into()))),
                ("serial", Value::Int(0)),
            ],
        )),
        "sys" if name == "argv" => Some(Value::MutList(Arc::new(std::sync::Mutex::new(Arc::new(
            super::argv::argv()
                .into_iter()
                .map(|a| Value::Str(Arc::new(a)))
                .collect(),
        ))))),
        "torch.backends.cudnn" | "torch.backends.cuda.matmul" | "torch.backends.mkldnn" => {
            flag(full).map(Value::bool)
        }
        // `formatter_class=argparse.ArgumentDefaultsHelpFormatter`
        "argparse" if matches!(name, "HelpFormatter" | "ArgumentDefaultsHelpFormatter") => {
            Some(Value::Str(Arc::new(name.to_string())))
        }
        "os" if name == "environ" => {
            let set = super::environ::env_snapshot();
            let mut vars: Vec<(String, String)> = std::env::vars()
                .filter(|(k, _)| !set.iter().any(|(o, _)| o == k))
                .chain(set.clone())
                .collect();
            vars.sort();
            Some(Value::Dict(PyDict::new(
                vars.into_iter()
                    .map(|(k, v)| (super::value::Key::Str(k), Value::Str(Arc::new(v))))
                    .collect(),
            )))
        }
        _ => None,
    }
}

fn missing_member(m: &PyModule, name: &str) -> Error {
    let full = format!("{}.{name}", m.path);
    let near = super::suggest::closest(
        name,
        docs::functions()
            .filter(|d| holds(d, &format!("{}.{}", m.path, d.name)))
            .map(|d| d.name),
    );
    let help = match near {
        Some(near) => format!("did you mean `{}.{near}`?", m.path),
        None if m.path.starts_with("torch") => {
            "cudash has the part of PyTorch that docs/pytorch.md lists; `help` shows each \
             builtin with its PyTorch name"
                .into()
        }
        None => format!("cudash gives {} of `{}`", natives_of(m), m.path),
    };
    Error::Spelling {
        message: format!("cudash has no `{full}`"),
        label: "not in cudash".into(),
        help,
        class: "AttributeError",
    }
}

fn natives_of(m: &PyModule) -> String {
    let prefix = format!("{}.", m.path);
    let names: Vec<String> = NATIVES
        .iter()
        .map(|f| f.name)
        .chain(RENAMED.iter().map(|(from, _)| *from))
        .filter_map(|name| name.strip_prefix(&prefix))
        .filter(|n| !n.contains('.'))
        .map(|n| format!("`{n}`"))
        .collect();
    match names.is_empty() {
        true => "nothing".into(),
        false => names.join(", "),
    }
}

impl Interp {
    /// `import ...` / `from ... import ...`: each name bound.
    pub(super) fn exec_import(
        &mut self,
        items: &[crate::lang::ast::Import],
    ) -> Result<(), Diagnostic> {
        for item in items {
            let relative;
            let item = match item.module.starts_with('.') {
                true => {
                    relative = crate::lang::ast::Import {
                        module: self.absolute_module(&item.module, item.module_span)?,
                        ..item.clone()
                    };
                    &relative
                }
                false => item,
            };
            if item.member.as_ref().is_some_and(|m| m.name == "*") && module(&item.module).is_ok() {
                return Err(Error::Module {
                    class: "NotImplementedError",
                    message: format!("cudash has no `from {} import *`", item.module),
                    help: Some(format!(
                        "cudash imports every name only from a program's own modules; name what \
                         you use: `from {} import ...`",
                        item.module
                    )),
                }
                .at(item.module_span));
            }
            let m = match module(&item.module) {
                Ok(m) => m,
                // A file of the program's own beside the script.
                Err(e) => match self.import_own_item(item)? {
                    true => continue,
                    false => return Err(e.at(item.module_span)),
                },
            };
            let v = match &item.member {
                // `import torch.nn` binds `torch`; `import torch.nn as nn`, `torch.nn`.
                None if item.bind.name == item.module.split('.').next().unwrap_or("") => {
                    let top = item.module.split('.').next().unwrap_or(&item.module);
                    Value::Namespace(module(top).map_err(|e| e.at(item.module_span))?)
                }
                None => Value::Namespace(m),
                Some(name) => self.namespace_member(m, &name.name, name.span)?,
            };
            self.assign(&item.bind, v);
        }
        Ok(())
    }

    /// Calls a function of Python's modules (`time.time()`, `math.sqrt(2)`).
    /// `torch.X(input, *args)`: `input.X(*args)` (`input` first, or by name).
    fn call_tensor_function(
        &mut self,
        name: &'static str,
        mut args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let method = name.trim_start_matches("torch.");
        let at = args
            .iter()
            .position(|a| a.keyword.as_ref().is_some_and(|k| k.name == "input"))
            .or_else(|| args.iter().position(|a| a.keyword.is_none()));
        let Some(at) = at else {
            return Err(Error::value(format!(
                "{name}() missing 1 required positional argument: 'input'"
            ))
            .at(span));
        };
        let input = args.remove(at);
        let method = crate::lang::ast::Name::new(method.into(), span);
        // `torch.mul(a, b, out=c)`: the method's result written into `out`.
        let out = super::out_arg::take_out(&mut args);
        let v = self.call_method(input.value, &method, args, span)?;
        match out {
            Some(out) => self.write_out(method.name.as_str(), v, out),
            None => Ok(v),
        }
    }

    pub(super) fn call_native(
        &mut self,
        f: &'static Native,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(span);
        if TENSOR_FUNCTIONS.iter().any(|t| std::ptr::eq(t, f)) {
            return self.call_tensor_function(f.name, args, span);
        }
        if super::terminal::NAMES.contains(&f.name) {
            return self.call_terminal(f.name, args, span);
        }
        if super::storage::NAMES.contains(&f.name) {
            return self.call_storage(f.name, args, span);
        }
        if super::cuda_graphs::NAMES.contains(&f.name) {
            return self.call_cuda_graph(f.name, args, span);
        }
        if super::optimizer_live_state::NAMES.contains(&f.name) {
            return self.call_optim_state(f.name, args, span);
        }
        if super::forward_ad::NAMES.contains(&f.name) {
            return self.call_forward_ad(f.name, args, span);
        }
        if super::rng_state::NAMES.contains(&f.name) {
            return self.call_rng_state(f.name, args, span);
        }
        if f.name.starts_with("random.") {
            return self.call_random(f.name, args, span);
        }
        if super::python_builtins::NAMES.contains(&f.name) {
            return self.call_python_builtin(f.name, args, span);
        }
        if f.name == "torch.set_printoptions" {
            return self.set_printoptions(args);
        }
        if super::torch_info::NAMES.contains(&f.name) {
            return self.call_torch_info(f.name, args, span);
        }
        if super::abstract_methods::NAMES.contains(&f.name) {
            return self.abstract_method(args, span);
        }
        if super::inspect::NAMES.contains(&f.name) {
            return self.call_inspect(f.name, args, span);
        }
        if super::stateless::NAMES.contains(&f.name) {
            return self.call_stateless(f.name, args, span);
        }
        if super::rejection_sampling::NAMES.contains(&f.name) {
            return self.call_cpu_sample(args, span);
        }
        if super::processes::NAMES.contains(&f.name) {
            return self.call_processes(f.name, args, span);
        }
        if super::mp_objects::NAMES.contains(&f.name) {
            return self.call_mp_objects(f.name, args, span);
        }
        if f.name.starts_with("pickle.") {
            return super::checkpoint::call_pickle(self, f.name, args, span);
        }
        if super::torch_profiler::NAMES.contains(&f.name) {
            return self.call_profiler(f.name, args, span);
        }
        if super::saved_tensors::NAMES.contains(&f.name) {
            return self.call_saved_hooks(f.name, args, span);
        }
        if super::struct_module::NAMES.contains(&f.name) {
            return super::struct_module::call(f.name, &args).map_err(|e| e.at(span));
        }
        if super::bytes::NAMES.contains(&f.name) {
            return super::bytes::call_native(f.name, &args).map_err(|e| e.at(span));
        }
        if super::packed_sequence::NAMES.contains(&f.name) {
            return self.call_packed_sequence(f.name, args, span);
        }
        if super::tensorboard::NAMES.contains(&f.name) {
            return self.call_tensorboard(f.name, args, span);
        }
        if super::vision_files::NAMES.contains(&f.name) {
            return self.call_vision_files(f.name, args, span);
        }
        if super::cuda_legacy::is_legacy(f) {
            return self.call_cuda_legacy(f, args, span);
        }
        if super::unicode_data::NAMES.contains(&f.name) {
            return self.call_unicode_data(f.name, args, span);
        }
        if super::pil_image::NAMES.contains(&f.name) {
            return self.call_pil_image(f.name, args, span);
        }
        if super::cuda_info::NAMES.contains(&f.name) {
            return self.call_cuda_info(f.name, args, span);
        }
        if let Some(short) = f.name.strip_prefix("torch.cuda.amp.") {
            self.rt.note(format!(
                "FutureWarning: `{}(args...)` is deprecated. Please use `torch.amp.{short}('cuda', args...)` instead.",
                f.name
            ));
            self.flush_notes();
            let doc = docs::function(short)
                .ok_or_else(|| Error::value(format!("internal error: no `{short}`")).at(span))?;
            return self.call_value(Value::Builtin(doc), args, span);
        }
        if f.name == "ast.literal_eval" {
            return match args.first().map(|a| &a.value) {
                Some(Value::Str(s)) => self.literal_eval(&s.clone(), span),
                _ => Err(Error::value("literal_eval() takes a string").at(span)),
            };
        }
        if super::np_random::NAMES.contains(&f.name) {
            return self.call_np_random(f.name, args, span);
        }
        if f.name.starts_with("glob.") {
            return glob_call(&args, span);
        }
        if f.name.starts_with("copy.") {
            return self.call_copy(f.name, args, span);
        }
        if f.name.starts_with("json.") {
            return self.call_json(f.name, args, span);
        }
        // `dict.fromkeys(iterable, value=None)`: each key with the one value.
        if f.name == "dict.fromkeys" {
            let mut keys = None;
            let mut value = Value::None;
            for (i, a) in args.into_iter().enumerate() {
                match (a.keyword.is_some(), i) {
                    (false, 0) => keys = Some(a),
                    (false, 1) => value = a.value,
                    (true, _) => {
                        return Err(Error::Module {
                            class: "TypeError",
                            message: "dict.fromkeys() takes no keyword arguments".into(),
                            help: None,
                        }
                        .at(a.span))
                    }
                    _ => {
                        return Err(Error::Module {
                            class: "TypeError",
                            message: format!(
                                "fromkeys expected at most 2 arguments, got {}",
                                i + 1
                            ),
                            help: None,
                        }
                        .at(a.span))
                    }
                }
            }
            let Some(keys) = keys else {
                return Err(Error::Module {
                    class: "TypeError",
                    message: "fromkeys expected at least 1 argument, got 0".into(),
                    help: None,
                }
                .at(span));
            };
            let mut pairs = Vec::new();
            for k in self.iterated(keys.value, keys.span)? {
                pairs.push((self.key(&k, keys.span)?, value.clone()));
            }
            return Ok(Value::Dict(super::value::PyDict::new(pairs)));
        }
        if f.name == "str.maketrans" {
            let values: Vec<Value> = args.into_iter().map(|a| a.value).collect();
            return super::strings::maketrans(&values).map_err(|e| e.at(span));
        }
        // `str.upper` read from the class: the method of its first argument.
        if let Some(method) = f.name.strip_prefix("str.") {
            let mut args = args.into_iter();
            let recv = match args.next() {
                Some(a) if matches!(a.value, Value::Str(_)) => a.value,
                Some(a) => {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!(
                        "descriptor '{method}' for 'str' objects doesn't apply to a '{}' object",
                        super::format::python_type(&a.value)
                    ),
                        help: None,
                    }
                    .at(a.span))
                }
                None => {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!("unbound method str.{method}() needs an argument"),
                        help: None,
                    }
                    .at(span))
                }
            };
            let name = crate::lang::ast::Name::new(method.to_string(), span);
            return self.call_method(recv, &name, args.collect(), span);
        }
        if super::itertools::NAMES.contains(&f.name) {
            return self.call_itertools(f.name, args, span);
        }
        if super::python_re::NAMES.contains(&f.name) {
            return self.call_python_re(f.name, args, span);
        }
        if f.name.starts_with("collections.") {
            return self.call_collections(f.name, args, span);
        }
        match f.name {
            "_cudash.dataclass" => return self.dataclass(args, span),
            "_cudash.asdict" => return self.asdict(&args, span),
            "_cudash.dataclass_field" => return self.dataclass_field(args, span),
            "_cudash.dataclass_fields" => return self.dataclass_fields(&args, span),
            // `@functools.cached_property` over a method (`stdlib/functools.py`).
            "_cudash.cached_property" => {
                return match args.first().map(|a| &a.value) {
                    Some(f @ Value::Function(_)) => Ok(Value::Decorated(Arc::new(
                        super::value::Decorated::CachedProperty(f.clone()),
                    ))),
                    _ => Err(Error::wrong_type(
                        "what @cached_property decorates",
                        "a function",
                        args.first().map_or("nothing", |a| a.value.type_name()),
                    )
                    .at(span)),
                }
            }
            _ => {}
        }
        if f.name == "gzip.open" {
            return super::files::gzip_open(&args, span);
        }
        // The host's clock as the model keeps it (`sim`, `emu`: launches,
        // host work and waits on the reference machine), None where the
        // host's wall clock is the measure (a GPU).
        // `torch.cuda.memory._snapshot()`: the dict `_dump_snapshot` pickles
        // (segments, `device_traces`, allocator settings), as PyTorch gives it.
        if f.name == "torch.cuda.memory._snapshot" {
            self.rt
                .need_cuda("`torch.cuda.memory._snapshot`")
                .map_err(at)?;
            let (bytes, _) = crate::runtime::snapshot::pickled(&self.rt.devices);
            let p =
                crate::runtime::io::unpickle_bytes(&bytes, crate::runtime::io::Py2Strings::Utf8)
                    .map_err(|e| {
                        at(Error::value(format!("the snapshot did not read back: {e}")))
                    })?;
            return super::checkpoint::from_pickled(self, p, None, span);
        }
        if f.name == "_cudash.host_clock" {
            return Ok(match self.rt.host_modelled() {
                true => Value::float(self.rt.host_now()),
                false => Value::None,
            });
        }
        // `_cudash.return_type("linalg_svd", U=u, S=s, Vh=vh)`: PyTorch's
        // named tuple `torch.return_types.linalg_svd` of these fields.
        if f.name == "_cudash.return_type" {
            let Some(Value::Str(name)) = args.first().map(|a| &a.value) else {
                return Err(at(Error::value("return_type(name, **fields)")));
            };
            let class = format!("{}{name}", super::value::RETURN_TYPES);
            let fields: Vec<(&str, Value)> = args[1..]
                .iter()
                .filter_map(|a| Some((a.keyword.as_ref()?.name.as_str(), a.value.clone())))
                .collect();
            return Ok(Value::named_tuple(&class, &fields));
        }
        // `uuid.uuid4()`'s bits, from the operating system's generator
        // (as CPython's `os.urandom`), never from `random`'s.
        if f.name == "_cudash.random_hex" {
            let n = args
                .first()
                .and_then(|a| a.value.as_number())
                .unwrap_or(16.0);
            return Ok(Value::Str(Arc::new(random_hex(
                n.clamp(0.0, 4096.0) as usize
            ))));
        }
        // A rank's or a process's own id, as a child process has.
        if f.name == "os.getpid" {
            return Ok(Value::Int(i64::from(
                self.pid.unwrap_or_else(std::process::id),
            )));
        }
        if f.name.starts_with("os.path.")
            || f.name.starts_with("shutil.")
            || matches!(
                f.name,
                "os.makedirs"
                    | "os.listdir"
                    | "os.remove"
                    | "os.unlink"
                    | "os.rmdir"
                    | "os.getcwd"
                    | "os.chdir"
                    | "os.fspath"
            )
        {
            return os_path(f.name, &args, span);
        }
        // `@torch.no_grad` without parentheses over a `def`.
        if let ("torch.no_grad" | "torch.enable_grad", [_]) = (f.name, args.as_slice()) {
            return super::class::grad_mode_decorator(
                GradSetting::scoped(f.name == "torch.enable_grad"),
                args,
                span,
            );
        }
        // `torch.set_grad_enabled(mode)`: the mode set now (a call on its
        // own line sets it for what follows), and a context whose block
        // ends in the mode before the call.
        if f.name == "torch.set_grad_enabled" {
            let mode = match args.as_slice() {
                [a] if matches!(
                    a.keyword.as_ref().map(|k| k.name.as_str()),
                    None | Some("mode")
                ) =>
                {
                    match &a.value {
                        Value::Bool(b) => b.get(),
                        other => {
                            return Err(Error::wrong_type(
                                "the mode of set_grad_enabled",
                                "True or False",
                                other.type_name(),
                            )
                            .at(a.span))
                        }
                    }
                }
                _ => {
                    return Err(Error::value(
                        "set_grad_enabled() takes one argument, the mode (True or False)",
                    )
                    .at(span))
                }
            };
            let before = std::mem::replace(&mut self.grad.enabled, mode);
            return Ok(Value::GradMode(Word::new(GradSetting {
                enabled: mode,
                restore: Some(before),
                inference: None,
            })));
        }
        // `torch.inference_mode(mode=True)`: grad mode off and inference
        // mode on in its block (the tensors made there are inference
        // tensors: `runtime::inference`); `@torch.inference_mode` over a
        // `def` without the parentheses too.
        if f.name == "torch.inference_mode" {
            return match args.first().map(|a| &a.value) {
                None => Ok(Value::GradMode(Word::new(GradSetting::inference_mode(
                    true,
                )))),
                Some(Value::Bool(on)) => Ok(Value::GradMode(Word::new(
                    GradSetting::inference_mode(on.get()),
                ))),
                Some(_) => {
                    super::class::grad_mode_decorator(GradSetting::inference_mode(true), args, span)
                }
            };
        }
        if let Some(out) = super::amp::query(self, f.name, &args) {
            return out.map_err(at);
        }
        if let Some(out) = super::anomaly::native(f.name, &args) {
            return out.map_err(at);
        }
        if f.name == "torch._C._current_graph_task_id" {
            return Ok(Value::Int(crate::autograd::engine::current_graph_task_id()));
        }
        // How many times an optimizer of cudash's stepped (a scheduler of
        // the program's warns when it steps first); None for one of the
        // program's.
        if f.name == "_cudash.optimizer_steps" {
            return Ok(match args.first().map(|a| &a.value) {
                Some(Value::Optimizer(o)) => Value::Int(lock(o).steps_taken as i64),
                _ => Value::None,
            });
        }
        if f.name == "torch.autograd._is_checkpoint_valid" {
            return Ok(Value::bool(crate::autograd::engine::is_checkpoint_valid()));
        }
        // `model = torch.compile(model, mode=...)` (nanoGPT's default): the
        // model itself, run eagerly, said once; its settings select nothing.
        if f.name == "torch.compile" {
            let Some(model) = args.iter().find(|a| {
                a.keyword.is_none() || a.keyword.as_ref().is_some_and(|k| k.name == "model")
            }) else {
                return Err(Error::value("torch.compile() needs a model or a function").at(span));
            };
            let model = model.value.clone();
            self.warn_once(
                "torch.compile: cudash runs the model eagerly, op by op; PyTorch would \
                 compile it into fused kernels (fewer launches, less memory for \
                 temporaries), so its time and memory differ from what cudash shows"
                    .to_string(),
            );
            return Ok(model);
        }
        let takes_keyword = |f: &str, k: &str| {
            matches!(
                (f, k),
                ("math.isclose", "rel_tol" | "abs_tol") | ("math.prod", "start")
            )
        };
        if let Some(a) = args.iter().find(|a| {
            a.keyword
                .as_ref()
                .is_some_and(|k| !takes_keyword(f.name, &k.name))
        }) {
            let k = a
                .keyword
                .as_ref()
                .map(|k| k.name.clone())
                .unwrap_or_default();
            return Err(
                Error::value(format!("`{}` takes no keyword `{k}` here", f.name)).at(a.span),
            );
        }
        // A one-element tensor counts as its number (Python's `__float__`):
        // a host read, as `.item()`.
        let mut nums = Vec::with_capacity(args.len());
        for a in &args {
            nums.push(
                self.one_element_value(a.value.clone())
                    .map_err(at)?
                    .as_number(),
            );
        }
        let number = |k: usize| -> Result<f64, Diagnostic> {
            let a = args.get(k).ok_or_else(|| {
                Error::value(format!("`{}` needs {} argument(s)", f.name, k + 1)).at(span)
            })?;
            nums[k].ok_or_else(|| {
                Error::wrong_type(
                    format!("the argument of `{}`", f.name),
                    "a number",
                    a.value.type_name(),
                )
                .at(a.span)
            })
        };
        let float = |x: f64| Value::Float(Word::new(x));
        Ok(match f.name {
            "torch.no_grad" => Value::GradMode(Word::new(GradSetting::scoped(false))),
            "torch.enable_grad" => Value::GradMode(Word::new(GradSetting::scoped(true))),
            "torch.is_grad_enabled" => Value::bool(self.grad.enabled),
            "torch.is_inference_mode_enabled" => Value::bool(crate::runtime::inference::enabled()),
            // PyTorch's device-generic spelling (the quickstart's): CUDA's here.
            "torch.accelerator.is_available" => Value::bool(self.rt.devices.count() > 0),
            "torch.accelerator.device_count" => Value::Int(self.rt.devices.count() as i64),
            // NCCL for a CUDA device, Gloo for the cpu, as PyTorch's table.
            "torch.distributed.get_default_backend_for_device" => {
                let cuda = match args.first().map(|a| &a.value) {
                    Some(Value::CurrentCuda) => true,
                    Some(Value::Device(d)) => matches!(d.get(), crate::runtime::Device::Cuda(_)),
                    Some(Value::Str(s)) => s.starts_with("cuda"),
                    _ => {
                        return Err(Error::value(
                            "get_default_backend_for_device takes a device (`cuda`, `cpu`)",
                        )
                        .at(span))
                    }
                };
                Value::Str(Arc::new(if cuda { "nccl" } else { "gloo" }.into()))
            }
            // PyTorch's are the index, an int (cudash's own
            // `current_device()` is the device, as `cuda` reads).
            "torch.accelerator.current_device_index" | "torch.cuda.current_device" => {
                Value::Int(i64::from(self.rt.current_device))
            }
            // PyTorch's `DeviceContext` made the default for good (None:
            // back to the cpu); `get_default_device` names the device
            // with its index, as PyTorch's.
            "torch.set_default_device" => {
                let given = args.first().map_or(Value::None, |a| a.value.clone());
                let given = match given {
                    Value::Str(s) => super::spelling::device_string(&s).unwrap_or(Value::Str(s)),
                    Value::Int(i) => Value::device(crate::runtime::Device::Cuda(
                        u32::try_from(i).unwrap_or(u32::MAX),
                    )),
                    other => other,
                };
                self.default_device = match given {
                    Value::None => None,
                    v => super::value::DefaultDevice::of(&v).ok_or_else(|| {
                        Error::wrong_type(
                            "the argument of `torch.set_default_device`",
                            "a device (`\"cuda\"`, `\"cuda:1\"`, `\"cpu\"`) or None",
                            v.type_name(),
                        )
                        .at(span)
                    })?,
                };
                if let Err(e) = self.rt.check_device(self.default_device()) {
                    self.default_device = None;
                    return Err(e.at(span));
                }
                Value::None
            }
            "torch.get_default_device" => Value::device(self.default_device()),
            // In a DataLoader worker: which one, of how many, its seed and
            // its copy of the dataset; None on the main thread.
            // `default_collate(samples)` (`stdlib/torch_utils_data_iterable.py`).
            "_cudash.default_collate" => {
                let samples = match args.first().map(|a| a.value.items()) {
                    Some(Some(items)) => items,
                    _ => return Err(at(Error::value("default_collate takes a list of samples"))),
                };
                return super::data::default_collate(&samples).map_err(at);
            }
            // A DataLoader worker's own copy of a value, as a forked
            // worker's (`data::own_copy`).
            "_cudash.worker_copy" => match args.first() {
                Some(a) => super::data::own_copy(&a.value),
                None => return Err(at(Error::value("worker_copy takes a value"))),
            },
            "_cudash.get_worker_info" => match &self.worker_info {
                None => Value::None,
                Some((seat, dataset)) => {
                    let o = super::value::Object::new(super::value::worker_info_class());
                    o.set("id", Value::Int(seat.id as i64));
                    o.set("num_workers", Value::Int(seat.num_workers as i64));
                    o.set("seed", Value::Int(seat.seed() as i64));
                    o.set("dataset", dataset.clone());
                    Value::Object(Arc::new(o))
                }
            },
            // The cpu generator's seed (a worker's: `base_seed + id`).
            "torch.initial_seed" => Value::Int(self.rt.generators.cpu().initial_seed() as i64),
            // The dtype two tensors of these dtypes compute in.
            "torch.promote_types" => {
                let dtype = |k: usize| match args.get(k).map(|a| &a.value) {
                    Some(Value::DType(d)) => Ok(d.get()),
                    _ => Err(Error::value("torch.promote_types takes two dtypes").at(span)),
                };
                Value::dtype(crate::runtime::DType::promote(dtype(0)?, dtype(1)?))
            }
            // The dtype an op of these operands computes in: a number is
            // weak, a 0-d tensor weaker than a dimensioned one.
            "torch.result_type" => {
                use crate::runtime::op::binary::{result_dtype_of, Operand};
                let operand = |k: usize| {
                    args.get(k)
                        .and_then(|a| super::args::operand_value(&a.value))
                        .ok_or_else(|| {
                            Error::value("torch.result_type takes two tensors or numbers").at(span)
                        })
                };
                let (a, b) = (operand(0)?, operand(1)?);
                let ops = [
                    Operand {
                        tensor: &a.0,
                        weak: a.1,
                    },
                    Operand {
                        tensor: &b.0,
                        weak: b.1,
                    },
                ];
                Value::dtype(result_dtype_of(&ops))
            }
            // "highest" turns TF32 off for matrix products, "high" and
            // "medium" on (`allow_tf32`, read back; the products stay f32).
            "torch.set_float32_matmul_precision" => {
                let p = match args.first().map(|a| &a.value) {
                    Some(Value::Str(s)) => match s.as_str() {
                        "highest" => "highest",
                        "high" => "high",
                        "medium" => "medium",
                        other => {
                            return Err(Error::runtime(format!(
                                "Invalid precision: {other}; expected 'highest', 'high' or 'medium'"
                            ))
                            .at(span))
                        }
                    },
                    _ => {
                        return Err(
                            Error::value("set_float32_matmul_precision takes a string").at(span)
                        )
                    }
                };
                *lock(&PRECISION) = p;
                set_flag_named("torch.backends.cuda.matmul.allow_tf32", p != "highest");
                self.rt.allow_tf32 = p != "highest";
                Value::None
            }
            "torch.get_float32_matmul_precision" => {
                Value::Str(Arc::new((*lock(&PRECISION)).into()))
            }
            // `warnings.warn` (cudash's `warnings` module): shown as
            // cudash's warnings are, unless its category is ignored.
            "_cudash.warn" => {
                if let Some(Value::Str(s)) = args.first().map(|a| &a.value) {
                    self.warn_once(s.to_string());
                }
                Value::None
            }
            // The categories `filterwarnings("ignore", category=C)` hides.
            "_cudash.ignore_warnings" => {
                let names = args.first().and_then(|a| a.value.items());
                self.ignored_warnings = names
                    .map(|items| {
                        items
                            .iter()
                            .filter_map(|v| match v {
                                Value::Str(s) => Some(s.to_string()),
                                _ => None,
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Value::None
            }
            "torch.distributed.get_backend" => {
                let name = self.rt.backend_name().map_err(|e| e.at(span))?;
                Value::Str(Arc::new(name.into()))
            }
            // PyTorch's is the device type (`cuda`, no index).
            "torch.accelerator.current_accelerator" => match self.rt.devices.count() {
                0 => Value::None,
                _ => Value::CurrentCuda,
            },
            "time.time" => float(self.program_epoch()),
            "time.localtime" => {
                let secs = match args.first().map(|a| &a.value) {
                    None | Some(Value::None) => self.program_epoch(),
                    Some(_) => number(0)?,
                };
                let fields = super::localtime::localtime(secs);
                Value::List(Arc::new(fields.iter().map(|&f| Value::Int(f)).collect()))
            }
            // `time.ctime(secs=None)`, `time.asctime(t=None)`: C's
            // `asctime` form, `Fri Dec  4 06:48:05 2026`.
            "time.ctime" | "time.asctime" => {
                let fields = match (f.name, args.first().map(|a| &a.value)) {
                    (_, None | Some(Value::None)) => {
                        super::localtime::localtime(self.program_epoch())
                    }
                    ("time.ctime", Some(_)) => super::localtime::localtime(number(0)?),
                    (_, Some(v)) => struct_time(v).ok_or_else(|| {
                        Error::wrong_type(
                            "the time of asctime",
                            "a struct_time (nine ints, as time.localtime() gives)",
                            v.type_name(),
                        )
                        .at(args[0].span)
                    })?,
                };
                let text = super::localtime::strftime("%a %b %e %H:%M:%S %Y", &fields)
                    .ok_or_else(|| Error::value("asctime() could not write the time").at(span))?;
                Value::Str(Arc::new(text))
            }
            "time.strftime" => {
                let Some(Value::Str(format)) = args.first().map(|a| &a.value) else {
                    return Err(Error::value("strftime() takes a format string first").at(span));
                };
                let fields = match args.get(1).map(|a| &a.value) {
                    None => super::localtime::localtime(self.program_epoch()),
                    Some(v) => struct_time(v).ok_or_else(|| {
                        Error::wrong_type(
                            "the time of strftime",
                            "a struct_time (nine ints, as time.localtime() gives)",
                            v.type_name(),
                        )
                        .at(args[1].span)
                    })?,
                };
                let text = super::localtime::strftime(format, &fields).ok_or_else(|| {
                    Error::value("strftime() could not write this format").at(span)
                })?;
                Value::Str(Arc::new(text))
            }
            // Tensors are freed when the last name lets go: no cycles of
            // tensors wait for a collector, so nothing more is freed here.
            "gc.collect" => Value::Int(0),
            "time.perf_counter" | "time.monotonic" => float(self.program_seconds()),
            "time.perf_counter_ns" | "time.monotonic_ns" => {
                Value::Int((self.program_seconds() * 1e9).round() as i64)
            }
            "time.time_ns" => Value::Int((self.program_epoch() * 1e9).round() as i64),
            "math.sqrt" => float(number(0)?.sqrt()),
            "math.exp" => float(number(0)?.exp()),
            "math.log" if args.len() == 2 => float(number(0)?.ln() / number(1)?.ln()),
            "math.log" => float(number(0)?.ln()),
            "math.log2" => float(number(0)?.log2()),
            "math.log10" => float(number(0)?.log10()),
            "math.sin" => float(number(0)?.sin()),
            "math.cos" => float(number(0)?.cos()),
            "math.tan" => float(number(0)?.tan()),
            "math.atan" => float(number(0)?.atan()),
            "math.tanh" => float(number(0)?.tanh()),
            "math.fabs" => float(number(0)?.abs()),
            "math.atan2" => float(number(0)?.atan2(number(1)?)),
            "math.hypot" => {
                let mut total = 0.0;
                for k in 0..args.len() {
                    let x = number(k)?;
                    total += x * x;
                }
                float(total.sqrt())
            }
            "math.asin" => float(number(0)?.asin()),
            "math.acos" => float(number(0)?.acos()),
            "math.sinh" => float(number(0)?.sinh()),
            "math.lgamma" | "math.gamma" => {
                let x = number(0)?;
                if x <= 0.0 && x == x.floor() {
                    return Err(at(Error::value("math domain error")));
                }
                match f.name {
                    "math.lgamma" => float(crate::runtime::libm::lgamma(x)),
                    _ => float(crate::runtime::libm::gamma(x)),
                }
            }
            "math.copysign" => float(number(0)?.copysign(number(1)?)),
            "math.erf" => float(crate::runtime::libm::erf(number(0)?)),
            "math.erfc" => float(crate::runtime::libm::erfc(number(0)?)),
            "math.log1p" => float(number(0)?.ln_1p()),
            "math.expm1" => float(number(0)?.exp_m1()),
            "math.cosh" => float(number(0)?.cosh()),
            "math.degrees" => float(number(0)?.to_degrees()),
            "math.radians" => float(number(0)?.to_radians()),
            "math.trunc" => {
                let x = number(0)?;
                if !x.is_finite() {
                    return Err(at(Error::value(
                        "cannot convert float infinity or NaN to integer",
                    )));
                }
                Value::Int(x.trunc() as i64)
            }
            // `isclose(a, b, rel_tol=1e-09, abs_tol=0.0)`, as Python's.
            "math.isclose" => {
                let keyword = |k: &str, default: f64| {
                    args.iter()
                        .find(|a| a.keyword.as_ref().is_some_and(|n| n.name == k))
                        .and_then(|a| a.value.as_number())
                        .unwrap_or(default)
                };
                let (a, b) = (number(0)?, number(1)?);
                let (rel, abs) = (keyword("rel_tol", 1e-9), keyword("abs_tol", 0.0));
                let close = a == b
                    || ((a - b).abs() <= (rel * b.abs()).max(rel * a.abs()).max(abs)
                        && a.is_finite()
                        && b.is_finite());
                Value::bool(close)
            }
            "math.gcd" | "math.lcm" | "math.factorial" | "math.comb" | "math.perm"
            | "math.isqrt" => {
                let int = |k: usize| -> Result<i64, Diagnostic> {
                    match args.get(k).map(|a| &a.value) {
                        Some(Value::Int(n)) => Ok(*n),
                        Some(Value::Bool(b)) => Ok(b.get() as i64),
                        _ => Err(at(Error::type_error(format!(
                            "{}() takes integers",
                            f.name.trim_start_matches("math.")
                        )))),
                    }
                };
                let too_big = || {
                    at(Error::value(format!(
                        "{}(): the result does not fit in 64 bits",
                        f.name
                    )))
                };
                match f.name {
                    "math.gcd" => {
                        let mut g: i64 = 0;
                        for k in 0..args.len() {
                            let (mut a, mut b) = (g.unsigned_abs(), int(k)?.unsigned_abs());
                            while b != 0 {
                                (a, b) = (b, a % b);
                            }
                            g = a as i64;
                        }
                        Value::Int(g)
                    }
                    // The least common multiple of all (0 if any is; 1 of none).
                    "math.lcm" => {
                        let mut l: u64 = 1;
                        for k in 0..args.len() {
                            let n = int(k)?.unsigned_abs();
                            if n == 0 {
                                l = 0;
                                continue;
                            }
                            let (mut a, mut b) = (l, n);
                            while b != 0 {
                                (a, b) = (b, a % b);
                            }
                            l = match a {
                                0 => 0,
                                g => (l / g).checked_mul(n).ok_or_else(too_big)?,
                            };
                        }
                        Value::Int(i64::try_from(l).map_err(|_| too_big())?)
                    }
                    "math.isqrt" => {
                        let n = int(0)?;
                        if n < 0 {
                            return Err(at(Error::value("isqrt() argument must be nonnegative")));
                        }
                        // The float root, then corrected to the exact floor.
                        let mut r = (n as f64).sqrt() as i64;
                        while r.checked_mul(r).is_none_or(|sq| sq > n) {
                            r -= 1;
                        }
                        while (r + 1).checked_mul(r + 1).is_some_and(|sq| sq <= n) {
                            r += 1;
                        }
                        Value::Int(r)
                    }
                    // n! / (n - k)!, and n! without k.
                    "math.perm" => {
                        let n = int(0)?;
                        let k = match args.get(1).map(|a| &a.value) {
                            None | Some(Value::None) => n,
                            _ => int(1)?,
                        };
                        if n < 0 || k < 0 {
                            return Err(at(Error::value("n and k must be non-negative integers")));
                        }
                        let mut acc: i64 = if k > n { 0 } else { 1 };
                        for j in 0..k.min(n) {
                            acc = acc.checked_mul(n - j).ok_or_else(too_big)?;
                        }
                        Value::Int(acc)
                    }
                    "math.factorial" => {
                        let n = int(0)?;
                        if n < 0 {
                            return Err(at(Error::value(
                                "factorial() not defined for negative values",
                            )));
                        }
                        let mut acc: i64 = 1;
                        for k in 2..=n {
                            acc = acc.checked_mul(k).ok_or_else(too_big)?;
                        }
                        Value::Int(acc)
                    }
                    _ => {
                        let (n, k) = (int(0)?, int(1)?);
                        if n < 0 || k < 0 {
                            return Err(at(Error::value("n and k must be non-negative integers")));
                        }
                        if k > n {
                            Value::Int(0)
                        } else {
                            let k = k.min(n - k);
                            let mut acc: i128 = 1;
                            for j in 0..k {
                                acc = acc * i128::from(n - j) / i128::from(j + 1);
                                if acc > i128::from(i64::MAX) {
                                    return Err(too_big());
                                }
                            }
                            Value::Int(acc as i64)
                        }
                    }
                }
            }
            "math.pow" => float(number(0)?.powf(number(1)?)),
            "math.floor" | "math.ceil" => {
                let x = number(0)?;
                let r = if f.name == "math.floor" {
                    x.floor()
                } else {
                    x.ceil()
                };
                if !r.is_finite() {
                    return Err(at(Error::value(format!(
                        "cannot convert {x} to an integer"
                    ))));
                }
                Value::Int(r as i64)
            }
            "math.isnan" => Value::bool(number(0)?.is_nan()),
            "math.isinf" => Value::bool(number(0)?.is_infinite()),
            "math.isfinite" => Value::bool(number(0)?.is_finite()),
            "os.getenv" => {
                let key = match args.first().map(|a| &a.value) {
                    Some(Value::Str(s)) => s.to_string(),
                    _ => return Err(at(Error::value("`os.getenv` takes the variable's name"))),
                };
                match super::environ::env_var(&key) {
                    Some(v) => Value::Str(Arc::new(v)),
                    None => args.get(1).map_or(Value::None, |a| a.value.clone()),
                }
            }
            // cudash's convolutions are its own kernels, not cuDNN's.
            "torch.backends.cudnn.is_available"
            | "torch.backends.mps.is_available"
            | "torch.backends.mps.is_built"
            | "torch.backends.mkldnn.is_available"
            | "torch.xpu.is_available" => Value::bool(false),
            "torch.xpu.device_count" => Value::Int(0),
            // PyTorch's `version()` is None where cuDNN is not available.
            "torch.backends.cudnn.version" => Value::None,
            "sys.exit" => {
                let code = match args.first().map(|a| &a.value) {
                    None | Some(Value::None) => 0,
                    Some(Value::Int(c)) => *c as i32,
                    Some(Value::Bool(b)) => b.get() as i32,
                    // `sys.exit("message")`: the message on stderr, status 1.
                    Some(other) => {
                        self.emit(super::Output::Stderr(super::format::str_of(other)));
                        1
                    }
                };
                return Err(at(Error::Exit { code }));
            }
            // `for i in count(1):` counts as a range without end does.
            "itertools.count" => {
                let start = args.first().map_or(Ok(0.0), |_| number(0))? as i64;
                let step = if args.len() > 1 { number(1)? as i64 } else { 1 };
                if step == 0 {
                    return Err(at(Error::value(
                        "cudash's count() needs a step other than 0",
                    )));
                }
                let stop = if step > 0 { i64::MAX } else { i64::MIN };
                Value::Range(Arc::new(super::value::PyRange { start, stop, step }))
            }
            // cudash's ops are deterministic already: the setting is kept.
            "torch.use_deterministic_algorithms" => {
                let on = match args.first().map(|a| &a.value) {
                    Some(Value::Bool(b)) => b.get(),
                    _ => {
                        return Err(at(Error::value(
                            "use_deterministic_algorithms() takes True or False",
                        )))
                    }
                };
                DETERMINISTIC.store(on, std::sync::atomic::Ordering::Relaxed);
                Value::None
            }
            "_cudash.sdp_enabled" | "_cudash.enable_sdp" => {
                use crate::autograd::sdp::Backend;
                let backend = match args.first().map(|a| &a.value) {
                    Some(Value::Str(s)) => Backend::named(s),
                    _ => None,
                };
                let Some(backend) = backend else {
                    return Err(at(Error::value(
                        "an attention backend is \"math\", \"flash\", \"mem_efficient\" or \"cudnn\"",
                    )));
                };
                match (f.name, args.get(1).map(|a| &a.value)) {
                    ("_cudash.sdp_enabled", _) => Value::bool(backend.enabled()),
                    (_, Some(Value::Bool(on))) => {
                        backend.set_enabled(on.get());
                        Value::None
                    }
                    _ => return Err(at(Error::value("enable_sdp(name, on) takes True or False"))),
                }
            }
            "torch.are_deterministic_algorithms_enabled" => {
                Value::bool(DETERMINISTIC.load(std::sync::atomic::Ordering::Relaxed))
            }
            // `math.prod(xs, start=1)`: ints stay ints, as Python's.
            "math.prod" => {
                let xs = match args.first() {
                    Some(a) => self.iterated(a.value.clone(), a.span)?,
                    None => return Err(at(Error::value("prod() needs an iterable"))),
                };
                let start = args
                    .iter()
                    .find(|a| a.keyword.as_ref().is_some_and(|k| k.name == "start"))
                    .map_or(Value::Int(1), |a| a.value.clone());
                let mut acc = start;
                for x in xs {
                    acc = match (&acc, &x) {
                        (Value::Int(a), Value::Int(b)) => {
                            a.checked_mul(*b).map(Value::Int).ok_or_else(|| {
                                at(Error::value("prod(): the product overflows 64 bits"))
                            })?
                        }
                        (a, b) => match (a.as_number(), b.as_number()) {
                            (Some(a), Some(b)) => float(a * b),
                            _ => {
                                return Err(at(Error::wrong_type(
                                    "an item of prod()",
                                    "a number",
                                    x.type_name(),
                                )))
                            }
                        },
                    };
                }
                acc
            }
            "os.cpu_count" | "torch.multiprocessing.cpu_count" => {
                Value::Int(std::thread::available_parallelism().map_or(1, |n| n.get()) as i64)
            }
            // cudash has torch.distributed (ranks of `spawn` and `launch`).
            "torch.distributed.is_available" => Value::bool(true),
            other => {
                return Err(at(Error::value(format!(
                    "internal error: `{other}` has no handler"
                ))))
            }
        })
    }
}

/// A file, or a folder with everything in it, copied to `to`.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    if !from.is_dir() {
        return std::fs::copy(from, to).map(|_| ());
    }
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        copy_tree(&entry.path(), &to.join(entry.file_name()))?;
    }
    Ok(())
}

/// Python's `os.path.normpath` on POSIX: `.` parts and doubled slashes
/// dropped, `a/..` folded; `..` above a relative path kept, above `/`
/// dropped; two leading slashes kept (POSIX leaves them to the system).
fn normpath(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let lead = match (
        p.starts_with("//"),
        p.starts_with("///"),
        p.starts_with('/'),
    ) {
        (true, false, _) => "//",
        (_, _, true) => "/",
        _ => "",
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|&l| l != "..") => {
                parts.pop();
            }
            ".." if !lead.is_empty() => {}
            part => parts.push(part),
        }
    }
    let body = parts.join("/");
    match (lead, body.is_empty()) {
        ("", true) => ".".into(),
        _ => format!("{lead}{body}"),
    }
}

fn abspath(p: &str) -> String {
    if p.starts_with('/') {
        return normpath(p);
    }
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "/".into());
    normpath(&format!("{cwd}/{p}"))
}

/// Python's `os.path.relpath(path, start)` on POSIX: both made absolute,
/// then `..` for each part of `start` past their common folders.
fn relpath(path: &str, start: &str) -> String {
    let (p, s) = (abspath(path), abspath(start));
    let parts = |x: &str| -> Vec<String> {
        x.split('/')
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (p, s) = (parts(&p), parts(&s));
    let common = p.iter().zip(&s).take_while(|(a, b)| a == b).count();
    let mut out: Vec<String> = vec!["..".into(); s.len() - common];
    out.extend(p[common..].iter().cloned());
    if out.is_empty() {
        ".".into()
    } else {
        out.join("/")
    }
}

/// `os.path.exists(p)`, `os.path.join(a, b)`, `os.makedirs(p, exist_ok=True)`:
/// the file system as Python's `os` sees it.
fn os_path(name: &str, args: &[ArgVal], span: Span) -> Result<Value, Diagnostic> {
    let mut texts = Vec::new();
    for a in args.iter().filter(|a| a.keyword.is_none()) {
        match super::value::fspath(&a.value) {
            Some(s) => texts.push(s),
            None => {
                let other = &a.value;
                return Err(Error::wrong_type(
                    format!("the argument of `{name}`"),
                    "a path (a str)",
                    other.type_name(),
                )
                .at(a.span));
            }
        }
    }
    let first = || {
        texts
            .first()
            .cloned()
            .ok_or_else(|| Error::value(format!("`{name}` needs a path")).at(span))
    };
    let text = |s: String| Value::Str(Arc::new(s));
    let path = std::path::Path::new;
    let two = || match &texts[..] {
        [a, b, ..] => Ok((a.clone(), b.clone())),
        _ => Err(Error::value(format!("`{name}` needs a source and a destination")).at(span)),
    };
    Ok(match name {
        "os.path.exists" => Value::bool(path(&first()?).exists()),
        "os.path.isfile" => Value::bool(path(&first()?).is_file()),
        "os.path.isdir" => Value::bool(path(&first()?).is_dir()),
        "os.path.islink" => Value::bool(path(&first()?).is_symlink()),
        // Python's: a part that starts with `/` starts the path again.
        "os.path.join" => {
            let mut out = String::new();
            for t in &texts {
                if t.starts_with('/') || out.is_empty() {
                    out = t.clone();
                } else {
                    if !out.ends_with('/') {
                        out.push('/');
                    }
                    out.push_str(t);
                }
            }
            text(out)
        }
        "os.path.basename" => {
            let p = first()?;
            text(p.rsplit('/').next().unwrap_or("").to_string())
        }
        "os.path.dirname" => {
            let p = first()?;
            text(p.rsplit_once('/').map_or(String::new(), |(d, _)| match d {
                "" => "/".to_string(),
                d => d.to_string(),
            }))
        }
        // `os.path.split("a/b.txt")` is `("a", "b.txt")`, as Python's.
        "os.path.split" => {
            let p = first()?;
            let (head, tail) = match p.rfind('/') {
                Some(k) => (&p[..=k], &p[k + 1..]),
                None => ("", p.as_str()),
            };
            let trimmed = head.trim_end_matches('/');
            let head = if trimmed.is_empty() { head } else { trimmed };
            Value::List(Arc::new(vec![text(head.into()), text(tail.into())]))
        }
        // `os.path.splitext("a/b.tar.gz")` is `("a/b.tar", ".gz")`; a name's
        // leading dots start no extension (`.bashrc`).
        "os.path.splitext" => {
            let p = first()?;
            let base_at = p.rfind('/').map_or(0, |k| k + 1);
            let base = &p[base_at..];
            let lead = base.len() - base.trim_start_matches('.').len();
            let (root, ext) = match base[lead..].rfind('.') {
                Some(k) => p.split_at(base_at + lead + k),
                None => (p.as_str(), ""),
            };
            Value::List(Arc::new(vec![text(root.into()), text(ext.into())]))
        }
        // `~` and `~/...` name the home directory; `~user` stays as it is.
        "os.path.expanduser" => {
            let p = first()?;
            let home = std::env::var("HOME").ok().filter(|h| !h.is_empty());
            match (p.strip_prefix('~'), home) {
                (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
                    text(format!("{home}{rest}"))
                }
                _ => text(p),
            }
        }
        "os.path.normpath" => text(normpath(&first()?)),
        "os.path.relpath" => {
            let start = texts.get(1).cloned().unwrap_or_else(|| ".".into());
            text(relpath(&first()?, &start))
        }
        "os.path.isabs" => Value::bool(first()?.starts_with('/')),
        // The path from `/`, as Python's: joined to the working directory,
        // then normalised (links are not followed).
        "os.path.abspath" => text(abspath(&first()?)),
        // As abspath, links followed where the path exists.
        "os.path.realpath" => {
            let p = first()?;
            match std::fs::canonicalize(&p) {
                Ok(real) => text(real.display().to_string()),
                Err(_) => text(abspath(&p)),
            }
        }
        // `shutil.copy(src, dst)`: into `dst`, or into the folder `dst`
        // names; the path written is returned, as Python's.
        "shutil.copyfile" | "shutil.copy" | "shutil.copy2" => {
            let (src, dst) = two()?;
            let mut to = std::path::PathBuf::from(&dst);
            if name != "shutil.copyfile" && to.is_dir() {
                to.push(path(&src).file_name().unwrap_or_default());
            }
            std::fs::copy(&src, &to).map_err(|e| no_such(&src, e, span))?;
            text(to.display().to_string())
        }
        "shutil.move" => {
            let (src, dst) = two()?;
            let mut to = std::path::PathBuf::from(&dst);
            if to.is_dir() {
                to.push(path(&src).file_name().unwrap_or_default());
            }
            if std::fs::rename(&src, &to).is_err() {
                copy_tree(path(&src), &to).map_err(|e| no_such(&src, e, span))?;
                match path(&src).is_dir() {
                    true => std::fs::remove_dir_all(&src),
                    false => std::fs::remove_file(&src),
                }
                .map_err(|e| no_such(&src, e, span))?;
            }
            text(to.display().to_string())
        }
        "shutil.copytree" => {
            let (src, dst) = two()?;
            if path(&dst).exists() {
                return Err(Error::Module {
                    class: "FileExistsError",
                    message: format!("[Errno 17] File exists: '{dst}'"),
                    help: None,
                }
                .at(span));
            }
            copy_tree(path(&src), path(&dst)).map_err(|e| no_such(&src, e, span))?;
            text(dst)
        }
        "shutil.rmtree" => {
            let p = first()?;
            std::fs::remove_dir_all(&p).map_err(|e| no_such(&p, e, span))?;
            Value::None
        }
        "os.path.getsize" => {
            let p = first()?;
            let meta = std::fs::metadata(&p).map_err(|e| no_such(&p, e, span))?;
            Value::Int(meta.len() as i64)
        }
        // A str as it is, a `pathlib` path as its text.
        "os.fspath" => text(first()?),
        // The process's directory, as Python's: every thread's (a rank's,
        // a worker's) relative paths follow it.
        "os.chdir" => {
            let p = first()?;
            std::env::set_current_dir(&p).map_err(|e| no_such(&p, e, span))?;
            Value::None
        }
        "os.getcwd" => text(
            std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
        ),
        // The names in a directory, in the order the system lists them
        // (Python's, unsorted).
        "os.listdir" => {
            let p = texts.first().cloned().unwrap_or_else(|| ".".into());
            let entries = std::fs::read_dir(&p).map_err(|e| no_such(&p, e, span))?;
            let mut names = Vec::new();
            for entry in entries {
                let entry = entry.map_err(|e| no_such(&p, e, span))?;
                names.push(text(entry.file_name().to_string_lossy().into_owned()));
            }
            Value::list(names)
        }
        "os.remove" | "os.unlink" => {
            let p = first()?;
            std::fs::remove_file(&p).map_err(|e| no_such(&p, e, span))?;
            Value::None
        }
        "os.rmdir" => {
            let p = first()?;
            std::fs::remove_dir(&p).map_err(|e| no_such(&p, e, span))?;
            Value::None
        }
        _ => {
            let p = first()?;
            let exist_ok = args.iter().any(|a| {
                a.keyword.as_ref().is_some_and(|k| k.name == "exist_ok")
                    && matches!(a.value, Value::Bool(b) if b.get())
            });
            if path(&p).is_dir() && !exist_ok {
                return Err(Error::Module {
                    class: "FileExistsError",
                    message: format!("[Errno 17] File exists: '{p}'"),
                    help: None,
                }
                .at(span));
            }
            std::fs::create_dir_all(&p).map_err(|e| {
                Error::Io {
                    action: "make the directory".into(),
                    path: p.clone(),
                    reason: e.to_string(),
                }
                .at(span)
            })?;
            Value::None
        }
    })
}

/// Python's `OSError` of a path: `FileNotFoundError: [Errno 2] No such
/// file or directory: 'x'`, and the like.
fn no_such(path: &str, e: std::io::Error, span: Span) -> Diagnostic {
    let (class, errno, what) = match e.kind() {
        std::io::ErrorKind::NotFound => ("FileNotFoundError", 2, "No such file or directory"),
        std::io::ErrorKind::PermissionDenied => ("PermissionError", 13, "Permission denied"),
        std::io::ErrorKind::IsADirectory => ("IsADirectoryError", 21, "Is a directory"),
        std::io::ErrorKind::NotADirectory => ("NotADirectoryError", 20, "Not a directory"),
        _ => {
            return Error::Io {
                action: "read the directory".into(),
                path: path.into(),
                reason: e.to_string(),
            }
            .at(span)
        }
    };
    Error::Module {
        class,
        message: format!("[Errno {errno}] {what}: '{path}'"),
        help: None,
    }
    .at(span)
}

/// `n` random bytes as hex, read from the operating system's generator
/// (`/dev/urandom`); where there is none, from the clock and the process.
fn random_hex(n: usize) -> String {
    use std::io::Read;
    let mut bytes = vec![0u8; n];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        use std::hash::{BuildHasher, Hasher};
        for (i, b) in bytes.iter_mut().enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(i);
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            *b = h.finish() as u8;
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parent_of_a_module_is_a_module() {
        for m in MODULES {
            if let Some((parent, _)) = m.path.rsplit_once('.') {
                assert!(module(parent).is_ok(), "{} has no parent {parent}", m.path);
            }
        }
    }

    #[test]
    fn pytorch_names_find_their_builtins() {
        let name = |path: &str, name: &str| match member(module(path).unwrap(), name) {
            Ok(Value::Builtin(d)) => d.name.to_string(),
            Ok(Value::Namespace(m)) => m.path.to_string(),
            Ok(Value::DType(d)) => d.get().to_string(),
            Ok(other) => other.type_name().to_string(),
            Err(e) => format!("error: {e}"),
        };
        for (path, n, want) in [
            ("torch", "zeros", "zeros"),
            ("torch", "float32", "f32"),
            ("torch", "long", "i64"),
            ("torch", "bool", "bool"),
            ("torch", "nn", "torch.nn"),
            ("torch.nn", "Linear", "Linear"),
            ("torch.nn", "functional", "torch.nn.functional"),
            ("torch.nn.functional", "relu", "relu"),
            ("torch.nn.functional", "cross_entropy", "cross_entropy"),
            ("torch.optim", "SGD", "SGD"),
            ("torch.optim.lr_scheduler", "StepLR", "StepLR"),
            ("torch.utils.data", "DataLoader", "DataLoader"),
            ("torch.utils.data", "Dataset", "Dataset"),
            ("torch.utils.data", "random_split", "random_split"),
            ("torch.utils.data.sampler", "RandomSampler", "RandomSampler"),
            ("torch.utils.data.dataset", "Subset", "Subset"),
            ("torch.cuda", "synchronize", "synchronize"),
            ("torch.cuda", "memory_allocated", "memory_allocated"),
            ("torch.cuda", "is_available", "is_available"),
            ("torch", "device", "device"),
            ("torch.nn.utils", "clip_grad_norm_", "clip_grad_norm_"),
            ("torch.nn.init", "kaiming_uniform_", "kaiming_uniform_"),
        ] {
            assert_eq!(name(path, n), want, "{path}.{n}");
        }
        // Not PyTorch's places: a layer is not in `torch`, a function not in `torch.optim`.
        for (path, n) in [
            ("torch", "Linear"),
            ("torch.optim", "zeros"),
            ("torch.nn", "CTCLoss"),
        ] {
            assert!(name(path, n).starts_with("error"), "{path}.{n}");
        }
    }
}
