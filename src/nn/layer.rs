//! What a module's forward computes: the vocabulary the module, its
//! layers and its printed form share.

use crate::autograd::losses::Reduction;
use crate::runtime::op::unary::UnaryOp;

/// What a module's forward computes.
#[derive(Clone, Debug, PartialEq)]
pub enum Layer {
    /// A user's class: its `forward` method.
    Custom,
    /// The children in order, each on the last one's output.
    Sequential,
    /// Children kept in a list; no forward of its own.
    ModuleList,
    /// Children kept by name (`md["fc"]`); no forward of its own.
    ModuleDict,
    /// Parameters kept in a list, named `0`, `1`, ... (`nn.ParameterList`);
    /// it cannot be called.
    ParameterList,
    /// Parameters kept by name (`pd["w"]`, `nn.ParameterDict`); it cannot
    /// be called.
    ParameterDict,
    /// `DataParallel(module, device_ids, output_device, dim)`: its child
    /// `module` run on every device of `device_ids` (none: no CUDA device,
    /// the module runs as it is), the outputs gathered on `output_device`.
    DataParallel {
        device_ids: Vec<u32>,
        output_device: u32,
        dim: i64,
    },
    /// `DistributedDataParallel(module, device_ids, ...)`: its child
    /// `module` called as it is, its gradients averaged over the ranks by
    /// the reducer while backward runs.
    DistributedDataParallel {
        device_ids: Vec<u32>,
        reducer: super::ddp::reducer::Shared,
        broadcast_buffers: bool,
    },
    Embedding {
        num_embeddings: usize,
        embedding_dim: usize,
        /// The row that gets no gradient (and starts as zeros).
        padding_idx: Option<i64>,
        /// `max_norm`: each row read is first scaled down to this
        /// `norm_type`-norm where it is longer (the interpreter does it,
        /// `torch.embedding_renorm_`, before the layer reads the rows).
        max_norm: Option<MaxNorm>,
    },
    /// `Conv1d`, `Conv2d`, `ConvTranspose1d`, `ConvTranspose2d`: its
    /// windows' settings (a 1-d one's as a 2-d one's over a 1 x L image).
    Conv {
        transposed: bool,
        one_d: bool,
        stride: (usize, usize),
        padding: (usize, usize),
        dilation: (usize, usize),
        /// A transposed one's extra rows and columns at the end.
        output_padding: (usize, usize),
        groups: usize,
        /// `padding_mode`: `None` for `"zeros"` (the convolution's own
        /// padding), else the input is padded first with `F.pad`'s mode.
        padding_mode: Option<crate::autograd::pad::Edges>,
        /// PyTorch's `_reversed_padding_repeated_twice`: each padded dim's
        /// (left, right), the last dim first, as `F.pad` takes them.
        reversed_padding: Vec<i64>,
        /// The settings as PyTorch prints them.
        shown: String,
    },
    /// `MaxPool2d` / `AvgPool2d`: kernel, stride, padding, dilation;
    /// `MaxPool1d` / `AvgPool1d` (`one_d`): a 2-d pool's over a 1 x L image.
    Pool {
        max: bool,
        one_d: bool,
        kernel: (usize, usize),
        stride: (usize, usize),
        padding: (usize, usize),
        dilation: (usize, usize),
        /// A max pool's `ceil_mode=True`: windows past the edge kept.
        ceil_mode: bool,
        /// A max pool's `return_indices=True`: its forward gives (maxima,
        /// their places).
        return_indices: bool,
        shown: String,
    },
    /// `MaxUnpool2d(kernel_size, stride=None, padding=0)` and its 1-d form:
    /// `max_unpool2d` with these settings, given the indices.
    MaxUnpool {
        one_d: bool,
        kernel: (usize, usize),
        stride: (usize, usize),
        padding: (usize, usize),
        shown: String,
    },
    /// `AdaptiveAvgPool2d(output_size)`, `AdaptiveMaxPool2d` (`max`) and
    /// their 1-d forms (`one_d`, over a 1 x L image): a pool whose windows
    /// divide the input evenly into that size.
    AdaptivePool {
        max: bool,
        one_d: bool,
        out: (usize, usize),
        shown: String,
    },
    /// `LayerNorm(normalized_shape)`: each row over the last dims.
    LayerNorm {
        normalized_shape: Vec<usize>,
        eps: f64,
        elementwise_affine: bool,
        bias: bool,
    },
    /// `RMSNorm(normalized_shape, eps=None, elementwise_affine=True)`: a
    /// weight of ones, no bias (`eps` None: float's or double's epsilon).
    RmsNorm {
        normalized_shape: Vec<usize>,
        eps: Option<f64>,
        elementwise_affine: bool,
    },
    /// `BatchNorm1d` (`spatial` 1: inputs [N, C] or [N, C, L]) and
    /// `BatchNorm2d` (2: [N, C, H, W]); `InstanceNorm1d` / `InstanceNorm2d`
    /// (`instance`: [N, C, L] / [N, C, H, W], or one sample without N).
    BatchNorm {
        spatial: usize,
        num_features: usize,
        eps: f64,
        /// None: the cumulative average (`1 / num_batches_tracked`).
        momentum: Option<f64>,
        affine: bool,
        /// PyTorch 2.15's keyword `bias` (with `affine`).
        bias: bool,
        track_running_stats: bool,
        /// `InstanceNorm1d` / `InstanceNorm2d`: the same settings, each
        /// sample's channels normalized on their own.
        instance: bool,
    },
    /// `GroupNorm(num_groups, num_channels, eps, affine)`.
    GroupNorm {
        groups: usize,
        num_channels: usize,
        eps: f64,
        affine: bool,
    },
    Linear {
        in_features: usize,
        out_features: usize,
    },
    Flatten {
        start_dim: i64,
        end_dim: i64,
    },
    /// `Dropout`, or `Dropout2d` (`channels`: whole channels zeroed).
    Dropout {
        p: f64,
        channels: bool,
        /// `inplace=True`: the noise written into the input (`x.mul_`).
        inplace: bool,
    },
    /// An elementwise activation; `inplace` (`nn.ReLU(inplace=True)`)
    /// writes it into its input, as PyTorch's `relu_`.
    Activation {
        op: UnaryOp,
        inplace: bool,
    },
    /// An activation with settings (`ELU`, `Softplus`, `Hardtanh`,
    /// `ReLU6`, `LeakyReLU`...); `inplace` writes it into its input.
    Pointwise {
        kind: crate::autograd::activation::Activation,
        inplace: bool,
        /// The settings as PyTorch prints them.
        shown: String,
    },
    /// `Softsign`: `x / (1 + |x|)`.
    Softsign,
    /// `Tanhshrink`: `x - tanh(x)`.
    Tanhshrink,
    /// `Softmin(dim)`: the softmax of `-x`.
    Softmin {
        dim: Option<i64>,
    },
    /// `GLU(dim)`: the first half along `dim` times the sigmoid of the second.
    Glu {
        dim: i64,
    },
    /// `Upsample(size | scale_factor, mode, align_corners)` (and
    /// `UpsamplingNearest2d`, `UpsamplingBilinear2d`): `interpolate`.
    Upsample {
        size: Option<Vec<usize>>,
        scale: Option<Vec<f64>>,
        how: crate::autograd::upsample::Interpolation,
        recompute_scale_factor: bool,
        /// The settings as PyTorch prints them.
        shown: String,
        /// The mode's name (`bilinear`): each linear mode takes inputs of
        /// its own number of dims.
        mode: String,
    },
    /// `PixelShuffle(r)`, or `PixelUnshuffle(r)` (`inverse`).
    PixelShuffle {
        factor: usize,
        inverse: bool,
    },
    /// `Unflatten(dim, unflattened_size)`: a view.
    Unflatten {
        dim: i64,
        sizes: Vec<i64>,
        shown: String,
    },
    /// `ZeroPad1d/2d`, `ConstantPad1d/2d`, `ReflectionPad1d/2d`,
    /// `ReplicationPad1d/2d`, `CircularPad1d/2d`: `F.pad` with its mode.
    Pad {
        pads: Vec<i64>,
        /// `None`: constant; else the mode.
        edges: Option<crate::autograd::pad::Edges>,
        value: f64,
        shown: String,
    },
    /// `Unfold(kernel_size, ...)`: `F.unfold`, windows as columns.
    Unfold {
        win: crate::runtime::op::window::Windows,
        shown: String,
    },
    /// `Fold(output_size, kernel_size, ...)`: `F.fold`, columns back into
    /// an image of `size`.
    Fold {
        size: (usize, usize),
        win: crate::runtime::op::window::Windows,
        shown: String,
    },
    /// `PReLU(num_parameters)`: a learnt slope below 0, one per channel or one.
    Prelu {
        num_parameters: usize,
    },
    Identity,
    /// `Softmax(dim)`, `LogSoftmax(dim)`; without `dim`, PyTorch's
    /// deprecated implicit choice (`implicit_dim`).
    Softmax {
        dim: Option<i64>,
        log: bool,
    },
    /// `Bilinear(in1, in2, out)`: `x1^T W x2 + b` (`autograd::bilinear`).
    Bilinear {
        in1_features: usize,
        in2_features: usize,
        out_features: usize,
    },
    /// `EmbeddingBag(num, dim, mode)`: the rows of each bag summed or
    /// averaged (`autograd::embedding_bag`).
    EmbeddingBag {
        num_embeddings: usize,
        embedding_dim: usize,
        mean: bool,
        include_last_offset: bool,
    },
    /// `Softmax2d`: a softmax over the channels of an image (dim -3).
    Softmax2d,
    MseLoss(Reduction),
    /// `BCELoss`, `BCEWithLogitsLoss`, `SmoothL1Loss`, `HuberLoss`: a loss
    /// of one value per element (its weights are the module's buffers).
    PointwiseLoss {
        kind: crate::autograd::node::PointwiseLoss,
        reduction: Reduction,
    },
    /// A loss PyTorch composes of other ops (`KLDivLoss`,
    /// `TripletMarginLoss`...; also `PairwiseDistance`): its function and
    /// settings, run by the interpreter as the function would be.
    ComposedLoss(ComposedLoss),
    /// `L1Loss`: `(x - y).abs()`, reduced.
    L1Loss(Reduction),
    CrossEntropyLoss {
        ignore_index: i64,
        reduction: Reduction,
        label_smoothing: f64,
    },
    NllLoss {
        ignore_index: i64,
        reduction: Reduction,
    },
    /// `LSTM`, `GRU`, `RNN`: a recurrence over a sequence, layer on layer.
    Recurrent(Recurrent),
    /// `LSTMCell`, `GRUCell`, `RNNCell`: one step of a recurrence.
    RecurrentCell(RecurrentCell),
    /// `MultiheadAttention(embed_dim, num_heads, ...)`.
    MultiheadAttention(Heads),
    /// `TransformerEncoderLayer` (`decoder` false) or
    /// `TransformerDecoderLayer`: its children (`self_attn`, for a decoder
    /// `multihead_attn`, `linear1`, `dropout`, `linear2`, the norms and
    /// dropouts) called in PyTorch's order.
    TransformerLayer {
        decoder: bool,
        norm_first: bool,
        activation: FeedForward,
    },
    /// `TransformerEncoder` / `TransformerDecoder`: `layers`, copies of one
    /// layer, each on the last one's output, then `norm` if there is one.
    TransformerStack {
        decoder: bool,
        num_layers: usize,
        enable_nested_tensor: bool,
        /// Whether an encoder may run a padded batch as a nested tensor
        /// (PyTorch's `use_nested_tensor`: asked for, and the layer allows it).
        use_nested_tensor: bool,
    },
    /// `Transformer`: its `encoder` on the source, its `decoder` on the
    /// target and the encoder's output.
    Transformer {
        d_model: usize,
        nhead: usize,
        batch_first: bool,
    },
}

