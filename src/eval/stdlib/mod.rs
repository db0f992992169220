//! Python's own modules that cudash writes in Python (this directory),
//! imported as a program's module is (`own_module.rs`), from the text
//! built in; a file of the same name beside the script hides one, as in
//! Python.

use std::path::{Path, PathBuf};

const MODULES: &[(&str, &str)] = &[
    ("logging", include_str!("logging.py")),
    ("multiprocessing", include_str!("multiprocessing.py")),
    ("queue", include_str!("queue.py")),
    ("codecs", include_str!("codecs.py")),
    ("skimage", include_str!("skimage.py")),
    ("skimage.io", include_str!("skimage_io.py")),
    ("skimage.transform", include_str!("skimage_transform.py")),
    ("random._class", include_str!("random_class.py")),
    ("inspect", include_str!("inspect.py")),
    ("contextlib", include_str!("contextlib.py")),
    ("functools", include_str!("functools.py")),
    ("collections._deque", include_str!("collections_deque.py")),
    ("itertools._more", include_str!("itertools_more.py")),
    (
        "torch.utils.tensorboard",
        include_str!("torch_utils_tensorboard.py"),
    ),
    (
        "torch.distributions",
        include_str!("torch_distributions.py"),
    ),
    (
        "torch.utils.data._concat",
        include_str!("torch_utils_data_concat.py"),
    ),
    (
        "torch.autograd.functional",
        include_str!("torch_autograd_functional.py"),
    ),
    ("torch.cuda._device", include_str!("torch_cuda_device.py")),
    ("torch.random._fork", include_str!("torch_random_fork.py")),
    ("torch.cuda.nvtx", include_str!("torch_cuda_nvtx.py")),
    ("torch.cuda.graphs", include_str!("torch_cuda_graphs.py")),
    ("torch._foreach_ops", include_str!("torch_foreach_ops.py")),
    ("torch._storage", include_str!("torch_storage.py")),
    (
        "torch.optim._lr_scheduler_base",
        include_str!("torch_optim_lr_scheduler_base.py"),
    ),
    (
        "torch.optim.swa_utils",
        include_str!("torch_optim_swa_utils.py"),
    ),
    (
        "torch.autograd.anomaly_mode",
        include_str!("torch_autograd_anomaly_mode.py"),
    ),
    (
        "torch.utils.checkpoint",
        include_str!("torch_utils_checkpoint.py"),
    ),
    ("torch.cuda._memory", include_str!("torch_cuda_memory.py")),
    ("torch.functional", include_str!("torch_functional.py")),
    ("torch.func", include_str!("torch_func.py")),
    ("torch.jit", include_str!("torch_jit.py")),
    (
        "torch.backends._cudnn_flags",
        include_str!("torch_backends_cudnn_flags.py"),
    ),
    ("torch.nn.utils._rnn", include_str!("torch_nn_utils_rnn.py")),
    (
        "torch.nn.utils.parametrize",
        include_str!("torch_nn_utils_parametrize.py"),
    ),
    (
        "torch.nn.utils.parametrizations",
        include_str!("torch_nn_utils_parametrizations.py"),
    ),
    (
        "torch.nn.utils.prune",
        include_str!("torch_nn_utils_prune.py"),
    ),
    ("torch.nn.attention", include_str!("torch_nn_attention.py")),
    (
        "torch.backends._cuda_sdp",
        include_str!("torch_backends_cuda_sdp.py"),
    ),
    ("torch.utils.hooks", include_str!("torch_utils_hooks.py")),
    ("torch._sorting", include_str!("torch_sorting.py")),
    (
        "torch.nn.functional._grid",
        include_str!("torch_nn_functional_grid.py"),
    ),
    (
        "torch.nn.utils._weight_norm",
        include_str!("torch_nn_utils_weight_norm.py"),
    ),
    ("torch._frombuffer", include_str!("torch_frombuffer.py")),
    ("torch.linalg._ops", include_str!("torch_linalg_ops.py")),
    (
        "torch._linalg_compat",
        include_str!("torch_linalg_compat.py"),
    ),
    (
        "torch.autograd.function",
        include_str!("torch_autograd_function.py"),
    ),
    (
        "torch.autograd.gradcheck",
        include_str!("torch_autograd_gradcheck.py"),
    ),
    (
        "torch.autograd.graph",
        include_str!("torch_autograd_graph.py"),
    ),
    (
        "torch.autograd.forward_ad",
        include_str!("torch_autograd_forward_ad.py"),
    ),
    (
        "torch.optim.optimizer",
        include_str!("torch_optim_optimizer.py"),
    ),
    ("torch.optim.lbfgs", include_str!("torch_optim_lbfgs.py")),
    ("torch.optim._state", include_str!("torch_optim_state.py")),
    ("tempfile", include_str!("tempfile.py")),
    ("statistics", include_str!("statistics.py")),
    ("math._fsum", include_str!("math_fsum.py")),
    ("textwrap", include_str!("textwrap.py")),
    ("timeit", include_str!("timeit.py")),
    ("uuid", include_str!("uuid.py")),
    ("os._walk", include_str!("os_walk.py")),
    ("warnings", include_str!("warnings.py")),
    ("re", include_str!("re.py")),
    ("enum", include_str!("enum.py")),
    ("operator", include_str!("operator.py")),
    ("bisect", include_str!("bisect.py")),
    ("heapq", include_str!("heapq.py")),
    ("abc", include_str!("abc.py")),
    ("regex", include_str!("regex.py")),
    ("pathlib", include_str!("pathlib.py")),
    ("datetime", include_str!("datetime.py")),
    ("numpy", include_str!("numpy.py")),
    ("urllib", include_str!("urllib.py")),
    ("urllib.parse", include_str!("urllib_parse.py")),
    ("urllib.request", include_str!("urllib_request.py")),
    ("tarfile", include_str!("tarfile.py")),
    ("requests", include_str!("requests.py")),
    ("IPython", include_str!("ipython.py")),
    ("IPython.core", include_str!("ipython_core.py")),
    (
        "IPython.core.debugger",
        include_str!("ipython_core_debugger.py"),
    ),
    ("IPython.display", include_str!("ipython_display.py")),
    ("six", include_str!("six.py")),
    ("six.moves", include_str!("six_moves.py")),
    ("torchvision", include_str!("torchvision.py")),
    ("PIL", include_str!("pil.py")),
    ("PIL.Image", include_str!("pil_image.py")),
    (
        "torchvision.datasets",
        include_str!("torchvision_datasets.py"),
    ),
    (
        "torchvision.transforms",
        include_str!("torchvision_transforms.py"),
    ),
    (
        "torchvision.transforms.functional",
        include_str!("torchvision_transforms_functional.py"),
    ),
    ("torchvision.utils", include_str!("torchvision_utils.py")),
    ("torchvision.io", include_str!("torchvision_io.py")),
    ("torchvision.models", include_str!("torchvision_models.py")),
    (
        "torchvision.models.resnet",
        include_str!("torchvision_models_resnet.py"),
    ),
    (
        "torchvision.models.vgg",
        include_str!("torchvision_models_vgg.py"),
    ),
    (
        "torchvision.models.alexnet",
        include_str!("torchvision_models_alexnet.py"),
    ),
    (
        "torchvision.models.vision_transformer",
        include_str!("torchvision_models_vision_transformer.py"),
    ),
    ("torch.hub", include_str!("torch_hub.py")),
    ("torch._layout", include_str!("torch_layout.py")),
    ("torch.testing", include_str!("torch_testing.py")),
    ("torch.profiler", include_str!("torch_profiler.py")),
    (
        "torch.autograd.profiler",
        include_str!("torch_autograd_profiler.py"),
    ),
    (
        "torch.utils.benchmark",
        include_str!("torch_utils_benchmark.py"),
    ),
    ("matplotlib", include_str!("matplotlib.py")),
    ("matplotlib.pyplot", include_str!("matplotlib_pyplot.py")),
    ("matplotlib.ticker", include_str!("matplotlib_ticker.py")),
    (
        "matplotlib.animation",
        include_str!("matplotlib_animation.py"),
    ),
    ("csv", include_str!("csv.py")),
    ("io._memory", include_str!("io_memory.py")),
    (
        "torch.optim._lr_program",
        include_str!("torch_optim_lr_program.py"),
    ),
    ("base64", include_str!("base64.py")),
    ("pandas", include_str!("pandas.py")),
    ("tqdm", include_str!("tqdm.py")),
    ("tqdm.auto", include_str!("tqdm_auto.py")),
    ("tqdm.notebook", include_str!("tqdm_auto.py")),
];

