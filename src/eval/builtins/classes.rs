//! Where Python and PyTorch define the classes cudash has as builtins:
//! `print(type(x))` and `print(nn.Linear)` show `<class 'torch.Tensor'>`,
//! `<class 'torch.nn.modules.linear.Linear'>`, as Python does.

/// Python's own types among the builtins (`isinstance(x, int)`).
pub(super) const PYTHON_TYPES: &[&str] = &[
    "int",
    "float",
    "str",
    "bool",
    "list",
    "tuple",
    "dict",
    "set",
    "frozenset",
    "bytes",
];

/// The built-in optimizers' classes (each in `torch.optim.<its name in
/// lower case>`).
pub(super) const OPTIMIZERS: &[&str] = &[
    "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "RAdam", "NAdam",
];

/// The module that defines PyTorch's layer class `name`.
fn layer_module(name: &str) -> Option<&'static str> {
    Some(match name {
        "Linear" | "Identity" | "Bilinear" | "LazyLinear" => "linear",
        "LazyConv1d" | "LazyConv2d" => "conv",
        "LazyBatchNorm1d" | "LazyBatchNorm2d" | "LazyBatchNorm3d" => "batchnorm",
        "ReLU" | "Tanh" | "Sigmoid" | "GELU" | "SiLU" | "Mish" | "LeakyReLU" | "Softmax"
        | "LogSoftmax" | "Softmax2d" | "MultiheadAttention" => "activation",
        n if super::activations::CLASSES.contains(&n) => "activation",
        "Flatten" => "flatten",
        "Dropout" | "Dropout2d" => "dropout",
        "Sequential" | "ModuleList" | "ModuleDict" | "ParameterList" | "ParameterDict" => {
            "container"
        }
        "Embedding" | "EmbeddingBag" => "sparse",
        "BatchNorm1d" | "BatchNorm2d" | "BatchNorm3d" => "batchnorm",
        "LayerNorm" | "GroupNorm" | "RMSNorm" => "normalization",
        "InstanceNorm1d" | "InstanceNorm2d" | "InstanceNorm3d" => "instancenorm",
        n if super::conv::CLASSES.contains(&n) => "conv",
        "Upsample" | "UpsamplingNearest2d" | "UpsamplingBilinear2d" => "upsampling",
        "PixelShuffle" | "PixelUnshuffle" => "pixelshuffle",
        "Unflatten" => "flatten",
        "Unfold" | "Fold" => "fold",
        n if n.contains("Pad") => "padding",
        "PairwiseDistance" | "CosineSimilarity" => "distance",
        n if super::pool::CLASSES.contains(&n) => "pooling",
        "LSTM" | "GRU" | "RNN" | "LSTMCell" | "GRUCell" | "RNNCell" => "rnn",
        "Module" => "module",
        n if n.starts_with("Transformer") => "transformer",
        n if n.ends_with("Loss") => "loss",
        _ => return None,
    })
}

/// The qualified name of the class builtin `name` is (`torch.Tensor`,
/// `torch.nn.modules.linear.Linear`, `int`), if it is one.
pub fn qualified(name: &str) -> Option<String> {
    if PYTHON_TYPES.contains(&name) {
        return Some(name.to_string());
    }
    if let Some(m) = layer_module(name) {
        return Some(format!("torch.nn.modules.{m}.{name}"));
    }
    if OPTIMIZERS.contains(&name) {
        return Some(format!("torch.optim.{}.{name}", name.to_lowercase()));
    }
    let path = match name {
        "Tensor" => "torch.Tensor",
        "Variable" => "torch.autograd.variable.Variable",
        "device" => "torch.device",
        "Generator" => "torch._C.Generator",
        "range" => "range",
        "Parameter" => "torch.nn.parameter.Parameter",
        "UninitializedParameter" => "torch.nn.parameter.UninitializedParameter",
        "UninitializedBuffer" => "torch.nn.parameter.UninitializedBuffer",
        "DataParallel" => "torch.nn.parallel.data_parallel.DataParallel",
        "DataLoader" => "torch.utils.data.dataloader.DataLoader",
        "Dataset" => "torch.utils.data.dataset.Dataset",
        "TensorDataset" => "torch.utils.data.dataset.TensorDataset",
        "Subset" => "torch.utils.data.dataset.Subset",
        "RandomSampler"
        | "SequentialSampler"
        | "SubsetRandomSampler"
        | "WeightedRandomSampler"
        | "BatchSampler"
        | "Sampler" => return Some(format!("torch.utils.data.sampler.{name}")),
        "DistributedSampler" => "torch.utils.data.distributed.DistributedSampler",
        _ => return None,
    };
    Some(path.to_string())
}

#[cfg(test)]
mod tests {
    use crate::eval::builtins::classes::qualified;

    #[test]
    fn classes_are_named_where_pytorch_defines_them() {
        // As `print(cls)` printed them with PyTorch 2.15.
        for (name, path) in [
            ("Linear", "torch.nn.modules.linear.Linear"),
            ("Identity", "torch.nn.modules.linear.Identity"),
            ("Embedding", "torch.nn.modules.sparse.Embedding"),
            ("CrossEntropyLoss", "torch.nn.modules.loss.CrossEntropyLoss"),
            ("LSTMCell", "torch.nn.modules.rnn.LSTMCell"),
            ("Module", "torch.nn.modules.module.Module"),
            ("Tensor", "torch.Tensor"),
            ("RandomSampler", "torch.utils.data.sampler.RandomSampler"),
            ("tuple", "tuple"),
        ] {
            assert_eq!(qualified(name).as_deref(), Some(path));
        }
        assert_eq!(qualified("randn"), None);
    }
}