/// The activation between a Transformer layer's two linears: `F.relu` and
/// `F.gelu` (given by name or as the function), or a module of the
/// program's, registered as the child `activation`.
/// An embedding's `max_norm` and `norm_type`, and how its repr shows them
/// (as given: `max_norm=2` for an int, as PyTorch's `extra_repr`).
#[derive(Clone, Debug, PartialEq)]
pub struct MaxNorm {
    pub max: f64,
    pub norm_type: f64,
    pub shown: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FeedForward {
    Relu,
    Gelu,
    Module,
}

/// A `MultiheadAttention`'s settings, as its constructor takes them.
#[derive(Clone, Debug, PartialEq)]
pub struct Heads {
    pub embed_dim: usize,
    pub num_heads: usize,
    pub kdim: usize,
    pub vdim: usize,
    pub dropout: f64,
    pub bias: bool,
    pub batch_first: bool,
    /// `bias_k` and `bias_v` [1, 1, E]: one more key and value, learnt.
    pub add_bias_kv: bool,
    /// One more key and value of zeros, after the heads are split.
    pub add_zero_attn: bool,
}

impl Heads {
    /// Whether the key and value have the query's features (one packed
    /// projection weight).
    pub fn packed(&self) -> bool {
        self.kdim == self.embed_dim && self.vdim == self.embed_dim
    }