/// Names of PyTorch's namespaces that a module here defines (the namespace,
/// the name, the module): `torch.utils.data.ConcatDataset`.
const MEMBERS: &[(&str, &str, &str)] = &[
    ("torch", "from_numpy", "numpy"),
    ("torch", "det", "torch.linalg._ops"),
    ("torch", "cross", "torch._linalg_compat"),
    ("torch", "svd", "torch._linalg_compat"),
    ("torch.linalg", "svd", "torch.linalg._ops"),
    ("torch.linalg", "svdvals", "torch.linalg._ops"),
    ("torch.linalg", "det", "torch.linalg._ops"),
    ("torch.linalg", "cross", "torch.linalg._ops"),
    ("torch.linalg", "matrix_exp", "torch.linalg._ops"),
    ("torch.linalg", "eigh", "torch.linalg._ops"),
    ("torch.linalg", "solve", "torch.linalg._ops"),
    ("torch.linalg", "inv", "torch.linalg._ops"),
    ("torch", "inverse", "torch.linalg._ops"),
    ("torch.linalg", "eigvalsh", "torch.linalg._ops"),
    ("torch", "matrix_exp", "torch.linalg._ops"),
    ("torch", "kthvalue", "torch._sorting"),
    ("torch", "index_fill", "torch._sorting"),
    ("torch", "index_copy", "torch._sorting"),
    ("torch", "index_add", "torch._sorting"),
    ("torch", "index_put", "torch._sorting"),
    ("torch", "index_put_", "torch._sorting"),
    ("torch", "layout", "torch._layout"),
    ("torch", "vmap", "torch.func"),
    ("random", "Random", "random._class"),
    ("io", "BytesIO", "io._memory"),
    ("io", "StringIO", "io._memory"),
    ("torch.multiprocessing", "Process", "multiprocessing"),
    (
        "torch.multiprocessing",
        "set_start_method",
        "multiprocessing",
    ),
    (
        "torch.multiprocessing",
        "get_start_method",
        "multiprocessing",
    ),
    (
        "torch.multiprocessing",
        "get_all_start_methods",
        "multiprocessing",
    ),
    (
        "torch.multiprocessing",
        "active_children",
        "multiprocessing",
    ),
    (
        "torch.multiprocessing",
        "current_process",
        "multiprocessing",
    ),
    (
        "torch.multiprocessing",
        "get_all_sharing_strategies",
        "multiprocessing",
    ),
    (
        "torch.multiprocessing",
        "get_sharing_strategy",
        "multiprocessing",
    ),
    (
        "torch.multiprocessing",
        "set_sharing_strategy",
        "multiprocessing",
    ),
    ("torch.multiprocessing", "get_context", "multiprocessing"),
    ("torch.multiprocessing", "Queue", "multiprocessing"),
    ("torch.multiprocessing", "SimpleQueue", "multiprocessing"),
    ("torch.multiprocessing", "JoinableQueue", "multiprocessing"),
    ("torch.multiprocessing", "Lock", "multiprocessing"),
    ("torch.multiprocessing", "RLock", "multiprocessing"),
    ("torch.multiprocessing", "Event", "multiprocessing"),
    ("torch.multiprocessing", "Value", "multiprocessing"),
    ("torch.multiprocessing", "Pool", "multiprocessing"),
    (
        "torch.backends.cudnn",
        "flags",
        "torch.backends._cudnn_flags",
    ),
    (
        "torch.backends.cuda",
        "enable_flash_sdp",
        "torch.backends._cuda_sdp",
    ),
    (
        "torch.backends.cuda",
        "flash_sdp_enabled",
        "torch.backends._cuda_sdp",
    ),
    (
        "torch.backends.cuda",
        "enable_mem_efficient_sdp",
        "torch.backends._cuda_sdp",
    ),
    (
        "torch.backends.cuda",
        "mem_efficient_sdp_enabled",
        "torch.backends._cuda_sdp",
    ),
    (
        "torch.backends.cuda",
        "enable_math_sdp",
        "torch.backends._cuda_sdp",
    ),
    (
        "torch.backends.cuda",
        "math_sdp_enabled",
        "torch.backends._cuda_sdp",
    ),
    (
        "torch.backends.cuda",
        "enable_cudnn_sdp",
        "torch.backends._cuda_sdp",
    ),
    (
        "torch.backends.cuda",
        "cudnn_sdp_enabled",
        "torch.backends._cuda_sdp",
    ),
    (
        "torch.backends.cuda",
        "is_flash_attention_available",
        "torch.backends._cuda_sdp",
    ),
    (
        "torch.backends.cuda",
        "sdp_kernel",
        "torch.backends._cuda_sdp",
    ),
    (
        "torch.backends.cuda",
        "SDPBackend",
        "torch.backends._cuda_sdp",
    ),
    ("torch", "frombuffer", "torch._frombuffer"),
    ("torch.autograd", "gradcheck", "torch.autograd.gradcheck"),
    (
        "torch.autograd",
        "gradgradcheck",
        "torch.autograd.gradcheck",
    ),
    ("torch", "strided", "torch._layout"),
    ("torch", "sparse_coo", "torch._layout"),
    ("torch", "memory_format", "torch._layout"),
    ("torch", "contiguous_format", "torch._layout"),
    ("torch", "channels_last", "torch._layout"),
    ("torch", "channels_last_3d", "torch._layout"),
    ("torch", "preserve_format", "torch._layout"),
    ("torch.cuda", "device", "torch.cuda._device"),
    ("torch.cuda", "CUDAGraph", "torch.cuda.graphs"),
    ("torch.cuda", "graph", "torch.cuda.graphs"),
    ("torch.cuda", "graph_pool_handle", "torch.cuda.graphs"),
    (
        "torch.cuda",
        "is_current_stream_capturing",
        "torch.cuda.graphs",
    ),
    ("torch.cuda", "make_graphed_callables", "torch.cuda.graphs"),
    ("torch.random", "fork_rng", "torch.random._fork"),
    ("torch", "UntypedStorage", "torch._storage"),
    ("torch", "_foreach_add", "torch._foreach_ops"),
    ("torch", "_foreach_add_", "torch._foreach_ops"),
    ("torch", "_foreach_sub", "torch._foreach_ops"),
    ("torch", "_foreach_sub_", "torch._foreach_ops"),
    ("torch", "_foreach_mul", "torch._foreach_ops"),
    ("torch", "_foreach_mul_", "torch._foreach_ops"),
    ("torch", "_foreach_div", "torch._foreach_ops"),
    ("torch", "_foreach_div_", "torch._foreach_ops"),
    ("torch", "_foreach_lerp", "torch._foreach_ops"),
    ("torch", "_foreach_lerp_", "torch._foreach_ops"),
    ("torch", "_foreach_addcmul_", "torch._foreach_ops"),
    ("torch", "_foreach_addcdiv_", "torch._foreach_ops"),
    ("torch", "_foreach_copy_", "torch._foreach_ops"),
    ("torch", "_foreach_zero_", "torch._foreach_ops"),
    ("torch", "_foreach_neg", "torch._foreach_ops"),
    ("torch", "_foreach_sqrt", "torch._foreach_ops"),
    ("torch", "_foreach_sqrt_", "torch._foreach_ops"),
    ("torch", "_foreach_abs", "torch._foreach_ops"),
    ("torch", "_foreach_exp", "torch._foreach_ops"),
    ("torch", "_foreach_maximum_", "torch._foreach_ops"),
    ("torch", "_foreach_clamp_min_", "torch._foreach_ops"),
    ("torch", "_foreach_norm", "torch._foreach_ops"),
    (
        "torch.optim.lr_scheduler",
        "LRScheduler",
        "torch.optim._lr_scheduler_base",
    ),
    (
        "torch.optim.lr_scheduler",
        "_LRScheduler",
        "torch.optim._lr_scheduler_base",
    ),
    (
        "torch.autograd",
        "detect_anomaly",
        "torch.autograd.anomaly_mode",
    ),
    (
        "torch.autograd",
        "set_detect_anomaly",
        "torch.autograd.anomaly_mode",
    ),
    (
        "torch.cuda",
        "memory_stats_as_nested_dict",
        "torch.cuda._memory",
    ),
    ("torch.cuda", "memory_cached", "torch.cuda._memory"),
    ("torch.cuda", "memory_snapshot", "torch.cuda._memory"),
    ("torch.cuda", "max_memory_cached", "torch.cuda._memory"),
    (
        "torch.cuda",
        "reset_max_memory_cached",
        "torch.cuda._memory",
    ),
    (
        "torch.cuda",
        "reset_max_memory_allocated",
        "torch.cuda._memory",
    ),
    (
        "torch.nn.utils.rnn",
        "PackedSequence",
        "torch.nn.utils._rnn",
    ),
    (
        "torch.nn.utils.rnn",
        "pack_padded_sequence",
        "torch.nn.utils._rnn",
    ),
    (
        "torch.nn.utils.rnn",
        "pad_packed_sequence",
        "torch.nn.utils._rnn",
    ),
    ("torch.nn.utils.rnn", "pack_sequence", "torch.nn.utils._rnn"),
    (
        "torch.nn.utils.rnn",
        "unpack_sequence",
        "torch.nn.utils._rnn",
    ),
    (
        "torch.nn.utils.rnn",
        "unpad_sequence",
        "torch.nn.utils._rnn",
    ),
    (
        "torch.nn.utils",
        "weight_norm",
        "torch.nn.utils._weight_norm",
    ),
    (
        "torch.nn.utils",
        "remove_weight_norm",
        "torch.nn.utils._weight_norm",
    ),
    (
        "torch.nn.functional",
        "grid_sample",
        "torch.nn.functional._grid",
    ),
    (
        "torch.nn.functional",
        "affine_grid",
        "torch.nn.functional._grid",
    ),
    ("torch.optim", "Optimizer", "torch.optim.optimizer"),
    ("torch.optim", "LBFGS", "torch.optim.lbfgs"),
    ("os", "walk", "os._walk"),
    ("math", "fsum", "math._fsum"),
    ("os", "scandir", "os._walk"),
    ("os", "DirEntry", "os._walk"),
    ("torch.cuda", "device_of", "torch.cuda._device"),
    (
        "torch._C._profiler",
        "_set_cuda_sync_enabled_val",
        "torch.profiler",
    ),
    ("collections", "deque", "collections._deque"),
    ("itertools", "accumulate", "itertools._more"),
    ("itertools", "cycle", "itertools._more"),
    ("itertools", "groupby", "itertools._more"),
    ("itertools", "takewhile", "itertools._more"),
    ("itertools", "dropwhile", "itertools._more"),
    ("itertools", "starmap", "itertools._more"),
    ("itertools", "compress", "itertools._more"),
    (
        "torch.utils.data",
        "ConcatDataset",
        "torch.utils.data._concat",
    ),
    (
        "torch.utils.data.dataset",
        "ConcatDataset",
        "torch.utils.data._concat",
    ),
];

/// The module here that defines `namespace.name`, if one does.
pub fn member_module(namespace: &str, name: &str) -> Option<&'static str> {
    MEMBERS
        .iter()
        .find(|(n, m, _)| *n == namespace && *m == name)
        .map(|(_, _, module)| *module)
}

/// Where a built-in module's text is said to be (its errors name it).
const DIR: &str = "<cudash>/";

/// The names of these modules.
pub fn names() -> impl Iterator<Item = &'static str> {
    MODULES.iter().map(|(name, _)| *name)
}

/// The path `import name` reads for one of these modules.
pub fn path_of(name: &str) -> Option<PathBuf> {
    names()
        .any(|n| n == name)
        .then(|| PathBuf::from(format!("{DIR}{name}.py")))
}

/// The text of the module at `path`, if it is one of these.
pub fn text(path: &Path) -> Option<&'static str> {
    let name = path.to_str()?.strip_prefix(DIR)?.strip_suffix(".py")?;
    MODULES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}