    pub fn head_dim(&self) -> usize {
        self.embed_dim / self.num_heads.max(1)
    }
}

/// Which recurrence a recurrent layer or cell runs (PyTorch's `mode`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Recurrence {
    Lstm,
    Gru,
    RnnTanh,
    RnnRelu,
}

impl Recurrence {
    /// How many gates its weights hold, stacked (`4 * hidden_size` rows for LSTM).
    pub fn gates(self) -> usize {
        match self {
            Recurrence::Lstm => 4,
            Recurrence::Gru => 3,
            Recurrence::RnnTanh | Recurrence::RnnRelu => 1,
        }
    }

    /// The class's name: `LSTM`, `GRU`, `RNN` (with `Cell` for a cell).
    pub fn class(self, cell: bool) -> String {
        let base = match self {
            Recurrence::Lstm => "LSTM",
            Recurrence::Gru => "GRU",
            Recurrence::RnnTanh | Recurrence::RnnRelu => "RNN",
        };
        match cell {
            true => format!("{base}Cell"),
            false => base.to_string(),
        }
    }
}

/// `LSTM(input_size, hidden_size, num_layers, bias, batch_first, dropout,
/// bidirectional)`'s settings (GRU's and RNN's are the same).
#[derive(Clone, Debug, PartialEq)]
pub struct Recurrent {
    pub kind: Recurrence,
    pub input_size: usize,
    pub hidden_size: usize,
    pub num_layers: usize,
    pub bias: bool,
    pub batch_first: bool,
    /// Dropout on each layer's output but the last, in training.
    pub dropout: f64,
    pub bidirectional: bool,
}

impl Recurrent {
    /// 2 for a bidirectional layer, else 1.
    pub fn directions(&self) -> usize {
        if self.bidirectional {
            2
        } else {
            1
        }
    }
}

/// `LSTMCell(input_size, hidden_size, bias)`'s settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RecurrentCell {
    pub kind: Recurrence,
    pub input_size: usize,
    pub hidden_size: usize,
    pub bias: bool,
}

impl Layer {
    /// How many tensors its forward takes (a loss: input and target).
    pub fn arity(&self) -> usize {
        match self {
            Layer::MseLoss(_)
            | Layer::PointwiseLoss { .. }
            | Layer::L1Loss(_)
            | Layer::CrossEntropyLoss { .. }
            | Layer::NllLoss { .. }
            | Layer::Bilinear { .. } => 2,
            _ => 1,
        }
    }
}

/// A composed loss's function (`kl_div`, `triplet_margin_loss`...) and
/// its settings, as its module's constructor takes them (each function
/// reads the ones it has).
#[derive(Clone, Debug, PartialEq)]
pub struct ComposedLoss {
    pub function: &'static str,
    pub reduction: Reduction,
    /// `kl_div`'s `reduction="batchmean"`: the sum over the batch size.
    pub batchmean: bool,
    pub margin: f64,
    pub p: f64,
    pub eps: f64,
    pub log_target: bool,
    pub swap: bool,
    pub log_input: bool,
    pub full: bool,
    pub keepdim: bool,
    /// `CosineSimilarity`'s dim.
    pub dim: i64,
}
