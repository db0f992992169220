//! The builtins table: every function, method, property and statement with its
//! signature, summary and example. `help`, completion, signature hints and
//! Jupyter's inspect all read it, and argument binding parses its signatures.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Function,
    Method,
    Property,
    Statement,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    Tensors,
    Math,
    Devices,
    Streams,
    Memory,
    Training,
    Teaching,
}

impl Group {
    pub const ALL: [Group; 7] = [
        Group::Tensors,
        Group::Math,
        Group::Devices,
        Group::Streams,
        Group::Memory,
        Group::Training,
        Group::Teaching,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Group::Tensors => "tensors",
            Group::Math => "math",
            Group::Devices => "devices",
            Group::Streams => "streams",
            Group::Memory => "memory",
            Group::Training => "training (autograd, optimizers)",
            Group::Teaching => "teaching and the language",
        }
    }
}

#[derive(Debug)]
pub struct Doc {
    pub name: &'static str,
    pub kind: Kind,
    pub group: Group,
    /// `zeros(*size, dtype=f32, device=cpu)`; methods start with `x.`.
    pub signature: &'static str,
    pub summary: &'static str,
    pub example: &'static str,
}

impl Doc {
    /// What a method or property belongs to, from its signature: `x.` tensors,
    /// `s.` streams, `e.` events.
    pub fn receiver(&self) -> &'static str {
        match self.signature.split_once('.').map(|(r, _)| r) {
            Some("s") => "stream",
            Some("e") => "event",
            Some("xs") => "list",
            Some("d") => "dict",
            Some("st") => "set",
            Some("f") => "file",
            Some("opt") => "optimizer",
            Some("scheduler") => "scheduler",
            Some("scaler") => "grad_scaler",
            Some("parser") => "argument_parser",
            Some("sampler") => "sampler",
            Some("g") => "generator",
            Some("loader") => "dataloader",
            Some("dev") => "device",
            Some("dt") => "dtype",
            Some("h") => "handle",
            Some("work") => "work",
            Some("node") => "grad_fn",
            Some("model") => "module",
            _ => "tensor",
        }
    }

    /// The full help text: signature, summary, example.
    pub fn help_text(&self) -> String {
        let what = match self.kind {
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Property => "property",
            Kind::Statement => "statement",
        };
        let pytorch = pytorch_name(self)
            .map(|p| format!("\n\nPyTorch: {p}"))
            .unwrap_or_default();
        format!(
            "{}  ({what}, {})\n\n  {}{pytorch}\n\nexample:\n{}",
            self.signature,
            self.group.title(),
            self.summary,
            self.example
                .lines()
                .map(|l| format!("  {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    }
}

macro_rules! docs {
    ($($kind:ident $group:ident $name:literal, $sig:literal, $summary:literal, $example:literal;)*) => {
        pub static DOCS: &[Doc] = &[$(Doc {
            name: $name,
            kind: Kind::$kind,
            group: Group::$group,
            signature: $sig,
            summary: $summary,
            example: $example,
        }),*];
    };
}

docs! {
    Function Tensors "Tensor", "Tensor(*data, device=none)", "PyTorch's tensor class: `isinstance(x, Tensor)` asks whether `x` is a tensor; called, its legacy constructor, always float32: `Tensor([1, 2])` holds `[1., 2.]`, `Tensor(2, 3)` is fresh memory of that shape.", "isinstance(ones(2), Tensor)\nTensor([1, 2])";
    Function Tensors "FloatTensor", "FloatTensor(*data, device=none)", "PyTorch's legacy constructor of float32 tensors: `FloatTensor([1, 2])` from data, `FloatTensor(2, 3)` fresh memory of that shape (as old tutorials write `torch.FloatTensor(n)`).", "FloatTensor([1, 2])";
    Function Tensors "LongTensor", "LongTensor(*data, device=none)", "PyTorch's legacy constructor of int64 tensors: `LongTensor([1, 2])` from data, `LongTensor(2, 3)` fresh memory of that shape (as old tutorials write `torch.LongTensor(n)`).", "LongTensor(3)";
    Function Tensors "ByteTensor", "ByteTensor(*data, device=none)", "PyTorch's legacy constructor of uint8 tensors: `ByteTensor([1, 2])` from data, `ByteTensor(2, 3)` fresh memory of that shape.", "ByteTensor([1, 2])";
    Function Tensors "IntTensor", "IntTensor(*data, device=none)", "PyTorch's legacy constructor of int32 tensors: `IntTensor([1, 2])` from data, `IntTensor(2, 3)` fresh memory of that shape (as old tutorials write `torch.IntTensor(n)`).", "IntTensor([1, 2])";
    Function Tensors "DoubleTensor", "DoubleTensor(*data, device=none)", "PyTorch's legacy constructor of float64 tensors: `DoubleTensor([1, 2])` from data, `DoubleTensor(2, 3)` fresh memory of that shape (as old tutorials write `torch.DoubleTensor(n)`).", "DoubleTensor([0.5])";
    Function Tensors "HalfTensor", "HalfTensor(*data, device=none)", "PyTorch's legacy constructor of float16 tensors: `HalfTensor([1, 2])` from data, `HalfTensor(2, 3)` fresh memory of that shape (as old tutorials write `torch.HalfTensor(n)`).", "HalfTensor([0.5])";
    Function Tensors "BoolTensor", "BoolTensor(*data, device=none)", "PyTorch's legacy constructor of bool tensors: `BoolTensor([1, 2])` from data, `BoolTensor(2, 3)` fresh memory of that shape (as old tutorials write `torch.BoolTensor(n)`).", "BoolTensor([1, 0])";
    Function Tensors "randperm", "randperm(n, dtype=i64, device=none, generator=none, layout=none, pin_memory=false)", "The numbers 0 to n - 1 in a random order, as torch.randperm: PyTorch's own order for the seed (`randperm_cpu` on the CPU generator, or on `generator=Generator().manual_seed(s)`).", "seed(0)\nrandperm(5)";
    Function Tensors "multinomial", "multinomial(input, num_samples, replacement=false, generator=none)", "Column indices drawn by the weights of each row of `input` (a vector or a matrix of non-negative weights, not necessarily summing to one), as torch.multinomial; without `replacement` a drawn column is not drawn again. A CPU tensor's are PyTorch's own draws for the seed (or `generator=`); a GPU tensor's are drawn on its device from cudash's Philox generator: each picks the first column whose running sum passes a uniform draw.", "seed(0)\nmultinomial(tensor([0., 10., 0.]), 2, replacement=true)";
    Function Tensors "tensor", "tensor(data, dtype=none, device=cpu, layout=none, requires_grad=false, pin_memory=false)", "A tensor from a number or nested list; floats default to f32, ints to i64.", "tensor([[1, 2], [3, 4]], dtype=f32)";
    Function Tensors "as_tensor", "as_tensor(data, dtype=none, device=none)", "torch.as_tensor: a tensor given with its own dtype and device (or none asked) is returned itself, no copy; anything else is `tensor(data, dtype, device)`.", "x = ones(2)\nas_tensor(x) is x";
    Function Tensors "zeros", "zeros(*size, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false)", "A tensor filled with 0.", "zeros(2, 3)";
    Function Tensors "ones", "ones(*size, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false)", "A tensor filled with 1.", "ones(2, 3, dtype=i64)";
    Function Tensors "full", "full(size, fill_value, dtype=none, device=cpu, layout=none, requires_grad=false, pin_memory=false)", "A tensor of shape `size` filled with `fill_value`.", "full([2, 2], 7.)\nfull((2,), fill_value=3)";
    Function Tensors "empty", "empty(*size, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false, memory_format=none)", "A tensor whose contents are not initialised: memory, and no kernel (as `torch.empty`); `memory_format=torch.channels_last` lays it out pixel by pixel. On cpu, the simulator and emu it reads as 0; on a GPU a reused block shows what it held last.", "empty(4)";
    Function Tensors "empty_strided", "empty_strided(size, stride, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false)", "An uninitialised tensor whose elements lie in memory by the strides given (as `torch.empty_strided`, what `clone` and `empty_like` use to keep a layout): the storage holds one past the largest offset, so strides may skip or repeat elements. No kernel.", "empty_strided((2, 3), (1, 2)).stride()";
    Function Tensors "arange", "arange(start, end=none, step=1, dtype=none, device=cpu, layout=none, requires_grad=false, pin_memory=false)", "Evenly spaced values in [start, end); `arange(n)` is 0..n.", "arange(0, 10, 2)";
    Function Tensors "logspace", "logspace(start, end, steps, base=10.0, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false)", "`steps` powers `base ** e`, the exponents evenly spaced from start to end inclusive (torch.logspace: each power taken in double precision, rounded once).", "logspace(-3, 0, 4)";
    Function Tensors "linspace", "linspace(start, end, steps, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false)", "`steps` values evenly spaced from start to end inclusive.", "linspace(0, 1, 5)";
    Function Tensors "eye", "eye(n, m=none, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false)", "An identity matrix (n x m).", "eye(3)";
    Function Tensors "rand", "rand(*size, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false, generator=none)", "Uniform random numbers in [0, 1), from the device's own seeded generator (on the CPU PyTorch's own numbers for the seed, or from `generator=`).", "seed(0)\nrand(2, 2)";
    Function Tensors "randint", "randint(low=0, high=none, size=none, dtype=i64, device=cpu, layout=none, requires_grad=false, pin_memory=false, generator=none)", "Integers uniform in [low, high), as PyTorch's: `randint(10, (64,))` draws 64 in 0..10 (`low` is 0 when two arguments are given), `randint(5, 10, (2, 3))` in 5..10, from the device's own seeded generator: on the CPU PyTorch's own numbers for the seed; on a GPU each of a Philox block's 32-bit words modulo the range, as PyTorch's `random_from_to` (PyTorch's CUDA generator gives other numbers).", "seed(0)\nrandint(10, (8,))\nrandint(-3, 3, (2, 2), dtype=f32)";
    Function Tensors "randn", "randn(*size, dtype=f32, device=cpu, layout=none, requires_grad=false, pin_memory=false, generator=none)", "Standard normal random numbers, from the device's own seeded generator (on the CPU PyTorch's own numbers for the seed, or from `generator=`: `randn(27, 10, generator=Generator().manual_seed(2147483647))`).", "seed(0)\nrandn(2, 3)";
    Function Tensors "zeros_like", "zeros_like(input, dtype=none, device=none, requires_grad=false, memory_format=none)", "Zeros with the shape, dtype and device of `input`.", "zeros_like(randn(2, 2))";
    Function Tensors "ones_like", "ones_like(input, dtype=none, device=none, requires_grad=false, memory_format=none)", "Ones with the shape, dtype and device of `input`.", "ones_like(randn(2, 2))";
    Function Tensors "full_like", "full_like(input, value, dtype=none, device=none, requires_grad=false, memory_format=none)", "`value` with the shape, dtype and device of `input`.", "full_like(randn(2, 2), 3.)";
    Function Tensors "empty_like", "empty_like(input, dtype=none, device=none, requires_grad=false, memory_format=none)", "An uninitialised tensor like `input`.", "empty_like(randn(2, 2))";
    Function Tensors "rand_like", "rand_like(input, dtype=none, device=none, generator=none, requires_grad=false, memory_format=none)", "Uniform random numbers shaped like `input`.", "rand_like(zeros(3))";
    Function Tensors "randn_like", "randn_like(input, dtype=none, device=none, generator=none, requires_grad=false, memory_format=none)", "Normal random numbers shaped like `input`.", "randn_like(zeros(3))";
    Function Tensors "cat", "cat(tensors, dim=0)", "Joins a list of tensors along an existing dimension.", "cat([ones(2), zeros(3)])";
    Function Tensors "stack", "stack(tensors, dim=0)", "Joins a list of same-shaped tensors along a new dimension.", "stack([ones(2), zeros(2)])";
    Function Tensors "manual_seed", "manual_seed(seed)", "PyTorch's `torch.manual_seed`: `seed(n)`, every device's generator (the host's and each CUDA device's) starts again from `seed`.", "manual_seed(0)\nrandn(2)";
    Function Tensors "manual_seed_all", "manual_seed_all(seed)", "PyTorch's `torch.cuda.manual_seed_all`: every CUDA device's generator starts again from `seed`; the host's (cpu) keeps its place.", "manual_seed_all(0)\nrandn(2, device=cuda)";
    Function Tensors "seed", "seed(n=none)", "Reseeds every device's random generator (each device has its own, as in PyTorch): the same seed gives the same numbers on every backend. Without `n`, PyTorch's `torch.seed()`: a seed of the clock's, given back.", "seed(42)\nrandn(2)";
    Function Math "sum", "sum(input, dim=none, keepdim=false, dtype=none)", "Sum of all elements, or along `dim` (an int, or a list of them). Integer sums are i64; `dtype` converts the input first.", "sum([[1, 2], [3, 4]], dim=0)\nsum(ones(2, 3, 4), dim=(0, 2))";
    Function Math "mean", "mean(input, dim=none, keepdim=false, dtype=none)", "Mean of all elements, or along `dim` (an int, or a list of them; floating point tensors, or `dtype=` one).", "mean([1., 2., 3.])\nmean(arange(4), dtype=f64)";
    Function Math "max", "max(input, dim=none, keepdim=false, *values, key=none, default=none)", "Largest element; with `dim`, the largest along it and where each is, as PyTorch's (values, indices): `values, indices = max(x, 1)`. NaN wins.", "max([3, 1, 4])\nmax(tensor([[3, 1], [0, 4]]), 1).values";
    Function Math "min", "min(input, dim=none, keepdim=false, *values, key=none, default=none)", "Smallest element; with `dim`, the smallest along it and where each is, as PyTorch's (values, indices): `values, indices = min(x, 1)`. NaN wins.", "min([3, 1, 4])\nmin(tensor([[3, 1], [0, 4]]), 1).indices";
    Function Math "argmax", "argmax(input, dim=none, keepdim=false)", "Index of the largest element (of the flattened tensor without `dim`).", "argmax([3, 1, 4])";
    Function Math "argmin", "argmin(input, dim=none, keepdim=false)", "Index of the smallest element (of the flattened tensor without `dim`); the first of equal ones, NaN wins.", "argmin([3, 1, 4, 1])";
    Function Math "prod", "prod(input, dim=none, keepdim=false, dtype=none)", "Product of all elements, or along `dim`. Integer and bool products are i64 (wrapping); `dtype` converts the input first.", "prod([1, 2, 3, 4])";
    Function Math "exp", "exp(input)", "e to the power of each element.", "exp([0., 1.])";
    Function Math "log", "log(input)", "Natural logarithm of each element.", "log([1., 2.718281828])";
    Function Math "sqrt", "sqrt(input)", "Square root of each element.", "sqrt([4., 9.])";
    Function Math "abs", "abs(input)", "Absolute value of each element.", "abs([-1, 2])";
    Function Math "neg", "neg(input)", "`-input`, as `torch.neg` (`NegBackward0`).", "neg([-1, 2])";
    Function Math "relu", "relu(input, inplace=false)", "max(x, 0) for each element; `inplace=True` writes it into `input` (PyTorch's `relu_`) and gives `input` back.", "relu([-1., 2.])";
    Function Math "relu_", "relu_(input)", "`relu` written into `input`, which is returned (torch.relu_, F.relu_): no new memory.", "x = tensor([-1., 2.])\nrelu_(x)\nx";
    Function Math "sigmoid", "sigmoid(input)", "1 / (1 + e^-x) for each element.", "sigmoid([0.])";
    Function Math "tanh", "tanh(input)", "Hyperbolic tangent of each element.", "tanh([0., 1.])";
    Function Math "erf", "erf(input)", "The error function of each element, 2/sqrt(pi) times the integral of e^(-t^2) from 0 to x (torch.erf).", "erf([0., 1.])";
    Function Math "erfinv", "erfinv(input)", "The inverse error function of each element (torch.erfinv): NaN outside [-1, 1], ±inf at ±1; PyTorch's CPU method on the host (a rational guess and two Newton steps), CUDA's erfinvf on a GPU; `ErfinvBackward0`.", "erfinv(tensor([0., 0.5, 1.]))";
    Function Training "silu", "silu(input, inplace=false)", "SiLU (swish) of each element, x * sigmoid(x), as PyTorch's x / (1 + e^-x) (F.silu; `SiluBackward0`); `inplace=True` writes into `input`.", "silu(tensor([-1., 0., 2.]))";
    Function Training "mish", "mish(input, inplace=false)", "Mish of each element, x * tanh(softplus(x)) (F.mish; `MishBackward0`); `inplace=True` writes into `input`.", "mish(tensor([-1., 0., 2.]))";
    Function Math "log1p", "log1p(input)", "The natural logarithm of 1 + each element, exact for elements near 0 where `log(1 + x)` loses digits (torch.log1p; its node is `Log1PBackward0`).", "log1p(tensor([1e-8, 1.]))";
    Function Math "gelu", "gelu(input, approximate=\"none\")", "GELU of each element, x * Phi(x) with Phi the normal distribution's CDF, through erf; `approximate=\"tanh\"` is its tanh approximation (torch.nn.functional.gelu; the graph records GeluBackward0).", "gelu([-1., 0., 1.])";
    Function Math "sin", "sin(input)", "Sine of each element (radians).", "sin([0., 1.5708])";
    Function Math "cos", "cos(input)", "Cosine of each element (radians).", "cos([0., 3.14159])";
    Function Math "floor", "floor(input)", "The largest integer not above each element (integers stay as they are).", "floor([-1.5, 2.7])";
    Function Math "ceil", "ceil(input)", "The smallest integer not below each element (integers stay as they are).", "ceil([-1.5, 2.2])";
    Function Math "round", "round(input, decimals=none)", "Each element to the nearest integer, halves to even as PyTorch (0.5 -> 0, 1.5 -> 2); with `decimals=n`, to n decimals as PyTorch computes it in the tensor's dtype (`round(x * 10^n) / 10^n`); of a number, Python's round (`round(2.567, 2)` is 2.57).", "round([0.5, 1.5, 2.5])\nround(tensor([1.2345]), decimals=2)\nround(2.567, 2)";
    Function Math "trunc", "trunc(input)", "Each element with its fraction dropped, towards zero.", "trunc([-1.7, 1.7])";
    Function Math "rsqrt", "rsqrt(input)", "1 / sqrt of each element (torch.rsqrt; `RsqrtBackward0`).", "rsqrt([4., 0.25])";
    Function Math "sign", "sign(input)", "-1, 0 or 1 by each element's sign (0 for NaN); integers stay integers (torch.sign; its gradient is zero).", "sign([-2., 0., 3.])";
    Function Math "tan", "tan(input)", "Tangent of each element (radians).", "tan([0., 0.7854])";
    Function Math "atan", "atan(input)", "Arctangent of each element, in radians (torch.atan, also `arctan`).", "atan([0., 1.])";
    Function Math "asin", "asin(input)", "Arcsine of each element, in radians; NaN outside [-1, 1] (torch.asin, also `arcsin`).", "asin([0., 1.])";
    Function Math "acos", "acos(input)", "Arccosine of each element, in radians; NaN outside [-1, 1] (torch.acos, also `arccos`).", "acos([0., 1.])";
    Function Math "sinh", "sinh(input)", "Hyperbolic sine of each element.", "sinh([0., 1.])";
    Function Math "cosh", "cosh(input)", "Hyperbolic cosine of each element.", "cosh([0., 1.])";
    Function Math "reciprocal", "reciprocal(input)", "1 / each element; integers give floats (torch.reciprocal; `ReciprocalBackward0`).", "reciprocal([2., 4.])";
    Function Math "log2", "log2(input)", "Base-2 logarithm of each element.", "log2([1., 8.])";
    Function Math "log10", "log10(input)", "Base-10 logarithm of each element.", "log10([1., 1000.])";
    Function Math "expm1", "expm1(input)", "e^x - 1 of each element, exact for elements near 0 where `exp(x) - 1` loses digits (torch.expm1).", "expm1(tensor([1e-8, 1.]))";
    Function Math "exp2", "exp2(input)", "2 to the power of each element.", "exp2([0., 3.])";
    Function Math "arctan", "arctan(input)", "`atan(input)` (NumPy's name).", "arctan([0., 1.])";
    Function Math "arcsin", "arcsin(input)", "`asin(input)` (NumPy's name).", "arcsin([0., 1.])";
    Function Math "arccos", "arccos(input)", "`acos(input)` (NumPy's name).", "arccos([0., 1.])";
    Function Math "dot", "dot(input, other)", "The dot product of two vectors of one dtype and length, as a 0-d tensor.", "dot([1., 2.], [3., 4.])";
    Function Math "pow", "pow(input, exponent, mod=none)", "`input ** exponent`: either may be a number (it adapts to the tensor's dtype, as beside `**`).", "pow(tensor([2, 3]), 2)\npow(2, tensor([2, 3]))";
    Function Math "maximum", "maximum(input, other)", "The larger of two tensors' elements, broadcast (NaN if either is); for a number use clamp(x, min=n).", "maximum([1., 5.], [3., 2.])";
    Function Math "minimum", "minimum(input, other)", "The smaller of two tensors' elements, broadcast (NaN if either is); for a number use clamp(x, max=n).", "minimum([1., 5.], [3., 2.])";
    Function Math "floor_divide", "floor_divide(input, other)", "`input // other`: division rounded down (towards minus infinity), as Python's.", "floor_divide([7, -7], 2)";
    Function Math "fmod", "fmod(input, other)", "The remainder with the dividend's sign, as C's `fmod` (`FmodBackward0`, `FmodBackward1`): `fmod([-7, 7], 3)` is `[-1, 1]` where `%` gives `[2, 1]`.", "fmod(tensor([-7, 7]), 3)";
    Function Math "remainder", "remainder(input, other)", "`input % other`: the remainder with the divisor's sign, as Python's.", "remainder([7, -7], 3)";
    Function Math "logical_and", "logical_and(input, other)", "Whether both elements are nonzero (NaN counts), as bool.", "logical_and([1, 0, 2], [1, 1, 0])";
    Function Math "logical_or", "logical_or(input, other)", "Whether either element is nonzero, as bool.", "logical_or([1, 0, 0], [0, 0, 3])";
    Function Math "logical_xor", "logical_xor(input, other)", "Whether exactly one of the elements is nonzero, as bool.", "logical_xor([1, 0, 2], [1, 1, 0])";
    Function Math "logical_not", "logical_not(input)", "Whether each element is zero, as bool (NaN is not zero).", "logical_not([0., 1., -2.])";
    Function Math "isnan", "isnan(input)", "Whether each element is NaN (never for integers).", "isnan(tensor([1., 0.]) / 0.)";
    Function Math "einsum", "einsum(equation, *operands)", "Sums of products named by letters, one per dimension: `einsum(\"bij,bjk->bik\", a, b)` is a batched matrix product, `\"ij->ji\"` a transpose, `\"ij->\"` a sum. Computed as PyTorch does: a letter twice in one operand its diagonal (`\"ii->i\"`), each pair of operands as one `bmm` (no `...` yet).", "einsum(\"ij,jk->ik\", ones(2, 3), ones(3, 4)).shape\neinsum(\"i,i->\", tensor([1., 2.]), tensor([3., 4.]))";
    Function Math "hstack", "hstack(tensors)", "The tensors side by side: vectors joined end to end, the rest along dim 1 (one `cat`, `CatBackward0`).", "hstack([tensor([1, 2]), tensor([3])])";
    Function Math "vstack", "vstack(tensors)", "The tensors one below another: vectors as rows, then one `cat` along dim 0.", "vstack([tensor([1, 2]), tensor([3, 4])])";
    Function Math "row_stack", "row_stack(tensors)", "`vstack(tensors)`.", "row_stack([tensor([1, 2]), tensor([3, 4])])";
    Function Math "dstack", "dstack(tensors)", "The tensors stacked along a third dim (each made at least 3-d first).", "dstack([ones(2), zeros(2)]).shape";
    Function Math "column_stack", "column_stack(tensors)", "The tensors as columns side by side: vectors become columns, then one `cat` along dim 1.", "column_stack([tensor([1, 2]), tensor([3, 4])])";
    Function Math "is_tensor", "is_tensor(obj)", "Whether `obj` is a tensor (torch.is_tensor).", "is_tensor(ones(1))\nis_tensor(3)";
    Function Training "pad", "pad(input, pad, mode=\"constant\", value=none)", "`input` padded with `value` (0 when none): `pad` gives (before, after) for the last dim, then the one before, ...; a negative amount crops (F.pad, mode \"constant\"; `ConstantPadNdBackward0`).", "pad(ones(2, 2), (1, 1))\npad(arange(5), (-1, 2), value=9)";
    Function Training "one_hot", "one_hot(tensor, num_classes=-1)", "An i64 tensor with one more dimension of `num_classes`, 1 at each element's class (F.one_hot; classes are i64). Without `num_classes` the host reads the largest class, as PyTorch's does.", "one_hot(tensor([0, 2]), 4)";
    Function Training "normalize", "normalize(input, p=2.0, dim=1, eps=1e-12)", "`input` divided by its p-norm along `dim` (at least `eps`), as PyTorch's `input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)` (F.normalize).", "normalize(tensor([[3., 4.]]))";
    Function Training "cosine_similarity", "cosine_similarity(x1, x2, dim=1, eps=1e-8)", "The cosine of the angle between x1 and x2 along `dim`: each divided by its norm (at least `eps`), the product summed, as PyTorch 2 computes it (F.cosine_similarity).", "cosine_similarity(tensor([[1., 0.]]), tensor([[1., 1.]]))";
    Function Math "bitwise_and", "bitwise_and(input, other)", "`input & other`: the bits both have (integers), logical and (bool); `other` may be a number.", "bitwise_and(tensor([1, 5, 11]), 3)";
    Function Math "bitwise_or", "bitwise_or(input, other)", "`input | other`: the bits either has (integers), logical or (bool).", "bitwise_or(tensor([1, 5, 11]), tensor([2, 7, 10]))";
    Function Math "bitwise_xor", "bitwise_xor(input, other)", "`input ^ other`: the bits exactly one has (integers), logical xor (bool).", "bitwise_xor(tensor([1, 5, 11]), tensor([2, 7, 10]))";
    Function Math "bitwise_left_shift", "bitwise_left_shift(input, other)", "`input << other` (integers): the bits moved up, wrapping at the dtype's width; a count below 0 or past the width gives 0, as PyTorch's `lshift`.", "bitwise_left_shift(tensor([1, 3, -2]), 2)";
    Function Math "bitwise_right_shift", "bitwise_right_shift(input, other)", "`input >> other` (integers): the bits moved down, the sign kept (arithmetic for signed dtypes); a count below 0 or past the width shifts by all but the sign bit, as PyTorch's `rshift`.", "bitwise_right_shift(tensor([16, -16, 7]), 2)";
    Function Math "bitwise_not", "bitwise_not(input)", "`~input`: each bit flipped (integers), logical not (bool).", "bitwise_not(tensor([0, 5], dtype=i32))";
    Function Math "where", "where(condition, input=none, other=none)", "`input` where the bool `condition` holds, else `other`; the three broadcast together, numbers adapt to the tensors' dtype. `where(condition)` alone is `nonzero(condition, as_tuple=true)`.", "x = tensor([-1., 2., -3.])\nwhere(x > 0, x, 0)";
    Function Math "masked_fill", "masked_fill(input, mask, value)", "`input` with `value` where the bool `mask` holds (`x.masked_fill(mask, value)`).", "masked_fill(zeros(3), arange(3) > 0, 5)";
    Function Math "clamp", "clamp(input, min=none, max=none)", "Each element limited to [min, max] (numbers or tensors; one may be left out). NaN stays NaN; min above max gives max.", "clamp([-2., 0.5, 3.], -1, 1)";
    Function Math "cumsum", "cumsum(input, dim, dtype=none)", "Running sums along `dim`: element k is the sum of elements 0..=k. Integer and bool inputs give i64; `dtype` converts first.", "cumsum(tensor([1, 2, 3, 4]), 0)";
    Function Math "cumprod", "cumprod(input, dim, dtype=none)", "Running products along `dim`. Integer and bool inputs give i64 (wrapping); `dtype` converts first.", "cumprod(tensor([1, 2, 3, 4]), 0)";
    Function Math "softmax", "softmax(input, dim=none, dtype=none)", "exp(x) / sum(exp(x)) along `dim` (computed as exp(x - max), so large inputs do not overflow): each line sums to 1. Floats only; `dtype` converts first.", "softmax(tensor([1., 2., 3.]), dim=0)";
    Function Math "log_softmax", "log_softmax(input, dim=none, dtype=none)", "log(softmax(x)) along `dim`, computed as x - max - log(sum(exp(x - max))): no underflow to log(0).", "log_softmax(tensor([1., 2., 3.]), dim=0)";
    Function Math "var", "var(input, dim=none, unbiased=none, keepdim=false, correction=none)", "Variance of all elements, or along `dim` (an int or a list): the squared deviations from the mean over n - correction (1 by default, Bessel's; `unbiased=false` or `correction=0` divides by n).", "var(tensor([1., 2., 3., 4.]))\nvar(tensor([1., 2., 3., 4.]), correction=0)";
    Function Math "std", "std(input, dim=none, unbiased=none, keepdim=false, correction=none)", "Standard deviation: the square root of `var`, with the same arguments.", "std(tensor([1., 2., 3., 4.]))";
    Function Math "unique", "unique(input, sorted=true, return_inverse=false, return_counts=false, dim=none)", "The distinct elements in order (torch.unique), with each element's place among them (`return_inverse`) and how often each occurs (`return_counts`) when asked, as a tuple; a device tensor's are computed on its device (a sort, then where each run of equal elements starts), with the host read PyTorch's unique makes too, since the count decides the shape.", "unique(tensor([3, 1, 3, 2]), return_counts=true)";
    Function Math "vector_norm", "vector_norm(input, ord=2, dim=none, keepdim=false, dtype=none)", "torch.linalg.vector_norm: `norm(x, ord, dim)`, the vector ord-norm of every element or along `dim` (`LinalgVectorNormBackward0`).", "vector_norm(tensor([[3., 4.], [1., 1.]]), dim=1)";
    Function Math "linalg_norm", "linalg_norm(input, ord=none, dim=none, keepdim=false, dtype=none)", "torch.linalg.norm: the 2-norm of every element (a matrix's Frobenius norm) unless `ord` is given; a vector's, or one `dim`'s, ord-norm as `vector_norm`. The matrix norms of an `ord` over two dims (spectral, nuclear, ...) are not in cudash.", "linalg_norm(tensor([[3., 4.], [0., 0.]]))";
    Function Math "norm", "norm(input, p=2, dim=none, keepdim=false, dtype=none)", "The vector p-norm of all elements, or along `dim`: (sum |x|^p)^(1/p); p=inf the largest |x|, p=-inf the smallest, p=0 the count of non-zeros; \"fro\" is 2.", "norm(tensor([3., 4.]))\nnorm(tensor([3., -4.]), inf)";
    Function Math "sort", "sort(input, dim=-1, descending=false, stable=false)", "The elements sorted along `dim`, and where each came from: `values, indices = sort(x)` (or `.values`, `.indices`). Equal elements keep their order (always stable); NaN sorts above every number.", "values, indices = sort(tensor([3, 1, 2]))\nindices";
    Function Math "argsort", "argsort(input, dim=-1, descending=false, stable=false)", "The indices that sort `input` along `dim`: `sort(x).indices`.", "argsort(tensor([3., 1., 2.]))";
    Function Math "topk", "topk(input, k, dim=-1, largest=true, sorted=true)", "The `k` largest elements along `dim` (smallest with largest=false), in order, and their indices: `values, indices = topk(x, 2)`.", "topk(tensor([1., 5., 3., 4.]), 2)";
    Function Math "tril", "tril(input, diagonal=0)", "The lower triangle of each matrix (the last two dims), the rest zero; `diagonal` moves the edge up (1) or down (-1).", "tril(ones(3, 3))";
    Function Math "triu", "triu(input, diagonal=0)", "The upper triangle of each matrix (the last two dims), the rest zero; `diagonal` moves the edge up (1) or down (-1).", "triu(ones(3, 3), 1)";
    Function Math "nonzero", "nonzero(input, as_tuple=false)", "The coordinates of the non-zero elements (NaN counts), one row each: i64 of [count, ndim]; `as_tuple=true` gives one index tensor per dimension. The count decides the shape, so on a GPU the host waits for the data (a sync), as in PyTorch.", "nonzero(tensor([[0, 3], [5, 0]]))";
    Function Math "argwhere", "argwhere(input)", "`nonzero(input)`: the coordinates of the non-zero elements.", "argwhere(tensor([0., 2., 0., 1.]))";
    Function Math "equal", "equal(input, other)", "Whether two tensors have the same shape and the same elements, as `torch.equal`: a Python bool (one host read).", "equal(ones(2), tensor([1., 1.]))";
    Function Math "isclose", "isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=false)", "A bool per element (broadcast): within `atol + rtol * |other|` of `other`'s, as `torch.isclose` (equal elements, infinities too, always; NaNs only with `equal_nan`).", "isclose(tensor([1., 2., nan]), tensor([1., 2.1, nan]))";
    Function Math "allclose", "allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=false)", "Whether every element of `input` is within `atol + rtol * |other|` of `other`'s (broadcast), as `torch.allclose`: equal elements (infinities too) always are, NaNs only with `equal_nan`. A Python bool (one host read).", "allclose(tensor([1., 2.]), tensor([1., 2.000001]))";
    Function Tensors "sparse_coo_tensor", "sparse_coo_tensor(indices, values, size=none, dtype=none, device=none, requires_grad=false, check_invariants=none, is_coalesced=none)", "A sparse COO tensor, as `torch.sparse_coo_tensor`: `indices` (int64, `[ndim, nnz]`) says where each of `values` (`[nnz]`) lies in a tensor of `size` (each dimension one past its largest index when left out). Indices out of bounds are an error (PyTorch checks only when asked). It multiplies dense matrices (`@`, `mm`, `spmm`), adds into dense tensors, and shows its indices, values and `nnz`.", "s = sparse_coo_tensor([[0, 1], [1, 0]], [2., 3.], (2, 2))\ns @ ones(2, 1)";
    Function Math "spmm", "spmm(input, mat2)", "`torch.spmm`: `mm` of a sparse matrix and a dense one (dense result, `MmBackward0`).", "spmm(eye(2).to_sparse(), ones(2, 3))";
    Function Math "sparse_mm", "sparse_mm(sparse, dense)", "`torch.sparse.mm`: a sparse matrix times a dense one (`SparseAddmmBackward0`).", "sparse_mm(eye(2).to_sparse(), ones(2, 3))";
    Function Math "sparse_sum", "sparse_sum(input, dim=none, dtype=none)", "`torch.sparse.sum`: a sparse tensor's values added up over `dim` (a sparse result) or over everything (a dense number).", "sparse_sum(eye(3).to_sparse(), dim=0)";
    Function Math "mm", "mm(input, other)", "The product of two matrices (2-D each), as `torch.mm`: `matmul` that refuses other ranks with PyTorch's message.", "mm(ones(2, 3), ones(3, 4))";
    Function Math "bmm", "bmm(input, other)", "Batched matrix product of two 3-D tensors (b×n×m and b×m×p), as `torch.bmm`.", "bmm(ones(5, 2, 3), ones(5, 3, 4)).shape";
    Function Math "mv", "mv(input, other)", "A matrix (2-D) times a vector (1-D), as `torch.mv`.", "mv(ones(2, 3), ones(3))";
    Function Math "matmul", "matmul(a, b)", "Matrix product, like `a @ b`: 1-D operands are vectors, extra leading dimensions are batches.", "matmul(ones(2, 3), ones(3, 4))";
    Function Devices "device", "device(type, index=none)", "A device, as PyTorch's `torch.device`: `device(1)`, `device(\"cuda:1\")` and `device(\"cuda\", 1)` are `cuda:1`, `device(\"cuda\")` the current CUDA device (`cuda`), `device(\"cpu\")` the host. `with device(1) { }` makes cuda:1 current (PyTorch's `torch.cuda.device(1)`).", "with device(1) {\n  a = ones(2, device=cuda)\n}\ndevice(\"cuda\", 1)";
    Function Devices "devices", "devices()", "The list of CUDA devices in this session.", "devices()";
    Function Devices "device_count", "device_count()", "How many CUDA devices this session has.", "device_count()";
    Function Devices "set_device", "set_device(device)", "Makes CUDA device `device` (a number or a device) current from here on, as `torch.cuda.set_device`: what `cuda` means. In a rank of `spawn`, the rank's own (each process has its own current device); `with device(n) { }` changes it for a block only.", "set_device(0)\ncurrent_device()";
    Function Devices "current_device", "current_device()", "The current CUDA device: what `cuda` (no index) means where it is used, so `dev = cuda` used inside `with device(1)` is cuda:1. As torch.device, `cuda == cuda:0` is false.", "current_device()";
    Function Devices "is_available", "is_available()", "Whether this session has a CUDA device (PyTorch's `torch.cuda.is_available()`).", "is_available()";
    Function Devices "get_device_name", "get_device_name(device=none)", "The name of a CUDA device: an index or `cuda:N`, the current device by default.", "get_device_name(0)";
    Function Streams "stream", "stream(name=none)", "A new stream on the current CUDA device; `stream s { }` creates and uses one, `with s { }` uses it again. Given a stream, that stream: `with stream(s) { }` as PyTorch's `with torch.cuda.stream(s):`.", "s = stream()\nwith s { x = ones(2, device=cuda) }\nwith stream(s) { y = x * 2 }";
    Function Streams "current_stream", "current_stream(device=none)", "The stream the current (or the given) device's work goes to now: `default`, or the stream of the `stream`/`with` block running (PyTorch's `torch.cuda.current_stream()`).", "s = stream()\nwith s { current_stream() }";
    Function Streams "synchronize", "synchronize(device=none)", "PyTorch's `torch.cuda.synchronize()`: the host waits until everything queued on the current (or the given) device is done, as the statement `sync` (one host sync).", "x = randn(1000, device=cuda)\nsynchronize()";
    Function Streams "event", "event(enable_timing=none, blocking=false, interprocess=false)", "A new CUDA event: record it on a stream, wait on it, time between two. Only events made with `enable_timing` give `elapsed_time`, as CUDA's; cudash's `event()` times by default, PyTorch's `torch.cuda.Event()` does not (`enable_timing=True` asks). `blocking` and `interprocess` change how the host waits and who may share it, not what it marks.", "e = event(); e.record()";
    Function Memory "empty_cache", "empty_cache()", "Releases every cached, unused segment back to the device (`cudaFree`, which waits for everything queued there: the host waits when there is a segment to give back), and an expandable segment's whole free pages (after its stream's work). Blocks freed while another stream used them come back first.", "empty_cache()";
    Function Memory "reset_peak", "reset_peak(device=none)", "Resets the peak statistics of the caching allocator.", "reset_peak()";
    Function Memory "reset_peak_memory_stats", "reset_peak_memory_stats(device=none)", "PyTorch's name for `reset_peak`: the peak statistics start again from the current ones.", "reset_peak_memory_stats()";
    Function Memory "reset_accumulated_memory_stats", "reset_accumulated_memory_stats(device=none)", "PyTorch's reset of the totals in `memory_stats()` (each statistic's `allocated` and `freed`) and of its counters (`num_ooms`, `num_alloc_retries`, ...).", "reset_accumulated_memory_stats()";
    Function Memory "set_allocator_settings", "set_allocator_settings(settings)", "PyTorch's `torch.cuda.memory._set_allocator_settings`: `PYTORCH_CUDA_ALLOC_CONF`'s settings (\"max_split_size_mb:128,roundup_power2_divisions:4\") for every device's caching allocator from now on, over those in force. `max_split_size_mb` keeps blocks that large whole (less fragmentation, `memory_stats()`'s oversize figures), `roundup_power2_divisions` rounds requests up to steps of their power of two, `max_non_split_rounding_mb` how much larger an oversize block may be and still be reused, `garbage_collection_threshold` (with a memory fraction) gives long-unused cached segments back before new ones, `expandable_segments:True` grows one segment per pool and stream page by page instead of making new ones.", "set_allocator_settings(\"max_split_size_mb:128\")\nset_allocator_settings(\"roundup_power2_divisions:1\")";
    Function Memory "memory_summary", "memory_summary(device=none, abbreviated=false)", "PyTorch's table of the allocator's statistics for one device, as a string: `print(memory_summary())`; `abbreviated=true` leaves out the rows per pool. (The cpu: the text `mem` shows for pinned memory.)", "x = ones(1000, device=cuda)\nprint(memory_summary())";
    Function Memory "memory_allocated", "memory_allocated(device=none)", "Bytes held by live tensors on a CUDA device.", "memory_allocated()";
    Function Memory "max_memory_allocated", "max_memory_allocated(device=none)", "Peak bytes held by tensors since the last reset_peak().", "max_memory_allocated()";
    Function Memory "memory_reserved", "memory_reserved(device=none)", "Bytes the caching allocator holds from the device (used and cached).", "memory_reserved()";
    Function Memory "memory_stats", "memory_stats(device=none)", "Every allocator statistic, PyTorch-style keys.", "memory_stats()";
    Function Memory "record_memory_history", "record_memory_history(enabled=true, max_entries=100000)", "Every device's allocator records its history (on from the start): alloc, free_requested, free_completed, segment_alloc, segment_free and oom events, each with its size, address, stream, time and the statement and op that caused it, the newest `max_entries` kept per device. `enabled=false` stops recording, keeping what was recorded. `mem history` draws it; `dump_snapshot` writes it.", "record_memory_history(max_entries=1000)";
    Function Memory "dump_snapshot", "dump_snapshot(filename=\"dump_snapshot.pickle\")", "Writes PyTorch's memory snapshot: every device's segments and blocks (with the statement that allocated each) and its recorded history, as the pickle pytorch.org/memory_viz and `python -m torch.cuda._memory_viz` read.", "x = ones(1000, device=cuda)\ndump_snapshot(\"/tmp/cudash-example-snapshot.pickle\")";
    Function Memory "set_per_process_memory_fraction", "set_per_process_memory_fraction(fraction, device=none)", "Lets the caching allocator of a device (the current one by default) reserve at most `fraction` of its memory, as PyTorch's: an allocation whose new segment would pass it is out of memory (after the cache is released and it is tried again), and the error says how much is allowed. 1.0 lifts the limit. A lesson's way to run out of memory with small tensors.", "set_per_process_memory_fraction(0.5, 0)\nset_per_process_memory_fraction(1.0, 0)";
    Function Memory "max_memory_reserved", "max_memory_reserved(device=none)", "Peak bytes reserved by the caching allocator since the last reset_peak().", "max_memory_reserved()";
    Function Devices "scatter", "scatter(input, devices, dim=0)", "Splits `input` into chunks along `dim`, one per device, and copies each there; the chunk for input's own device stays a view of it (DataParallel's first step, as `torch.cuda.comm.scatter`).", "parts = scatter(randn(8, 4), [cuda:0, cuda:1])";
    Function Devices "gather", "gather(tensors, device=none, dim=0)", "Copies every tensor to one device and joins them there (DataParallel's last step: that device holds it all).", "parts = scatter(randn(8, 4), [cuda:0, cuda:1])\ny = gather(parts, cuda:0)";
    Function Devices "replicate", "replicate(input, devices)", "A module's replicas, one per device (`torch.nn.parallel.replicate`, DataParallel's first step): the first shares the module's own tensors, the others get copies of its parameters (in buckets of about 10 MiB, broadcast) whose gradients are added back onto the module's in backward (`BroadcastBackward`); their `parameters()` are empty, as PyTorch's. For a tensor: `input` on every device in the list, a copy on each other device and `input` itself on its own (as `torch.cuda.comm.broadcast`).", "copies = replicate(ones(4), [cuda:0, cuda:1])\nreplicas = replicate(Linear(4, 2).to(cuda:0), [0, 1])\nreplicas[1].weight.device";
    Function Devices "parallel_apply", "parallel_apply(modules, inputs, kwargs_tup=none, devices=none)", "Calls module i on inputs i (a tuple of arguments, or one argument), with device i current (by default the device of its first tensor), each in a thread of its own, as `torch.nn.parallel.parallel_apply`; the outputs in order. The threads share one host, as PyTorch's share Python's GIL: they take turns op by op, so their launches come one at a time from one host lane. An error in a replica is raised once all have ended: \"Caught RuntimeError in replica 1 on device 1.\"", "m = Linear(4, 2).to(cuda:0)\nxs = scatter(randn(8, 4, device=cuda:0), [cuda:0, cuda:1])\nys = parallel_apply(replicate(m, [0, 1]), xs)\ngather(ys, cuda:0).shape";
    Function Training "DataParallel", "DataParallel(module, device_ids=none, output_device=none, dim=0)", "`torch.nn.DataParallel`: each call replicates the module (on `device_ids[0]`) onto the devices, scatters the inputs along `dim`, runs the replicas in threads of their own (`parallel_apply`) and gathers the outputs on `output_device` (default `device_ids[0]`); backward sums the replicas' gradients onto the module's. `model.module` is the module; `state_dict` keys start with `module.`. Every CUDA device by default; ids are ints or devices.", "model = DataParallel(Linear(4, 2).to(cuda:0), device_ids=[0, 1])\nout = model(randn(8, 4, device=cuda:0))\nout.device";
    Function Training "DistributedDataParallel", "DistributedDataParallel(module, device_ids=none, output_device=none, dim=0, broadcast_buffers=true, bucket_cap_mb=none, find_unused_parameters=false, gradient_as_bucket_view=false, static_graph=false)", "`torch.nn.parallel.DistributedDataParallel`, in each rank of `spawn` after `init_process_group`: rank 0's parameters and buffers are broadcast to every rank; backward puts each gradient into a bucket as soon as it is final and all-reduces each full bucket on the rank's `nccl` stream while backward goes on, so `backward()` returns with every rank holding the average. The buckets are laid out as PyTorch 2.15's (one bucket for the first iteration, then in the order the gradients came, the first capped at 1 MiB and the rest at `bucket_cap_mb`, 25). A parameter that takes no part in the loss stops the reduction: the next forward raises PyTorch's error naming it, unless `find_unused_parameters=true`. `model.module` is the module; `state_dict` keys start with `module.`.", "init_process_group(\"gloo\", rank=0, world_size=1)\nmodel = DistributedDataParallel(Linear(4, 2))\nmodel(randn(8, 4)).sum().backward()\nmodel.module.weight.grad.shape\ndestroy_process_group()";
    Method Training "no_sync", "model.no_sync()", "What `with` takes to run a block without reducing gradients (a DistributedDataParallel's): each rank's backward only accumulates into `.grad`; the next backward outside the block reduces everything accumulated (gradient accumulation with fewer all-reduces).", "init_process_group(\"gloo\", rank=0, world_size=1)\nmodel = DistributedDataParallel(Linear(4, 2))\nwith model.no_sync() { model(randn(8, 4)).sum().backward() }\ndestroy_process_group()";
    Method Training "_get_ddp_logging_data", "model._get_ddp_logging_data()", "A DistributedDataParallel's figures under PyTorch's keys: `bucket_sizes` (bytes of each bucket, in the order they are reduced), after the first backward `rebuilt_bucket_sizes` and `rebuilt_per_bucket_param_indices`, `num_buckets_reduced`, `rank`, `world_size`.", "init_process_group(\"gloo\", rank=0, world_size=1)\nmodel = DistributedDataParallel(Linear(4, 2))\nmodel._get_ddp_logging_data()[\"bucket_sizes\"]\ndestroy_process_group()";
    Function Devices "all_reduce", "all_reduce(tensors, op=\"sum\", group=none, async_op=false)", "Reduces a list of same-shape tensors, one per CUDA device, in place: afterwards each holds the sum (or \"avg\", \"max\", \"min\") of all of them, as NCCL's ring computes it. Each device receives 2(n-1)/n of the buffer from its neighbour (profile counts it as D2D copies): DistributedDataParallel's gradient step. Given one tensor in a rank of `spawn`, the process group's `all_reduce` (`torch.distributed.all_reduce`): every rank's tensor becomes the reduction of all ranks', queued on the rank's `nccl` stream; `async_op=true` returns a work handle (`work.wait()`).", "g = [ones(4, device=cuda:0), 2 * ones(4, device=cuda:1)]\nall_reduce(g)\ng";
    Function Devices "spawn", "spawn(fn, args=none, nprocs=1, join=true)", "Runs `fn(rank, *args)` once per rank, each in an interpreter and a runtime of its own, as `torch.multiprocessing.spawn` runs processes: copies of the session's variables, its own generators and host clock (a lane of its own in `profile`: no GIL between ranks), no device current until it sets one; the session's devices. Returns when every rank has returned; what they printed comes in the order of their host clocks. An error in a rank ends the others at their next collective and is raised as PyTorch's \"Process 1 terminated with the following error\".", "fn work(rank, n) {\n  init_process_group(\"gloo\", rank=rank, world_size=n)\n  t = tensor([rank + 1.0])\n  all_reduce(t)\n  print(rank, t.item())\n  destroy_process_group()\n}\nspawn(work, args=[2], nprocs=2)";
    Function Devices "init_process_group", "init_process_group(backend=none, rank=none, world_size=none, init_method=none, timeout=none)", "Joins this rank to the process group of `world_size` ranks (as `torch.distributed.init_process_group`) and waits until every rank has: \"nccl\" takes CUDA tensors, one device per rank; \"gloo\" CPU tensors. `rank` and `world_size` default to what `spawn` gave (torchrun's environment). Outside `spawn` the session is a group of one.", "init_process_group(\"gloo\", rank=0, world_size=1)\nget_world_size()\ndestroy_process_group()";
    Function Devices "get_rank", "get_rank(group=none)", "This rank's number in the process group (`torch.distributed.get_rank`).", "init_process_group(\"gloo\", rank=0, world_size=1)\nget_rank()\ndestroy_process_group()";
    Function Devices "get_world_size", "get_world_size(group=none)", "How many ranks the process group has (`torch.distributed.get_world_size`).", "init_process_group(\"gloo\", rank=0, world_size=1)\nget_world_size()\ndestroy_process_group()";
    Function Devices "is_initialized", "is_initialized()", "Whether this rank has joined a process group (`torch.distributed.is_initialized`).", "is_initialized()";
    Function Devices "destroy_process_group", "destroy_process_group()", "Leaves the process group (`torch.distributed.destroy_process_group`); a new one may be made.", "init_process_group(\"gloo\", rank=0, world_size=1)\ndestroy_process_group()\nis_initialized()";
    Function Devices "barrier", "barrier(group=none)", "Waits until every rank of the process group has reached it (`torch.distributed.barrier`): the host waits, on \"nccl\" also for its device's work before it.", "init_process_group(\"gloo\", rank=0, world_size=1)\nbarrier()\ndestroy_process_group()";
    Function Devices "send", "send(tensor, dst, group=none, tag=0)", "Sends this rank's `tensor` to rank `dst` of the process group (`torch.distributed.send`): it is copied into the tensor `dst` passes to its matching `recv`, on the ranks' `nccl` streams (the current stream then waits for it). The n-th send to a rank meets that rank's n-th recv from this one; one that never does is reported, not a hang.", "fn work(rank, n) {\n  init_process_group(\"gloo\", rank=rank, world_size=n)\n  t = tensor([rank * 1.0])\n  if rank == 0 { send(t, 1) } else { recv(t, 0) }\n  print(rank, t.item())\n}\nspawn(work, args=[2], nprocs=2)";
    Function Devices "recv", "recv(tensor, src, group=none, tag=0)", "Receives into `tensor` what rank `src` of the process group sends it (`torch.distributed.recv`): one shape and dtype on both sides.", "fn work(rank, n) {\n  init_process_group(\"gloo\", rank=rank, world_size=n)\n  t = zeros(2)\n  if rank == 1 { send(ones(2), 0) } else { recv(t, 1) }\n  print(rank, t.tolist())\n}\nspawn(work, args=[2], nprocs=2)";
    Function Devices "isend", "isend(tensor, dst, group=none, tag=0)", "`send` that does not wait (`torch.distributed.isend`): the message is posted and the rank goes on; the work handle it gives back `wait()`s until rank `dst`'s `recv` has taken it. Do not change `tensor` before then.", "fn work(rank, n) {\n  init_process_group(\"gloo\", rank=rank, world_size=n)\n  t = tensor([rank * 1.0])\n  if rank == 0 { isend(t + 5, 1).wait() } else { irecv(t, 0).wait() }\n  print(rank, t.item())\n}\nspawn(work, args=[2], nprocs=2)";
    Function Devices "irecv", "irecv(tensor, src, group=none, tag=0)", "`recv` that does not wait (`torch.distributed.irecv`): the work handle it gives back `wait()`s until rank `src`'s send has filled `tensor`; read it only after.", "fn work(rank, n) {\n  init_process_group(\"gloo\", rank=rank, world_size=n)\n  t = tensor([rank * 1.0])\n  if rank == 0 { send(t + 5, 1) } else { irecv(t, 0).wait() }\n  print(rank, t.item())\n}\nspawn(work, args=[2], nprocs=2)";
    Function Devices "reduce", "reduce(tensor, dst=none, op=\"sum\", group=none, async_op=false)", "Rank `dst`'s `tensor` becomes the reduction (\"sum\", \"avg\", \"max\", \"min\", \"product\") of every rank's (`torch.distributed.reduce`, NCCL's `ncclReduce` folded along the ring to `dst`); the other ranks' tensors are left as they were.", "fn work(rank, n) {\n  init_process_group(\"gloo\", rank=rank, world_size=n)\n  t = tensor([rank + 2.0])\n  reduce(t, dst=0, op=\"product\")\n  print(rank, t.item())\n}\nspawn(work, args=[2], nprocs=2)";
    Function Devices "dist_gather", "dist_gather(tensor, gather_list=none, dst=none, group=none, async_op=false)", "`torch.distributed.gather`: every rank's `tensor` copied into rank `dst`'s `gather_list` (one tensor per rank, in rank order; `dst` 0 unless given). Only `dst` passes the list.", "fn work(rank, n) {\n  init_process_group(\"gloo\", rank=rank, world_size=n)\n  out = none\n  if rank == 0 { out = [zeros(1), zeros(1)] }\n  dist_gather(tensor([rank * 5.0]), out, dst=0)\n  if rank == 0 { print(out) }\n}\nspawn(work, args=[2], nprocs=2)";
    Function Devices "dist_scatter", "dist_scatter(tensor, scatter_list=none, src=none, group=none, async_op=false)", "`torch.distributed.scatter`: rank `src`'s `scatter_list` dealt out, item r into rank r's `tensor` (`src` 0 unless given). Only `src` passes the list.", "fn work(rank, n) {\n  init_process_group(\"gloo\", rank=rank, world_size=n)\n  t = zeros(1)\n  parts = none\n  if rank == 0 { parts = [tensor([10.0]), tensor([20.0])] }\n  dist_scatter(t, parts, src=0)\n  print(rank, t.item())\n}\nspawn(work, args=[2], nprocs=2)";
    Function Devices "new_group", "new_group(ranks=none, timeout=none, backend=none, pg_options=none, use_local_synchronization=false, group_desc=none, device_id=none)", "A process group for `group=` (`torch.distributed.new_group`). cudash's groups are the whole world: `ranks` must name every rank (subgroups of some ranks are not there).", "init_process_group(\"gloo\", rank=0, world_size=1)\ng = new_group([0])\nall_reduce(tensor([1.0]), group=g)\ndestroy_process_group()";
    Method Devices "wait", "work.wait()", "Makes the current stream wait for the collective that gave this work handle (`async_op=true`), as PyTorch's `Work.wait()`: the host goes on.", "init_process_group(\"gloo\", rank=0, world_size=1)\nw = all_reduce(ones(2), async_op=true)\nw.wait()\ndestroy_process_group()";
    Method Devices "is_completed", "work.is_completed()", "Whether the collective of this work handle has finished on its device.", "init_process_group(\"gloo\", rank=0, world_size=1)\nw = all_reduce(ones(2), async_op=true)\nw.is_completed()\ndestroy_process_group()";
    Function Devices "reduce_scatter", "reduce_scatter(tensors, input_list=none, op=\"sum\", group=none, async_op=false)", "Reduces a list of same-shape tensors, one per CUDA device, and gives device i the i-th share of the result along the first dimension (new tensors, one per device). Each device receives (n-1)/n of its buffer. With one tensor and `input_list`, in a rank of `spawn`: the process group's (`torch.distributed.reduce_scatter(output, input_list)`): rank r's `output` becomes the reduction of every rank's `input_list[r]`.", "parts = reduce_scatter([arange(4., device=cuda:0), arange(4., device=cuda:1)])";
    Function Devices "all_gather", "all_gather(tensors, tensor=none, group=none, async_op=false)", "Every device gets all the tensors of the list (one per CUDA device, same shape) joined along the first dimension, in list order: new tensors, one per device. Each device receives the n-1 others' buffers. With `tensor`, in a rank of `spawn`: the process group's (`torch.distributed.all_gather(tensor_list, tensor)`): rank k's `tensor` is copied into every rank's `tensors[k]`.", "all_gather([zeros(2, device=cuda:0), ones(2, device=cuda:1)])";
    Function Devices "broadcast", "broadcast(input, devices=none, src=none, group=none, async_op=false)", "`input` on every device of the list, passed down NCCL's ring from its own device (so each link carries it once, not the root's n-1 times): new tensors on the others, `input` itself on its own. With a rank (`broadcast(t, 0)`, `src=0`) in a rank of `spawn`: the process group's (`torch.distributed.broadcast`): rank `src`'s tensor copied into every rank's, in place.", "copies = broadcast(ones(4, device=cuda:0), [cuda:0, cuda:1])";
    Function Teaching "save", "save(tensor, path)", "Writes a tensor to a .npy (NumPy) or .safetensors file, keeping dtype and shape; a dict of tensors (`model.state_dict()`) to one .safetensors file under their names, which `safetensors.torch.load_file` reads as the same dict. A name ending in .pt, .pth or .tar is torch.save's format: a tensor, a state_dict or a checkpoint dict (numbers, strings, lists, nested dicts), each tensor keeping its device, which `torch.load` reads back.", "save(arange(4), \"/tmp/cudash-example.npy\")";
    Function Teaching "load", "load(path, device=None, map_location=None, weights_only=none, mmap=none)", "Reads a .npy or .safetensors file (onto `device`, cpu by default): the tensor `save` wrote, or a dict of named tensors (a `state_dict`, for `model.load_state_dict`). A file torch.save wrote (.pt, .pth, .tar) is read as `torch.load(weights_only=True)` reads it: tensors, dicts, lists, numbers, strings, each tensor on the device it was saved from unless `map_location` (or `device`) says otherwise; anything else in the file is refused, never run. `weights_only=False` reads NumPy arrays too (as PyTorch's full load; cudash still runs nothing in the file).", "save(arange(4), \"/tmp/cudash-example.npy\")\nload(\"/tmp/cudash-example.npy\")";
    Function Teaching "print", "print(*values, sep=\" \", end=\"\\n\", file=none, flush=false)", "Prints values separated by `sep` (a space), then `end` (a newline): `end=\"\"` leaves the line open for the next print, as Python's; `flush=True` shows the open line at once.", "print(\"x is\", [1., 2.])\nfor i in range(3) { print(i, end=\" \") }";
    Function Teaching "range", "range(start, stop=none, step=1)", "Python's range: `range(3)` is 0, 1, 2 and `range(2, 10, 3)` is 2, 5, 8, counted as the loop asks (`for i in range(n)` runs as `for i in 0..n`). `len`, `list` and unpacking take it too.", "for i in range(1, 7, 2) { print(i) }\nlist(range(3))";
    Function Teaching "slice", "slice(start, stop=none, step=none)", "Python's slice: `slice(stop)` or `slice(start, stop, step)`, each an int or none; `x[s]` is `x[start:stop:step]` (a tensor's, a list's, a string's), as `__getitem__` receives it.", "s = slice(1, 7, 2)\narange(10)[s]";
    Function Teaching "bytes", "bytes(source=none, encoding=none, errors=\"strict\")", "Python's bytes: `n` zero bytes, the bytes of a list of ints (0 to 255), a string in an encoding (`bytes(\"é\", \"utf-8\")`), or bytes as they are; what `open(path, \"rb\").read()` and `s.encode()` give. Indexed they are ints, sliced bytes; `b.decode()`, `b.hex()`, `int.from_bytes(b, \"big\")`.", "bytes([137, 80, 78, 71])";
    Function Teaching "str", "str(object=\"\", encoding=none, errors=\"strict\")", "Python's str: a string as it is, a number as Python writes it (`str(4e-06)`), `True`, `None`; a tensor as cudash shows it; bytes decoded with `encoding` (`str(b, \"utf-8\")`).", "str(0.1) + \" s\"";
    Function Teaching "repr", "repr(object)", "Python's repr: a string in quotes (`'a'`).", "repr(\"a\")";
    Function Teaching "format", "format(value, format_spec=\"\")", "Python's format-spec mini-language, as in an f-string: `format(x, \">7f\")`; a 0-d tensor formats as its number.", "format(3.14159, \".2f\")";
    Function Teaching "int", "int(x=0, base=10)", "Python's int: a float truncated, a string read (in `base`, 2 to 36, or 0 for its prefix), a tensor of one element read (a host read, as `.item()`).", "int(2.7)\nint(\"12\")";
    Function Teaching "float", "float(x=0.0)", "Python's float: an int, a string (`\"1e-3\"`, `\"inf\"`), a tensor of one element read (a host read, as `.item()`).", "float(\"1e-3\")";
    Function Teaching "zip", "zip(*iterables, strict=false)", "Python's zip: tuples of the items at each position, as many as the shortest has (with `strict=True`, iterables of other lengths are a ValueError).", "for i, name in zip(range(2), [\"a\", \"b\"]) { print(i, name) }";
    Function Teaching "tuple", "tuple(iterable=none)", "Python's tuple of the items.", "tuple(range(3))";
    Function Teaching "set", "set(iterable=none)", "Python's set: each item once (strings and ints), `in` asks whether it holds one; `add`, `update`, `remove`, `discard`, `|`, `&`, `-`. Its items keep the order they came in (Python's order is its hashes'; `sorted(s)` gives one order everywhere).", "chars = set(\"hello\")\nsorted(chars)\n\"h\" in chars";
    Method Teaching "add", "st.add(x)", "Puts `x` in the set (once).", "s = set()\ns.add(3)\ns.add(3)\nlen(s)";
    Method Teaching "update", "st.update(*others)", "Puts in the items of each of `others` (lists, sets, strings), in place.", "s = set([1])\ns.update([2, 3], [3])\ns";
    Method Teaching "remove", "st.remove(x)", "Takes `x` out of the set; Python's KeyError when it is not there.", "s = set([1, 2])\ns.remove(1)\ns";
    Method Teaching "discard", "st.discard(x)", "Takes `x` out of the set, if it is there.", "s = set([1, 2])\ns.discard(5)\ns.discard(1)\ns";
    Method Teaching "pop", "st.pop()", "Takes an item out of the set and gives it (Python's `KeyError` for an empty set).", "s = set([7])\ns.pop()\nlen(s)";
    Method Teaching "clear", "st.clear()", "Takes every item out of the set.", "s = set([1, 2])\ns.clear()\nlen(s)";
    Method Teaching "copy", "st.copy()", "A new set of the same items.", "s = set([1, 2])\nt = s.copy()\nt.add(3)\nlen(s)";
    Method Teaching "issubset", "st.issubset(*others)", "Whether every item is in the other (`s <= t`).", "set([1]).issubset([1, 2])";
    Method Teaching "issuperset", "st.issuperset(*others)", "Whether every item of the other is in the set (`s >= t`).", "set([1, 2]).issuperset([1])";
    Method Teaching "isdisjoint", "st.isdisjoint(*others)", "Whether the set and the other share no item.", "set([1]).isdisjoint([2])";
    Method Teaching "symmetric_difference", "st.symmetric_difference(*others)", "The items in one of the two but not both (`s ^ t`).", "set([1, 2]).symmetric_difference([2, 3])";
    Method Teaching "union", "st.union(*others)", "A new set of the items of this set and of each of `others` (`a | b`).", "set([1, 2]).union([2, 3])";
    Method Teaching "intersection", "st.intersection(*others)", "A new set of the items in this set and in every one of `others` (`a & b`).", "set([1, 2]).intersection([2, 3])";
    Method Teaching "difference", "st.difference(*others)", "A new set of the items of this set in none of `others` (`a - b`).", "set([1, 2]).difference([2, 3])";
    Function Teaching "dict", "dict(iterable=none, **kwargs)", "Python's dict: of (key, value) pairs, another dict, or keywords.", "dict(lr=0.1, momentum=0.9)";
    Function Teaching "sorted", "sorted(iterable, key=none, reverse=false)", "Python's sorted: a new list in order (numbers, strings, tuples item by item), by `key(item)` when a key function is given; stable.", "sorted([(\"b\", 2), (\"a\", 3)], key=lambda p: p[1], reverse=true)";
    Function Teaching "hash", "hash(obj)", "Python's hash: an int equal for values a dict takes as one key (`hash(1) == hash(1.0)`); an int's is itself (modulo 2**61 - 1); a class's own `__hash__` gives it for its instances; a list, a dict or a set has none (TypeError).", "hash((1, \"a\")) == hash((1.0, \"a\"))";
    Function Teaching "id", "id(obj)", "Python's id: one number per object, the same for two names of it (`a is b`).", "x = ones(2)\ny = x\nid(x) == id(y)";
    Function Teaching "any", "any(iterable)", "Python's any: true when an item is true.", "any([0, 1])";
    Function Teaching "all", "all(iterable)", "Python's all: true when every item is.", "all([1, 1])";
    Function Teaching "staticmethod", "staticmethod(function)", "Python's staticmethod: `@staticmethod` above a method in a class body makes it a plain function of the class, called without the instance (`C.f(x)`, `obj.f(x)`).", "class C { @staticmethod\n fn twice(x) { return 2 * x } }\nC.twice(3)";
    Function Teaching "classmethod", "classmethod(function)", "Python's classmethod: `@classmethod` above a method makes its first parameter the class (`cls`), however it is called.", "class C { @classmethod\n fn make(cls) { return cls() } }\nC.make()";
    Function Teaching "property", "property(function, fset=none)", "Python's property: `@property` above a method makes reading `obj.name` call it with the instance; `@name.setter` above a second method of that name makes `obj.name = v` call that with the instance and `v`.", "class C { fn __init__(self) { self.n = 3 }\n @property\n fn double(self) { return 2 * self.n } }\nC().double";
    Function Teaching "getattr", "getattr(object, name, default=none)", "Python's getattr: `object.name` for a name held in a string; with `default`, that instead of the AttributeError.", "getattr(Linear(2, 3), \"out_features\")\ngetattr(Linear(2, 3), \"nothing\", 0)";
    Function Teaching "divmod", "divmod(a, b)", "Python's divmod: `(a // b, a % b)`, floored as Python floors.", "divmod(17, 5)";
    Function Teaching "bin", "bin(x)", "Python's bin: an int in binary, `0b` first (`-0b101` for a negative one).", "bin(5)";
    Function Teaching "hex", "hex(x)", "Python's hex: an int in hexadecimal, `0x` first.", "hex(255)";
    Function Teaching "oct", "oct(x)", "Python's oct: an int in octal, `0o` first.", "oct(8)";
    Function Teaching "chr", "chr(i)", "Python's chr: the one-character string of code point `i`.", "chr(65)";
    Function Teaching "ord", "ord(c)", "Python's ord: the code point of a one-character string.", "ord(\"a\")";
    Function Teaching "frozenset", "frozenset(iterable=none)", "Python's frozenset: a set of the items that no method changes, hashable (a dict's key, a set's item).", "frozenset([2, 1, 2])";
    Function Teaching "globals", "globals()", "Python's globals: the module's variables as a dict (nanoGPT lists its settings so); `globals()[key] = value` assigns the variable.", "lr = 0.1\nglobals()[\"lr\"]";
    Function Teaching "eval", "eval(source, globals=none, locals=none)", "Python's eval: the value of the expression in the string `source`, read in the module's variables (a function's own locals are not seen), or in the dict `globals`'.", "eval(\"2 ** 10\")";
    Function Teaching "exec", "exec(source, globals=none, locals=none)", "Python's exec: the statements of the string `source`, run in the module's variables (nanoGPT's `exec(open(\"configurator.py\").read())`), or in the dict `globals`' names, which then has what they assigned.", "exec(\"x = 2 + 3\")\nx";
    Function Teaching "callable", "callable(object)", "Python's callable: whether `object(...)` can be called — a function, a method, a class, a module, a builtin, an instance whose class has `__call__`.", "callable(print)";
    Function Teaching "hasattr", "hasattr(object, name)", "Python's hasattr: whether reading `object.name` gives a value rather than an AttributeError.", "hasattr(Linear(2, 3), \"weight\")";
    Function Teaching "setattr", "setattr(object, name, value)", "Python's setattr: `object.name = value` for a name held in a string.", "class C { pass }\nc = C()\nsetattr(c, \"lr\", 0.1)\nc.lr";
    Function Teaching "delattr", "delattr(object, name)", "Python's delattr: `del object.name` for a name held in a string (a module's parameter, buffer or child is unregistered, as PyTorch's `Module.__delattr__`).", "class C { pass }\nc = C()\nc.lr = 0.1\ndelattr(c, \"lr\")\nhasattr(c, \"lr\")";
    Function Teaching "ArgumentParser", "ArgumentParser(prog=none, description=none, epilog=none, formatter_class=none, add_help=true)", "Python's argparse.ArgumentParser: a program's command-line options. `parser.add_argument(\"--lr\", type=float, default=0.1)`, then `args = parser.parse_args()` reads what follows the file (`cudash script train.py --lr 0.5`; nothing in the REPL or a notebook, so every option keeps its default) and gives `args.lr`. Usage, help and errors are Python's; an error ends the program with status 2 (`SystemExit`).", "parser = ArgumentParser(description=\"demo\")\nparser.add_argument(\"--epochs\", type=int, default=2)\nargs = parser.parse_args([\"--epochs\", \"5\"])\nargs.epochs";
    Method Teaching "add_argument", "parser.add_argument(*name_or_flags, action=\"store\", nargs=none, const=none, default=none, type=none, choices=none, required=false, help=none, metavar=none, dest=none)", "An option (`\"--batch-size\"`, `\"-b\"`: its value is `args.batch_size`) or a positional (`\"epochs\"`). `type` converts the text (`int`, `float`, a function); `action`: store, store_true, store_false, store_const, append, count; `nargs`: `?`, `*`, `+` or a number; `choices` limits the values.", "parser = ArgumentParser()\nparser.add_argument(\"--dry-run\", action=\"store_true\")\nparser.parse_args([\"--dry-run\"]).dry_run";
    Method Teaching "add_subparsers", "parser.add_subparsers(title=none, description=none, dest=none, required=false, help=none, metavar=none)", "Commands, as `git commit` has: `sub = parser.add_subparsers(dest=\"cmd\")`, then `train = sub.add_parser(\"train\")` and `train.add_argument(...)`. The first word after this parser's own options names the command (`args.cmd`), and the words after it are that command's parser's. Usage, help and errors as argparse's.", "parser = ArgumentParser(prog=\"run.py\")\nsub = parser.add_subparsers(dest=\"cmd\")\nsub.add_parser(\"train\").add_argument(\"--epochs\", type=int, default=2)\nparser.parse_args([\"train\", \"--epochs\", \"3\"])";
    Method Teaching "add_parser", "parser.add_parser(name, help=none, aliases=none, description=none, epilog=none, add_help=true)", "A command of what `add_subparsers` gave: its own ArgumentParser (prog `main.py name`), listed with `help` in the main help; `aliases` are other names for it.", "parser = ArgumentParser(prog=\"run.py\")\nsub = parser.add_subparsers(dest=\"cmd\")\nsub.add_parser(\"eval\", help=\"evaluate\")\nparser.parse_args([\"eval\"]).cmd";
    Method Teaching "parse_args", "parser.parse_args(args=none, namespace=none)", "The program's arguments (`sys.argv[1:]`, or the list given) as a Namespace: `args.lr`. An unknown or ill-typed argument prints the usage and argparse's error on stderr and ends the program with status 2; `-h` prints the help and ends it with 0.", "parser = ArgumentParser()\nparser.add_argument(\"--lr\", type=float, default=0.1)\nparser.parse_args([])";
    Method Teaching "parse_known_args", "parser.parse_known_args(args=none, namespace=none)", "As `parse_args`, but what no argument takes is given back, not an error: `(namespace, extras)`.", "parser = ArgumentParser()\nparser.add_argument(\"--lr\", type=float, default=0.1)\nparser.parse_known_args([\"--other\", \"1\"])";
    Method Teaching "print_help", "parser.print_help()", "Prints the help argparse writes for `-h`: usage, description, each argument with its help.", "parser = ArgumentParser(prog=\"train.py\")\nparser.add_argument(\"--lr\", type=float, default=0.1, help=\"learning rate (default: %(default)s)\")\nparser.print_help()";
    Method Teaching "format_help", "parser.format_help()", "The help `print_help` prints, as a string.", "ArgumentParser(prog=\"train.py\").format_help()";
    Method Teaching "print_usage", "parser.print_usage()", "Prints the usage line argparse writes above an error.", "ArgumentParser(prog=\"train.py\").print_usage()";
    Method Teaching "format_usage", "parser.format_usage()", "The usage line, as a string.", "ArgumentParser(prog=\"train.py\").format_usage()";
    Method Teaching "set_defaults", "parser.set_defaults(**kwargs)", "Defaults by name: for arguments (instead of their own) and for names no argument sets.", "parser = ArgumentParser()\nparser.set_defaults(mode=\"train\")\nparser.parse_args([]).mode";
    Method Teaching "error", "parser.error(message)", "Prints the usage and `prog: error: message` on stderr and ends the program with status 2, as argparse does.", "parser = ArgumentParser(prog=\"train.py\")\ntry { parser.error(\"bad\") } except SystemExit { print(\"exited\") }";
    Function Teaching "vars", "vars(object)", "Python's vars: an object's attributes as a dict (`vars(args)` of a Namespace).", "parser = ArgumentParser()\nparser.add_argument(\"--lr\", type=float, default=0.1)\nvars(parser.parse_args([]))";
    Function Teaching "reversed", "reversed(sequence)", "Python's reversed: an iterator over a sequence's items, last first (a list, a tuple, a range, a string, a dict's keys).", "list(reversed([1, 2, 3]))";
    Function Teaching "map", "map(function, *iterables)", "Python's map: an iterator of `function` of one item of each iterable, made as it is asked for, ending with the shortest.", "list(map(len, [\"a\", \"bc\"]))";
    Function Teaching "filter", "filter(function, iterable)", "Python's filter: an iterator of the items `function` finds true (`None`: the items that are true themselves), made as it is asked for.", "list(filter(len, [\"\", \"a\", \"bc\"]))";
    Function Teaching "iter", "iter(iterable)", "Python's iter: an iterator over the items; over a DataLoader, its batches made as `next` asks (`next(iter(loader))` is the first batch; a later one runs the epoch up to it).", "it = iter(range(3))\nnext(it)\nnext(it)";
    Function Teaching "next", "next(iterator, default=none)", "Python's next: the iterator's next item; at the end `default`, or Python's StopIteration when none is given.", "next(iter([\"a\", \"b\"]))";
    Function Teaching "enumerate", "enumerate(iterable, start=0)", "Python's enumerate: `for i, x in enumerate(xs) { }` gives each item with its count from `start`. Over a DataLoader the batches are made as the loop asks for them (`for i, batch in enumerate(loader) { xb, tb = batch }`).", "for i, x in enumerate([10, 20]) { print(i, x) }";
    Function Teaching "len", "len(obj)", "Python's `len`: a tensor's first dimension (a 0-d tensor has none), or the items of a list or dict, or a string's characters.", "len(ones(3, 2))\nlen(ones(3).tolist())";
    Function Teaching "sleep", "sleep(seconds)", "The host does nothing for `seconds`: what a script writes for CPU work cudash cannot express (decoding images, Python preprocessing). It really sleeps; where device time is modelled the host's modelled clock advances too, so `profile`'s timeline shows the host working (▓) while the GPU idles, as on a GPU.", "for step in 0..3 {\n  sleep(0.001)   # a millisecond of CPU preprocessing\n  print(\"batch\", step)\n}";
    Function Teaching "clear_output", "clear_output(wait=false)", "Clears the cell's output in a notebook (with `wait=true`, once the next output comes) and the screen in a terminal.", "for i in 0..3 {\n  clear_output(wait=true)\n  print(\"step\", i)\n}";
    Method Tensors "to", "x.to(target=none, non_blocking=false, device=none, dtype=none, memory_format=none)", "Moves to a device and/or converts to a dtype (positionally, or by `device=`/`dtype=`), keeping x's memory order (a channels-last x stays channels-last); `memory_format=torch.channels_last` lays the copy out pixel by pixel. Returns `x` itself when nothing changes.", "x = ones(2)\nx.to(f64)\nx.to(device=cpu, dtype=f16)";
    Method Devices "cuda", "x.cuda(device=none, non_blocking=false)", "Copies to the current CUDA device, or the one given (`1` or `cuda:1`); returns `x` itself when it is there already.", "ones(2).cuda()\nones(2).cuda(cuda:0, non_blocking=true)";
    Method Devices "cpu", "x.cpu()", "Copies to host memory; returns `x` itself when it is already there.", "ones(2).cpu()";
    Method Devices "copy_to", "x.copy_to(device)", "Always copies, even to the device `x` is on (MXNet's copyto).", "x = ones(2)\ny = x.copy_to(cpu)\ny is x";
    Method Memory "pin", "x.pin()", "A copy in page-locked host memory, or `x` itself when it is pinned already (`pin x` pins in place).", "ones(2).pin()";
    Method Memory "pin_memory", "x.pin_memory()", "PyTorch's name for `x.pin()`: a copy in page-locked host memory, or `x` itself when it is pinned already.", "ones(2).pin_memory().is_pinned";
    Method Streams "record_stream", "x.record_stream(stream)", "Marks `x` as used on `stream`: when `x` is freed, its block waits for the work queued on that stream by then before it is reused.", "x = ones(1000, device=cuda)\nstream s { y = x * 2 }\nx.record_stream(s)\ndel x";
    Method Tensors "reshape", "x.reshape(*shape)", "Same elements in a new shape (a view when possible); one dimension may be -1.", "arange(6).reshape(2, -1)";
    Method Tensors "contiguous", "x.contiguous(memory_format=none)", "`x` itself if its memory is contiguous (in `memory_format`'s order: `torch.channels_last` lays an NCHW tensor out pixel by pixel), else a copy that is.", "ones(2, 3).T.contiguous()";
    Method Tensors "clone", "x.clone(memory_format=none)", "A copy of `x` in new memory on the same device, in x's own memory order (a channels-last or transposed x gives a copy laid out the same way; `memory_format=` chooses another): writing one no longer changes the other.", "x = arange(3)\ny = x.clone()\ny[0] = 9\nx";
    Method Tensors "transpose", "x.transpose(dim0, dim1)", "A view with two dimensions swapped.", "ones(2, 3).transpose(0, 1)";
    Method Tensors "float", "x.float()", "`x.to(f32)`: `x` itself when it is f32 already.", "arange(3).float()";
    Method Tensors "double", "x.double()", "`x.to(f64)`: `x` itself when it is f64 already.", "arange(3).double()";
    Method Tensors "half", "x.half()", "`x.to(f16)`: `x` itself when it is f16 already.", "arange(3).half()";
    Method Tensors "bfloat16", "x.bfloat16()", "`x.to(bf16)`: `x` itself when it is bf16 already.", "arange(3).bfloat16()";
    Method Tensors "int", "x.int()", "`x.to(i32)`: `x` itself when it is i32 already.", "arange(3).int()";
    Method Tensors "long", "x.long()", "`x.to(i64)`: `x` itself when it is i64 already.", "arange(3).long()";
    Method Tensors "byte", "x.byte()", "`x.to(u8)` (`torch.uint8`, one byte per element, as images and MNIST's pixels are held): `x` itself when it is u8 already; a float is truncated and wraps modulo 256, as PyTorch's (`-1.` becomes 255).", "tensor([1.5, 255.0, 256.0]).byte()";
    Method Tensors "char", "x.char()", "`x.to(i8)` (`torch.int8`, -128 to 127): `x` itself when it is i8 already; a float is truncated and wraps modulo 256 (`200.` becomes -56).", "tensor([1.5, 127.0, 200.0]).char()";
    Method Tensors "short", "x.short()", "`x.to(i16)` (`torch.int16`, -32768 to 32767): `x` itself when it is i16 already; a float is truncated and wraps modulo 65536.", "tensor([1.5, 40000.0]).short()";
    Method Tensors "bool", "x.bool()", "`x.to(bool)`: `x` itself when it is bool already.", "arange(3).bool()";
    Method Math "eq", "x.eq(other)", "`x == other`: a bool tensor.", "arange(3).eq(1)";
    Method Math "ne", "x.ne(other)", "`x != other`: a bool tensor.", "arange(3).ne(1)";
    Method Math "lt", "x.lt(other)", "`x < other`: a bool tensor.", "arange(3).lt(1)";
    Method Math "le", "x.le(other)", "`x <= other`: a bool tensor.", "arange(3).le(1)";
    Method Math "gt", "x.gt(other)", "`x > other`: a bool tensor.", "arange(3).gt(1)";
    Method Math "ge", "x.ge(other)", "`x >= other`: a bool tensor.", "arange(3).ge(1)";
    Method Math "add", "x.add(other, alpha=1)", "`x + other` (a number counts as one written beside `+`); with `alpha`, `x + alpha * other` in one kernel, rounded once (PyTorch's fused multiply-add).", "arange(3).add(2)\nones(3).add(ones(3), alpha=0.5)";
    Method Math "sub", "x.sub(other, alpha=1)", "`x - other` (a number counts as one written beside `-`); with `alpha`, `x - alpha * other` in one kernel.", "arange(3).sub(2)";
    Method Math "mul", "x.mul(other)", "`x * other` (a number counts as one written beside `*`).", "arange(3).mul(2)";
    Method Math "div", "x.div(other, rounding_mode=none)", "`x / other` (a number counts as one written beside `/`); `rounding_mode=\"floor\"` rounds the quotient down (`//`), `\"trunc\"` towards zero, in the operands' dtype.", "arange(3).div(2)";
    Method Math "pow", "x.pow(other)", "`x ** other` (a number counts as one written beside `**`).", "arange(3).pow(2)";
    Method Math "maximum", "x.maximum(other)", "`maximum(x, other)`: the larger element of each pair.", "tensor([1., 5.]).maximum(tensor([3., 2.]))";
    Method Math "minimum", "x.minimum(other)", "`minimum(x, other)`: the smaller element of each pair.", "tensor([1., 5.]).minimum(tensor([3., 2.]))";
    Method Math "floor_divide", "x.floor_divide(other)", "`x // other`.", "arange(5).floor_divide(2)";
    Method Math "fmod", "x.fmod(other)", "`fmod(x, other)`: the remainder with `x`'s sign.", "tensor([-7.5, 7.5]).fmod(2)";
    Method Math "remainder", "x.remainder(other)", "`x % other`.", "arange(5).remainder(2)";
    Method Math "logical_and", "x.logical_and(other)", "`logical_and(x, other)`.", "tensor([1, 0]).logical_and(tensor([1, 1]))";
    Method Math "logical_or", "x.logical_or(other)", "`logical_or(x, other)`.", "tensor([1, 0]).logical_or(tensor([0, 0]))";
    Method Math "logical_xor", "x.logical_xor(other)", "`logical_xor(x, other)`.", "tensor([1, 0]).logical_xor(tensor([1, 1]))";
    Method Math "logical_not", "x.logical_not()", "`logical_not(x)`: whether each element is zero.", "arange(3).logical_not()";
    Method Math "isnan", "x.isnan()", "`isnan(x)`.", "(zeros(2) / 0.).isnan()";
    Method Math "bitwise_and", "x.bitwise_and(other)", "`x & other`.", "tensor([1, 5, 11]).bitwise_and(3)";
    Method Math "bitwise_or", "x.bitwise_or(other)", "`x | other`.", "tensor([1, 5, 11]).bitwise_or(2)";
    Method Math "bitwise_xor", "x.bitwise_xor(other)", "`x ^ other`.", "tensor([1, 5, 11]).bitwise_xor(tensor([2, 7, 10]))";
    Method Math "bitwise_left_shift", "x.bitwise_left_shift(other)", "`x << other`.", "tensor([1, 3, -2]).bitwise_left_shift(2)";
    Method Math "bitwise_right_shift", "x.bitwise_right_shift(other)", "`x >> other`.", "tensor([16, -16, 7]).bitwise_right_shift(2)";
    Method Math "bitwise_and_", "x.bitwise_and_(other)", "`x &= other`: in place.", "x = tensor([1, 5, 11])\nx.bitwise_and_(3)\nx";
    Method Math "bitwise_or_", "x.bitwise_or_(other)", "`x |= other`: in place.", "x = tensor([1, 5, 11])\nx.bitwise_or_(2)\nx";
    Method Math "bitwise_xor_", "x.bitwise_xor_(other)", "`x ^= other`: in place.", "x = tensor([1, 5, 11])\nx.bitwise_xor_(6)\nx";
    Method Math "bitwise_left_shift_", "x.bitwise_left_shift_(other)", "`x <<= other`: in place.", "x = tensor([1, 3])\nx.bitwise_left_shift_(2)\nx";
    Method Math "bitwise_right_shift_", "x.bitwise_right_shift_(other)", "`x >>= other`: in place.", "x = tensor([16, 7])\nx.bitwise_right_shift_(2)\nx";
    Method Math "bitwise_not", "x.bitwise_not()", "`~x`.", "arange(3).bitwise_not()";
    Method Math "where", "x.where(condition, other)", "`where(condition, x, other)`.", "x = arange(4)\nx.where(x > 1, -1)";
    Method Math "masked_fill", "x.masked_fill(mask, value)", "`x` with `value` (a number, or a 0-dim tensor) where the bool `mask` holds; mask and x broadcast together. Attention's causal mask: `att.masked_fill(bias[:, :, :T, :T] == 0, float('-inf'))`. Its gradient is zero where the mask holds (MaskedFillBackward0).", "x = arange(6.).reshape(2, 3)\nx.masked_fill(tril(ones(3, 3))[0] == 0, -1)";
    Method Math "masked_fill_", "x.masked_fill_(mask, value)", "`masked_fill` in place (the mask broadcast to x's shape), as `x[mask] = value`.", "x = zeros(2, 3)\nx.masked_fill_(arange(3) > 0, 1)";
    Method Math "gather", "x.gather(dim, index)", "The elements `index` (i64, x's number of dims) points at along `dim`: `out[i][j] = x[i][index[i][j]]` for `dim=1`, in the index's shape (`GatherBackward0`; `torch.gather(x, dim, index)` too).", "x = tensor([[1., 2.], [3., 4.]])\nx.gather(1, tensor([[1], [0]]))";
    Method Math "scatter", "x.scatter(dim, index, src)", "A copy of x with `src`'s elements (or one number) written where `index` points along `dim`: `out[i][index[i][j]] = src[i][j]` for `dim=1` (`ScatterBackward0`, `ScatterBackward1` for a number).", "zeros(2, 3).scatter(1, tensor([[2], [0]]), 1.)";
    Method Math "scatter_", "x.scatter_(dim, index, src)", "`scatter` into x itself, x returned (the one-hot idiom `zeros(n, c).scatter_(1, labels.unsqueeze(1), 1)`); outside a graph only.", "zeros(2, 3).scatter_(1, tensor([[2], [0]]), 1.)";
    Method Math "scatter_add", "x.scatter_add(dim, index, src)", "A copy of x with `src`'s elements added where `index` points along `dim`, repeated indices adding up (`ScatterAddBackward0`; f32 and f64).", "zeros(3).scatter_add(0, tensor([0, 2, 0]), ones(3))";
    Method Math "scatter_add_", "x.scatter_add_(dim, index, src)", "`scatter_add` into x itself, x returned; outside a graph only.", "zeros(3).scatter_add_(0, tensor([0, 2, 0]), ones(3))";
    Method Math "index_select", "x.index_select(dim, index)", "Whole slices of x along `dim`, as a 1-d index orders them (a copy; `IndexSelectBackward0`).", "arange(6).view(2, 3).index_select(1, tensor([2, 0]))";
    Method Math "masked_select", "x.masked_select(mask)", "The elements where the bool mask (broadcast with x) holds, as one dimension; the host reads the mask to learn how many (`MaskedSelectBackward0`).", "x = tensor([[1., -2.], [-3., 4.]])\nx.masked_select(x > 0)";
    Method Math "amax", "x.amax(dim=(), keepdim=false)", "The largest elements over `dim` (an int or several; every dim when left out), without indices; the gradient is shared by equal largest elements (`AmaxBackward0`).", "tensor([[1., 5.], [7., 2.]]).amax(1)";
    Method Math "amin", "x.amin(dim=(), keepdim=false)", "The smallest elements over `dim`, without indices (`AminBackward0`).", "tensor([[1., 5.], [7., 2.]]).amin(0)";
    Method Math "logsumexp", "x.logsumexp(dim, keepdim=false)", "`log(sum(exp(x)))` over `dim`, computed as PyTorch does (the largest element taken out first), so large elements do not overflow (`LogsumexpBackward0`).", "tensor([[1000., 1000.]]).logsumexp(1)";
    Method Math "addcmul", "x.addcmul(tensor1, tensor2, value=1)", "`x + value * tensor1 * tensor2` (`AddcmulBackward0`).", "ones(2).addcmul(tensor([1., 2.]), tensor([3., 4.]), value=0.5)";
    Method Math "addcdiv", "x.addcdiv(tensor1, tensor2, value=1)", "`x + value * tensor1 / tensor2` (`AddcdivBackward0`).", "ones(2).addcdiv(tensor([1., 2.]), tensor([4., 4.]))";
    Method Math "addcmul_", "x.addcmul_(tensor1, tensor2, value=1)", "`addcmul` into x (Adam's `exp_avg_sq.addcmul_(g, g, value=1 - beta2)`), outside a graph; computed aside, then copied in.", "x = ones(2)\nx.addcmul_(tensor([1., 2.]), tensor([1., 2.]))";
    Method Math "addcdiv_", "x.addcdiv_(tensor1, tensor2, value=1)", "`addcdiv` into x (Adam's `p.addcdiv_(exp_avg, denom, value=-lr)`), outside a graph.", "x = ones(2)\nx.addcdiv_(ones(2), full([2], 4.), value=-1)";
    Method Math "lerp", "x.lerp(end, weight)", "`x + weight * (end - x)`, a number or tensor weight, exact at both ends as PyTorch's (`LerpBackward0`, `LerpBackward1` for a tensor weight).", "zeros(2).lerp(tensor([10., 20.]), 0.25)";
    Method Math "lerp_", "x.lerp_(end, weight)", "`lerp` into x (an exponential moving average: `ema.lerp_(p, 0.01)`), outside a graph.", "x = zeros(2)\nx.lerp_(ones(2), 0.1)";
    Method Math "dot", "x.dot(other)", "The dot product of two vectors of one dtype and length, as `dot(x, other)`.", "tensor([1., 2.]).dot(tensor([3., 4.]))";
    Method Math "outer", "x.outer(vec2)", "The outer product of two vectors: `x.reshape(n, 1) * vec2` (`MulBackward0`).", "tensor([1., 2.]).outer(tensor([1., 10., 100.]))";
    Method Math "ger", "x.ger(vec2)", "`x.outer(vec2)` (the old name).", "tensor([1., 2.]).ger(tensor([3., 4.]))";
    Method Math "repeat_interleave", "x.repeat_interleave(repeats, dim=none)", "Each slice along `dim` (each element of the flattened x without it) `repeats` times in a row; `repeats` a number or a tensor of one count per slice (read by the host).", "tensor([1, 2]).repeat_interleave(2)\ntensor([[1, 2], [3, 4]]).repeat_interleave(tensor([1, 2]), dim=0)";
    Method Math "count_nonzero", "x.count_nonzero(dim=none)", "How many elements are not zero (i64), in all or along `dim`.", "tensor([[0, 1], [2, 0]]).count_nonzero()";
    Method Math "isinf", "x.isinf()", "Whether each element is +inf or -inf.", "tensor([1., 1e39, -1e39]).isinf()";
    Method Math "isposinf", "x.isposinf()", "Whether each element is +inf.", "(tensor([1., -1.]) / 0.).isposinf()";
    Method Math "isneginf", "x.isneginf()", "Whether each element is -inf.", "(tensor([1., -1.]) / 0.).isneginf()";
    Method Math "isfinite", "x.isfinite()", "Whether each element is neither inf nor NaN (integers always are).", "(tensor([1., 0.]) / 0.).isfinite()";
    Method Math "clip", "x.clip(min=none, max=none)", "`x.clamp(min, max)` (NumPy's name).", "tensor([-2., 0.5, 3.]).clip(0, 1)";
    Method Math "clip_", "x.clip_(min=none, max=none)", "`x.clamp_(min, max)`.", "x = tensor([-2., 3.])\nx.clip_(0, 1)";
    Method Math "ravel", "x.ravel()", "x as one dimension: `x.reshape(-1)` (a view when it can be).", "ones(2, 3).ravel().shape";
    Method Math "clamp", "x.clamp(min=none, max=none)", "`clamp(x, min, max)`.", "randn(4).clamp(-0.5, 0.5)";
    Method Math "add_", "x.add_(other, alpha=1)", "`x += other`: x updated in place (every view of it sees the change) and returned; the result must keep x's shape and dtype. With `alpha`, `x += alpha * other` as one kernel into x's memory, nothing allocated: PyTorch's optimizer update `p.add_(g, alpha=-lr)`.", "x = zeros(3)\nx.add_(1)\nx.add_(ones(3), alpha=-0.5)";
    Method Math "sub_", "x.sub_(other, alpha=1)", "`x -= other` in place; with `alpha`, `x -= alpha * other`.", "x = ones(3)\nx.sub_(1)";
    Method Math "mul_", "x.mul_(other)", "`x *= other` in place.", "x = ones(3)\nx.mul_(2)";
    Method Math "div_", "x.div_(other, rounding_mode=none)", "`x /= other` in place (x must be floating point: the quotient is).", "x = ones(3)\nx.div_(4)";
    Method Math "pow_", "x.pow_(other)", "`x **= other` in place.", "x = arange(3)\nx.pow_(2)";
    Method Math "floor_divide_", "x.floor_divide_(other)", "`x //= other` in place.", "x = arange(5)\nx.floor_divide_(2)";
    Method Math "remainder_", "x.remainder_(other)", "`x %= other` in place.", "x = arange(5)\nx.remainder_(3)";
    Method Math "clamp_", "x.clamp_(min=none, max=none)", "`clamp` in place: x limited to [min, max] and returned.", "x = randn(4)\nx.clamp_(min=0)";
    Method Math "cumsum", "x.cumsum(dim, dtype=none)", "`cumsum(x, dim)`: running sums along `dim`.", "arange(5).cumsum(0)";
    Method Math "cumprod", "x.cumprod(dim, dtype=none)", "`cumprod(x, dim)`: running products along `dim`.", "arange(1, 5).cumprod(0)";
    Method Math "softmax", "x.softmax(dim, dtype=none)", "`softmax(x, dim)`.", "randn(2, 3).softmax(-1)";
    Method Math "log_softmax", "x.log_softmax(dim, dtype=none)", "`log_softmax(x, dim)`.", "randn(2, 3).log_softmax(-1)";
    Function Math "nan_to_num", "nan_to_num(input, nan=0.0, posinf=none, neginf=none)", "A copy with NaN replaced by `nan`, +inf and -inf by `posinf` and `neginf` (the dtype's largest and lowest finite values unless given), as torch.nan_to_num; the gradient passes where the input is finite (`NanToNumBackward0`).", "nan_to_num(tensor([nan, inf, -inf, 1.]))";
    Method Math "nan_to_num", "x.nan_to_num(nan=0.0, posinf=none, neginf=none)", "`nan_to_num(x, ...)`: NaN and the infinities replaced.", "tensor([nan, 2.]).nan_to_num(nan=-1.0)";
    Function Math "var_mean", "var_mean(input, dim=none, unbiased=none, keepdim=false, correction=none)", "The variance and the mean, as a tuple, as torch.var_mean: one node for both (`VarMeanBackward0`). The mean is the plain mean: PyTorch's CPU kernel takes it from its Welford pass, which can differ in the last place.", "var_mean(tensor([1., 2., 3., 4.]))";
    Function Math "std_mean", "std_mean(input, dim=none, unbiased=none, keepdim=false, correction=none)", "The standard deviation and the mean, as a tuple, as torch.std_mean (`StdMeanBackward0`).", "std_mean(tensor([[1., 2.], [3., 5.]]), dim=1)";
    Function Math "median", "median(input, dim=none, keepdim=false)", "The lower median of all elements (`MedianBackward0`: the gradient shared by the elements equal to it), or along `dim` with each one's index (`torch.return_types.median`, `MedianBackward1`); a NaN makes the median NaN. Among equal elements the first is picked, as PyTorch's CPU kernel picks.", "median(tensor([3., 1., 2., 5.]))\nmedian(tensor([[3., 1., 2.], [1., 1., 0.]]), dim=1)";
    Method Math "median", "x.median(dim=none, keepdim=false)", "`median(x, ...)`: the lower median (with indices along `dim`).", "tensor([3., 1., 2.]).median()";
    Function Math "nanmedian", "nanmedian(input, dim=none, keepdim=false)", "`median` of the elements that are not NaN (NaN only when all are), as torch.nanmedian.", "nanmedian(tensor([3., nan, 1.]))";
    Method Math "nanmedian", "x.nanmedian(dim=none, keepdim=false)", "`nanmedian(x, ...)`: the median ignoring NaNs.", "tensor([nan, 2., 1., 4.]).nanmedian()";
    Method Math "var", "x.var(dim=none, unbiased=none, keepdim=false, correction=none)", "`var(x, ...)`: the variance (n - 1 in the divisor by default).", "randn(100).var()";
    Method Math "std", "x.std(dim=none, unbiased=none, keepdim=false, correction=none)", "`std(x, ...)`: the standard deviation.", "randn(2, 100).std(1)";
    Method Math "unique", "x.unique(sorted=true, return_inverse=false, return_counts=false, dim=none)", "`unique(x, ...)`: the distinct elements in order.", "tensor([3, 1, 3]).unique()";
    Method Math "allclose", "x.allclose(other, rtol=1e-05, atol=1e-08, equal_nan=false)", "`allclose(x, other, ...)`: whether every element is close to `other`'s (a Python bool).", "ones(2).allclose(tensor([1., 1.000001]))";
    Method Math "isclose", "x.isclose(other, rtol=1e-05, atol=1e-08, equal_nan=false)", "`isclose(x, other, ...)`: a bool per element.", "ones(2).isclose(tensor([1., 2.]))";
    Method Math "equal", "x.equal(other)", "`equal(x, other)`: the same shape and elements (a Python bool).", "ones(2).equal(ones(2))";
    Method Math "norm", "x.norm(p=2, dim=none, keepdim=false, dtype=none)", "`norm(x, p, dim)`: the vector p-norm.", "tensor([3., 4.]).norm()";
    Method Math "sort", "x.sort(dim=-1, descending=false, stable=false)", "`sort(x)`: values and indices (`v, i = x.sort()`).", "tensor([3, 1, 2]).sort(descending=true)";
    Method Math "argsort", "x.argsort(dim=-1, descending=false, stable=false)", "`argsort(x)`: the indices that sort x.", "tensor([3, 1, 2]).argsort()";
    Method Math "topk", "x.topk(k, dim=-1, largest=true, sorted=true)", "`topk(x, k)`: the k largest and their indices.", "tensor([1., 5., 3.]).topk(2).values";
    Method Math "tril", "x.tril(diagonal=0)", "`tril(x)`: the lower triangle.", "ones(3, 3).tril()";
    Method Math "triu", "x.triu(diagonal=0)", "`triu(x)`: the upper triangle.", "ones(3, 3).triu(1)";
    Method Math "nonzero", "x.nonzero(as_tuple=false)", "`nonzero(x)`: coordinates of the non-zero elements (a host sync on a GPU).", "tensor([0, 1, 1]).nonzero()";
    Method Math "argwhere", "x.argwhere()", "`argwhere(x)`.", "tensor([0, 1, 1]).argwhere()";
    Method Tensors "view_as", "x.view_as(other)", "`x.view(other.shape)`: the same memory in `other`'s shape.", "arange(6).view_as(zeros(2, 3))";
    Method Tensors "expand_as", "x.expand_as(other)", "`x.expand(other.shape)`: a view repeating dimensions of size 1.", "arange(3).unsqueeze(1).expand_as(zeros(3, 4))";
    Method Tensors "reshape_as", "x.reshape_as(other)", "`x.reshape(other.shape)` (a view when possible).", "arange(6).reshape_as(zeros(3, 2))";
    Method Tensors "view", "x.view(*shape)", "The same memory in a new shape (one size may be -1); an error when the strides do not allow it without a copy (`reshape` copies then).", "arange(6).view(2, 3)";
    Method Tensors "flatten", "x.flatten(start_dim=0, end_dim=-1)", "Dimensions start_dim to end_dim merged into one: a view when possible, else a copy.", "ones(2, 3, 4).flatten(1).shape";
    Method Tensors "dim", "x.dim()", "The number of dimensions (`x.ndim`), as `torch.Tensor.dim`.", "ones(2, 3).dim()";
    Method Tensors "ndimension", "x.ndimension()", "The number of dimensions, `x.dim()`'s older name.", "ones(2, 3).ndimension()";
    Method Tensors "nelement", "x.nelement()", "The number of elements, `x.numel()`'s older name.", "ones(2, 3).nelement()";
    Method Tensors "element_size", "x.element_size()", "Bytes per element of the dtype (4 for f32, 2 for f16 and bf16).", "ones(2, dtype=f16).element_size()";
    Method Devices "get_device", "x.get_device()", "The index of the CUDA device `x` lives on (`cuda:1`: 1), -1 for a cpu tensor, as PyTorch's.", "ones(2).get_device()";
    Method Tensors "is_inference", "x.is_inference()", "Whether `x` is an inference tensor: made under `torch.inference_mode()` (or a view of one). Outside that mode it cannot be changed in place, require grad, or be saved for backward.", "x = ones(2)\nx.is_inference()";
    Method Tensors "is_signed", "x.is_signed()", "Whether the dtype holds negative values (all but bool and u8).", "arange(3).to(i8).is_signed()";
    Method Tensors "is_floating_point", "x.is_floating_point()", "Whether the dtype is a floating point one (f16, bf16, f32, f64).", "arange(3).is_floating_point()";
    Method Tensors "is_contiguous", "x.is_contiguous(memory_format=none)", "Whether the elements lie in memory in row-major order with no gaps (or in `memory_format`'s order: `torch.channels_last`): a transposed view is not, `x.contiguous()` copies it so.", "x = ones(2, 3)\nx.is_contiguous()\nx.T.is_contiguous()";
    Method Tensors "stride", "x.stride(dim=none)", "How many elements apart, in memory, neighbours along each dimension are (a tuple), or along `dim`: a view shares its base's memory with other strides.", "x = ones(2, 3)\nx.stride()\nx.T.stride()";
    Method Tensors "storage_offset", "x.storage_offset()", "Where the view starts in its base's memory, in elements.", "x = arange(6)\nx[2:].storage_offset()";
    Method Tensors "swapaxes", "x.swapaxes(dim0, dim1)", "`x.transpose(dim0, dim1)` (NumPy's name).", "ones(2, 3).swapaxes(0, 1).shape";
    Method Tensors "swapdims", "x.swapdims(dim0, dim1)", "`x.transpose(dim0, dim1)`.", "ones(2, 3).swapdims(0, 1).shape";
    Method Tensors "movedim", "x.movedim(source, destination)", "A view with dimension(s) `source` moved to `destination`, the others in their order (a `permute`: `PermuteBackward0`).", "ones(2, 3, 4).movedim(0, -1).shape";
    Method Tensors "unflatten", "x.unflatten(dim, sizes)", "A view with dimension `dim` split into `sizes` (one may be -1), as `torch.Tensor.unflatten` (`ViewBackward0`).", "arange(6).unflatten(0, (2, 3))";
    Method Math "square", "x.square()", "`x ** 2` (`PowBackward0`).", "arange(3).square()";
    Method Math "square_", "x.square_()", "`x ** 2` in place, x returned (`x.pow_(2)`).", "x = arange(3.)\nx.square_()";
    Method Math "clamp_min", "x.clamp_min(min)", "`x.clamp(min=min)`.", "tensor([-1., 2.]).clamp_min(0)";
    Method Math "clamp_max", "x.clamp_max(max)", "`x.clamp(max=max)`.", "tensor([-1., 2.]).clamp_max(0)";
    Method Tensors "type_as", "x.type_as(other)", "`x` with `other`'s dtype and device (`x.to(other.device, other.dtype)`).", "arange(3).type_as(ones(1))";
    Method Tensors "select", "x.select(dim, index)", "A view of the slice at `index` along `dim`, that dimension dropped (`x[:, i]` for dim 1), as `torch.Tensor.select`; a negative `index` counts from the end.", "arange(6).reshape(2, 3).select(1, 2)";
    Method Tensors "unfold", "x.unfold(dimension, size, step)", "A view of x's windows of `size` elements along `dimension`, `step` apart, without a copy: `dimension` counts the windows and a new last dim runs through each (`Tensor.unfold`; `UnfoldBackward0`, which adds overlapping windows' gradients up). Patches of an image: `x.unfold(2, k, k).unfold(3, k, k)`.", "arange(8.).unfold(0, 3, 2)";
    Method Tensors "as_strided", "x.as_strided(size, stride, storage_offset=none)", "A view of x's storage with the given sizes and strides, from element `storage_offset` of the storage (x's own offset by default), as `torch.as_strided`: overlapping windows without a copy (`AsStridedBackward0`). A view past the storage is PyTorch's error.", "arange(6.).as_strided((3, 2), (2, 1))";
    Method Tensors "narrow", "x.narrow(dim, start, length)", "A view of the `length` elements from `start` along `dim` (`x[start:start + length]` on that dim), as `torch.Tensor.narrow`; a negative `start` counts from the end.", "arange(6).narrow(0, 2, 3)";
    Method Tensors "unsqueeze", "x.unsqueeze(dim)", "A view with a new dimension of size 1 at `dim` (-1: last).", "arange(3).unsqueeze(1)";
    Method Tensors "squeeze", "x.squeeze(dim=none)", "A view without its dimensions of size 1 (or without `dim`, if its size is 1).", "ones(1, 3, 1).squeeze().shape";
    Method Tensors "unsqueeze_", "x.unsqueeze_(dim)", "`x` itself with a new dimension of size 1 at `dim`, in place, as PyTorch's: every name for `x` sees the new shape (the same memory). Refused when something besides names holds `x` (a list, an attribute, a graph).", "x = arange(3)\nx.unsqueeze_(0)\nx.shape";
    Method Tensors "squeeze_", "x.squeeze_(dim=none)", "`x` itself without its dimensions of size 1 (or without `dim`), in place: every name for `x` sees the new shape.", "x = ones(1, 3)\nx.squeeze_()\nx.shape";
    Method Tensors "t_", "x.t_()", "`x` itself transposed in place (a matrix's two dims swapped): every name for `x` sees it.", "x = ones(2, 3)\nx.t_()\nx.shape";
    Method Tensors "transpose_", "x.transpose_(dim0, dim1)", "`x` itself with two dims swapped, in place: every name for `x` sees it.", "x = ones(2, 3)\nx.transpose_(0, 1)\nx.shape";
    Method Tensors "swapdims_", "x.swapdims_(dim0, dim1)", "`x.transpose_(dim0, dim1)`.", "x = ones(2, 3)\nx.swapdims_(0, 1)\nx.shape";
    Method Tensors "permute", "x.permute(*dims)", "A view with the dimensions in the order `dims` gives.", "ones(2, 3, 4).permute(2, 0, 1).shape";
    Method Tensors "expand", "x.expand(*sizes)", "A view with dimensions of size 1 repeated without copying (stride 0) and new leading ones; -1 keeps a size.", "arange(3).unsqueeze(1).expand(3, 4)";
    Method Tensors "repeat", "x.repeat(*sizes)", "A new tensor: `x` tiled `sizes` times along each dimension (more sizes than dimensions add leading ones).", "arange(3).repeat(2, 2)";
    Method Tensors "flip", "x.flip(*dims)", "A new tensor with the elements in reverse order along `dims`.", "arange(6).reshape(2, 3).flip(1)";
    Method Tensors "roll", "x.roll(shifts, dims=none)", "A new tensor with the elements moved `shifts` places along `dims` (a number or a tuple each), those past the end coming in at the start; without `dims`, along the flattened tensor. makemore's `torch.roll(idx, 1, 1)`.", "arange(6).reshape(2, 3).roll(1, 1)";
    Function Tensors "roll", "roll(input, shifts, dims=none)", "`input.roll(shifts, dims)`: the elements moved along dims, wrapping around.", "roll(arange(5), 2)";
    Method Tensors "chunk", "x.chunk(chunks, dim=0)", "At most `chunks` views along `dim`, each of the same size but the last.", "arange(5).chunk(2)";
    Method Tensors "split", "x.split(split_size, dim=0)", "Views of `split_size` elements along `dim` (the last may be smaller), or of the sizes a list gives.", "arange(5).split([2, 3])";
    Method Tensors "unbind", "x.unbind(dim=0)", "One view per index along `dim`, each without `dim` (recorded as one `UnbindBackward0`, whose backward stacks the parts' gradients).", "arange(6).reshape(2, 3).unbind(1)";
    Method Math "sum", "x.sum(dim=none, keepdim=false, dtype=none)", "Sum of all elements, or along `dim` (an int or a list of them); `dtype` converts first.", "ones(2, 3).sum(dim=1)\nones(2, 3, 4).sum((0, 2))";
    Method Math "any", "x.any(dim=none, keepdim=false)", "Whether any element is nonzero (NaN counts), as a 0-d bool tensor; with `dim`, along it.", "tensor([0, 2]).any()\ntensor([[0, 2], [0, 0]]).any(dim=1)";
    Method Math "all", "x.all(dim=none, keepdim=false)", "Whether every element is nonzero (NaN counts; true for no elements), as a 0-d bool tensor; with `dim`, along it.", "tensor([0, 2]).all()\ntensor([[1, 2], [0, 3]]).all(dim=0)";
    Method Math "trace", "x.trace()", "The sum of a matrix's diagonal (`TraceBackward0`).", "eye(3).trace()";
    Function Math "trace", "trace(input)", "The sum of a matrix's main diagonal, as torch.trace (`TraceBackward0`: the gradient on that diagonal).", "trace(arange(9.).reshape(3, 3))";
    Function Math "addmm", "addmm(input, mat1, mat2, beta=1, alpha=1)", "`beta * input + alpha * (mat1 @ mat2)` of matrices, `input` broadcast to the product's shape, as torch.addmm: one node (`AddmmBackward0`); with `beta=0` `input` is not read (a NaN in it stays out).", "addmm(zeros(2), ones(2, 3), ones(3, 2))";
    Method Math "addmm", "x.addmm(mat1, mat2, beta=1, alpha=1)", "`addmm(x, mat1, mat2)`: `beta * x + alpha * (mat1 @ mat2)`.", "ones(2, 2).addmm(eye(2), eye(2), alpha=2)";
    Function Math "addmv", "addmv(input, mat, vec, beta=1, alpha=1)", "`beta * input + alpha * (mat @ vec)`, as torch.addmv (`AddmvBackward0`).", "addmv(ones(2), eye(2), tensor([1., 2.]))";
    Method Math "addmv", "x.addmv(mat, vec, beta=1, alpha=1)", "`addmv(x, mat, vec)`.", "ones(2).addmv(eye(2), tensor([1., 2.]))";
    Function Math "baddbmm", "baddbmm(input, batch1, batch2, beta=1, alpha=1)", "`beta * input + alpha * (batch1 @ batch2)` of batches of matrices, as torch.baddbmm (`BaddbmmBackward0`).", "baddbmm(zeros(2, 1, 1), ones(2, 1, 3), ones(2, 3, 1)).shape";
    Method Math "baddbmm", "x.baddbmm(batch1, batch2, beta=1, alpha=1)", "`baddbmm(x, batch1, batch2)`.", "zeros(1, 2, 2).baddbmm(ones(1, 2, 3), ones(1, 3, 2))";
    Function Math "addbmm", "addbmm(input, batch1, batch2, beta=1, alpha=1)", "`beta * input + alpha * (batch1[0] @ batch2[0] + batch1[1] @ batch2[1] + ...)`: the batch's products summed in turn, as torch.addbmm (`AddbmmBackward0`).", "addbmm(zeros(2, 2), ones(3, 2, 4), ones(3, 4, 2))";
    Method Math "addbmm", "x.addbmm(batch1, batch2, beta=1, alpha=1)", "`addbmm(x, batch1, batch2)`.", "zeros(2, 2).addbmm(ones(3, 2, 4), ones(3, 4, 2))";
    Function Math "kron", "kron(input, other)", "The Kronecker product: each element of `input` times the whole of `other`, as torch.kron computes it (views and a product: `UnsafeViewBackward0` over `MulBackward0`).", "kron(eye(2), tensor([[1., 2.], [3., 4.]]))";
    Method Math "kron", "x.kron(other)", "`kron(x, other)`: the Kronecker product.", "tensor([1., 2.]).kron(tensor([1., 10.]))";
    Function Math "dist", "dist(input, other, p=2)", "The p-norm of `input - other` (broadcast), one number, as torch.dist (`DistBackward0`).", "dist(tensor([0., 0.]), tensor([3., 4.]))";
    Method Math "dist", "x.dist(other, p=2)", "`dist(x, other, p)`: the p-norm of the difference.", "tensor([1., 1.]).dist(zeros(2), p=1)";
    Function Math "cdist", "cdist(x1, x2, p=2.0, compute_mode=none)", "The p-norm distance of every row of `x1` [..., R1, M] to every row of `x2` [..., R2, M]: [..., R1, R2], as torch.cdist (`CdistBackward0`); for `p=2` past 25 rows, as PyTorch, through a matrix product (`EuclideanDistBackward0`, its last places can differ from the direct ones).", "cdist(tensor([[0., 0.], [1., 1.]]), tensor([[3., 4.]]))";
    Function Math "diag", "diag(input, diagonal=0)", "A vector's square matrix with the vector on the diagonal `diagonal` (above the main one when positive; `DiagEmbedBackward0`), or a matrix's diagonal as a new vector (`DiagonalBackward0_copy`), as torch.diag.", "diag(tensor([1., 2.]))";
    Method Math "diag", "x.diag(diagonal=0)", "`diag(x, diagonal)`: a vector's diagonal matrix, or a matrix's diagonal.", "arange(4.).reshape(2, 2).diag()";
    Function Math "diagonal", "diagonal(input, offset=0, dim1=0, dim2=1)", "The elements `[i, i + offset]` of the planes of `dim1` and `dim2`, as a last dimension: a view (writing to it writes the input), as torch.diagonal (`DiagonalBackward0`).", "diagonal(arange(9.).reshape(3, 3), offset=1)";
    Method Math "diagonal", "x.diagonal(offset=0, dim1=0, dim2=1)", "`diagonal(x, ...)`: a view of a diagonal.", "arange(9.).reshape(3, 3).diagonal()";
    Function Math "diag_embed", "diag_embed(input, offset=0, dim1=-2, dim2=-1)", "Zeros with one more dimension than `input`, its last dimension laid on the diagonal `offset` of the planes of `dim1` and `dim2` (batches of diagonal matrices), as torch.diag_embed (`DiagEmbedBackward0`).", "diag_embed(tensor([[1., 2.], [3., 4.]]))";
    Method Math "diag_embed", "x.diag_embed(offset=0, dim1=-2, dim2=-1)", "`diag_embed(x, ...)`: batches of diagonal matrices.", "tensor([1., 2.]).diag_embed()";
    Method Math "mm", "x.mm(other)", "`mm(x, other)`: the product of two matrices.", "ones(2, 3).mm(ones(3, 4))";
    Method Math "bmm", "x.bmm(other)", "`bmm(x, other)`: batched matrix product of 3-D tensors.", "ones(5, 2, 3).bmm(ones(5, 3, 4)).shape";
    Method Math "mv", "x.mv(other)", "`mv(x, other)`: a matrix times a vector.", "ones(2, 3).mv(ones(3))";
    Method Math "matmul", "x.matmul(other)", "Matrix product, like `x @ other`.", "ones(2, 3).matmul(ones(3))";
    Method Math "mean", "x.mean(dim=none, keepdim=false, dtype=none)", "Mean of all elements, or along `dim` (an int or a list of them); `dtype` converts first.", "ones(2, 3).mean()\nones(2, 3, 4).mean([0, 2])";
    Method Math "max", "x.max(dim=none, keepdim=false)", "Largest element; with `dim`, the largest along it and their indices (`values, indices = x.max(1)`).", "arange(5).max()";
    Method Math "min", "x.min(dim=none, keepdim=false)", "Smallest element; with `dim`, the smallest along it and their indices (`values, indices = x.min(1)`).", "arange(5).min()";
    Method Math "argmax", "x.argmax(dim=none, keepdim=false)", "Index of the largest element.", "arange(5).argmax()";
    Method Math "exp", "x.exp()", "e to the power of each element.", "zeros(2).exp()";
    Method Math "log", "x.log()", "Natural logarithm of each element.", "ones(2).log()";
    Method Math "sqrt", "x.sqrt()", "Square root of each element.", "full([2], 4.).sqrt()";
    Method Math "abs", "x.abs()", "Absolute value of each element.", "(-ones(2)).abs()";
    Method Math "neg", "x.neg()", "`-x` (`NegBackward0`).", "ones(2).neg()";
    Method Math "argmin", "x.argmin(dim=none, keepdim=false)", "Index of the smallest element.", "tensor([3, 1, 4, 1]).argmin()";
    Method Math "prod", "x.prod(dim=none, keepdim=false, dtype=none)", "Product of all elements, or along `dim`.", "arange(1, 5).prod()";
    Method Math "relu", "x.relu()", "max(x, 0) for each element.", "randn(3).relu()";
    Method Math "sigmoid", "x.sigmoid()", "1 / (1 + e^-x) for each element.", "zeros(2).sigmoid()";
    Method Math "tanh", "x.tanh()", "Hyperbolic tangent of each element.", "zeros(2).tanh()";
    Method Math "erf", "x.erf()", "The error function of each element.", "zeros(2).erf()";
    Method Math "erfinv", "x.erfinv()", "The inverse error function of each element.", "tensor([0., 0.5]).erfinv()";
    Method Math "log1p", "x.log1p()", "The natural logarithm of 1 + each element.", "tensor([1e-8, 1.]).log1p()";
    Method Math "sin", "x.sin()", "Sine of each element (radians).", "zeros(2).sin()";
    Method Math "cos", "x.cos()", "Cosine of each element (radians).", "zeros(2).cos()";
    Method Math "floor", "x.floor()", "The largest integer not above each element (integers stay as they are).", "tensor([-1.5, 2.7]).floor()";
    Method Math "ceil", "x.ceil()", "The smallest integer not below each element (integers stay as they are).", "tensor([-1.5, 2.2]).ceil()";
    Method Math "round", "x.round(decimals=none)", "Each element to the nearest integer, halves to even as PyTorch (0.5 -> 0, 1.5 -> 2); with `decimals=n`, to n decimals as PyTorch computes it in x's dtype (`round(x * 10^n) / 10^n`).", "tensor([0.5, 1.5]).round()\ntensor([1.2345]).round(decimals=2)";
    Method Math "trunc", "x.trunc()", "Each element with its fraction dropped, towards zero.", "tensor([-1.7, 1.7]).trunc()";
    Method Math "rsqrt", "x.rsqrt()", "1 / sqrt of each element.", "tensor([4., 0.25]).rsqrt()";
    Method Math "sign", "x.sign()", "-1, 0 or 1 by each element's sign (0 for NaN); integers stay integers.", "tensor([-2, 0, 3]).sign()";
    Method Math "tan", "x.tan()", "Tangent of each element (radians).", "zeros(2).tan()";
    Method Math "atan", "x.atan()", "Arctangent of each element, in radians.", "ones(2).atan()";
    Method Math "asin", "x.asin()", "Arcsine of each element, in radians; NaN outside [-1, 1].", "ones(2).asin()";
    Method Math "acos", "x.acos()", "Arccosine of each element, in radians; NaN outside [-1, 1].", "zeros(2).acos()";
    Method Math "sinh", "x.sinh()", "Hyperbolic sine of each element.", "ones(2).sinh()";
    Method Math "cosh", "x.cosh()", "Hyperbolic cosine of each element.", "ones(2).cosh()";
    Method Math "reciprocal", "x.reciprocal()", "1 / each element; integers give floats.", "tensor([2, 4]).reciprocal()";
    Method Math "log2", "x.log2()", "Base-2 logarithm of each element.", "tensor([1., 8.]).log2()";
    Method Math "log10", "x.log10()", "Base-10 logarithm of each element.", "tensor([1., 1000.]).log10()";
    Method Math "expm1", "x.expm1()", "e^x - 1 of each element, exact for elements near 0 where `exp(x) - 1` loses digits.", "tensor([1e-8, 1.]).expm1()";
    Method Math "exp2", "x.exp2()", "2 to the power of each element.", "tensor([0., 3.]).exp2()";
    Method Math "arctan", "x.arctan()", "`x.atan()` (NumPy's name).", "ones(2).arctan()";
    Method Math "arcsin", "x.arcsin()", "`x.asin()` (NumPy's name).", "ones(2).arcsin()";
    Method Math "arccos", "x.arccos()", "`x.acos()` (NumPy's name).", "zeros(2).arccos()";
    Method Math "arctan_", "x.arctan_()", "`x.atan_()`.", "x = zeros(2)\nx.arctan_()";
    Method Math "arcsin_", "x.arcsin_()", "`x.asin_()`.", "x = zeros(2)\nx.arcsin_()";
    Method Math "arccos_", "x.arccos_()", "`x.acos_()`.", "x = zeros(2)\nx.arccos_()";
    Method Math "exp_", "x.exp_()", "`x.exp()` written into x in place (one kernel, nothing allocated; every view of x sees it) and x returned; the result must keep x's dtype. Recorded with the node of `x.exp()`.", "x = ones(2)\nx.exp_()";
    Method Math "log_", "x.log_()", "`x.log()` in place, x returned.", "x = ones(2)\nx.log_()";
    Method Math "sqrt_", "x.sqrt_()", "`x.sqrt()` in place, x returned.", "x = full([2], 4.)\nx.sqrt_()";
    Method Math "abs_", "x.abs_()", "`x.abs()` in place, x returned.", "x = -ones(2)\nx.abs_()";
    Method Math "neg_", "x.neg_()", "`x.neg()` in place, x returned.", "x = ones(2)\nx.neg_()";
    Method Math "relu_", "x.relu_()", "`x.relu()` in place, x returned.", "x = tensor([-1., 2.])\nx.relu_()";
    Method Math "sigmoid_", "x.sigmoid_()", "`x.sigmoid()` in place, x returned.", "x = zeros(2)\nx.sigmoid_()";
    Method Math "tanh_", "x.tanh_()", "`x.tanh()` in place, x returned.", "x = zeros(2)\nx.tanh_()";
    Method Math "erf_", "x.erf_()", "`x.erf()` in place, x returned.", "x = zeros(2)\nx.erf_()";
    Method Math "erfinv_", "x.erfinv_()", "`x.erfinv()` in place, x returned.", "x = zeros(2)\nx.erfinv_()";
    Method Math "log1p_", "x.log1p_()", "`x.log1p()` in place, x returned.", "x = zeros(2)\nx.log1p_()";
    Method Math "sin_", "x.sin_()", "`x.sin()` in place, x returned.", "x = zeros(2)\nx.sin_()";
    Method Math "cos_", "x.cos_()", "`x.cos()` in place, x returned.", "x = zeros(2)\nx.cos_()";
    Method Math "floor_", "x.floor_()", "`x.floor()` in place, x returned.", "x = tensor([1.5])\nx.floor_()";
    Method Math "ceil_", "x.ceil_()", "`x.ceil()` in place, x returned.", "x = tensor([1.5])\nx.ceil_()";
    Method Math "round_", "x.round_()", "`x.round()` in place, x returned.", "x = tensor([1.5])\nx.round_()";
    Method Math "trunc_", "x.trunc_()", "`x.trunc()` in place, x returned.", "x = tensor([-1.5])\nx.trunc_()";
    Method Math "rsqrt_", "x.rsqrt_()", "`x.rsqrt()` in place, x returned.", "x = zeros(2)\nx.rsqrt_()";
    Method Math "sign_", "x.sign_()", "`x.sign()` in place, x returned.", "x = tensor([-2., 3.])\nx.sign_()";
    Method Math "tan_", "x.tan_()", "`x.tan()` in place, x returned.", "x = zeros(2)\nx.tan_()";
    Method Math "atan_", "x.atan_()", "`x.atan()` in place, x returned.", "x = zeros(2)\nx.atan_()";
    Method Math "asin_", "x.asin_()", "`x.asin()` in place, x returned.", "x = zeros(2)\nx.asin_()";
    Method Math "acos_", "x.acos_()", "`x.acos()` in place, x returned.", "x = zeros(2)\nx.acos_()";
    Method Math "sinh_", "x.sinh_()", "`x.sinh()` in place, x returned.", "x = zeros(2)\nx.sinh_()";
    Method Math "cosh_", "x.cosh_()", "`x.cosh()` in place, x returned.", "x = zeros(2)\nx.cosh_()";
    Method Math "reciprocal_", "x.reciprocal_()", "`x.reciprocal()` in place, x returned.", "x = tensor([2., 4.])\nx.reciprocal_()";
    Method Math "log2_", "x.log2_()", "`x.log2()` in place, x returned.", "x = tensor([8.])\nx.log2_()";
    Method Math "log10_", "x.log10_()", "`x.log10()` in place, x returned.", "x = tensor([100.])\nx.log10_()";
    Method Math "expm1_", "x.expm1_()", "`x.expm1()` in place, x returned.", "x = zeros(2)\nx.expm1_()";
    Method Math "exp2_", "x.exp2_()", "`x.exp2()` in place, x returned.", "x = zeros(2)\nx.exp2_()";
    Method Tensors "item", "x.item()", "The value of a one-element tensor as a number (a host read: it waits for the device).", "ones(1).item()";
    Method Tensors "fill_", "x.fill_(value)", "Fills `x` in place and returns it.", "x = zeros(3)\nx.fill_(2)";
    Method Tensors "zero_", "x.zero_()", "Sets every element of `x` to zero in place and returns it (`w.grad.zero_()`).", "x = ones(3)\nx.zero_()";
    Method Tensors "normal_", "x.normal_(mean=0., std=1., generator=none)", "Fills `x` in place with normal random numbers and returns it.", "seed(0)\nempty(3).normal_(0., 1.)";
    Method Tensors "uniform_", "x.uniform_(from=0., to=1., generator=none)", "Fills `x` in place with numbers uniform in [from, to), as PyTorch's `from + u * (to - from)` (a weight init: `w.data.uniform_(-0.1, 0.1)`); returns x.", "seed(0)\nempty(3).uniform_(-0.1, 0.1)";
    Method Tensors "bernoulli_", "x.bernoulli_(p=0.5, generator=none)", "Fills `x` in place with 1 with probability `p` (a number or a tensor of probabilities), else 0, in x's dtype; returns x.", "seed(0)\nempty(6).bernoulli_(0.5)";
    Method Tensors "geometric_", "x.geometric_(p, generator=none)", "Fills `x` in place with the number of Bernoulli trials of probability `p` up to the first success (1, 2, ...), PyTorch's `ceil(log(u) / log1p(-p))`; returns x.", "seed(0)\nempty(5).geometric_(0.3)";
    Method Tensors "log_normal_", "x.log_normal_(mean=1., std=2., generator=none)", "Fills `x` in place with `exp` of normal numbers of mean `mean` and deviation `std`; returns x.", "seed(0)\nempty(3).log_normal_()";
    Method Tensors "cauchy_", "x.cauchy_(median=0., sigma=1., generator=none)", "Fills `x` in place with Cauchy numbers, `median + sigma * tan(pi * (u - 0.5))`; returns x.", "seed(0)\nempty(3).cauchy_()";
    Method Tensors "exponential_", "x.exponential_(lambd=1., generator=none)", "Fills `x` in place with exponential numbers of rate `lambd`, `-log(1 - u) / lambd`; returns x.", "seed(0)\nempty(3).exponential_()";
    Method Tensors "random_", "x.random_(from=none, to=none, generator=none)", "Fills `x` in place with integers uniform in [from, to) (`random_(to)` from 0; `random_()` up to the largest integer x's dtype holds exactly), in x's dtype; returns x.", "seed(0)\nzeros(5, dtype=i64).random_(0, 10)";
    Method Tensors "new_full", "x.new_full(size, fill_value, dtype=none, device=none)", "A new tensor of `size` filled with `fill_value`, with the dtype and device of `x` (unless given).", "ones(2, dtype=f64).new_full([3], 1.5)";
    Method Tensors "new_zeros", "x.new_zeros(*size, dtype=none, device=none)", "A new tensor of zeros, with the dtype and device of `x` (unless given).", "ones(2, dtype=f64).new_zeros(2, 3)";
    Method Tensors "new_ones", "x.new_ones(*size, dtype=none, device=none)", "A new tensor of ones, with the dtype and device of `x` (unless given).", "ones(2, dtype=i32).new_ones(3)";
    Method Tensors "new_empty", "x.new_empty(*size, dtype=none, device=none)", "A new uninitialised tensor (as `empty`: no kernel; zeros but on a GPU's reused block), with the dtype and device of `x` (unless given).", "ones(2).new_empty(3)";
    Method Tensors "data_ptr", "x.data_ptr()", "The address of the first element, as an int: a device tensor's device address (the allocator's block plus the view's offset; made up on the simulator), a host tensor's host address. Views of one tensor share its memory: `x[1:].data_ptr() - x.data_ptr()` is 4 bytes for f32.", "x = zeros(4, device=cuda)\nx[1:].data_ptr() - x.data_ptr()";
    Method Tensors "type", "x.type(dtype=none)", "`x` in `dtype`, as `x.to(dtype)` (`x.type(float32)` for PyTorch's `x.type(torch.float)`); without `dtype`, PyTorch's name for its type (`torch.cuda.FloatTensor`).", "ones(2).type(f64)\nones(2).type()";
    Method Tensors "new_tensor", "x.new_tensor(data)", "A new tensor of `data` with the dtype and device of `x`.", "ones(2, dtype=f64).new_tensor([1, 2, 3])";
    Method Tensors "copy_", "x.copy_(src, non_blocking=false)", "Copies `src` into `x` in place (broadcast, converted to x's dtype, from any device) and returns `x`.", "x = zeros(2, 3)\nx.copy_([1., 2., 3.])";
    Method Tensors "numel", "x.numel()", "Number of elements.", "ones(2, 3).numel()";
    Method Tensors "size", "x.size(dim=none)", "PyTorch's: the shape as a list of ints (`x.shape`), or the size of dimension `dim`.", "ones(2, 3).size()\nones(2, 3).size(-1)";
    Method Tensors "tolist", "x.tolist()", "The elements as nested lists of numbers (a number for a 0-d tensor); like `.item()`, a host read that waits for the device.", "arange(6).reshape(2, 3).tolist()";
    Method Streams "wait", "s.wait(target)", "Stream `s` waits, on the device and without blocking the host, for all work queued so far on another stream, or for an event.", "s = stream()\ns.wait(default)";
    Method Streams "sync", "s.sync()", "The host waits until everything queued on `s` is done (one host sync).", "s = stream()\ns.sync()";
    Method Streams "synchronize", "s.synchronize()", "PyTorch's name for `s.sync()`: the host waits for everything queued on `s`.", "s = stream()\ns.synchronize()";
    Method Streams "record_event", "s.record_event(event=none)", "PyTorch's `s.record_event()`: records `event` (a new one by default, made to time in cudash's language, not in a Python program, as PyTorch's `torch.cuda.Event()`) at the tail of `s` and returns it.", "s = stream()\ne = s.record_event()\ne.synchronize()";
    Method Streams "wait_event", "s.wait_event(event)", "PyTorch's `s.wait_event(event)`: `s` waits, on the device, until the stream the event was recorded on reaches it (`wait e` in a `stream s` block).", "s = stream()\ne = event().record()\ns.wait_event(e)";
    Method Streams "wait_stream", "s.wait_stream(stream)", "PyTorch's name for `s.wait(stream)`: `s` waits, on the device, for the work queued so far on `stream`.", "s = stream()\ns.wait_stream(default)";
    Method Streams "query", "s.query()", "Whether `s` has finished all its queued work; never blocks.", "default.query()";
    Property Streams "device", "s.device", "The device the stream belongs to.", "default.device";
    Property Streams "pending", "s.pending", "How many items queued on `s` are not known to be done.", "default.pending";
    Method Streams "record", "e.record(stream=none)", "Records the event at the tail of a stream (the current stream by default) and returns it (None in a Python program, as PyTorch's).", "e = event()\ne.record()";
    Method Streams "sync", "e.sync()", "The host waits until the stream reaches the event (one host sync).", "e = event().record()\ne.sync()";
    Method Streams "synchronize", "e.synchronize()", "PyTorch's name for `e.sync()`: the host waits until the stream reaches the event.", "e = event().record()\ne.synchronize()";
    Method Streams "query", "e.query()", "Whether the stream has reached the event; never blocks.", "e = event().record()\ne.query()";
    Method Streams "elapsed", "e.elapsed(end)", "Milliseconds of device time from this event to `end`; both must have completed (modelled on sim).", "a = event().record()\nx = randn(1000, 1000, device=cuda)\nb = event().record()\nb.sync()\na.elapsed(b)";
    Method Streams "elapsed_time", "e.elapsed_time(end)", "PyTorch's name for `e.elapsed(end)`: milliseconds of device time from this event to `end`.", "a = event().record()\nx = randn(1000, 1000, device=cuda)\nb = event().record()\nb.synchronize()\na.elapsed_time(b)";
    Property Tensors "shape", "x.shape", "The shape, as a list of ints.", "ones(2, 3).shape";
    Property Devices "is_cuda", "x.is_cuda", "Whether `x` lives on a CUDA device.", "ones(2).is_cuda";
    Property Devices "is_cpu", "x.is_cpu", "Whether `x` lives on the host.", "ones(2).is_cpu";
    Property Devices "is_xpu", "x.is_xpu", "False: cudash has CPU and CUDA devices only (as is_mps, is_meta).", "ones(2).is_xpu";
    Property Devices "is_mps", "x.is_mps", "False: cudash has CPU and CUDA devices only.", "ones(2).is_mps";
    Property Devices "is_meta", "x.is_meta", "Whether `x` is on the meta device: a shape, a dtype and strides, no data and no memory.", "ones(2, device=\"meta\").is_meta";
    Property Tensors "is_sparse", "x.is_sparse", "False for a dense (strided) tensor; True for a sparse COO tensor (`x.to_sparse()`).", "ones(2).is_sparse";
    Method Tensors "to_sparse", "x.to_sparse()", "A sparse COO tensor of `x`'s nonzero elements (PyTorch's `layout=torch.sparse_coo`): an int64 `indices` tensor `[ndim, nnz]` and a `values` tensor `[nnz]` on `x`'s device. It multiplies dense matrices (`s @ w`, `torch.sparse.mm`), adds into a dense tensor (`d + s`), and `.to_dense()` gives it back.", "eye(3).to_sparse()";
    Method Tensors "to_dense", "x.to_dense()", "`x` itself for a dense tensor; a sparse tensor's elements in a new dense tensor (repeated indices add up).", "eye(2).to_sparse().to_dense()";
    Property Tensors "is_quantized", "x.is_quantized", "False: cudash has no quantized tensors.", "ones(2).is_quantized";
    Property Tensors "is_nested", "x.is_nested", "False: cudash has no nested tensors.", "ones(2).is_nested";
    Property Tensors "_version", "x._version", "How many times the memory `x` views was changed in place (PyTorch's version counter, shared by a tensor and its views): what autograd checks before it uses a saved tensor.", "x = zeros(2)\nx.add_(1)\nx._version";
    Property Tensors "dtype", "x.dtype", "The element type.", "ones(2).dtype";
    Property Devices "device", "x.device", "Where the tensor lives.", "ones(2).device";
    Property Devices "type", "dev.type", "A device's kind as PyTorch's `torch.device` gives it: \"cuda\" or \"cpu\".", "device(\"cuda:1\").type";
    Property Tensors "is_floating_point", "dt.is_floating_point", "Whether a dtype is a floating point one (`torch.float32.is_floating_point`).", "f32.is_floating_point";
    Property Tensors "is_signed", "dt.is_signed", "Whether a dtype holds negative values: False for `torch.uint8` and `torch.bool`.", "u8.is_signed";
    Property Tensors "itemsize", "dt.itemsize", "Bytes per element of a dtype (`torch.uint8.itemsize` is 1, `torch.float32.itemsize` 4).", "u8.itemsize";
    Property Devices "index", "dev.index", "A device's number (`cuda:1`: 1); none for cpu and for `cuda` without one, as PyTorch's.", "device(\"cuda:1\").index";
    Property Tensors "ndim", "x.ndim", "Number of dimensions.", "ones(2, 3).ndim";
    Property Tensors "nbytes", "x.nbytes", "Bytes taken by the elements.", "ones(2, 3).nbytes";
    Property Tensors "itemsize", "x.itemsize", "Bytes per element of the dtype, as `x.element_size()`.", "ones(2, dtype=f16).itemsize";
    Property Tensors "T", "x.T", "The transpose (dimensions reversed), a view.", "arange(6).reshape(2, 3).T";
    Method Tensors "t", "x.t()", "The transpose of a matrix, a view (`TBackward0`); a vector or a number as it is (PyTorch's `Tensor.t`).", "arange(6).reshape(2, 3).t()";
    Property Tensors "mT", "x.mT", "The last two dimensions swapped (every matrix of a batch transposed), a view.", "ones(2, 3, 4).mT.shape";
    Property Tensors "mH", "x.mH", "The conjugate transpose of every matrix of a batch: a real tensor's `mT`, a view.", "ones(2, 3, 4).mH.shape";
    Property Tensors "H", "x.H", "A matrix's conjugate transpose: a real matrix's transpose, a view (2-D only, as PyTorch's).", "ones(2, 3).H.shape";
    Property Memory "is_pinned", "x.is_pinned", "Whether `x` lives in page-locked host memory.", "ones(2).is_pinned";
    Property Memory "is_shared", "x.is_shared", "Whether `x`'s memory is shared memory, which other processes reach (`torch.multiprocessing`): CUDA memory always is, host memory once `share_memory_()` moved it.", "ones(2).share_memory_().is_shared";
    Method Memory "share_memory_", "x.share_memory_()", "Moves `x`'s host memory to shared memory, so processes started with `torch.multiprocessing` that are passed `x` write the same elements (a no-op for CUDA memory); `x` back. In cudash every process is a thread of one program, so this changes only `is_shared`.", "ones(2).share_memory_().is_shared";
    Property Training "data", "x.data", "The same elements (shared memory) without autograd history, as `x.detach()` (PyTorch's older spelling: `p.data.sub_(lr * p.grad)`), but with a version counter of its own, as PyTorch's: autograd does not see an in-place change made through `.data`, so a backward that needs the old values silently uses the new ones, where after `detach()` it reports the change.", "w = ones(2, requires_grad=true)\ny = (w * w).sum()\nw.data[0] = 5.\ny.backward()\nw.grad";
    Statement Devices "devices", "devices", "The device table: backend, names, memory used and total, allocated and reserved.", "devices";
    Statement Devices "with", "with device(n) { ... }", "Runs the block with cuda:n as the current CUDA device (or a stream as the current stream); restored afterwards, also on error.", "with device(1) {\n  a = [1., 2.].to(cuda)\n}";
    Statement Streams "stream", "stream NAME { ... }", "Creates stream NAME on the current device on first use and queues the block's work on it; the current stream is restored afterwards.", "A = randn(100, 100, device=cuda)\nstream s {\n  wait default\n  B = A.sum()\n}";
    Statement Streams "wait", "wait STREAM_OR_EVENT", "The current stream waits (on the device; the host goes on) for all work queued so far on a stream, or for an event.", "x = randn(100, device=cuda)\nstream s {\n  wait default\n  y = x.sum()\n}\nwait s";
    Statement Memory "pin", "pin NAME", "Moves the tensor NAME into page-locked host memory, in place.", "pin x";
    Statement Streams "sync", "sync [STREAM | EVENT | DEVICE | all]", "The host waits until queued work is done: the current device, a stream, an event, a device, or everything (one host sync).", "sync\nsync default\nsync all";
    Statement Memory "mem", "mem [map | history] [DEVICE | all]", "The caching allocator's state: a summary table, `mem map` for every segment's blocks, or `mem history` for allocated and reserved bytes over the recorded events, the peak named by its statement.", "mem";
    Statement Teaching "del", "del NAME, ...", "Forgets names; their memory goes back to the allocator's cache.", "x = ones(2)\ndel x";
    Statement Teaching "for", "for NAME in A..B { ... }", "Repeats the block for NAME = A, A+1, ..., B-1 (or over a list, or a tensor's first dimension); `for a, b in pairs { }` unpacks each item. `break` and `continue` as in Python.", "x = ones(2)\nfor i in 0..3 { x = x * 2 }\nx";
    Statement Teaching "time", "time [N] { ... }", "Runs the block N times and reports the time per iteration: device time over every stream the block queued work on, from its start to the end of that work (measured with CUDA events on a GPU, modelled on the simulator), or host wall time when no device work ran; bandwidth for copies.", "x = ones(1024, 1024, device=cuda)\ntime 10 { y = x @ x }";
    Statement Teaching "profile", "profile { ... }  or  profile \"run.json\" { ... }", "Runs the block once and counts ops, kernels, allocations and new segments, copies by direction and bytes and host syncs; gives the device time `time` would, how much of it the devices were busy, and a timeline: one lane per stream and one for the host, each kernel, copy and host wait in time (modelled on the simulator, measured with CUDA events on a GPU). A device value an expression statement in the block shows is shown after the profile (reading it is not the block's work). With a file name it also writes the timeline as a Chrome trace, which https://ui.perfetto.dev and chrome://tracing open.", "w = randn(64, device=cuda)\nprofile { for i in 0..10 { loss = (w * w).sum().item() } }";
    Statement Teaching "fn", "fn NAME(a, b=default) { ... }", "Defines a function: arguments by position, then by keyword, then the defaults (evaluated once, when `fn` runs). A name the body assigns is local to each call (Python's rule); other names read the session's variables. Tensors are passed by reference: `w -= lr * g` on a parameter updates the caller's tensor. `return v` gives its value (none without one).", "fn step(w, g, lr=0.1) {\n  w -= lr * g\n  return w.norm()\n}\nw = ones(3)\nstep(w, ones(3))\nw";
    Statement Teaching "return", "return [VALUE]", "Ends the function's call with VALUE (none when left out).", "fn sq(x) { return x * x }\nsq(3)";
    Statement Teaching "yield", "yield [VALUE]  or  yield from ITEMS", "Makes the function a generator, as in Python: a call binds the arguments and runs nothing; each `next(g)` (or a `for` over it) runs the body on to its next `yield` and gives that VALUE, the locals kept between. Its prints come between the loop's, an endless `while true { yield k }` is fine, and an error raised in it comes at the item that raises it (the generator is done after). `yield from xs` gives each item of xs. What reads a sequence whole (`list(g)`, `sum(g)`) runs it to its end. A `yield` inside `with` or `try` is not there yet.", "fn squares(n) {\n  for i in 0..n { yield i * i }\n}\ng = squares(4)\nnext(g)\nlist(g)";
    Statement Teaching "if", "if COND { ... } elif COND { ... } else { ... }", "Runs the first block whose condition is true. A condition is a bool, a number (0 is false), none (false), a list or string (empty is false), or a one-element tensor: reading a device tensor's value is a host sync, as PyTorch's `if loss > 0:`; a tensor of more elements is an error.", "x = randn(3)\nif x.sum() > 0 { print(\"positive\") } else { print(\"not positive\") }";
    Statement Teaching "while", "while COND { ... }", "Repeats the block while the condition is true (a host sync per test when it reads a device tensor). Inside, `break` leaves the loop and `continue` goes to the next test, as in Python (`help break`). Ctrl-C stops it.", "i = 0\nwhile i < 3 { i += 1 }\ni\nwhile true { i += 1; if i > 5 { break } }";
    Statement Teaching "break", "break", "Leaves the innermost `for` or `while` loop.", "for i in 0..10 { if i == 3 { break } }\ni";
    Statement Teaching "continue", "continue", "Goes on with the next iteration of the innermost loop.", "n = 0\nfor i in 0..10 { if i % 2 == 0 { continue }\n n += 1 }\nn";
    Statement Teaching "and", "A and B", "A when A is false, else B (B is not evaluated otherwise), as Python's `and`; `or` gives A when A is true, else B; `not A` is a bool. Tensors in them are conditions (one element, a host read).", "x = 3\nx > 0 and x < 5";
    Statement Teaching "or", "A or B", "A when A is true, else B (B is not evaluated otherwise), as Python's `or`.", "name = none\nname or \"default\"";
    Statement Teaching "not", "not A", "True when A is false (Python's truth: 0, none, empty and false are false).", "not none";
    Statement Teaching "in", "A in B", "Whether B holds A: an item of a list, a key of a dict, a substring of a string, an element of a tensor (a host read); `not in` is the opposite.", "xs = list()\nxs.append(2)\n2 in xs";
    Function Teaching "list", "list(items=none)", "A Python list: empty, or the items of a list, a result's parts or a tensor's first dimension. `xs.append(v)` grows it and every name for it sees that; `len`, `xs[-1]`, `for v in xs` and `in` read it. `[]` makes an empty one too.", "losses = list()\nfor i in 0..3 { losses.append(i * 0.5) }\nlosses";
    Method Teaching "update", "d.update(other=none, **kwargs)", "Python's `dict.update`: the entries of `other` (a dict, or key-value pairs) and the keywords set in the dict, in place (`train_kwargs.update(cuda_kwargs)`): every name for the dict sees them.", "d = {\"batch_size\": 64}\nd.update({\"num_workers\": 1}, shuffle=true)\nd";
    Method Teaching "pop", "d.pop(key, default=none)", "Removes `key` and gives its value; a key the dict lacks gives `default`, or a KeyError when none is given.", "d = {\"lr\": 0.1, \"momentum\": 0.9}\nd.pop(\"momentum\")\nd";
    Method Teaching "most_common", "d.most_common(n=none)", "A Counter's (key, count) pairs, the largest counts first (ties in the order the keys came), the first `n` when given, as collections.Counter.most_common.", "from collections import Counter\nCounter(\"abracadabra\").most_common(2)";
    Method Teaching "elements", "d.elements()", "A Counter's keys, each as many times as its count (none for a count below 1), as collections.Counter.elements.", "from collections import Counter\nsorted(Counter(\"abca\").elements())";
    Method Teaching "popitem", "d.popitem(last=true)", "Removes and returns the last (key, value) pair (the first with `last=false`, as collections.OrderedDict.popitem); an empty dict is a KeyError.", "d = {\"a\": 1, \"b\": 2}\nd.popitem()";
    Method Teaching "move_to_end", "d.move_to_end(key, last=true)", "Moves `key` to the end of the dict's order (to the front with `last=false`), as collections.OrderedDict.move_to_end (an OrderedDict is a dict here).", "d = {\"a\": 1, \"b\": 2}\nd.move_to_end(\"a\")\nd";
    Method Teaching "setdefault", "d.setdefault(key, default=none)", "The value of `key`; a key the dict lacks is first set to `default`.", "counts = {}\ncounts.setdefault(\"cat\", 0)\ncounts";
    Method Teaching "clear", "d.clear()", "Removes every item, in place.", "d = {\"a\": 1}\nd.clear()\nd";
    Method Teaching "copy", "d.copy()", "A new dict of the same items (a shallow copy: the values are shared).", "d = {\"a\": 1}\ne = d.copy()\ne[\"b\"] = 2\nd";
    Function Teaching "open", "open(file, mode=\"r\", encoding=none, newline=none)", "A text file, as Python's `open`: mode \"r\" reads it (`f.read()`, `f.readline()`, `f.readlines()`, `for line in f:`; \"\\r\\n\" read as \"\\n\" unless `newline=\"\"`), \"w\" writes it afresh and \"a\" appends (`f.write(s)`); `with open(path) as f:` closes it after the block. A missing file is Python's `FileNotFoundError`.", "with open(\"/tmp/cudash-notes.txt\", \"w\") as f:\n    f.write(\"loss 0.5\\nloss 0.25\\n\")\nwith open(\"/tmp/cudash-notes.txt\") as f:\n    [line.split()[1] for line in f]";
    Method Teaching "read", "f.read(size=-1)", "The rest of the file (or `size` characters of it) as one str; of a file opened \"rb\", bytes (`size` bytes of it).", "with open(\"/tmp/cudash-read.txt\", \"w\") as f:\n    f.write(\"abc\")\nopen(\"/tmp/cudash-read.txt\").read()";
    Method Teaching "readline", "f.readline()", "The next line with its newline; \"\" at the end of the file.", "with open(\"/tmp/cudash-readline.txt\", \"w\") as f:\n    f.write(\"a\\nb\\n\")\nopen(\"/tmp/cudash-readline.txt\").readline()";
    Method Teaching "readlines", "f.readlines()", "The lines not read yet, each with its newline, as a list.", "with open(\"/tmp/cudash-readlines.txt\", \"w\") as f:\n    f.write(\"a\\nb\\n\")\nopen(\"/tmp/cudash-readlines.txt\").readlines()";
    Method Teaching "write", "f.write(s)", "Writes the str `s` (no newline added) and gives how many characters it wrote; to a file opened \"wb\" or \"ab\", bytes (and how many).", "with open(\"/tmp/cudash-write.txt\", \"w\") as f:\n    f.write(f\"epoch {1}: {0.25:.3f}\\n\")";
    Method Teaching "isatty", "f.isatty()", "Whether the file is a terminal's: `sys.stdout` and `sys.stderr` of a script or the REPL whose output goes to one (in a notebook or a transcript, never; a file, never).", "import sys\nsys.stdout.isatty()";
    Method Teaching "fileno", "f.fileno()", "`sys.stdout`'s descriptor, 1, and `sys.stderr`'s, 2 (what `os.get_terminal_size(fd)` takes); cudash's other files have none.", "import sys\nsys.stderr.fileno()";
    Method Teaching "writelines", "f.writelines(lines)", "Writes each str of `lines` in turn (no newlines added).", "with open(\"/tmp/cudash-writelines.txt\", \"w\") as f:\n    f.writelines([\"a\\n\", \"b\\n\"])";
    Method Teaching "flush", "f.flush()", "Writes what the file holds back to disk now; `sys.stdout.flush()` after a `write` without a newline shows the line's start at once (a carriage return `\\r` flushes `sys.stdout` and `sys.stderr` too, as Python's line-buffered streams: a progress line redrawn in place).", "import sys\nsys.stdout.write(\"step 1\\n\")\nsys.stdout.flush()";
    Method Teaching "seek", "f.seek(offset, whence=0)", "Moves where the file reads next: `offset` from the start (`whence=0`), from here (1) or from the end (2) of a binary file; a text file's `seek(0)` reads it again. Gives the new place.", "with open(\"/tmp/cudash-seek.txt\", \"w\") as f:\n    f.write(\"abc\")\nf = open(\"/tmp/cudash-seek.txt\")\nf.read()\nf.seek(0)\nf.read()";
    Method Teaching "tell", "f.tell()", "Where the file reads next, in bytes from its start.", "f = open(\"/tmp/cudash-tell.bin\", \"wb\")\nf.write(bytes(5))\nf.tell()";
    Method Teaching "close", "f.close()", "Closes the file: what was written is on disk, and reading or writing it again is an error (`with` closes it for you).", "f = open(\"/tmp/cudash-close.txt\", \"w\")\nf.close()";
    Method Teaching "keys", "d.keys()", "A live view of a dict's keys, in order, shown as `dict_keys([...])` (Python's `dict.keys()`: `model.state_dict().keys()`); set-like (`a.keys() - b.keys()`), not indexed (`list(d.keys())[0]`).", "d = {\"lr\": 0.1, \"momentum\": 0.9}\nd.keys()";
    Method Teaching "values", "d.values()", "A live view of a dict's values, in its keys' order, shown as `dict_values([...])`.", "d = {\"lr\": 0.1, \"momentum\": 0.9}\nd.values()";
    Method Teaching "items", "d.items()", "A live view of a dict's `(key, value)` pairs, in order, shown as `dict_items([...])`: `for k, v in d.items()`.", "d = {\"lr\": 0.1, \"momentum\": 0.9}\nfor k, v in d.items() { print(k, v) }";
    Method Teaching "get", "d.get(key, default=none)", "The value of `key`, or `default` when the dict has none.", "d = {\"lr\": 0.1}\nd.get(\"momentum\", 0.0)";
    Method Teaching "append", "xs.append(value)", "Adds `value` at the end of the list (a list made with `list()`).", "xs = list()\nxs.append(1)\nxs";
    Method Teaching "extend", "xs.extend(iterable)", "Adds every item of `iterable` at the end of the list.", "xs = list()\nxs.extend([\"a\", \"b\"])\nxs";
    Method Teaching "insert", "xs.insert(index, value)", "Puts `value` before position `index` (clamped to the list, as Python's).", "xs = list([\"b\"])\nxs.insert(0, \"a\")\nxs";
    Method Teaching "pop", "xs.pop(index=-1)", "Removes the item at `index` (the last by default) and gives it; an IndexError for an empty list or a position past its end.", "xs = list([\"a\", \"b\"])\nxs.pop()\nxs";
    Method Teaching "remove", "xs.remove(value)", "Removes the first item equal to `value`; a ValueError when there is none.", "xs = list([\"a\", \"b\"])\nxs.remove(\"a\")\nxs";
    Method Teaching "index", "xs.index(value)", "The position of the first item equal to `value`; a ValueError when there is none.", "list([\"a\", \"b\"]).index(\"b\")";
    Method Teaching "count", "xs.count(value)", "How many items equal `value`.", "list([\"a\", \"b\", \"a\"]).count(\"a\")";
    Method Teaching "reverse", "xs.reverse()", "Reverses the list in place.", "xs = list([\"a\", \"b\"])\nxs.reverse()\nxs";
    Method Teaching "sort", "xs.sort(key=none, reverse=false)", "Sorts the list in place, as `sorted` orders (stable, by `key(item)` when given).", "xs = list([\"b\", \"c\", \"a\"])\nxs.sort(reverse=true)\nxs";
    Method Teaching "clear", "xs.clear()", "Removes every item, in place.", "xs = list([\"a\"])\nxs.clear()\nxs";
    Method Teaching "copy", "xs.copy()", "A new list of the same items (a shallow copy).", "xs = list([\"a\"])\nys = xs.copy()\nys.append(\"b\")\nxs";
    Property Training "requires_grad", "x.requires_grad", "Whether autograd computes a gradient for `x`: a leaf made with `requires_grad=true`, or a result of ops on one (outside `no_grad { }`).", "w = ones(2, requires_grad=true)\n(w * 2).requires_grad";
    Property Training "retains_grad", "x.retains_grad", "Whether `x` is a non-leaf whose `retain_grad()` was called, so backward keeps its `.grad` (false for every leaf).", "w = ones(2, requires_grad=true)\ny = w * 2\ny.retain_grad()\ny.retains_grad";
    Property Training "is_leaf", "x.is_leaf", "Whether `x` was made by the user rather than by an op on tensors that require grad; backward fills `.grad` of leaves only.", "w = ones(2, requires_grad=true)\n(w * 2).is_leaf";
    Property Training "grad", "x.grad", "The gradient `backward()` accumulated into a leaf (none before the first backward, and for a non-leaf that did not `retain_grad()`).", "w = ones(3, requires_grad=true)\n(w * w).sum().backward()\nw.grad";
    Property Training "grad_fn", "x.grad_fn", "The autograd node that made `x`, as PyTorch names it (`<MulBackward0>`); none for a leaf.", "w = ones(2, requires_grad=true)\n(w * 3).sum().grad_fn";
    Method Training "backward", "x.backward(gradient=none, retain_graph=none, create_graph=false, inputs=none)", "Computes the gradients of `x` with respect to every leaf behind it and adds them to their `.grad` (with `inputs`, to those tensors' `.grad` only: a non-leaf among them is made to `retain_grad()`, and only the graph leading to them runs). A one-element `x` needs no `gradient`. The graph's saved tensors are freed afterwards unless `retain_graph=true`. With `create_graph=true` the backward's own ops are recorded, so `.grad` has a `grad_fn` and can be differentiated again (the graph is then kept unless `retain_graph=false`).", "w = tensor([1., 2., 3.], requires_grad=true)\nloss = (w * w).sum()\nloss.backward()\nw.grad";
    Method Training "requires_grad_", "x.requires_grad_(requires_grad=true)", "Makes a leaf require grad (floating point tensors only), in place; returns `x`.", "w = zeros(3).requires_grad_()\nw.requires_grad";
    Method Training "detach", "x.detach()", "The same elements (shared memory) without autograd history: a new leaf that does not require grad.", "w = ones(2, requires_grad=true)\n(w * 2).detach().requires_grad";
    Method Training "retain_grad", "x.retain_grad()", "Makes a non-leaf keep its gradient in `.grad` at the next backward.", "w = ones(2, requires_grad=true)\ny = w * 3\ny.retain_grad()\ny.sum().backward()\ny.grad";
    Function Training "TensorDataset", "TensorDataset(*tensors)", "A dataset whose sample `i` is row `i` of each tensor (host tensors with the same first dimension), as torch.utils.data.TensorDataset. `len(ds)` counts the samples.", "ds = TensorDataset(randn(10, 3), arange(10))\nlen(ds)";
    Function Training "Dataset", "Dataset(get, n)", "A dataset of `n` samples whose sample `i` is what `get(i)` returns (a tensor, a number, a string, or a list, tuple or dict of them), as a torch.utils.data.Dataset subclass with `__getitem__` and `__len__`. A DataLoader stacks the samples into batches (`default_collate`: numbers become int64, float64 or bool tensors, strings a list of them, a dict a dict of batches). With `num_workers=0` the main thread calls `get`; with workers each calls it on its own thread, with the session's variables as they were when the loop started, its own generator (a base seed drawn from the cpu generator, plus the worker's index), one CPU thread, and no CUDA device (as PyTorch's worker processes).", "fn get(i) { return [randn(3) + i, i % 2] }\nds = Dataset(get, 8)\nfor xb, yb in DataLoader(ds, batch_size=4, num_workers=2) { print(xb.shape, yb) }";
    Function Training "DataLoader", "DataLoader(dataset, batch_size=1, shuffle=false, num_workers=0, pin_memory=false, drop_last=false, prefetch_factor=none, sampler=none, batch_sampler=none, generator=none, persistent_workers=false, collate_fn=none, worker_init_fn=none, multiprocessing_context=none, timeout=0, pin_memory_device=\"\", in_order=true)", "Batches of a dataset (a TensorDataset, or `Dataset(get, n)`) for `for xb, tb in loader { }`, as torch.utils.data.DataLoader: each batch stacks its samples, in order or (with `shuffle`) in a permutation from the cpu generator (`seed` reproduces it). `num_workers` real worker threads make the batches ahead, batch k by worker k mod N, `prefetch_factor` (2) each in flight; 0 makes each on the main thread when asked. Workers start with each pass, or with `persistent_workers=true` once, at the first pass, and serve every pass after it (their generators and state go on). `collate_fn=f` makes each batch as `f(samples)` (the list of the samples, in the worker that made them), whatever it returns. Each worker seeds torch's and Python's `random` with the pass's base seed plus its id and NumPy's as PyTorch's `_worker_loop` does, then calls `worker_init_fn(worker_id)`; `torch.utils.data.get_worker_info()` there gives its `id`, `num_workers`, `seed` and `dataset`. `pin_memory=true` copies each batch into pinned memory, so `.to(cuda, non_blocking=true)` overlaps compute. `profile` draws each worker and the pin thread on their own lanes; their time is the reference CPU's where device time is modelled. `len(loader)` counts the batches.", "ds = TensorDataset(randn(10, 3), arange(10))\nloader = DataLoader(ds, batch_size=4, shuffle=true)\nfor xb, tb in loader { print(xb.shape, tb) }";
    Function Training "DistributedSampler", "DistributedSampler(dataset, num_replicas=none, rank=none, shuffle=true, seed=0, drop_last=false)", "Rank `rank`'s share of a dataset for `DataLoader(ds, sampler=s)`, as torch.utils.data.distributed.DistributedSampler: every sample, permuted by `seed` plus the epoch (`set_epoch`) the same way on every rank, padded with repeats to a multiple of `num_replicas` (or cut, with `drop_last`), then every `num_replicas`-th from `rank`. Without `num_replicas` and `rank`, the process group's (`get_world_size()`, `get_rank()`), as PyTorch's.", "ds = TensorDataset(arange(10))\ns = DistributedSampler(ds, num_replicas=3, rank=1, shuffle=false)\nfor b in DataLoader(ds, batch_size=2, sampler=s) { print(b[0]) }";
    Function Training "RandomSampler", "RandomSampler(data_source, replacement=false, num_samples=none, generator=none)", "Random indices of a dataset for `DataLoader(ds, sampler=s)`, as torch.utils.data.RandomSampler: each pass seeds a generator from the cpu generator (so `manual_seed` reproduces it) and deals `num_samples` indices (the dataset's size when not given): without replacement one permutation after another, with replacement `randint` draws 32 at a time, made as the loader asks, so `num_samples=10**10` (an endless loader that `next` draws from) starts at once. `shuffle=true` is this sampler over the dataset.", "ds = TensorDataset(arange(5))\ns = RandomSampler(ds, replacement=true, num_samples=8)\nfor b in DataLoader(ds, batch_size=4, sampler=s) { print(b[0]) }";
    Function Training "SequentialSampler", "SequentialSampler(data_source)", "The indices 0, 1, ..., n-1 of a dataset, as torch.utils.data.SequentialSampler: a DataLoader's order when neither `shuffle` nor `sampler=` is given.", "ds = TensorDataset(arange(5))\nfor b in DataLoader(ds, batch_size=2, sampler=SequentialSampler(ds)) { print(b[0]) }";
    Function Training "Subset", "Subset(dataset, indices)", "The samples of `dataset` at `indices`, as torch.utils.data.Subset: sample `i` is `dataset[indices[i]]`; `len` counts the indices; `.dataset` and `.indices` are what it was given. A DataLoader over it reads the dataset's samples.", "ds = TensorDataset(arange(10))\nfirst = Subset(ds, [0, 1, 2])\nlen(first)";
    Function Training "random_split", "random_split(dataset, lengths, generator=none)", "`dataset` split into Subsets of the given `lengths` (counts that add up to its length, or fractions that add up to 1), in an order drawn from the cpu generator (`randperm`), as torch.utils.data.random_split: a training and a validation part.", "ds = TensorDataset(arange(10))\ntrain, val = random_split(ds, [8, 2])\n[len(train), len(val)]";
    Function Training "SubsetRandomSampler", "SubsetRandomSampler(indices, generator=none)", "The given indices of a dataset, in a new permutation from the cpu generator each pass, as torch.utils.data.SubsetRandomSampler: a training and a validation loader over one dataset, each with its own indices.", "ds = TensorDataset(arange(10))\ntrain = DataLoader(ds, batch_size=3, sampler=SubsetRandomSampler(list(range(6))))\nfor b in train { print(b[0]) }";
    Function Training "BatchSampler", "BatchSampler(sampler, batch_size, drop_last=false)", "A sampler's indices cut into lists of `batch_size` (the short last one dropped with `drop_last`), as torch.utils.data.BatchSampler: a DataLoader's `batch_sampler=`, which then decides each batch in place of its `batch_size`, `shuffle`, `sampler` and `drop_last`.", "list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=false))";
    Function Training "Sampler", "Sampler()", "PyTorch's torch.utils.data.Sampler, the base of a sampler's class: `class EvenFirst(Sampler)` with `__iter__` (a pass's indices) and `__len__`, given to a DataLoader as `sampler=` (a class whose `__iter__` gives lists of indices, as `batch_sampler=`). A pass lists it when it begins, on the main thread.", "class EvenFirst(Sampler) {\n  fn __init__(self, n) { self.n = n }\n  fn __iter__(self) { return iter(list(range(0, self.n, 2)) + list(range(1, self.n, 2))) }\n  fn __len__(self) { return self.n }\n}\nfor b in DataLoader(TensorDataset(arange(6)), batch_size=3, sampler=EvenFirst(6)) { print(b) }";
    Function Training "WeightedRandomSampler", "WeightedRandomSampler(weights, num_samples, replacement=true, generator=none)", "Indices drawn with the weights' odds, `num_samples` a pass, as torch.utils.data.WeightedRandomSampler (a class-balanced loader: one weight per sample, `1 / count` of its class): each pass is one `multinomial` of the weights in double precision, from `generator` or the cpu generator, so a seeded program deals PyTorch's indices.", "ds = TensorDataset(arange(4))
s = WeightedRandomSampler([0.1, 0.1, 0.1, 5.0], num_samples=6)
list(s)";
    Function Training "Generator", "Generator(device=cpu)", "A CPU random number generator of the program's own, as torch.Generator: `g = Generator().manual_seed(42)`, then `generator=g` to random_split, RandomSampler, DataLoader or randperm draws what PyTorch draws from the same seed (PyTorch's CPU Mersenne Twister), each drawing on from where the last left it.", "g = Generator().manual_seed(42)\nrandperm(5, generator=g)";
    Method Training "manual_seed", "g.manual_seed(seed)", "Starts the generator again from `seed`, and returns it (so `Generator().manual_seed(42)` is a seeded generator).", "g = Generator()\ng.manual_seed(7).initial_seed()";
    Method Training "get_state", "g.get_state()", "Where the generator is, as PyTorch's bytes (a uint8 tensor of 5056: its Mersenne Twister's words and place); `g.set_state(s)` puts it back, and a state PyTorch saved puts it where PyTorch's was.", "g = Generator().manual_seed(1)\ns = g.get_state()\na = rand(2, generator=g)\ng.set_state(s)\nrand(2, generator=g) == a";
    Method Training "set_state", "g.set_state(new_state)", "Puts the generator where `g.get_state()` (or `torch.get_rng_state()`, or PyTorch's) was, and returns it.", "g = Generator()\ng.set_state(Generator().manual_seed(3).get_state()).initial_seed()";
    Method Training "initial_seed", "g.initial_seed()", "The seed the generator was last seeded with (PyTorch's default for a new one: 67280421310721).", "Generator().initial_seed()";
    Method Training "seed", "g.seed()", "Seeds the generator with a new seed (from the session's cpu generator; PyTorch's takes one from the system) and returns it.", "g = Generator()\ng.seed() == g.initial_seed()";
    Method Training "set_epoch", "sampler.set_epoch(epoch)", "The epoch the next pass shuffles for (`seed + epoch`): call it before each epoch, or every epoch deals the same order, as in PyTorch.", "ds = TensorDataset(arange(8))\ns = DistributedSampler(ds, num_replicas=2, rank=0)\ns.set_epoch(1)\nfor b in DataLoader(ds, batch_size=4, sampler=s) { print(b[0]) }";
    Function Training "backward", "backward(tensors, grad_tensors=none, retain_graph=none, create_graph=false, inputs=none)", "One backward from several tensors at once, as torch.autograd.backward: each with its gradient (none for a one-element tensor), their contributions summed into the leaves' `.grad` (with `inputs`, into those tensors' `.grad` only).", "w = ones(2, requires_grad=true)\nbackward([(w * 2).sum(), (w * 3).sum()])\nw.grad";
    Function Training "grad", "grad(outputs, inputs, grad_outputs=none, retain_graph=none, create_graph=false, allow_unused=false)", "The gradients of `outputs` with respect to `inputs`, as a list, as torch.autograd.grad: no `.grad` is touched, and only the graph between them runs. An input the outputs do not use is an error unless `allow_unused=true` (then none). With `create_graph=true` the gradients are recorded (they have a `grad_fn`) and can be differentiated again: a second derivative, a gradient penalty, a Hessian-vector product.", "w = tensor([1., 2.], requires_grad=true)\ny = (w ** 3).sum()\ng = grad(y, [w], create_graph=true)[0]\ngrad(g.sum(), [w])";
    Function Training "queue_callback", "queue_callback(callback)", "From a hook: `callback()` runs once the backward running now has run its last node, before `backward()` returns (PyTorch's `Variable._execution_engine.queue_callback`, which DDP uses to finish its gradient all-reduces). Outside a backward, PyTorch's error.", "w = ones(2, requires_grad=true)\nfn done() { print(\"backward done\", w.grad) }\nfn hook(g) { queue_callback(done) }\nh = w.register_hook(hook)\n(w * 2).sum().backward()";
    Function Training "SGD", "SGD(params, lr=0.001, momentum=0, dampening=0, weight_decay=0, nesterov=false, maximize=false, foreach=none, differentiable=false, fused=none)", "Stochastic gradient descent over a list of parameters, as torch.optim.SGD: `step()` updates each parameter in place from its `.grad` (momentum buffers are made at the first step, beside each parameter); `zero_grad()` sets the grads to none.", "w = tensor([1., 2.], requires_grad=true)\nopt = SGD([w], lr=0.1)\n(w * w).sum().backward()\nopt.step()\nw";
    Function Training "Adam", "Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=false, foreach=none, maximize=false, capturable=false, differentiable=false, fused=none, decoupled_weight_decay=false)", "Adam over a list of parameters, as torch.optim.Adam: two averages per parameter (`exp_avg`, `exp_avg_sq`), allocated at the first step beside the parameter, so its state is twice the parameters' memory.", "w = tensor([1., 2.], requires_grad=true)\nopt = Adam([w], lr=0.1)\n(w * w).sum().backward()\nopt.step()\nw";
    Function Training "AdamW", "AdamW(params, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, amsgrad=false, maximize=false, foreach=none, capturable=false, differentiable=false, fused=none)", "Adam with decoupled weight decay, as torch.optim.AdamW: each step first scales the parameter by `1 - lr * weight_decay`, then Adam's update without decay in the gradient.", "w = tensor([1., 2.], requires_grad=true)\nopt = AdamW([w], lr=0.1)\n(w * w).sum().backward()\nopt.step()\nw";
    Function Training "RMSprop", "RMSprop(params, lr=0.01, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=false, capturable=false, foreach=none, maximize=false, differentiable=false)", "RMSprop as torch.optim.RMSprop's single-tensor update: a running average of squared gradients (`square_avg`), optionally of the gradients (`centered`: `grad_avg`) and a momentum buffer, each beside its parameter from the first step.", "w = tensor([1., 2.], requires_grad=true)\nopt = RMSprop([w], lr=0.01)\n(w * w).sum().backward()\nopt.step()\nw";
    Function Training "Adagrad", "Adagrad(params, lr=0.01, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, foreach=none, maximize=false, differentiable=false, fused=none)", "Adagrad as torch.optim.Adagrad: a sum of squared gradients per parameter (`sum`, made when the optimizer is, as PyTorch does), each step divided by its square root.", "w = tensor([1., 2.], requires_grad=true)\nopt = Adagrad([w], lr=0.1)\n(w * w).sum().backward()\nopt.step()\nw";
    Function Training "Adadelta", "Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=none, capturable=false, maximize=false, differentiable=false)", "Adadelta as torch.optim.Adadelta (the MNIST example's optimizer): running averages of squared gradients and of squared updates (`square_avg`, `acc_delta`) per parameter.", "w = tensor([1., 2.], requires_grad=true)\nopt = Adadelta([w])\n(w * w).sum().backward()\nopt.step()\nw";
    Function Training "Adamax", "Adamax(params, lr=0.002, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=none, maximize=false, differentiable=false, capturable=false)", "Adam with the infinity norm in place of the second moment (`exp_inf = max(beta2 * exp_inf, |g| + eps)`), as torch.optim.Adamax, op for op.", "w = tensor([1., 2.], requires_grad=true)\nopt = Adamax([w])\n(w * w).sum().backward()\nopt.step()\nw";
    Function Training "RAdam", "RAdam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=false, foreach=none, maximize=false, capturable=false, differentiable=false)", "Adam with its variance rectified: plain momentum SGD while `rho_t` is at most 5 (the first few steps), then Adam scaled by the rectification, as torch.optim.RAdam.", "w = tensor([1., 2.], requires_grad=true)\nopt = RAdam([w], lr=0.1)\n(w * w).sum().backward()\nopt.step()\nw";
    Function Training "NAdam", "NAdam(params, lr=0.002, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=0.004, decoupled_weight_decay=false, foreach=none, maximize=false, capturable=false, differentiable=false)", "Adam with Nesterov momentum, as torch.optim.NAdam: each step's momentum `mu` from `momentum_decay`, their product kept as a float32 (`mu_product`, as PyTorch's state).", "w = tensor([1., 2.], requires_grad=true)\nopt = NAdam([w])\n(w * w).sum().backward()\nopt.step()\nw";
    Function Training "StepLR", "StepLR(optimizer, step_size, gamma=0.1)", "Multiplies the optimizer's learning rate by `gamma` every `step_size` epochs (`scheduler.step()` once an epoch), as torch.optim.lr_scheduler.StepLR, with its arithmetic.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = StepLR(opt, step_size=2, gamma=0.5)\nfor e in 0..5 { opt.step(); s.step(); print(s.get_last_lr()) }";
    Function Training "MultiStepLR", "MultiStepLR(optimizer, milestones, gamma=0.1)", "Multiplies the learning rate by `gamma` at each epoch in `milestones`, as torch.optim.lr_scheduler.MultiStepLR.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = MultiStepLR(opt, milestones=[1, 3], gamma=0.1)\nfor e in 0..4 { opt.step(); s.step(); print(s.get_last_lr()) }";
    Function Training "ExponentialLR", "ExponentialLR(optimizer, gamma)", "Multiplies the learning rate by `gamma` every epoch, as torch.optim.lr_scheduler.ExponentialLR.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = ExponentialLR(opt, gamma=0.9)\nopt.step()\ns.step()\ns.get_last_lr()";
    Function Training "CosineAnnealingLR", "CosineAnnealingLR(optimizer, T_max, eta_min=0)", "The learning rate along half a cosine from its start down to `eta_min` over `T_max` epochs (and back up after), by PyTorch's chainable rule, as torch.optim.lr_scheduler.CosineAnnealingLR.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = CosineAnnealingLR(opt, T_max=4)\nfor e in 0..4 { opt.step(); s.step(); print(s.get_last_lr()) }";
    Function Training "LambdaLR", "LambdaLR(optimizer, lr_lambda)", "The starting learning rate times `lr_lambda(epoch)`, your function, as torch.optim.lr_scheduler.LambdaLR (a warm-up: `fn warm(e) { return min(1.0, (e + 1) / 5) }`).", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\nfn half(e) { return 0.5 ** e }\ns = LambdaLR(opt, half)\nfor e in 0..3 { opt.step(); s.step(); print(s.get_last_lr()) }";
    Function Training "CyclicLR", "CyclicLR(optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=none, mode=\"triangular\", gamma=1.0, scale_fn=none, scale_mode=\"cycle\", cycle_momentum=true, base_momentum=0.8, max_momentum=0.9)", "Cyclical learning rates, as torch.optim.lr_scheduler.CyclicLR: each group's rate set to `base_lr`, then up to `max_lr` over `step_size_up` steps and down over `step_size_down`, again and again (`triangular2`: the height halved each cycle; `exp_range`: times `gamma` each step); with `cycle_momentum` the momentum (SGD's, Adam's beta1) the other way, starting at `max_momentum`. Step it once per batch.", "w = zeros(2, requires_grad=true)\nopt = SGD([w], lr=0.1, momentum=0.9)\ns = CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2)\nopt.step()\ns.step()\ns.get_last_lr()";
    Function Training "OneCycleLR", "OneCycleLR(optimizer, max_lr, total_steps=none, epochs=none, steps_per_epoch=none, pct_start=0.3, anneal_strategy=\"cos\", cycle_momentum=true, base_momentum=0.85, max_momentum=0.95, div_factor=25.0, final_div_factor=10000.0, three_phase=false)", "The 1cycle policy, as torch.optim.lr_scheduler.OneCycleLR: the learning rate rises from `max_lr / div_factor` to `max_lr` over the first `pct_start` of `total_steps` and falls to a `final_div_factor`-th of the start, the momentum (SGD's, Adam's beta1) the other way; step it once per batch.", "w = zeros(2, requires_grad=true)\nopt = SGD([w], lr=0.1, momentum=0.9)\ns = OneCycleLR(opt, max_lr=1.0, total_steps=10)\nopt.param_groups[0][\"lr\"]";
    Function Training "LinearLR", "LinearLR(optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5)", "Scales the learning rate by a factor going linearly from `start_factor` to `end_factor` over `total_iters` steps, then leaves it (a warm-up), as torch.optim.lr_scheduler.LinearLR, with its chainable arithmetic.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = LinearLR(opt, start_factor=0.25, total_iters=3)\nfor e in 0..4 { opt.step(); s.step(); print(s.get_last_lr()) }";
    Function Training "ConstantLR", "ConstantLR(optimizer, factor=1.0 / 3, total_iters=5)", "The learning rate times `factor` until `total_iters` steps, then as it was (torch.optim.lr_scheduler.ConstantLR).", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = ConstantLR(opt, factor=0.5, total_iters=2)\nfor e in 0..3 { opt.step(); s.step(); print(s.get_last_lr()) }";
    Function Training "PolynomialLR", "PolynomialLR(optimizer, total_iters=5, power=1.0)", "`base_lr * (1 - epoch / total_iters) ** power` until `total_iters`, then 0 kept (torch.optim.lr_scheduler.PolynomialLR).", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = PolynomialLR(opt, total_iters=4, power=2.0)\nfor e in 0..5 { opt.step(); s.step(); print(s.get_last_lr()) }";
    Function Training "MultiplicativeLR", "MultiplicativeLR(optimizer, lr_lambda)", "The learning rate multiplied by `lr_lambda(epoch)` at each step after the first (torch.optim.lr_scheduler.MultiplicativeLR).", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = MultiplicativeLR(opt, lambda e: 0.9)\nfor e in 0..3 { opt.step(); s.step() }\ns.get_last_lr()";
    Function Training "CosineAnnealingWarmRestarts", "CosineAnnealingWarmRestarts(optimizer, T_0, T_mult=1, eta_min=0.0)", "Cosine annealing from the base rate to `eta_min` over `T_0` steps, restarting then, each period `T_mult` times the last (SGDR; torch.optim.lr_scheduler.CosineAnnealingWarmRestarts, stepped once a step).", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)\nfor e in 0..6 { opt.step(); s.step(); print(s.get_last_lr()) }";
    Function Training "SequentialLR", "SequentialLR(optimizer, schedulers, milestones)", "Each scheduler in turn, the next taking over at its milestone (restarted at epoch 0 there), as torch.optim.lr_scheduler.SequentialLR: `SequentialLR(opt, [LinearLR(opt, ...), CosineAnnealingLR(opt, ...)], milestones=[5])` warms up, then anneals.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\nwarm = LinearLR(opt, start_factor=0.5, total_iters=2)\ndecay = ExponentialLR(opt, gamma=0.5)\ns = SequentialLR(opt, [warm, decay], milestones=[2])\nfor e in 0..4 { opt.step(); s.step(); print(s.get_last_lr()) }";
    Function Training "ChainedScheduler", "ChainedScheduler(schedulers, optimizer=none)", "Every scheduler of `schedulers` steps at each step, their factors multiplying (torch.optim.lr_scheduler.ChainedScheduler).", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = ChainedScheduler([ConstantLR(opt, factor=0.1, total_iters=2), ExponentialLR(opt, gamma=0.9)])\nfor e in 0..3 { opt.step(); s.step(); print(s.get_last_lr()) }";
    Function Training "ReduceLROnPlateau", "ReduceLROnPlateau(optimizer, mode=\"min\", factor=0.1, patience=10, threshold=1e-4, threshold_mode=\"rel\", cooldown=0, min_lr=0, eps=1e-8)", "Cuts the learning rate by `factor` when the metric given to `scheduler.step(metric)` has not improved (by `threshold`) for more than `patience` steps, then waits `cooldown` steps, as torch.optim.lr_scheduler.ReduceLROnPlateau.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = ReduceLROnPlateau(opt, patience=1)\nfor loss in [3., 2., 2., 2., 2.] { s.step(loss) }\ns.get_last_lr()";
    Method Training "step", "scheduler.step(metrics=none)", "Counts an epoch and sets the optimizer's learning rate for it; call it after `opt.step()` (the other order skips the schedule's first value, and PyTorch's warning says so).", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=1.0)\ns = ExponentialLR(opt, gamma=0.5)\nopt.step()\ns.step()\nopt.param_groups[0][\"lr\"]";
    Method Training "get_last_lr", "scheduler.get_last_lr()", "The learning rate the last `step()` set, one per parameter group, as PyTorch's.", "w = ones(2, requires_grad=true)\ns = StepLR(SGD([w], lr=0.1), step_size=1)\ns.get_last_lr()";
    Property Training "collate_fn", "loader.collate_fn", "The `collate_fn=` a DataLoader was given (none for PyTorch's `default_collate`, which cudash runs itself).", "DataLoader(TensorDataset(ones(4)), collate_fn=len).collate_fn";
    Property Training "num_workers", "loader.num_workers", "How many worker threads make a DataLoader's batches (0: the main thread).", "DataLoader(TensorDataset(ones(4)), num_workers=2).num_workers";
    Property Training "dataset", "loader.dataset", "The dataset a DataLoader draws from (`len(loader.dataset)` counts its samples).", "len(DataLoader(TensorDataset(ones(10)), batch_size=4).dataset)";
    Property Training "batch_sampler", "loader.batch_sampler", "Which samples each batch of a DataLoader holds: the `batch_sampler=` it was given, else the BatchSampler PyTorch makes of its sampler, `batch_size` and `drop_last` (`loader.batch_size` is None when a batch sampler was given).", "loader = DataLoader(TensorDataset(arange(5)), batch_size=2)\nlist(loader.batch_sampler)";
    Property Training "sampler", "loader.sampler", "The sampler a DataLoader takes its order from: the one given as `sampler=` (`loader.sampler.set_epoch(epoch)` of a DistributedSampler, as PyTorch's DDP tutorials call it each epoch), else PyTorch's default, a SequentialSampler (a RandomSampler with `shuffle=true`).", "ds = TensorDataset(arange(8))\nloader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, num_replicas=2, rank=0))\nloader.sampler.set_epoch(1)\nDataLoader(ds, shuffle=true).sampler";
    Property Training "batch_size", "loader.batch_size", "How many samples a DataLoader puts in a batch.", "DataLoader(TensorDataset(ones(10)), batch_size=4).batch_size";
    Property Training "best", "scheduler.best", "ReduceLROnPlateau's best metric so far (inf before the first step in mode \"min\"); none for the other schedulers.", "s = ReduceLROnPlateau(SGD([ones(1, requires_grad=true)], lr=1.0))\ns.step(2.5)\ns.best";
    Property Training "num_bad_epochs", "scheduler.num_bad_epochs", "ReduceLROnPlateau's count of steps since the metric last improved; none for the other schedulers.", "s = ReduceLROnPlateau(SGD([ones(1, requires_grad=true)], lr=1.0))\ns.step(2.5)\ns.step(3.0)\ns.num_bad_epochs";
    Property Training "last_epoch", "scheduler.last_epoch", "How many epochs the scheduler has counted (0 once made: making it takes the first step, as PyTorch's).", "w = ones(2, requires_grad=true)\ns = StepLR(SGD([w], lr=0.1), step_size=1)\ns.last_epoch";
    Method Training "add_param_group", "opt.add_param_group(param_group)", "Adds a group of new parameters (a dict: `{\"params\": [...], \"lr\": 0.01}`), each setting it leaves out the constructor's (`opt.defaults`), as PyTorch's: how fine-tuning adds the layers it unfreezes. A parameter already in a group is PyTorch's error.", "a = ones(2, requires_grad=true)\nb = ones(3, requires_grad=true)\nopt = SGD([a], lr=0.1, momentum=0.9)\nopt.add_param_group({\"params\": [b], \"lr\": 0.01})\nopt.param_groups[1][\"momentum\"]";
    Method Training "register_step_pre_hook", "opt.register_step_pre_hook(hook)", "Calls `hook(optimizer, args, kwargs)` before each `step()` (it may return new `(args, kwargs)`, a closure among them); the handle's `remove()` takes it off, as PyTorch's.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1)\nsteps = []\nh = opt.register_step_pre_hook(lambda o, a, k: steps.append(1))\nw.sum().backward()\nopt.step()\nlen(steps)";
    Method Training "register_step_post_hook", "opt.register_step_post_hook(hook)", "Calls `hook(optimizer, args, kwargs)` after each `step()`; the handle's `remove()` takes it off, as PyTorch's.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1)\nseen = []\nh = opt.register_step_post_hook(lambda o, a, k: seen.append(w.tolist()))\nw.sum().backward()\nopt.step()\nseen";
    Property Training "defaults", "opt.defaults", "The settings the optimizer was made with, as PyTorch's dict (what a group added later starts from).", "opt = Adam([ones(2, requires_grad=true)], lr=0.01)\nopt.defaults[\"lr\"]";
    Property Training "state", "opt.state", "Each parameter's state, as PyTorch's `opt.state`: a dict keyed by the parameter (those that had a step), each value a dict by PyTorch's names (`step`, a float32 scalar counted in place; Adam's `exp_avg` and `exp_avg_sq`; SGD's `momentum_buffer`). The tensors are the optimizer's own, and `opt.state[p][\"exp_avg\"] = t` gives it `t`.", "w = ones(2, requires_grad=true)\nopt = Adam([w], lr=0.1)\n(w * w).sum().backward()\nopt.step()\nopt.state[w][\"exp_avg\"]";
    Property Training "param_groups", "opt.param_groups", "The optimizer's parameter groups (one: the settings given when it was made), as dicts: `opt.param_groups[0][\"lr\"]` reads the learning rate and `g[\"lr\"] = 0.01` sets it, as a hand-written schedule does.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1)\nfor g in opt.param_groups { g[\"lr\"] = 0.05 }\nopt.param_groups[0][\"lr\"]";
    Function Training "autocast", "autocast(device_type=\"cuda\", dtype=none, enabled=true, cache_enabled=none)", "A mixed-precision region for `with autocast(...) { }` (PyTorch's `torch.autocast`): inside it the ops PyTorch lists run with their inputs cast, as PyTorch's lists for the device type say: matrix products (`@`, `linear`, `conv2d`) in the lower precision (f16 on cuda by default, bf16 on cpu), numerically sensitive ops (`exp`, `log`, `pow`, `softmax`, `sum`, `layer_norm`, the losses) in f32 on cuda; every other op runs in the dtypes it is given. A parameter's cast is made once per region (the weight cache). Backward runs outside it. `enabled=false` switches it off inside another.", "w = ones(4, 4, requires_grad=true)\nx = ones(2, 4)\nwith autocast(\"cpu\") {\n  y = x @ w\n}\ny.dtype";
    Function Training "GradScaler", "GradScaler(device=\"cuda\", init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=true)", "Loss scaling for f16 training, as torch.amp.GradScaler: `scaler.scale(loss).backward()`, `scaler.step(opt)` (unscales the gradients and skips the optimizer's step when one is inf or NaN), `scaler.update()` (halves the scale after a skipped step, doubles it after `growth_interval` good ones). Shows its scale and the steps it skipped.", "scaler = GradScaler(\"cpu\")\nw = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1)\nscaler.scale((w * 2).sum()).backward()\nscaler.step(opt)\nscaler.update()\nscaler";
    Method Training "scale", "scaler.scale(outputs)", "The outputs (a loss, or a list of tensors) times the scale, for `backward()`: small f16 gradients stay representable.", "scaler = GradScaler(\"cpu\", init_scale=1024.0)\nscaler.scale(ones(1))";
    Method Training "unscale_", "scaler.unscale_(optimizer)", "Divides the optimizer's gradients by the scale in place, noting on each device whether one was inf or NaN (no host sync); once per step, before `clip_grad_norm_`. `step` does it when you do not.", "scaler = GradScaler(\"cpu\", init_scale=4.0)\nw = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1)\nscaler.scale(w.sum()).backward()\nscaler.unscale_(opt)\nw.grad";
    Method Training "step", "scaler.step(optimizer)", "Unscales the gradients (unless `unscale_` did), reads each device's inf/NaN flag (a host sync, as PyTorch's `.item()`), and calls `optimizer.step()` unless one was set: a skipped step.", "scaler = GradScaler(\"cpu\")\nw = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1)\nscaler.scale(w.sum()).backward()\nscaler.step(opt)\nw";
    Method Training "update", "scaler.update(new_scale=none)", "The next iteration's scale: times `backoff_factor` after a skipped step, times `growth_factor` after `growth_interval` steps in a row without one, or `new_scale`.", "scaler = GradScaler(\"cpu\")\nw = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1)\nscaler.scale(w.sum() * inf).backward()\nscaler.step(opt)\nscaler.update()\nscaler.get_scale()";
    Method Training "get_scale", "scaler.get_scale()", "The current scale as a number (read from the device: a sync).", "GradScaler(\"cpu\").get_scale()";
    Method Training "state_dict", "scaler.state_dict()", "The scaler's state as PyTorch's: scale, growth_factor, backoff_factor, growth_interval, _growth_tracker.", "GradScaler(\"cpu\").state_dict()";
    Method Training "load_state_dict", "scaler.load_state_dict(state_dict)", "Takes the state `state_dict()` gave.", "s = GradScaler(\"cpu\", init_scale=8.0)\nt = GradScaler(\"cpu\")\nt.load_state_dict(s.state_dict())\nt.get_scale()";
    Method Training "is_enabled", "scaler.is_enabled()", "Whether the scaler scales (`enabled=true`, and CUDA available for a cuda scaler).", "GradScaler(\"cpu\").is_enabled()";
    Method Training "get_growth_factor", "scaler.get_growth_factor()", "The factor the scale grows by.", "GradScaler(\"cpu\").get_growth_factor()";
    Method Training "set_growth_factor", "scaler.set_growth_factor(new_factor)", "Sets the factor the scale grows by.", "s = GradScaler(\"cpu\")\ns.set_growth_factor(4.0)\ns.get_growth_factor()";
    Method Training "get_backoff_factor", "scaler.get_backoff_factor()", "The factor the scale backs off by after a skipped step.", "GradScaler(\"cpu\").get_backoff_factor()";
    Method Training "set_backoff_factor", "scaler.set_backoff_factor(new_factor)", "Sets the factor the scale backs off by.", "s = GradScaler(\"cpu\")\ns.set_backoff_factor(0.25)\ns.get_backoff_factor()";
    Method Training "get_growth_interval", "scaler.get_growth_interval()", "How many steps in a row without inf/NaN grow the scale.", "GradScaler(\"cpu\").get_growth_interval()";
    Method Training "set_growth_interval", "scaler.set_growth_interval(new_interval)", "Sets how many clean steps grow the scale.", "s = GradScaler(\"cpu\")\ns.set_growth_interval(100)\ns.get_growth_interval()";
    Function Training "pad_sequence", "pad_sequence(sequences, batch_first=false, padding_value=0.0, padding_side=\"right\")", "Sequences [L_i, *] of different lengths stacked into [L, B, *] (or [B, L, *] with `batch_first`), L the longest, the rest filled with `padding_value` (at the start with `padding_side=\"left\"`), as torch.nn.utils.rnn.pad_sequence: a tensor of the padding, each sequence copied into its slice (`CopySlices`).", "pad_sequence([tensor([1, 2, 3]), tensor([4])], batch_first=true)";
    Function Training "parameters_to_vector", "parameters_to_vector(parameters)", "Every parameter flattened into one vector, in order (`cat` of each `view(-1)`: gradients flow back to each), as torch.nn.utils.parameters_to_vector; the parameters must share a device.", "m = Linear(2, 1)\nparameters_to_vector(m.parameters()).shape";
    Function Training "vector_to_parameters", "vector_to_parameters(vec, parameters)", "Writes the vector's slices into the parameters, each in its shape and in order, outside autograd (torch.nn.utils.vector_to_parameters; PyTorch makes each parameter a view of `vec`, cudash copies into the parameter's own memory).", "m = Linear(2, 1)\nvector_to_parameters(zeros(3), m.parameters())\nm.weight";
    Function Training "clip_grad_norm_", "clip_grad_norm_(parameters, max_norm, norm_type=2.0)", "Scales the parameters' gradients in place so that their total norm is at most `max_norm` (by `max_norm / (total + 1e-6)`, clamped to 1), as torch.nn.utils.clip_grad_norm_; gives the total norm before clipping.", "w = ones(4, requires_grad=true)\n(w * 10).sum().backward()\nclip_grad_norm_([w], max_norm=1.0)\nw.grad";
    Function Training "clip_grad_value_", "clip_grad_value_(parameters, clip_value)", "Clamps each gradient element into `[-clip_value, clip_value]`, in place, as torch.nn.utils.clip_grad_value_.", "w = ones(3, requires_grad=true)\n(w * tensor([1., 5., -9.])).sum().backward()\nclip_grad_value_([w], 2.0)\nw.grad";
    Function Training "uniform_", "uniform_(tensor, a=0.0, b=1.0, generator=none)", "Fills `tensor` in place with numbers uniform in [a, b) from its device's generator, as torch.nn.init.uniform_; `tensor` back.", "w = empty(2, 3)\nuniform_(w, -0.1, 0.1)";
    Function Training "normal_", "normal_(tensor, mean=0.0, std=1.0, generator=none)", "Fills `tensor` in place with normal numbers, as torch.nn.init.normal_.", "normal_(empty(3), std=0.02)";
    Function Training "zeros_", "zeros_(tensor)", "Fills `tensor` with zeros in place, as torch.nn.init.zeros_ (a bias's usual start).", "zeros_(ones(3))";
    Function Training "ones_", "ones_(tensor)", "Fills `tensor` with ones in place, as torch.nn.init.ones_.", "ones_(zeros(3))";
    Function Training "constant_", "constant_(tensor, val)", "Fills `tensor` with `val` in place, as torch.nn.init.constant_.", "constant_(zeros(3), 0.5)";
    Function Training "orthogonal_", "orthogonal_(tensor, gain=1.0, generator=none)", "Fills `tensor` with a (semi-)orthogonal matrix, as torch.nn.init.orthogonal_: normal numbers [rows, rest], their QR decomposition's `q` with the signs of `r`'s diagonal, times `gain` (the super-resolution example's init).", "w = orthogonal_(empty(3, 3))\n(w @ w.T - eye(3)).abs().max() < 1e-5";
    Function Training "xavier_uniform_", "xavier_uniform_(tensor, gain=1.0, generator=none)", "Glorot's uniform fill, as torch.nn.init.xavier_uniform_: within `gain * sqrt(6 / (fan_in + fan_out))`.", "fc = Linear(4, 3)\nw = xavier_uniform_(fc.weight)\nw.abs().max() <= (6 / 7) ** 0.5";
    Function Training "xavier_normal_", "xavier_normal_(tensor, gain=1.0, generator=none)", "Glorot's normal fill (std `gain * sqrt(2 / (fan_in + fan_out))`), as torch.nn.init.xavier_normal_.", "xavier_normal_(empty(64, 64)).std()";
    Function Training "kaiming_uniform_", "kaiming_uniform_(tensor, a=0, mode=\"fan_in\", nonlinearity=\"leaky_relu\", generator=none)", "He's uniform fill, as torch.nn.init.kaiming_uniform_: within `sqrt(3) * gain / sqrt(fan)` (what `Linear` uses with `a=sqrt(5)`).", "kaiming_uniform_(empty(256, 784), nonlinearity=\"relu\").abs().max()";
    Function Training "trunc_normal_", "trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=none)", "Fills `tensor` in place with normal numbers inside [a, b] (a ViT's `trunc_normal_(w, std=0.02)`), as torch.nn.init.trunc_normal_ in PyTorch 2.15 draws them: numbers outside drawn again (a fresh normal tensor each round), or, when little of the distribution lies in [a, b], uniform candidates kept by rejection; so a seeded program gets PyTorch's numbers on the host.", "seed(0)\ntrunc_normal_(empty(4), std=0.02)";
    Function Training "kaiming_normal_", "kaiming_normal_(tensor, a=0, mode=\"fan_in\", nonlinearity=\"leaky_relu\", generator=none)", "He's normal fill (std `gain / sqrt(fan)`), as torch.nn.init.kaiming_normal_.", "kaiming_normal_(empty(256, 784), mode=\"fan_out\").std()";
    Function Training "calculate_gain", "calculate_gain(nonlinearity, param=none)", "PyTorch's recommended gain for a nonlinearity (`relu`: sqrt(2), `tanh`: 5/3, `leaky_relu` with its slope), as torch.nn.init.calculate_gain.", "calculate_gain(\"tanh\")";
    Function Training "mse_loss", "mse_loss(input, target, size_average=none, reduce=none, reduction=\"mean\")", "The mean (or sum, or with \"none\" each one) of the squared differences, as torch.nn.functional.mse_loss; its node is `MseLossBackward0`.", "y = tensor([1., 2.], requires_grad=true)\nmse_loss(y, tensor([0., 0.]))";
    Function Training "binary_cross_entropy", "binary_cross_entropy(input, target, weight=none, size_average=none, reduce=none, reduction=\"mean\")", "The binary cross entropy of probabilities `input` (in [0, 1], e.g. a sigmoid's) against `target` of the same shape: `-(y log x + (1 - y) log(1 - x))`, each log at least -100, times `weight`, reduced (\"mean\", \"sum\" or \"none\"), as torch.nn.functional.binary_cross_entropy; its node is `BinaryCrossEntropyBackward0`. Refused inside a CUDA autocast region, as PyTorch refuses it (use the logits form).", "p = sigmoid(tensor([0.5, -1.], requires_grad=true))\nbinary_cross_entropy(p, tensor([1., 0.]))";
    Function Training "binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits(input, target, weight=none, size_average=none, reduce=none, reduction=\"mean\", pos_weight=none)", "The binary cross entropy of `sigmoid(input)` computed from the logits (`(1 - y) x - log sigmoid(x)`, stable for large logits), `pos_weight` weighing the positive examples, as torch.nn.functional.binary_cross_entropy_with_logits; its node is `BinaryCrossEntropyWithLogitsBackward0`.", "binary_cross_entropy_with_logits(tensor([2., -3.], requires_grad=true), tensor([1., 0.]))";
    Function Training "l1_loss", "l1_loss(input, target, size_average=none, reduce=none, reduction=\"mean\")", "The mean (or sum, or none) of the absolute differences, as torch.nn.functional.l1_loss, which PyTorch composes of `abs` and the reduction (its node is the reduction's: `MeanBackward0`).", "l1_loss(tensor([1., 3.], requires_grad=true), tensor([0., 0.]))";
    Function Training "smooth_l1_loss", "smooth_l1_loss(input, target, size_average=none, reduce=none, reduction=\"mean\", beta=1.0)", "Squared where the difference is under `beta` (`0.5 d² / beta`), absolute beyond (`|d| - 0.5 beta`), reduced, as torch.nn.functional.smooth_l1_loss; its node is `SmoothL1LossBackward0`.", "smooth_l1_loss(tensor([0.5, 3.], requires_grad=true), tensor([0., 0.]))";
    Function Training "huber_loss", "huber_loss(input, target, reduction=\"mean\", delta=1.0, weight=none)", "Squared where the difference is at most `delta` (`0.5 d²`), linear beyond (`delta (|d| - 0.5 delta)`), reduced, as torch.nn.functional.huber_loss; its node is `HuberLossBackward0`.", "huber_loss(tensor([0.5, 3.], requires_grad=true), tensor([0., 0.]), delta=2.0)";
    Function Training "nll_loss", "nll_loss(input, target, weight=none, ignore_index=-100, reduction=\"mean\")", "Minus the input at each row's target class (`input` [N, C] of log-probabilities, `target` N class indices), averaged over the rows whose target is not `ignore_index`, as torch.nn.functional.nll_loss; with `weight` (one per class) each row counts its class's weight and the mean divides by their sum.", "lp = log_softmax(randn(3, 4), dim=1)\nnll_loss(lp, tensor([0, 3, 1]))";
    Function Training "cross_entropy", "cross_entropy(input, target, weight=none, ignore_index=-100, reduction=\"mean\", label_smoothing=0.0)", "`nll_loss(log_softmax(input, dim=1), target)` for scores [N, C] and N class indices, as torch.nn.functional.cross_entropy computes it; a float target of the input's shape is class probabilities (`-(log_softmax(input) * target).sum() / N`), and `label_smoothing` mixes in the uniform distribution, each composed as PyTorch composes it.", "logits = randn(3, 4, requires_grad=true)\nloss = cross_entropy(logits, tensor([0, 3, 1]))\nloss.backward()\nlogits.grad";
    Function Training "embedding_bag", "embedding_bag(input, weight, offsets=none, max_norm=none, norm_type=2, scale_grad_by_freq=false, mode=\"mean\", sparse=false, per_sample_weights=none, include_last_offset=false, padding_idx=none)", "The rows `input` picks from `weight`, summed or averaged per bag (bags start at `offsets`, or are a 2-d input's rows), as torch.nn.functional.embedding_bag (`EmbeddingBagBackward0`); modes `sum` and `mean`.", "embedding_bag(tensor([0, 2, 1]), eye(3), tensor([0, 2]))";
    Function Training "bilinear", "bilinear(input1, input2, weight, bias=none)", "`x1^T W x2 + b` for each row: `input1` [..., in1], `input2` [..., in2], `weight` [out, in1, in2], as torch.nn.functional.bilinear records it (`TrilinearBackward0` between views, then `AddBackward0`).", "bilinear(ones(2, 3), ones(2, 2), ones(4, 3, 2)).shape";
    Function Training "linear", "linear(input, weight, bias=none)", "`input @ weight.T + bias`, weight [out_features, in_features], as torch.nn.functional.linear; a matrix input with a bias is one `addmm` (`AddmmBackward0`, which keeps `input` and `weight` for backward).", "x = randn(64, 784)\nW = randn(256, 784, requires_grad=true)\nb = zeros(256, requires_grad=true)\nlinear(x, W, b).grad_fn";
    Function Training "scaled_dot_product_attention", "scaled_dot_product_attention(query, key, value, attn_mask=none, dropout_p=0.0, is_causal=false, scale=none, enable_gqa=false)", "Attention as torch.nn.functional.scaled_dot_product_attention: `softmax(query @ key.mT * scale + mask) @ value` over the last two dimensions (query [..., L, E], key [..., S, E], value [..., S, Ev]), `scale` 1/sqrt(E) unless given; a boolean `attn_mask` keeps where it is true (-inf elsewhere), a float one is added, `is_causal=true` lets position i see 0..i; `dropout_p` drops weights (pass 0.0 in evaluation, as PyTorch's callers do). The kernel is PyTorch's choice: fused flash attention on the CPU (4-D, no dropout) and on a GPU (f16/bf16, no mask), memory-efficient attention on a GPU, else the math path, each step its own node. The fused kernels record one node (`ScaledDotProductFlashAttentionForCpuBackward0`, ...) and store no [L, S] weights; `torch.nn.attention.sdpa_kernel(SDPBackend.MATH)` picks one.", "q = randn(1, 2, 4, 8)\nscaled_dot_product_attention(q, q, q, is_causal=true).shape";
    Function Training "dropout", "dropout(input, p=0.5, training=true, inplace=false)", "Zeroes each element with probability `p` and scales the rest by 1 / (1 - p), as torch.nn.functional.dropout; `input` itself when `training=false`. On a GPU the graph keeps a one-byte mask per element (`NativeDropoutBackward0`), on the cpu a noise tensor of the input's dtype (`MulBackward0`). `inplace=True` writes into `input` as PyTorch's `dropout_` (`x.mul_(noise)` on every device, the noise kept by `MulBackward0`).", "seed(0)\ndropout(ones(8), p=0.5)";
    Function Training "dropout2d", "dropout2d(input, p=0.5, training=true, inplace=false)", "Zeroes whole channels (`x[n, c]` of an (N, C, H, W) or (N, C, L) input) with probability `p` and scales the rest by 1 / (1 - p), as torch.nn.functional.dropout2d: one random draw per channel, `x * noise` (MulBackward0).", "seed(0)\ndropout2d(ones(2, 3, 2, 2), p=0.5)";
    Statement Training "class", "class NAME(Base) { fn __init__(self, ...) { ... } fn forward(self, x) { ... } }", "Defines a class, as Python's: methods take the instance as `self`, `__init__` makes each instance, attributes are set with `self.name = value`, a method is found on the class or the classes above it (several bases, in Python's method resolution order), `super()` reaches the next one. A class derived from a layer (`class Scaled(Linear)`) makes that layer: `super().__init__(4, 2)` makes its parameters, `super().forward(x)` runs it. A class derived from `Module` makes modules: a `Parameter`, a module or none assigned to `self` is registered as PyTorch's `Module.__setattr__` does (`parameters()`, `state_dict()`, the printed model), and calling the instance runs `forward`.", "class Net(Module) {\n  fn __init__(self, hidden=8) {\n    super().__init__()\n    self.fc1 = Linear(4, hidden)\n    self.fc2 = Linear(hidden, 2)\n  }\n  fn forward(self, x) { return self.fc2(relu(self.fc1(x))) }\n}\nmodel = Net()\nmodel(randn(3, 4)).shape\nmodel";
    Function Training "Variable", "Variable(data=none, requires_grad=false, volatile=false)", "PyTorch's `torch.autograd.Variable`, the wrapper of PyTorch before 0.4, which since then gives a tensor: `data` detached (its memory shared), requiring grad as asked; `volatile=True` only warns (`with torch.no_grad():` is its successor). Every tensor is an `isinstance` of it.", "x = Variable(tensor([1., 2.]), requires_grad=true)\n(x * 2).sum().backward()\nx.grad";
    Function Training "Function", "Function", "PyTorch's `torch.autograd.Function`: the base of a class with a `@staticmethod forward(ctx, *args)` and `backward(ctx, *grads)`, called as `MyFunction.apply(*args)`. `forward` runs without recording; its outputs come from one node, `MyFunctionBackward`, whose backward is yours: it gets `ctx` (what `ctx.save_for_backward(...)` kept is `ctx.saved_tensors`, and `ctx.needs_input_grad` says which arguments want a gradient) and returns one gradient or None per argument of `forward`.", "class Cube(Function) {\n  @staticmethod\n  fn forward(ctx, x) { ctx.save_for_backward(x); return x ** 3 }\n  @staticmethod\n  fn backward(ctx, g) { x = ctx.saved_tensors[0]; return g * 3 * x ** 2 }\n}\nx = tensor([1., 2.], requires_grad=true)\ny = Cube.apply(x)\ny.sum().backward()\nx.grad";
    Function Training "Module", "Module()", "PyTorch's `nn.Module`: the base of a model's class (`class Net(Module) { }`), which registers the parameters, buffers and modules assigned to it; `Module()` alone is an empty module.", "class Scale(Module) {\n  fn __init__(self) { super().__init__(); self.w = Parameter(ones(2)) }\n  fn forward(self, x) { return x * self.w }\n}\nScale()(tensor([1., 2.]))";
    Function Training "Parameter", "Parameter(data, requires_grad=true)", "`data`'s elements as a parameter (a leaf that requires grad, sharing its memory), as `nn.Parameter`: a module registers a Parameter assigned to one of its attributes.", "p = Parameter(zeros(3))\np.requires_grad";
    Function Training "UninitializedParameter", "UninitializedParameter(requires_grad=true, device=none, dtype=none)", "A parameter with no elements yet, as `nn.UninitializedParameter`: what a lazy module holds until its first call; its shape cannot be read.", "p = UninitializedParameter()\np";
    Function Training "UninitializedBuffer", "UninitializedBuffer(requires_grad=false, device=none, dtype=none)", "A buffer with no elements yet, as `nn.UninitializedBuffer` (a lazy batch norm's running statistics until its first call).", "b = UninitializedBuffer()\nb";
    Function Training "Linear", "Linear(in_features, out_features, bias=true, device=none, dtype=none)", "`y = x @ weight.T + bias`, as `nn.Linear`: weight [out, in] and bias [out] drawn as PyTorch's `reset_parameters` draws them (uniform within 1/sqrt(in_features)) from the device's generator.", "seed(0)\nfc = Linear(4, 2)\nfc(ones(3, 4)).shape\nfc.weight.shape";
    Function Training "ReLU", "ReLU(inplace=false)", "`relu` as a module (`nn.ReLU`); `inplace=True` writes it into its input (`relu_`: no new memory, and the input changes, as in PyTorch).", "ReLU()(tensor([-1., 2.]))";
    Function Training "LeakyReLU", "LeakyReLU(negative_slope=0.01, inplace=false)", "`leaky_relu` as a module (`nn.LeakyReLU`), as GANs' discriminators use it.", "LeakyReLU(0.2)(tensor([-1., 2.]))";
    Function Training "leaky_relu", "leaky_relu(input, negative_slope=0.01, inplace=false)", "Each element where it is above 0, times `negative_slope` elsewhere, as torch.nn.functional.leaky_relu; its node is `LeakyReluBackward0`; `inplace=True` writes into `input`.", "leaky_relu(tensor([-1., 2.], requires_grad=true), 0.2)";
    Function Training "leaky_relu_", "leaky_relu_(input, negative_slope=0.01)", "`leaky_relu` written into `input` (torch.nn.functional.leaky_relu_).", "x = tensor([-1., 2.])\nleaky_relu_(x, 0.2)\nx";
    Function Training "elu", "elu(input, alpha=1.0, inplace=false)", "ELU of each element: x above 0, `alpha * (exp(x) - 1)` elsewhere (torch.nn.functional.elu; `EluBackward0`); `inplace=True` writes into `input`.", "elu(tensor([-1., 0., 2.]))";
    Function Training "elu_", "elu_(input, alpha=1.0)", "`elu` written into `input` (torch.nn.functional.elu_).", "x = tensor([-1., 2.])\nelu_(x)\nx";
    Function Training "selu", "selu(input, inplace=false)", "SELU: `elu` with PyTorch's constants, `scale * (x if x > 0 else alpha * (exp(x) - 1))` (torch.nn.functional.selu; `EluBackward0`).", "selu(tensor([-1., 0., 2.]))";
    Function Training "selu_", "selu_(input)", "`selu` written into `input` (torch.nn.functional.selu_).", "x = tensor([-1., 2.])\nselu_(x)\nx";
    Function Training "celu", "celu(input, alpha=1.0, inplace=false)", "CELU: x above 0, `alpha * (exp(x / alpha) - 1)` elsewhere (torch.nn.functional.celu; `CeluBackward0`).", "celu(tensor([-1., 0., 2.]), 2.0)";
    Function Training "celu_", "celu_(input, alpha=1.0)", "`celu` written into `input` (torch.nn.functional.celu_).", "x = tensor([-1., 2.])\ncelu_(x)\nx";
    Function Training "softplus", "softplus(input, beta=1.0, threshold=20.0)", "`log(1 + exp(beta * x)) / beta`, x itself where `beta * x` is above `threshold` (torch.nn.functional.softplus; `SoftplusBackward0`).", "softplus(tensor([-1., 0., 30.]))";
    Function Training "hardtanh", "hardtanh(input, min_val=-1.0, max_val=1.0, inplace=false)", "Each element clamped to [min_val, max_val]; the gradient is 0 at and beyond the bounds (torch.nn.functional.hardtanh; `HardtanhBackward0`).", "hardtanh(tensor([-2., 0.5, 2.]))";
    Function Training "hardtanh_", "hardtanh_(input, min_val=-1.0, max_val=1.0)", "`hardtanh` written into `input` (torch.nn.functional.hardtanh_).", "x = tensor([-2., 2.])\nhardtanh_(x)\nx";
    Function Training "relu6", "relu6(input, inplace=false)", "`hardtanh(x, 0, 6)`, as MobileNets use it (torch.nn.functional.relu6; `HardtanhBackward0`).", "relu6(tensor([-1., 3., 9.]))";
    Function Training "logsigmoid", "logsigmoid(input)", "`log(sigmoid(x))`, computed as `min(x, 0) - log1p(exp(-|x|))` so it does not overflow (torch.nn.functional.logsigmoid; `LogSigmoidBackward0`).", "logsigmoid(tensor([-100., 0., 2.]))";
    Function Training "hardswish", "hardswish(input, inplace=false)", "`x * relu6(x + 3) / 6` (torch.nn.functional.hardswish; `HardswishBackward0`).", "hardswish(tensor([-4., 1., 4.]))";
    Function Training "hardsigmoid", "hardsigmoid(input, inplace=false)", "`relu6(x + 3) / 6` (torch.nn.functional.hardsigmoid; `HardsigmoidBackward0`).", "hardsigmoid(tensor([-4., 1., 4.]))";
    Function Training "hardshrink", "hardshrink(input, lambd=0.5)", "0 within `lambd` of 0, x elsewhere (torch.nn.functional.hardshrink; `HardshrinkBackward0`).", "hardshrink(tensor([-1., 0.2, 1.]))";
    Function Training "softshrink", "softshrink(input, lambd=0.5)", "x moved `lambd` towards 0, 0 within `lambd` of it (torch.nn.functional.softshrink; `SoftshrinkBackward0`).", "softshrink(tensor([-1., 0.2, 1.]))";
    Function Training "threshold", "threshold(input, threshold, value, inplace=false)", "`value` where x is at most `threshold`, x elsewhere (torch.nn.functional.threshold; `ThresholdBackward0`).", "threshold(tensor([-1., 0.2, 1.]), 0.5, 9.)";
    Function Training "threshold_", "threshold_(input, threshold, value)", "`threshold` written into `input` (torch.nn.functional.threshold_).", "x = tensor([-1., 1.])\nthreshold_(x, 0., 5.)\nx";
    Function Training "softsign", "softsign(input)", "`x / (1 + |x|)`, recorded as its parts (`AbsBackward0`, `AddBackward0`, `DivBackward0`) as PyTorch's (torch.nn.functional.softsign).", "softsign(tensor([-3., 1.]))";
    Function Training "tanhshrink", "tanhshrink(input)", "`x - tanh(x)` (torch.nn.functional.tanhshrink; `SubBackward0`).", "tanhshrink(tensor([-1., 2.]))";
    Function Training "softmin", "softmin(input, dim=none)", "`softmax(-x, dim)`; without `dim`, PyTorch's implicit choice (0 for 0, 1 or 3 dims, else 1) (torch.nn.functional.softmin).", "softmin(tensor([[1., 2.]]), 1)";
    Function Training "glu", "glu(input, dim=-1)", "Gated linear unit: x's first half along `dim` times the sigmoid of its second half; the size along `dim` must be even (torch.nn.functional.glu; `GluBackward0`).", "glu(tensor([[1., 2., 0., 100.]]))";
    Function Training "prelu", "prelu(input, weight)", "x above 0, `weight * x` elsewhere; `weight` holds one slope, or one per channel (dim 1) (torch.nn.functional.prelu; `PreluKernelBackward0`).", "prelu(tensor([[-1., 2.], [-4., 1.]]), tensor([0.5, 0.25]))";
    Function Training "ELU", "ELU(alpha=1.0, inplace=false)", "`elu` as a module (`nn.ELU`), shown as `ELU(alpha=1.0)`.", "ELU()(tensor([-1., 2.]))";
    Function Training "SELU", "SELU(inplace=false)", "`selu` as a module (`nn.SELU`).", "SELU()(tensor([-1., 2.]))";
    Function Training "CELU", "CELU(alpha=1.0, inplace=false)", "`celu` as a module (`nn.CELU`).", "CELU(0.5)(tensor([-1., 2.]))";
    Function Training "Softplus", "Softplus(beta=1.0, threshold=20.0)", "`softplus` as a module (`nn.Softplus`).", "Softplus(beta=2)(tensor([-1., 2.]))";
    Function Training "Hardtanh", "Hardtanh(min_val=-1.0, max_val=1.0, inplace=false)", "`hardtanh` as a module (`nn.Hardtanh`).", "Hardtanh(-2, 2)(tensor([-3., 1., 3.]))";
    Function Training "ReLU6", "ReLU6(inplace=false)", "`relu6` as a module (`nn.ReLU6`); `inplace=True` writes into its input.", "ReLU6()(tensor([-1., 3., 9.]))";
    Function Training "LogSigmoid", "LogSigmoid()", "`logsigmoid` as a module (`nn.LogSigmoid`).", "LogSigmoid()(tensor([-1., 2.]))";
    Function Training "Hardswish", "Hardswish(inplace=false)", "`hardswish` as a module (`nn.Hardswish`), as MobileNetV3 uses it.", "Hardswish()(tensor([-4., 1., 4.]))";
    Function Training "Hardsigmoid", "Hardsigmoid(inplace=false)", "`hardsigmoid` as a module (`nn.Hardsigmoid`).", "Hardsigmoid()(tensor([-4., 1., 4.]))";
    Function Training "Hardshrink", "Hardshrink(lambd=0.5)", "`hardshrink` as a module (`nn.Hardshrink`), shown as `Hardshrink(0.5)`.", "Hardshrink()(tensor([-1., 0.2]))";
    Function Training "Softshrink", "Softshrink(lambd=0.5)", "`softshrink` as a module (`nn.Softshrink`).", "Softshrink()(tensor([-1., 0.2]))";
    Function Training "Threshold", "Threshold(threshold, value, inplace=false)", "`threshold` as a module (`nn.Threshold`).", "Threshold(0.5, 9.)(tensor([-1., 1.]))";
    Function Training "Softsign", "Softsign()", "`softsign` as a module (`nn.Softsign`).", "Softsign()(tensor([-3., 1.]))";
    Function Training "Tanhshrink", "Tanhshrink()", "`tanhshrink` as a module (`nn.Tanhshrink`).", "Tanhshrink()(tensor([-1., 2.]))";
    Function Training "Softmin", "Softmin(dim=none)", "`softmin` along `dim` as a module (`nn.Softmin`).", "Softmin(dim=1)(tensor([[1., 2.]]))";
    Function Training "GLU", "GLU(dim=-1)", "`glu` as a module (`nn.GLU`).", "GLU()(tensor([[1., 2., 0., 100.]]))";
    Function Training "PReLU", "PReLU(num_parameters=1, init=0.25, device=none, dtype=none)", "`prelu` with a learnt slope (`nn.PReLU`): a weight of `num_parameters` elements, each `init` (one for all channels, or one per channel); its gradient goes through the weight's view (`ViewBackward0`).", "PReLU()(tensor([-1., 2.]))\nPReLU(3).weight";
    Function Training "LSTM", "LSTM(input_size, hidden_size, num_layers=1, bias=true, batch_first=false, dropout=0.0, bidirectional=false, proj_size=0, device=none, dtype=none)", "A long short-term memory over a sequence, as `nn.LSTM`: `out, (h_n, c_n) = lstm(x, (h_0, c_0))` for `x` [L, N, input_size] (`batch_first`: [N, L, input_size]; [L, input_size] unbatched), the states [num_layers * directions, N, hidden_size] (zeros when not given). Weights `weight_ih_l0` [4 * hidden, input], `weight_hh_l0`, `bias_ih_l0`, `bias_hh_l0` (`_reverse` for a bidirectional layer's second direction), drawn as PyTorch draws them. Composed of recorded ops as PyTorch's cpu path composes it (the output's node is `StackBackward0`); on a GPU PyTorch makes it one cuDNN call (`CudnnRnnBackward0`).", "seed(0)\nlstm = LSTM(3, 4, batch_first=true)\nout, (h, c) = lstm(randn(2, 5, 3))\nout.shape\nh.shape";
    Function Training "MultiheadAttention", "MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=true, add_bias_kv=false, add_zero_attn=false, kdim=none, vdim=none, batch_first=false, device=none, dtype=none)", "Attention of `num_heads` heads, as `nn.MultiheadAttention`: `out, weights = attn(query, key, value, key_padding_mask=none, need_weights=true, attn_mask=none, average_attn_weights=true, is_causal=false)` for a query [L, N, E] (`batch_first`: [N, L, E]; [L, E] unbatched) and key and value [S, N, E]. The inputs are projected by `in_proj_weight` [3E, E] (one product when query, key and value are one tensor) and `in_proj_bias`, each head attends on its E / num_heads features, `out_proj` joins them. `weights` [N, L, S] are averaged over the heads (`average_attn_weights=false`: [N, heads, L, S]); with `need_weights=false` they are none and the heads run through `scaled_dot_product_attention`. A bool mask hides where it is true (the opposite of `scaled_dot_product_attention`'s); a float mask is added. Parameters drawn as PyTorch's: `xavier_uniform_` projections, zero biases.", "seed(0)\nattn = MultiheadAttention(8, 2)\nx = randn(5, 3, 8)\nout, w = attn(x, x, x)\nout.shape\nw.shape";
    Function Training "TransformerEncoderLayer", "TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=relu, layer_norm_eps=1e-5, batch_first=false, norm_first=false, bias=true, device=none, dtype=none)", "One encoder block of `nn.Transformer`: `x = norm1(x + dropout1(self_attn(x, x, x)))`, then `x = norm2(x + dropout2(linear2(dropout(activation(linear1(x))))))` (`norm_first`: each norm before its block, `x + block(norm(x))`). Called as `layer(src, src_mask=none, src_key_padding_mask=none, is_causal=false)`. `activation`: \"relu\", \"gelu\", `F.relu`, `F.gelu` or a module.", "seed(0)\nlayer = TransformerEncoderLayer(8, 2, dim_feedforward=16)\nlayer(randn(5, 3, 8)).shape";
    Function Training "TransformerDecoderLayer", "TransformerDecoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=relu, layer_norm_eps=1e-5, batch_first=false, norm_first=false, bias=true, device=none, dtype=none)", "One decoder block of `nn.Transformer`: self-attention over the target, attention (`multihead_attn`) from the target to the encoder's output `memory`, then the feed-forward block, each with its dropout, residual and norm. Called as `layer(tgt, memory, tgt_mask=none, memory_mask=none, tgt_key_padding_mask=none, memory_key_padding_mask=none, tgt_is_causal=false, memory_is_causal=false)`.", "seed(0)\nlayer = TransformerDecoderLayer(8, 2, dim_feedforward=16)\nlayer(randn(4, 3, 8), randn(5, 3, 8)).shape";
    Function Training "TransformerEncoder", "TransformerEncoder(encoder_layer, num_layers, norm=none, enable_nested_tensor=true, mask_check=true)", "`num_layers` copies of `encoder_layer` (`copy.deepcopy`, as PyTorch's `_get_clones`: each starts with the layer's values), each on the last one's output, then `norm`. Called as `encoder(src, mask=none, src_key_padding_mask=none, is_causal=none)`; a `mask` equal to `Transformer.generate_square_subsequent_mask` is taken as causal, as PyTorch's `_detect_is_causal_mask` does.", "seed(0)\nlayer = TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=true)\nencoder = TransformerEncoder(layer, 2)\nencoder(randn(3, 5, 8)).shape";
    Function Training "TransformerDecoder", "TransformerDecoder(decoder_layer, num_layers, norm=none)", "`num_layers` copies of `decoder_layer`, each on the last one's output and the encoder's `memory`, then `norm`. Called as `decoder(tgt, memory, tgt_mask=none, memory_mask=none, tgt_key_padding_mask=none, memory_key_padding_mask=none, tgt_is_causal=none, memory_is_causal=false)`.", "seed(0)\nlayer = TransformerDecoderLayer(8, 2, dim_feedforward=16)\ndecoder = TransformerDecoder(layer, 2)\ndecoder(randn(4, 3, 8), randn(5, 3, 8)).shape";
    Function Training "Transformer", "Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048, dropout=0.1, activation=relu, custom_encoder=none, custom_decoder=none, layer_norm_eps=1e-5, batch_first=false, norm_first=false, bias=true, device=none, dtype=none)", "`nn.Transformer`: an `encoder` (TransformerEncoder of `num_encoder_layers` layers and a LayerNorm) and a `decoder` (TransformerDecoder, likewise); every parameter of two or more dimensions drawn again by `xavier_uniform_`, as PyTorch's `_reset_parameters`. Called as `model(src, tgt, src_mask=none, tgt_mask=none, memory_mask=none, src_key_padding_mask=none, tgt_key_padding_mask=none, memory_key_padding_mask=none, src_is_causal=none, tgt_is_causal=none, memory_is_causal=false)`; `Transformer.generate_square_subsequent_mask(sz)` is the causal mask (0 on and below the diagonal, -inf above).", "seed(0)\nmodel = Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)\nmodel(randn(5, 3, 8), randn(4, 3, 8)).shape";
    Function Training "generate_square_subsequent_mask", "generate_square_subsequent_mask(sz, device=none, dtype=none)", "The causal mask of a sequence of `sz`, as `nn.Transformer.generate_square_subsequent_mask` (a static method, also on a model): 0 on and below the diagonal, -inf above it, so that each position attends to itself and the ones before.", "generate_square_subsequent_mask(3)";
    Function Training "GRU", "GRU(input_size, hidden_size, num_layers=1, bias=true, batch_first=false, dropout=0.0, bidirectional=false, device=none, dtype=none)", "A gated recurrent unit over a sequence, as `nn.GRU`: `out, h_n = gru(x, h_0)`, shapes as `LSTM`'s; three gates (`weight_ih_l0` [3 * hidden, input]).", "seed(0)\ngru = GRU(3, 4, num_layers=2)\nout, h = gru(randn(5, 2, 3))\nh.shape";
    Function Training "RNN", "RNN(input_size, hidden_size, num_layers=1, nonlinearity=\"tanh\", bias=true, batch_first=false, dropout=0.0, bidirectional=false, device=none, dtype=none)", "An Elman recurrence over a sequence, as `nn.RNN`: `h_t = tanh(x_t W_ih.T + b_ih + h_(t-1) W_hh.T + b_hh)` (`nonlinearity=\"relu\"`: relu); `out, h_n = rnn(x, h_0)`.", "seed(0)\nrnn = RNN(3, 4)\nout, h = rnn(randn(5, 3))\nout.shape";
    Function Training "LSTMCell", "LSTMCell(input_size, hidden_size, bias=true, device=none, dtype=none)", "One step of an LSTM, as `nn.LSTMCell`: `h, c = cell(x, (h, c))` for `x` [N, input_size] (zeros when no state is given).", "seed(0)\ncell = LSTMCell(3, 4)\nh, c = cell(randn(2, 3))\nh.grad_fn";
    Function Training "GRUCell", "GRUCell(input_size, hidden_size, bias=true, device=none, dtype=none)", "One step of a GRU, as `nn.GRUCell`: `h = cell(x, h)`.", "seed(0)\nGRUCell(3, 4)(randn(2, 3)).shape";
    Function Training "RNNCell", "RNNCell(input_size, hidden_size, bias=true, nonlinearity=\"tanh\", device=none, dtype=none)", "One step of an Elman RNN, as `nn.RNNCell`: `h = cell(x, h)`.", "seed(0)\nRNNCell(3, 4, nonlinearity=\"relu\")(randn(2, 3)).shape";
    Function Training "Tanh", "Tanh()", "`tanh` as a module (`nn.Tanh`).", "Tanh()(tensor([0., 1.]))";
    Function Training "Sigmoid", "Sigmoid()", "`sigmoid` as a module (`nn.Sigmoid`).", "Sigmoid()(tensor([0.]))";
    Function Training "Identity", "Identity(*args, **kwargs)", "Gives its input back (`nn.Identity`): a placeholder for a layer left out; the arguments are ignored, as PyTorch's (so `Identity(out_size)` stands where `BatchNorm1d(out_size)` would).", "Identity()(ones(2))";
    Function Training "Flatten", "Flatten(start_dim=1, end_dim=-1)", "The dimensions from `start_dim` to `end_dim` as one (`nn.Flatten`): [64, 1, 28, 28] to [64, 784].", "Flatten()(ones(64, 1, 28, 28)).shape";
    Function Training "Dropout", "Dropout(p=0.5, inplace=false)", "`dropout` as a module (`nn.Dropout`): zeroes elements with probability `p` in training mode and gives its input back in eval mode (`model.eval()`), so the model, not the call, decides.", "seed(0)\nd = Dropout(0.5)\nd(ones(6))\nd.eval()\nd(ones(6))";
    Function Training "Dropout2d", "Dropout2d(p=0.5, inplace=false)", "`dropout2d` as a module (`nn.Dropout2d`): whole channels zeroed in training mode, its input back in eval mode.", "seed(0)\nd = Dropout2d(0.5)\nd(ones(1, 4, 2, 2))";
    Function Training "SiLU", "SiLU(inplace=false)", "`silu` as a module (`nn.SiLU`), `inplace=True` as `nn.ReLU`'s.", "SiLU()(tensor([-1., 2.]))";
    Function Training "Mish", "Mish(inplace=false)", "`mish` as a module (`nn.Mish`).", "Mish()(tensor([-1., 2.]))";
    Function Training "GELU", "GELU(approximate=\"none\")", "`gelu` as a module (`nn.GELU`), shown as `GELU(approximate='none')`.", "GELU()(tensor([-1., 0., 1.]))";
    Function Training "Softmax", "Softmax(dim=none)", "`softmax` along `dim` as a module (`nn.Softmax`).", "Softmax(dim=1)(tensor([[1., 2.]]))";
    Function Training "EmbeddingBag", "EmbeddingBag(num_embeddings, embedding_dim, max_norm=none, norm_type=2.0, scale_grad_by_freq=false, mode=\"mean\", sparse=false, _weight=none, include_last_offset=false, padding_idx=none, device=none, dtype=none)", "Bags of embeddings (`nn.EmbeddingBag`, a text classifier's first layer): `bag(text, offsets)` sums or averages the rows of each bag, one node (`EmbeddingBagBackward0`); the weight standard normal as PyTorch draws it. Modes `sum` and `mean`.", "bag = EmbeddingBag(10, 3, mode=\"sum\")\nbag(tensor([1, 2, 4, 5]), tensor([0, 2])).shape";
    Function Training "Bilinear", "Bilinear(in1_features, in2_features, out_features, bias=true, device=none, dtype=none)", "A bilinear layer (`nn.Bilinear`): `m(x1, x2)` is `x1^T W x2 + b` per row, the weight [out, in1, in2] and bias uniform in ±1/sqrt(in1_features), as PyTorch initialises them.", "m = Bilinear(3, 2, 4)\nm(ones(5, 3), ones(5, 2)).shape";
    Function Training "Softmax2d", "Softmax2d()", "`softmax` over the channels of an image `[N, C, H, W]` or `[C, H, W]` (dim -3) as a module (`nn.Softmax2d`).", "Softmax2d()(ones(1, 2, 1, 1))";
    Function Training "LogSoftmax", "LogSoftmax(dim=none)", "`log_softmax` along `dim` as a module (`nn.LogSoftmax`).", "LogSoftmax(dim=1)(tensor([[1., 2.]]))";
    Function Training "Sequential", "Sequential(*modules)", "Modules run one after another, each on the last one's output (`nn.Sequential`); `seq[0]`, `len(seq)`, `for m in seq` and `seq.append(m)` reach them.", "model = Sequential(Linear(4, 8), ReLU(), Linear(8, 2))\nmodel(randn(3, 4)).shape\nmodel";
    Function Training "ModuleList", "ModuleList(modules=none)", "A list of modules whose parameters the owner registers (`nn.ModuleList`): index it, iterate over it, `append` to it; it has no forward of its own.", "layers = ModuleList([Linear(4, 4), Linear(4, 4)])\nlen(layers)";
    Function Training "ParameterList", "ParameterList(values=none)", "Parameters kept in a list, registered by their owner as `name.0`, `name.1`, ... (`nn.ParameterList`): index it, iterate over it, `append`/`extend` it; a tensor put in is made a `Parameter`. It cannot be called.", "ws = ParameterList([Parameter(ones(2, 2)), Parameter(zeros(2))])\nws.append(ones(3))\nws";
    Function Training "ParameterDict", "ParameterDict(parameters=none)", "Parameters kept by name, registered by their owner (`nn.ParameterDict`): `pd[\"w\"] = t` (made a `Parameter`), `pd[\"w\"]`, `pd.w`, `keys()`, `items()`, `update()`; a plain dict's entries go in sorted by key, as PyTorch's. It cannot be called.", "pd = ParameterDict({\"scale\": ones(2), \"bias\": zeros(2)})\npd.keys()";
    Function Training "ModuleDict", "ModuleDict(modules=none)", "Modules kept by name, registered by their owner (`nn.ModuleDict`): `md[\"fc\"] = Linear(2, 2)`, `md[\"fc\"]`, `len(md)`, `for name in md` (the names), `md.items()`; it has no forward of its own.", "md = ModuleDict()\nmd[\"enc\"] = Linear(4, 2)\nmd[\"dec\"] = Linear(2, 4)\nmd";
    Function Training "Embedding", "Embedding(num_embeddings, embedding_dim, padding_idx=none, max_norm=none, norm_type=2.0, device=none, dtype=none)", "A table of `num_embeddings` vectors of `embedding_dim` (standard normal, as PyTorch draws them); called with integer indices, their rows (`EmbeddingBackward0`, which sums each row's gradients into it), as `nn.Embedding`. With `max_norm`, each row read is first scaled down in place to that `norm_type`-norm where it is longer.", "seed(0)\nemb = Embedding(10, 3)\nemb(tensor([[1, 2], [4, 9]])).shape";
    Function Training "embedding", "embedding(input, weight, padding_idx=none, max_norm=none, norm_type=2.0)", "The rows of `weight` the integer indices `input` pick, as torch.nn.functional.embedding; the row `padding_idx` picks gets no gradient; with `max_norm`, the rows picked are first scaled down in `weight` to that `norm_type`-norm where they are longer.", "embedding(tensor([0, 2]), eye(3))";
    Function Training "BatchNorm1d", "BatchNorm1d(num_features, eps=1e-5, momentum=0.1, affine=true, track_running_stats=true, device=none, dtype=none, bias=true)", "Batch normalisation over [N, C] or [N, C, L], as `nn.BatchNorm1d`: in training mode each channel is normalised by the batch's mean and variance and the running statistics (`running_mean`, `running_var`, buffers in `state_dict`) move by `momentum`; in eval mode the running statistics are used and do not change. One node, `NativeBatchNormBackward0`, keeping the input and each channel's mean and 1/std.", "seed(0)\nbn = BatchNorm1d(3)\ny = bn(randn(8, 3) * 5 + 2)\nbn.running_mean\nbn.eval()\ny = bn(randn(8, 3))\nbn.num_batches_tracked";
    Function Training "BatchNorm2d", "BatchNorm2d(num_features, eps=1e-5, momentum=0.1, affine=true, track_running_stats=true, device=none, dtype=none, bias=true)", "Batch normalisation of images [N, C, H, W] per channel, as `nn.BatchNorm2d` (the modes as `BatchNorm1d`'s).", "bn = BatchNorm2d(2)\nbn(randn(4, 2, 3, 3)).shape";
    Function Training "LazyLinear", "LazyLinear(out_features, bias=true, device=none, dtype=none)", "A `Linear` whose `in_features` its first input gives (its last dimension), as `nn.LazyLinear`: `<UninitializedParameter>`s until the first call, which makes them (drawn then, as PyTorch's `reset_parameters`) and makes the module a `Linear`; an optimizer made before steps them.", "seed(0)\nfc = LazyLinear(2)\nfc(ones(3, 4)).shape\nfc";
    Function Training "LazyConv1d", "LazyConv1d(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true, padding_mode=\"zeros\", device=none, dtype=none)", "A `Conv1d` whose `in_channels` its first input gives, as `nn.LazyConv1d`.", "conv = LazyConv1d(4, 3)\nconv(randn(2, 3, 10)).shape";
    Function Training "LazyConv2d", "LazyConv2d(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true, padding_mode=\"zeros\", device=none, dtype=none)", "A `Conv2d` whose `in_channels` its first input gives (its channels), as `nn.LazyConv2d`.", "conv = LazyConv2d(4, 3)\nconv(randn(2, 3, 8, 8)).shape\nconv";
    Function Training "LazyBatchNorm1d", "LazyBatchNorm1d(eps=1e-5, momentum=0.1, affine=true, track_running_stats=true, device=none, dtype=none)", "A `BatchNorm1d` whose `num_features` its first input gives, as `nn.LazyBatchNorm1d`.", "bn = LazyBatchNorm1d()\nbn(randn(4, 3)).shape";
    Function Training "LazyBatchNorm2d", "LazyBatchNorm2d(eps=1e-5, momentum=0.1, affine=true, track_running_stats=true, device=none, dtype=none)", "A `BatchNorm2d` whose `num_features` its first input gives, as `nn.LazyBatchNorm2d`.", "bn = LazyBatchNorm2d()\nbn(randn(2, 3, 4, 4)).shape";
    Function Training "LazyBatchNorm3d", "LazyBatchNorm3d(eps=1e-5, momentum=0.1, affine=true, track_running_stats=true, device=none, dtype=none)", "A `BatchNorm3d` whose `num_features` its first input gives, as `nn.LazyBatchNorm3d`.", "bn = LazyBatchNorm3d()\nbn(randn(2, 3, 2, 4, 4)).shape";
    Function Training "batch_norm", "batch_norm(input, running_mean, running_var, weight=none, bias=none, training=false, momentum=0.1, eps=1e-5)", "Batch normalisation as torch.nn.functional.batch_norm: the batch's statistics when `training` (the running ones updated in place), else the running ones.", "batch_norm(randn(4, 2), zeros(2), ones(2), training=true).shape";
    Function Training "Conv2d", "Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true, padding_mode=\"zeros\", device=none, dtype=none)", "A 2-D convolution over images [N, C, H, W], as `nn.Conv2d`: weight [out, in / groups, kh, kw] and bias drawn as PyTorch draws them; `padding` also `\"valid\"` or `\"same\"`. It computes with the windows laid out as columns and one matrix product per group (im2col), on every backend; one node, `ConvolutionBackward0`, keeping the input and the weight.", "seed(0)\nconv = Conv2d(1, 4, 3, padding=1)\nconv(randn(2, 1, 8, 8)).shape\nconv";
    Function Training "MaxPool1d", "MaxPool1d(kernel_size, stride=none, padding=0, dilation=1, return_indices=false, ceil_mode=false)", "Each window's largest element along the last dim of [N, C, L] or [C, L], as `nn.MaxPool1d`: PyTorch's 2-d pool over `x.unsqueeze(-2)`, squeezed back (`SqueezeBackward1` over `MaxPool2DWithIndicesBackward0`).", "MaxPool1d(2)(arange(8.).reshape(1, 2, 4))";
    Function Training "MaxPool2d", "MaxPool2d(kernel_size, stride=none, padding=0, dilation=1, return_indices=false, ceil_mode=false)", "Each window's largest element (stride: the kernel's size unless given) of [N, C, H, W] or [C, H, W], as `nn.MaxPool2d`; one node, `MaxPool2DWithIndicesBackward0`, keeping where each maximum was.", "MaxPool2d(2)(arange(16.).reshape(1, 1, 4, 4))";
    Function Training "AvgPool1d", "AvgPool1d(kernel_size, stride=none, padding=0, ceil_mode=false, count_include_pad=true)", "Each window's mean along the last dim, as `nn.AvgPool1d` (padding counted; PyTorch's 2-d pool over a 1 x L image).", "AvgPool1d(2)(arange(8.).reshape(1, 2, 4))";
    Function Training "AvgPool2d", "AvgPool2d(kernel_size, stride=none, padding=0, ceil_mode=false, count_include_pad=true, divisor_override=none)", "Each window's mean, as `nn.AvgPool2d` (padding counted).", "AvgPool2d(2)(arange(16.).reshape(1, 1, 4, 4))";
    Function Training "AdaptiveAvgPool1d", "AdaptiveAvgPool1d(output_size)", "The average pool of each row into `output_size` windows, as `nn.AdaptiveAvgPool1d` (any size: uneven windows as PyTorch's; 1 is a mean).", "AdaptiveAvgPool1d(2)(arange(8.).reshape(1, 2, 4))";
    Function Training "AdaptiveAvgPool2d", "AdaptiveAvgPool2d(output_size)", "The average pool of each image into `output_size` windows (an int or a pair), as `nn.AdaptiveAvgPool2d`: any size, uneven or overlapping windows as PyTorch's (1, a ResNet's head, is a mean over the plane, `MeanBackward1`, as PyTorch's).", "AdaptiveAvgPool2d(1)(randn(2, 3, 4, 4)).shape";
    Function Training "AdaptiveMaxPool1d", "AdaptiveMaxPool1d(output_size, return_indices=false)", "The max pool of each row into `output_size` windows, as `nn.AdaptiveMaxPool1d` (any size: uneven windows as PyTorch's).", "AdaptiveMaxPool1d(1)(arange(8.).reshape(1, 2, 4))";
    Function Training "AdaptiveMaxPool2d", "AdaptiveMaxPool2d(output_size, return_indices=false)", "The max pool of each image into `output_size` windows, as `nn.AdaptiveMaxPool2d` (any size: uneven or overlapping windows as PyTorch's); its node is `AdaptiveMaxPool2DBackward0`.", "AdaptiveMaxPool2d((2, 1))(arange(16.).reshape(1, 1, 4, 4))";
    Function Training "conv2d", "conv2d(input, weight, bias=none, stride=1, padding=0, dilation=1, groups=1)", "A 2-D convolution, as torch.nn.functional.conv2d (`Conv2d`'s computation).", "conv2d(ones(1, 1, 3, 3), ones(1, 1, 2, 2))";
    Function Training "interpolate", "interpolate(input, size=none, scale_factor=none, mode=\"nearest\", align_corners=none, recompute_scale_factor=none, antialias=false)", "Resizes sequences [N, C, L] or images [N, C, H, W] to `size`, or by `scale_factor` (the output `floor(input * scale)`), as torch.nn.functional.interpolate: modes `nearest`, `nearest-exact`, `linear` and `bilinear` (`align_corners`), the samples placed as PyTorch's kernels place them; nodes `UpsampleNearest2DBackward0`, `UpsampleBilinear2DBackward0`...", "interpolate(tensor([[[[1., 2.], [3., 4.]]]]), scale_factor=2)";
    Function Training "upsample", "upsample(input, size=none, scale_factor=none, mode=\"nearest\", align_corners=none)", "The old name of `interpolate` (torch.nn.functional.upsample).", "upsample(tensor([[[1., 2.]]]), size=4, mode=\"linear\")";
    Function Training "Upsample", "Upsample(size=none, scale_factor=none, mode=\"nearest\", align_corners=none, recompute_scale_factor=none)", "`interpolate` as a module (`nn.Upsample`), shown as `Upsample(scale_factor=2.0, mode='nearest')`.", "Upsample(scale_factor=2, mode=\"bilinear\")(ones(1, 1, 2, 2)).shape";
    Function Training "UpsamplingNearest2d", "UpsamplingNearest2d(size=none, scale_factor=none)", "`Upsample` with mode `nearest` (`nn.UpsamplingNearest2d`).", "UpsamplingNearest2d(scale_factor=2)(ones(1, 1, 2, 2)).shape";
    Function Training "UpsamplingBilinear2d", "UpsamplingBilinear2d(size=none, scale_factor=none)", "`Upsample` with mode `bilinear` and `align_corners=True` (`nn.UpsamplingBilinear2d`).", "UpsamplingBilinear2d(size=3)(tensor([[[[0., 1.], [2., 3.]]]]))";
    Function Training "pixel_shuffle", "pixel_shuffle(input, upscale_factor)", "[*, C * r * r, H, W] to [*, C, H * r, W * r]: each group of r * r channels interleaved into one plane r times larger, the sub-pixel convolution of super-resolution (torch.nn.functional.pixel_shuffle; `PixelShuffleBackward0`).", "pixel_shuffle(arange(8.).reshape(1, 4, 1, 2), 2)";
    Function Training "pixel_unshuffle", "pixel_unshuffle(input, downscale_factor)", "The inverse of `pixel_shuffle` (torch.nn.functional.pixel_unshuffle; `PixelUnshuffleBackward0`).", "pixel_unshuffle(arange(16.).reshape(1, 1, 4, 4), 2).shape";
    Function Training "unfold", "unfold(input, kernel_size, dilation=1, padding=0, stride=1)", "An image batch [N, C, H, W]'s sliding windows as columns [N, C * kh * kw, L], L the windows (im2col; torch.nn.functional.unfold, `Im2ColBackward0`): a convolution is `unfold`, a matrix product and `fold`.", "unfold(arange(16.).reshape(1, 1, 4, 4), 2).shape";
    Function Training "fold", "fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1)", "Columns [N, C * kh * kw, L] added back into the places of an image [N, C, H, W] of `output_size` their windows cover, overlaps summed (col2im; torch.nn.functional.fold, `Col2ImBackward0`): `unfold`'s adjoint.", "fold(ones(1, 4, 9), (4, 4), 2)";
    Function Training "Unfold", "Unfold(kernel_size, dilation=1, padding=0, stride=1)", "`unfold` as a module (`nn.Unfold`).", "Unfold(2)(ones(1, 1, 3, 3)).shape";
    Function Training "Fold", "Fold(output_size, kernel_size, dilation=1, padding=0, stride=1)", "`fold` as a module (`nn.Fold`).", "Fold((3, 3), 2)(ones(1, 4, 4)).shape";
    Function Training "PixelShuffle", "PixelShuffle(upscale_factor)", "`pixel_shuffle` as a module (`nn.PixelShuffle`).", "PixelShuffle(2)(ones(1, 8, 3, 3)).shape";
    Function Training "PixelUnshuffle", "PixelUnshuffle(downscale_factor)", "`pixel_unshuffle` as a module (`nn.PixelUnshuffle`).", "PixelUnshuffle(2)(ones(1, 2, 4, 4)).shape";
    Function Training "Unflatten", "Unflatten(dim, unflattened_size)", "Dim `dim` viewed as the dims `unflattened_size` (one may be -1), as `nn.Unflatten`: a view (`ViewBackward0`), the inverse of `Flatten` in a decoder.", "Unflatten(1, (2, 5))(ones(3, 10)).shape";
    Function Training "ZeroPad2d", "ZeroPad2d(padding)", "Pads images with zeros (`nn.ZeroPad2d`): one int on every side, or (left, right, top, bottom).", "ZeroPad2d((1, 0, 0, 1))(ones(1, 1, 2, 2))";
    Function Training "ZeroPad1d", "ZeroPad1d(padding)", "Pads sequences with zeros (`nn.ZeroPad1d`): one int on both sides, or (left, right).", "ZeroPad1d(1)(ones(1, 1, 2))";
    Function Training "ConstantPad2d", "ConstantPad2d(padding, value)", "Pads images with `value` (`nn.ConstantPad2d`).", "ConstantPad2d(1, 3.5)(ones(1, 1, 1, 1))";
    Function Training "ConstantPad1d", "ConstantPad1d(padding, value)", "Pads sequences with `value` (`nn.ConstantPad1d`).", "ConstantPad1d((2, 0), -1.)(ones(1, 1, 2))";
    Function Training "ReflectionPad2d", "ReflectionPad2d(padding)", "Pads images with their reflection at each edge, the edge not repeated (`nn.ReflectionPad2d`, as style-transfer networks pad; `ReflectionPad2DBackward0`); each pad must be smaller than the size it pads.", "ReflectionPad2d(1)(arange(4.).reshape(1, 1, 2, 2))";
    Function Training "ReflectionPad1d", "ReflectionPad1d(padding)", "Pads sequences with their reflection (`nn.ReflectionPad1d`).", "ReflectionPad1d(2)(arange(4.).reshape(1, 1, 4))";
    Function Training "ReplicationPad2d", "ReplicationPad2d(padding)", "Pads images with copies of their edges (`nn.ReplicationPad2d`; `ReplicationPad2DBackward0`).", "ReplicationPad2d(1)(arange(4.).reshape(1, 1, 2, 2))";
    Function Training "ReplicationPad1d", "ReplicationPad1d(padding)", "Pads sequences with copies of their ends (`nn.ReplicationPad1d`).", "ReplicationPad1d(2)(arange(3.).reshape(1, 1, 3))";
    Function Training "CircularPad2d", "CircularPad2d(padding)", "Pads images with their other side, as if they wrapped around (`nn.CircularPad2d`, `F.pad(x, padding, mode=\"circular\")`): copies into slices of a new tensor, so its history is `CopySlices`, as PyTorch's.", "CircularPad2d(1)(arange(4.).reshape(1, 1, 2, 2))";
    Function Training "CircularPad1d", "CircularPad1d(padding)", "Pads sequences with their other end, as if they wrapped around (`nn.CircularPad1d`).", "CircularPad1d(2)(arange(3.).reshape(1, 1, 3))";
    Function Training "GroupNorm", "GroupNorm(num_groups, num_channels, eps=1e-5, affine=true, device=none, dtype=none)", "Normalizes each sample's channels in `num_groups` groups, each over its channels and places, then a weight and bias per channel (`nn.GroupNorm`; weight ones, bias zeros; `NativeGroupNormBackward0`). Independent of the batch, as diffusion models' U-Nets use it.", "GroupNorm(2, 4)(arange(16.).reshape(1, 4, 2, 2)).shape";
    Function Training "group_norm", "group_norm(input, num_groups, weight=none, bias=none, eps=1e-5)", "`GroupNorm`'s computation (torch.nn.functional.group_norm).", "group_norm(arange(8.).reshape(1, 4, 2), 2)";
    Function Training "BatchNorm3d", "BatchNorm3d(num_features, eps=1e-5, momentum=0.1, affine=true, track_running_stats=true, device=none, dtype=none, bias=true)", "Batch normalisation of volumes [N, C, D, H, W] per channel, as `nn.BatchNorm3d` (the modes as `BatchNorm1d`'s).", "bn = BatchNorm3d(2)\nbn(randn(2, 2, 2, 3, 3)).shape";
    Function Training "InstanceNorm3d", "InstanceNorm3d(num_features, eps=1e-5, momentum=0.1, affine=false, track_running_stats=false, device=none, dtype=none)", "`InstanceNorm2d` over volumes [N, C, D, H, W] (`nn.InstanceNorm3d`).", "InstanceNorm3d(2)(randn(1, 2, 2, 2, 2)).shape";
    Function Training "InstanceNorm2d", "InstanceNorm2d(num_features, eps=1e-5, momentum=0.1, affine=false, track_running_stats=false, device=none, dtype=none)", "Normalizes each sample's channels on their own over their places (`nn.InstanceNorm2d`, style transfer's norm), computed as PyTorch does: the batch viewed as one sample of N * C channels and batch-normed (`ViewBackward0`, `NativeBatchNormBackward0`); `affine` adds a weight and bias (`RepeatBackward0`), `track_running_stats` running statistics averaged over the samples.", "InstanceNorm2d(2)(arange(16.).reshape(2, 2, 2, 2)).shape";
    Function Training "InstanceNorm1d", "InstanceNorm1d(num_features, eps=1e-5, momentum=0.1, affine=false, track_running_stats=false, device=none, dtype=none)", "`InstanceNorm2d` over sequences [N, C, L] (`nn.InstanceNorm1d`).", "InstanceNorm1d(2)(arange(12.).reshape(2, 2, 3))";
    Function Training "instance_norm", "instance_norm(input, running_mean=none, running_var=none, weight=none, bias=none, use_input_stats=true, momentum=0.1, eps=1e-5)", "`InstanceNorm`'s computation (torch.nn.functional.instance_norm).", "instance_norm(arange(6.).reshape(1, 2, 3))";
    Function Tensors "bernoulli", "bernoulli(input, generator=none)", "1 where a uniform draw falls below `input`'s element (each a probability), else 0, in its dtype, as torch.bernoulli (`BernoulliBackward0`: no gradient flows).", "seed(0)\nbernoulli(full((6,), 0.5))";
    Function Tensors "randint_like", "randint_like(input, low=0, high=none, dtype=none, generator=none)", "Integers uniform in [low, high) of `input`'s shape, dtype and device, as torch.randint_like (`randint_like(x, 10)`: from 0).", "seed(0)\nrandint_like(zeros(2, 3), 10)";
    Function Training "kl_div", "kl_div(input, target, size_average=none, reduce=none, reduction=\"mean\", log_target=false)", "The KL divergence of `target` from `input` (log-probabilities), as torch.nn.functional.kl_div: `target * (log(target) - input)` (`exp(target) * (target - input)` with `log_target`), reduced; `reduction=\"batchmean\"` divides the sum by the batch size (the KL divergence's definition; PyTorch's `mean` divides by every element). Composed as PyTorch composes it (`SubBackward0`, `MulBackward0`, `SumBackward0`, `DivBackward0`).", "kl_div(tensor([[0.5, 0.5]]).log(), tensor([[0.9, 0.1]]), reduction=\"batchmean\")";
    Function Training "KLDivLoss", "KLDivLoss(size_average=none, reduce=none, reduction=\"mean\", log_target=false)", "`kl_div` as a module (`nn.KLDivLoss`), as knowledge distillation uses it.", "KLDivLoss(reduction=\"batchmean\")(tensor([[0.5, 0.5]]).log(), tensor([[0.9, 0.1]]))";
    Function Training "margin_ranking_loss", "margin_ranking_loss(input1, input2, target, margin=0.0, size_average=none, reduce=none, reduction=\"mean\")", "`max(0, -target * (input1 - input2) + margin)`, reduced (torch.nn.functional.margin_ranking_loss): `target` 1 where input1 should rank higher, -1 where lower.", "margin_ranking_loss(tensor([1., 0.]), tensor([0., 1.]), tensor([1., 1.]), margin=0.5)";
    Function Training "MarginRankingLoss", "MarginRankingLoss(margin=0.0, size_average=none, reduce=none, reduction=\"mean\")", "`margin_ranking_loss` as a module (`nn.MarginRankingLoss`).", "MarginRankingLoss()(tensor([1., 0.]), tensor([0., 1.]), tensor([1., -1.]))";
    Function Training "hinge_embedding_loss", "hinge_embedding_loss(input, target, margin=1.0, size_average=none, reduce=none, reduction=\"mean\")", "x where `target` is 1, `max(0, margin - x)` where it is -1, reduced (torch.nn.functional.hinge_embedding_loss).", "hinge_embedding_loss(tensor([0.3, 2.]), tensor([1., -1.]))";
    Function Training "HingeEmbeddingLoss", "HingeEmbeddingLoss(margin=1.0, size_average=none, reduce=none, reduction=\"mean\")", "`hinge_embedding_loss` as a module (`nn.HingeEmbeddingLoss`).", "HingeEmbeddingLoss()(tensor([0.3, 2.]), tensor([1., -1.]))";
    Function Training "cosine_embedding_loss", "cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=none, reduce=none, reduction=\"mean\")", "`1 - cos(x1, x2)` where `target` is 1, `max(0, cos(x1, x2) - margin)` where it is -1, reduced (torch.nn.functional.cosine_embedding_loss; the cosine as PyTorch's kernel composes it, 1e-12 added to each squared norm).", "cosine_embedding_loss(tensor([[1., 0.]]), tensor([[1., 1.]]), tensor([1.]))";
    Function Training "CosineEmbeddingLoss", "CosineEmbeddingLoss(margin=0.0, size_average=none, reduce=none, reduction=\"mean\")", "`cosine_embedding_loss` as a module (`nn.CosineEmbeddingLoss`).", "CosineEmbeddingLoss()(tensor([[1., 0.]]), tensor([[1., 1.]]), tensor([-1.]))";
    Function Training "triplet_margin_loss", "triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=false, size_average=none, reduce=none, reduction=\"mean\")", "`max(0, margin + d(a, p) - d(a, n))` with `d` the `pairwise_distance`, reduced (torch.nn.functional.triplet_margin_loss); `swap` uses the smaller of d(a, n) and d(p, n).", "triplet_margin_loss(tensor([[0., 0.]]), tensor([[1., 0.]]), tensor([[0., 3.]]))";
    Function Training "TripletMarginLoss", "TripletMarginLoss(margin=1.0, p=2.0, eps=1e-6, swap=false, size_average=none, reduce=none, reduction=\"mean\")", "`triplet_margin_loss` as a module (`nn.TripletMarginLoss`), as metric learning uses it.", "TripletMarginLoss(margin=0.5)(tensor([[0., 0.]]), tensor([[1., 0.]]), tensor([[0., 1.]]))";
    Function Training "pairwise_distance", "pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=false)", "The p-norm of `x1 - x2 + eps` along the last dim (torch.nn.functional.pairwise_distance; `NormBackward1`).", "pairwise_distance(tensor([[0., 0.], [1., 1.]]), tensor([[3., 4.], [1., 1.]]))";
    Function Training "PairwiseDistance", "PairwiseDistance(p=2.0, eps=1e-6, keepdim=false)", "`pairwise_distance` as a module (`nn.PairwiseDistance`).", "PairwiseDistance()(tensor([[0., 0.]]), tensor([[3., 4.]]))";
    Function Training "CosineSimilarity", "CosineSimilarity(dim=1, eps=1e-8)", "`cosine_similarity` along `dim` as a module (`nn.CosineSimilarity`).", "CosineSimilarity(dim=0)(tensor([1., 0.]), tensor([1., 1.]))";
    Function Training "multilabel_soft_margin_loss", "multilabel_soft_margin_loss(input, target, weight=none, size_average=none, reduce=none, reduction=\"mean\")", "Binary cross entropy of each class's logit against a 0/1 target, averaged over the classes, then reduced (torch.nn.functional.multilabel_soft_margin_loss, composed of `logsigmoid` as PyTorch's).", "multilabel_soft_margin_loss(tensor([[2., -1., 0.]]), tensor([[1., 0., 1.]]))";
    Function Training "MultiLabelSoftMarginLoss", "MultiLabelSoftMarginLoss(weight=none, size_average=none, reduce=none, reduction=\"mean\")", "`multilabel_soft_margin_loss` as a module (`nn.MultiLabelSoftMarginLoss`; its weight a buffer).", "MultiLabelSoftMarginLoss()(tensor([[2., -1.]]), tensor([[1., 0.]]))";
    Function Training "poisson_nll_loss", "poisson_nll_loss(input, target, log_input=true, full=false, size_average=none, eps=1e-8, reduce=none, reduction=\"mean\")", "The negative log-likelihood of a Poisson target: `exp(input) - target * input` for log rates, `input - target * log(input + eps)` for rates; `full` adds Stirling's term where target > 1 (torch.nn.functional.poisson_nll_loss).", "poisson_nll_loss(tensor([0., 1.]), tensor([1., 3.]))";
    Function Training "PoissonNLLLoss", "PoissonNLLLoss(log_input=true, full=false, size_average=none, eps=1e-8, reduce=none, reduction=\"mean\")", "`poisson_nll_loss` as a module (`nn.PoissonNLLLoss`).", "PoissonNLLLoss()(tensor([0., 1.]), tensor([1., 3.]))";
    Function Training "gaussian_nll_loss", "gaussian_nll_loss(input, target, var, full=false, eps=1e-6, reduction=\"mean\")", "The negative log-likelihood of `target` under normals of mean `input` and variance `var` (one per element, or one fewer dim): `0.5 * (log(var) + (input - target)**2 / var)`, `var` raised to `eps` first without recording, reduced (torch.nn.functional.gaussian_nll_loss).", "gaussian_nll_loss(tensor([0., 1.]), tensor([1., 1.]), tensor([1., 2.]))";
    Function Training "GaussianNLLLoss", "GaussianNLLLoss(full=false, eps=1e-6, reduction=\"mean\")", "`gaussian_nll_loss` as a module (`nn.GaussianNLLLoss`).", "GaussianNLLLoss()(tensor([0., 1.]), tensor([1., 1.]), tensor([1., 2.]))";
    Function Training "soft_margin_loss", "soft_margin_loss(input, target, size_average=none, reduce=none, reduction=\"mean\")", "`log(1 + exp(-target * input))`, reduced: the logistic loss of a ±1 target (torch.nn.functional.soft_margin_loss; `SoftMarginLossBackward0`).", "soft_margin_loss(tensor([2., -1.]), tensor([1., 1.]))";
    Function Training "SoftMarginLoss", "SoftMarginLoss(size_average=none, reduce=none, reduction=\"mean\")", "`soft_margin_loss` as a module (`nn.SoftMarginLoss`).", "SoftMarginLoss()(tensor([2., -1.]), tensor([1., -1.]))";
    Function Training "Conv1d", "Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true, padding_mode=\"zeros\", device=none, dtype=none)", "A 1-D convolution over sequences [N, C, L], as `nn.Conv1d`: weight [out, in / groups, k] drawn as PyTorch draws it; computed as `Conv2d` over 1 x L images, its node `ConvolutionBackward0`, its gradients in the 1-D shapes.", "seed(0)\nconv = Conv1d(2, 4, 3, padding=1)\nconv(randn(5, 2, 10)).shape\nconv";
    Function Training "ConvTranspose2d", "ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=true, dilation=1, padding_mode=\"zeros\", device=none, dtype=none)", "The gradient of a `Conv2d` by its input, as a layer (`nn.ConvTranspose2d`, a DCGAN generator's upsampling): weight [in, out / groups, kh, kw]; the output is `(H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1` high (and wide). Computed as a convolution's input gradient (the columns added back into their places), its node `ConvolutionBackward0`.", "seed(0)\nup = ConvTranspose2d(4, 2, 4, stride=2, padding=1)\nup(randn(1, 4, 5, 5)).shape";
    Function Training "ConvTranspose1d", "ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=true, dilation=1, padding_mode=\"zeros\", device=none, dtype=none)", "`ConvTranspose2d` over sequences [N, C, L] (`nn.ConvTranspose1d`): weight [in, out / groups, k].", "seed(0)\nConvTranspose1d(2, 3, 3, stride=2)(randn(1, 2, 4)).shape";
    Function Training "conv1d", "conv1d(input, weight, bias=none, stride=1, padding=0, dilation=1, groups=1)", "A 1-D convolution, as torch.nn.functional.conv1d (`Conv1d`'s computation).", "conv1d(ones(1, 1, 5), ones(1, 1, 2))";
    Function Training "conv_transpose2d", "conv_transpose2d(input, weight, bias=none, stride=1, padding=0, output_padding=0, groups=1, dilation=1)", "A transposed 2-D convolution, as torch.nn.functional.conv_transpose2d (`ConvTranspose2d`'s computation).", "conv_transpose2d(ones(1, 1, 2, 2), ones(1, 1, 2, 2), stride=2)";
    Function Training "conv_transpose1d", "conv_transpose1d(input, weight, bias=none, stride=1, padding=0, output_padding=0, groups=1, dilation=1)", "A transposed 1-D convolution, as torch.nn.functional.conv_transpose1d.", "conv_transpose1d(ones(1, 1, 3), ones(1, 1, 2), stride=2)";
    Function Training "max_pool1d", "max_pool1d(input, kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false, return_indices=false)", "Each window's largest element along the last dim, as torch.nn.functional.max_pool1d.", "max_pool1d(arange(8.).reshape(1, 2, 4), 2)";
    Function Training "max_pool2d", "max_pool2d(input, kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false, return_indices=false)", "Each window's largest element, as torch.nn.functional.max_pool2d; with `return_indices=true`, also where each was (its place `h * W + w` in its plane), for `max_unpool2d`.", "max_pool2d(arange(16.).reshape(1, 1, 4, 4), 2)";
    Function Training "max_pool2d_with_indices", "max_pool2d_with_indices(input, kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false, return_indices=true)", "`max_pool2d` with `return_indices=true`: (maxima, places) (torch.nn.functional.max_pool2d_with_indices).", "max_pool2d_with_indices(arange(16.).reshape(1, 1, 4, 4), 2)[1]";
    Function Training "max_pool1d_with_indices", "max_pool1d_with_indices(input, kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false, return_indices=true)", "`max_pool1d` with `return_indices=true`: (maxima, positions) (torch.nn.functional.max_pool1d_with_indices).", "max_pool1d_with_indices(arange(8.).reshape(1, 1, 8), 2)[1]";
    Function Training "max_unpool2d", "max_unpool2d(input, indices, kernel_size, stride=none, padding=0, output_size=none)", "A max pool's outputs written back at the places its `return_indices=true` gave, zeros elsewhere (torch.nn.functional.max_unpool2d; `MaxUnpool2DBackward0`): the output `(H - 1) * stride - 2 * padding + kernel_size` high and wide unless `output_size` says another within a stride of it.", "x = arange(16.).reshape(1, 1, 4, 4)\nout, where = max_pool2d(x, 2, return_indices=true)\nmax_unpool2d(out, where, 2)";
    Function Training "max_unpool1d", "max_unpool1d(input, indices, kernel_size, stride=none, padding=0, output_size=none)", "`max_unpool2d` over sequences [N, C, L] (torch.nn.functional.max_unpool1d).", "out, where = max_pool1d(arange(6.).reshape(1, 1, 6), 2, return_indices=true)\nmax_unpool1d(out, where, 2)";
    Function Training "MaxUnpool2d", "MaxUnpool2d(kernel_size, stride=none, padding=0)", "`max_unpool2d` as a module (`nn.MaxUnpool2d`): `unpool(x, indices, output_size=none)`, a SegNet decoder's upsampling.", "MaxUnpool2d(2)";
    Function Training "MaxUnpool1d", "MaxUnpool1d(kernel_size, stride=none, padding=0)", "`max_unpool1d` as a module (`nn.MaxUnpool1d`).", "MaxUnpool1d(2)";
    Function Training "avg_pool1d", "avg_pool1d(input, kernel_size, stride=none, padding=0, ceil_mode=false, count_include_pad=true)", "Each window's mean along the last dim, as torch.nn.functional.avg_pool1d.", "avg_pool1d(arange(8.).reshape(1, 2, 4), 2)";
    Function Training "avg_pool2d", "avg_pool2d(input, kernel_size, stride=none, padding=0, ceil_mode=false, count_include_pad=true, divisor_override=none)", "Each window's mean, as torch.nn.functional.avg_pool2d.", "avg_pool2d(arange(16.).reshape(1, 1, 4, 4), 2)";
    Function Training "adaptive_avg_pool1d", "adaptive_avg_pool1d(input, output_size)", "The average pool to `output_size` along the last dim, as torch.nn.functional.adaptive_avg_pool1d (any size: uneven windows as PyTorch's).", "adaptive_avg_pool1d(arange(8.).reshape(1, 2, 4), 1)";
    Function Training "adaptive_avg_pool2d", "adaptive_avg_pool2d(input, output_size)", "The average pool to `output_size`, as torch.nn.functional.adaptive_avg_pool2d (any size: uneven or overlapping windows as PyTorch's).", "adaptive_avg_pool2d(randn(1, 2, 4, 4), 1).shape";
    Function Training "adaptive_max_pool1d", "adaptive_max_pool1d(input, output_size, return_indices=false)", "The max pool to `output_size` along the last dim, as torch.nn.functional.adaptive_max_pool1d (any size: uneven windows as PyTorch's).", "adaptive_max_pool1d(arange(8.).reshape(1, 2, 4), 2)";
    Function Training "adaptive_max_pool2d", "adaptive_max_pool2d(input, output_size, return_indices=false)", "The max pool to `output_size`, as torch.nn.functional.adaptive_max_pool2d (any size: uneven or overlapping windows as PyTorch's).", "adaptive_max_pool2d(arange(16.).reshape(1, 1, 4, 4), 2)";
    Function Tensors "flatten", "flatten(input, start_dim=0, end_dim=-1)", "Dimensions `start_dim` to `end_dim` of `input` as one (a view when the layout allows), as torch.flatten: `flatten(x, 1)` keeps the batch dimension.", "flatten(ones(64, 32, 12, 12), 1).shape";
    Function Training "LayerNorm", "LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=true, device=none, dtype=none, bias=true)", "Each row normalised over its last dimensions (`normalized_shape`) by its own mean and variance, then scaled and shifted, as `nn.LayerNorm` (the same in train and eval mode). One node, `NativeLayerNormBackward0`, keeping the input, the weight and each row's mean and 1/std.", "ln = LayerNorm(4)\nln(tensor([[1., 2., 3., 4.]]))";
    Function Training "RMSNorm", "RMSNorm(normalized_shape, eps=none, elementwise_affine=true, device=none, dtype=none)", "Each row scaled by the reciprocal of its root mean square over the last dimensions (`normalized_shape`), then by a weight (ones), as `nn.RMSNorm` (Llama's norm); `eps` none is the epsilon of the dtype it computes in (float's for half precision). Composed as PyTorch composes it: `PowBackward0`, `MeanBackward1`, `AddBackward1`, `RsqrtBackward0`, `MulBackward0` (half precision computed in float: `ToCopyBackward0`).", "rms = RMSNorm(4)\nrms(tensor([[1., 2., 3., 4.]]))";
    Function Training "rms_norm", "rms_norm(input, normalized_shape, weight=none, eps=none)", "RMS normalisation as torch.nn.functional.rms_norm: `input * rsqrt(mean(input ** 2) + eps)` over the last dimensions, times `weight`.", "rms_norm(tensor([[1., 2., 3., 4.]]), [4])";
    Function Training "layer_norm", "layer_norm(input, normalized_shape, weight=none, bias=none, eps=1e-5)", "Layer normalisation as torch.nn.functional.layer_norm.", "layer_norm(tensor([[1., 2., 3., 4.]]), [4])";
    Function Training "MSELoss", "MSELoss(size_average=none, reduce=none, reduction=\"mean\")", "`mse_loss` as a module (`nn.MSELoss`): `loss_fn(prediction, target)`.", "MSELoss()(tensor([1., 2.]), tensor([0., 0.]))";
    Function Training "BCELoss", "BCELoss(weight=none, size_average=none, reduce=none, reduction=\"mean\")", "`binary_cross_entropy` as a module (`nn.BCELoss`); `weight` is kept as a buffer, as PyTorch keeps it.", "BCELoss()(sigmoid(tensor([0.5, -1.])), tensor([1., 0.]))";
    Function Training "BCEWithLogitsLoss", "BCEWithLogitsLoss(weight=none, size_average=none, reduce=none, reduction=\"mean\", pos_weight=none)", "`binary_cross_entropy_with_logits` as a module (`nn.BCEWithLogitsLoss`); `weight` and `pos_weight` are kept as buffers.", "BCEWithLogitsLoss(pos_weight=tensor([2.]))(tensor([2., -3.]), tensor([1., 0.]))";
    Function Training "L1Loss", "L1Loss(size_average=none, reduce=none, reduction=\"mean\")", "`l1_loss` as a module (`nn.L1Loss`).", "L1Loss()(tensor([1., 3.]), tensor([0., 0.]))";
    Function Training "SmoothL1Loss", "SmoothL1Loss(size_average=none, reduce=none, reduction=\"mean\", beta=1.0)", "`smooth_l1_loss` as a module (`nn.SmoothL1Loss`).", "SmoothL1Loss()(tensor([0.5, 3.]), tensor([0., 0.]))";
    Function Training "HuberLoss", "HuberLoss(reduction=\"mean\", delta=1.0)", "`huber_loss` as a module (`nn.HuberLoss`).", "HuberLoss(delta=2.0)(tensor([0.5, 3.]), tensor([0., 0.]))";
    Function Training "CrossEntropyLoss", "CrossEntropyLoss(weight=none, ignore_index=-100, reduction=\"mean\", label_smoothing=0.0)", "`cross_entropy` as a module (`nn.CrossEntropyLoss`): scores [N, C] and N class indices, or class probabilities of the scores' shape; `label_smoothing` as PyTorch's; `weight` (one per class, a buffer that moves with `.to`) weighs each row by its class.", "loss_fn = CrossEntropyLoss()\nloss_fn(randn(3, 4), tensor([0, 3, 1]))";
    Function Training "NLLLoss", "NLLLoss(weight=none, ignore_index=-100, reduction=\"mean\")", "`nll_loss` as a module (`nn.NLLLoss`), on log-probabilities.", "NLLLoss()(log_softmax(randn(3, 4), dim=1), tensor([0, 3, 1]))";
    Function Teaching "type", "type(object, bases=none, dict=none)", "The class of `object`, as Python's `type(x)`: a class of yours, a layer's class, `Tensor`, `Parameter`, or Python's `int`, `float`, `str`, `bool`, `list`, `tuple`, `dict`; `type(x).__name__` is its name. `type(name, bases, dict)` makes a new class, as Python's.", "type((1, 2)).__name__\ntype(ones(2)) == Tensor";
    Function Teaching "issubclass", "issubclass(cls, classinfo)", "Whether class `cls` is `classinfo` (or one of a tuple of them) or derives from it, as Python's: a class of yours, an exception class (`issubclass(FutureWarning, Warning)`), `Module` and the layers.", "issubclass(Linear, Module)";
    Function Teaching "isinstance", "isinstance(obj, classinfo)", "Whether `obj` is an instance of the class (or of one derived from it), as Python's: a class of yours, `Module`, a layer's class (`Linear`), `Parameter`, or a list of them.", "m = Linear(2, 2)\nisinstance(m, Module)\nisinstance(m, [ReLU, Linear])";
    Function Teaching "super", "super(type=none, obj=none)", "In a method: the instance, seen from the class above the method's, as Python's `super()` (`super(Net, self)`, the older spelling PyTorch's examples use, too); `super().__init__()` runs the base's `__init__` (for a `Module`: readies it to register parameters).", "class A { fn size(self) { return 1 } }\nclass B(A) { fn size(self) { return super().size() + 10 } }\nB().size()";
    Method Training "parameters", "model.parameters(recurse=true)", "The module's parameters and those of the modules in it, each once, in registration order: what an optimizer takes (`SGD(model.parameters(), lr=0.1)`).", "model = Sequential(Linear(4, 3), ReLU(), Linear(3, 1))\nlen(model.parameters())";
    Method Training "named_parameters", "model.named_parameters(prefix=\"\", recurse=true)", "`[name, parameter]` pairs, named as `state_dict` names them (`0.weight`, `fc1.bias`).", "model = Sequential(Linear(4, 3), ReLU(), Linear(3, 1))\nfor name, p in model.named_parameters() { print(name, p.shape) }";
    Method Training "buffers", "model.buffers(recurse=true)", "The module's buffers (tensors it keeps that are not parameters, `register_buffer`), and those of the modules in it.", "m = Module()\nm.register_buffer(\"steps\", zeros(1))\nm.buffers()";
    Method Training "reset_running_stats", "model.reset_running_stats()", "A norm layer's running statistics back to their start, in place: `running_mean` zeros, `running_var` ones, `num_batches_tracked` 0 (PyTorch's `_NormBase.reset_running_stats`).", "bn = BatchNorm1d(2)\nbn.reset_running_stats()\nbn.running_var";
    Method Training "named_buffers", "model.named_buffers(prefix=\"\", recurse=true)", "`[name, buffer]` pairs.", "m = Module()\nm.register_buffer(\"steps\", zeros(1))\nm.named_buffers()";
    Method Training "has_uninitialized_params", "model.has_uninitialized_params()", "Whether a lazy module's parameters or buffers are still to be made (its first call makes them), as PyTorch's `LazyModuleMixin`.", "fc = LazyLinear(2)\nfc.has_uninitialized_params()";
    Method Training "children", "model.children()", "The modules directly in it, in registration order.", "len(Sequential(Linear(2, 2), ReLU()).children())";
    Method Training "named_children", "model.named_children()", "`[name, module]` pairs of the modules directly in it.", "for name, m in Sequential(Linear(2, 2), ReLU()).named_children() { print(name, m) }";
    Method Training "modules", "model.modules()", "The module itself and every module in it, depth first, each once.", "len(Sequential(Linear(2, 2), ReLU()).modules())";
    Method Training "named_modules", "model.named_modules()", "`[name, module]` pairs of `modules()` (the module itself named \"\").", "for name, m in Sequential(Linear(2, 2)).named_modules() { print(name) }";
    Method Training "train", "model.train(mode=true)", "Training mode for the module and every module in it (`Dropout` drops, `BatchNorm` updates its statistics); the module back. Autograd still records either way: that is `no_grad`'s job.", "m = Dropout(0.5)\nm.eval()\nm.train().training";
    Method Training "eval", "model.eval()", "Evaluation mode for the module and every module in it (`train(false)`): `Dropout` passes its input through. It does not stop autograd recording: use `no_grad { }` for that.", "model = Sequential(Linear(2, 2), Dropout(0.5))\nmodel.eval()\nmodel[1].training";
    Method Training "flatten_parameters", "model.flatten_parameters()", "Of an `LSTM`, `GRU` or `RNN`: PyTorch copies the weights into one cuDNN buffer on a GPU (nothing on the CPU); cudash computes from the weights as they are, so it does nothing, on every device.", "lstm = LSTM(3, 4)\nlstm.flatten_parameters()";
    Method Training "zero_grad", "model.zero_grad(set_to_none=true)", "Every parameter's `.grad` set to none (PyTorch 2's default), or zeroed in place with `set_to_none=false`.", "fc = Linear(2, 1)\nfc(ones(1, 2)).sum().backward()\nfc.zero_grad()\nfc.weight.grad";
    Method Training "share_memory", "model.share_memory()", "Every parameter and buffer moved to shared memory (`x.share_memory_()`), for processes of `torch.multiprocessing` that train the one model (Hogwild); the module back.", "fc = Linear(2, 1).share_memory()\nfc.weight.is_shared";
    Method Training "requires_grad_", "model.requires_grad_(requires_grad=true)", "Whether autograd computes gradients for every parameter (false freezes them); the module back.", "fc = Linear(2, 1).requires_grad_(false)\nfc.weight.requires_grad";
    Method Training "to", "model.to(target=none, device=none, dtype=none, memory_format=none)", "Every parameter and buffer moved or converted (floating point ones for a dtype; the 4-d ones laid out channels-last for `memory_format=torch.channels_last`), the module back, as `nn.Module.to`. Make the optimizer after moving the model: cudash's parameters are new tensors after a move (PyTorch swaps their data in place).", "fc = Linear(2, 2).to(f64)\nfc.weight.dtype";
    Method Training "cuda", "model.cuda(device=none)", "`model.to(cuda)`: to the current CUDA device, or the one given.", "Linear(2, 2).cuda().weight.device";
    Method Training "cpu", "model.cpu()", "`model.to(cpu)`.", "Linear(2, 2).cpu().weight.device";
    Method Training "half", "model.half()", "Floating point parameters and buffers to f16.", "Linear(2, 2).half().weight.dtype";
    Method Training "float", "model.float()", "Floating point parameters and buffers to f32.", "Linear(2, 2).half().float().weight.dtype";
    Method Training "double", "model.double()", "Floating point parameters and buffers to f64.", "Linear(2, 2).double().weight.dtype";
    Method Training "bfloat16", "model.bfloat16()", "Floating point parameters and buffers to bf16.", "Linear(2, 2).bfloat16().weight.dtype";
    Method Training "state_dict", "model.state_dict()", "Every parameter and persistent buffer by PyTorch's key (`fc1.weight`), each module's own first, then its children's: a dict `save` writes and `load_state_dict` reads. Its tensors share the parameters' memory and require no grad.", "model = Sequential(Linear(2, 2), ReLU(), Linear(2, 1))\nmodel.state_dict()";
    Method Training "to_empty", "model.to_empty(device, recurse=true)", "Every parameter and buffer replaced by an uninitialised tensor of its shape, dtype and strides on `device` (PyTorch's `empty_like`): how a model made on the meta device (`with torch.device(\"meta\"):`) gets memory, to be loaded or initialised after. Gives the model.", "model = Linear(1000, 1000, device=\"meta\")\nmodel.to_empty(device=cpu)\nmodel.weight.device";
    Method Training "load_state_dict", "model.load_state_dict(state_dict, strict=true, assign=false)", "Copies each entry into the model's tensor of that key (on the model's device and dtype). Missing, unexpected or mis-shaped keys are PyTorch's RuntimeError, listing them, before anything is copied; `strict=false` loads what matches. `assign=true` puts the state dict's own tensors in the model instead of copying (how a model made on the meta device takes a checkpoint: no memory for a second copy); copying into a meta model is a no-op, with PyTorch's warning. Gives `missing_keys` and `unexpected_keys`.", "a = Linear(2, 2)\nb = Linear(2, 2)\nb.load_state_dict(a.state_dict())\n(b.weight == a.weight).all()";
    Method Training "register_buffer", "model.register_buffer(name, tensor, persistent=true)", "Keeps `tensor` as a buffer named `name`: moved by `to`, in `state_dict` when persistent, not a parameter.", "m = Module()\nm.register_buffer(\"mean\", zeros(3))\nm.state_dict()";
    Method Training "register_parameter", "model.register_parameter(name, param)", "Registers a `Parameter` (or none) under `name`, as assigning it does.", "m = Module()\nm.register_parameter(\"w\", Parameter(ones(2)))\nm.parameters()";
    Method Training "add_module", "model.add_module(name, module)", "Registers a child module under `name`, as assigning it does.", "m = Module()\nm.add_module(\"fc\", Linear(2, 2))\nm";
    Method Training "apply", "model.apply(fn)", "Calls `fn(m)` on every module in it (children first) and on itself, as PyTorch's: how a model's own initialisation is written. The module back.", "fn show(m) { print(m) }\nSequential(Linear(2, 2), ReLU()).apply(show)";
    Method Training "forward", "model.forward(*inputs)", "The computation a call of the module runs (`model(x)` calls it); a class of yours defines its own.", "Linear(2, 1).forward(ones(2)).shape";
    Method Training "register_forward_hook", "model.register_forward_hook(hook)", "Calls `hook(module, args, output)` after each call of the module (`args`: the positional inputs as a tuple); a value it gives replaces the output. Returns a handle: `h.remove()` takes the hook off. How activations are inspected, as PyTorch's.", "fc = Linear(2, 3)\nfn show(m, args, out) { print(\"out\", out.shape) }\nh = fc.register_forward_hook(show)\ny = fc(ones(4, 2))\nh.remove()";
    Method Training "register_forward_pre_hook", "model.register_forward_pre_hook(hook)", "Calls `hook(module, args)` before each call of the module; a value it gives (a tuple, or the one input) replaces the input. Returns a handle: `h.remove()` takes the hook off.", "fc = Linear(2, 3)\nfn double(m, args) { return args[0] * 2 }\nh = fc.register_forward_pre_hook(double)\nfc(ones(1, 2)).shape";
    Method Training "register_full_backward_hook", "model.register_full_backward_hook(hook)", "Calls `hook(module, grad_input, grad_output)` when backward has computed the gradients of the module's inputs (`grad_input`: one per positional input, none where it needs no gradient; `grad_output`: one per output); a tuple it gives replaces `grad_input`. The inputs and outputs pass through an identity node (`BackwardHookFunctionBackward`), as PyTorch's. Returns a handle: `h.remove()`.", "fc = Linear(2, 3)\nfn show(m, gin, gout) { print(\"grad_output\", gout[0].shape) }\nh = fc.register_full_backward_hook(show)\nfc(ones(4, 2, requires_grad=true)).sum().backward()\nh.remove()";
    Method Training "register_full_backward_pre_hook", "model.register_full_backward_pre_hook(hook)", "Calls `hook(module, grad_output)` when the gradients of the module's outputs are computed, before the module's own backward; a tuple it gives replaces `grad_output`. Returns a handle: `h.remove()`.", "fc = Linear(2, 3)\nfn half(m, gout) { return [gout[0] / 2] }\nh = fc.register_full_backward_pre_hook(half)\nx = ones(1, 2, requires_grad=true)\nfc(x).sum().backward()\nx.grad";
    Method Training "register_backward_hook", "model.register_backward_hook(hook)", "PyTorch's older module backward hook (deprecated there, with a FutureWarning): `hook(module, grad_input, grad_output)` on the node that made the output, so `grad_input` are that last op's input gradients (a Linear's bias, input and weight), not the module's inputs'. Prefer `register_full_backward_hook`.", "fc = Linear(2, 3)\nfn show(m, gin, gout) { print(len(gin)) }\nh = fc.register_backward_hook(show)\nfc(ones(4, 2)).sum().backward()";
    Method Training "items", "model.items()", "A ModuleDict's `[name, module]` pairs or a ParameterDict's `[name, parameter]` pairs, in the order they were added.", "md = ModuleDict()\nmd[\"a\"] = ReLU()\nfor name, m in md.items() { print(name, m) }";
    Method Training "keys", "model.keys()", "A ModuleDict's or a ParameterDict's names, in order.", "md = ModuleDict({\"enc\": Linear(4, 2), \"act\": ReLU()})\nmd.keys()";
    Method Training "values", "model.values()", "A ModuleDict's modules or a ParameterDict's parameters, in order.", "pd = ParameterDict({\"w\": ones(2)})\npd.values()";
    Method Training "update", "model.update(values)", "Puts each entry of a dict, of another ModuleDict/ParameterDict, or of a list of `[name, value]` pairs in a ModuleDict or a ParameterDict (a plain dict's in sorted key order for a ParameterDict, as PyTorch's).", "pd = ParameterDict()\npd.update({\"b\": zeros(1), \"a\": ones(1)})\npd.keys()";
    Method Training "pop", "model.pop(key)", "Takes the entry `key` out of a ModuleDict or a ParameterDict and gives it (a KeyError when there is none).", "md = ModuleDict({\"a\": ReLU(), \"b\": Tanh()})\nmd.pop(\"a\")\nlen(md)";
    Method Training "get", "model.get(key, default=none)", "A ParameterDict's parameter `key`, or `default` when it has none.", "pd = ParameterDict({\"w\": ones(2)})\npd.get(\"v\", 0)";
    Method Training "extend", "model.extend(values)", "Adds every item of a list at the end of a ModuleList, a Sequential (modules) or a ParameterList (tensors, made Parameters); the container back.", "layers = ModuleList([Linear(2, 2)])\nlayers.extend([ReLU(), Linear(2, 1)])\nlen(layers)";
    Method Training "append", "model.append(module)", "Adds a module at the end of a `Sequential` or a `ModuleList`; the container back.", "seq = Sequential(Linear(2, 2))\nseq.append(ReLU())\nlen(seq)";
    Method Training "register_hook", "x.register_hook(hook)", "Calls `hook(grad)` when backward has computed `x`'s gradient, before it is used (a leaf's: before it is added to `.grad`); a tensor `hook` returns is used instead (same shape, dtype and device), none keeps it. Returns a handle: `h.remove()` takes the hook off.", "w = ones(2, requires_grad=true)\nfn double(g) { return g * 2 }\nh = w.register_hook(double)\n(w * 3).sum().backward()\nh.remove()\nw.grad";
    Method Training "register_post_accumulate_grad_hook", "x.register_post_accumulate_grad_hook(hook)", "Calls `hook(x)` once backward has added the last gradient into the leaf `x`'s `.grad` (the moment an optimizer may step it). Returns a handle: `h.remove()` takes the hook off.", "w = ones(2, requires_grad=true)\nfn done(p) { print(p.grad) }\nh = w.register_post_accumulate_grad_hook(done)\n(w * w).sum().backward()";
    Method Training "remove", "h.remove()", "Takes the hook `register_hook` (or `register_post_accumulate_grad_hook`) registered off; nothing when it is off already.", "w = ones(2, requires_grad=true)\nfn show(g) { print(g) }\nh = w.register_hook(show)\nh.remove()\nw.sum().backward()";
    Property Training "next_functions", "node.next_functions", "The functions the gradient goes on to, one `[function, output]` pair per input of the op (`<AccumulateGrad>` for a leaf, none for an input that needs no gradient), as PyTorch's `grad_fn.next_functions`.", "w = ones(2, requires_grad=true)\n((w * 2) * w).grad_fn.next_functions";
    Property Training "metadata", "node.metadata", "A dict of the program's kept on the node, the same one each time (PyTorch's `grad_fn.metadata`); a node made under `torch.autograd.detect_anomaly()` starts with its forward traceback under `traceback_`.", "w = ones(2, requires_grad=true)\nm = (w * 2).grad_fn.metadata\nm";
    Method Training "name", "node.name()", "The autograd function's name as PyTorch's `name()` gives it (`MulBackward0`; `torch::autograd::AccumulateGrad` for a leaf's).", "w = ones(2, requires_grad=true)\n(w * 2).grad_fn.name()";
    Method Training "register_hook", "node.register_hook(hook)", "Calls `hook(grad_inputs, grad_outputs)` once the node has run (PyTorch's `Node` post-hook): the gradients it computed for its inputs and those of its outputs, as tuples; a tuple it gives replaces `grad_inputs`. Returns a handle: `h.remove()`.", "w = ones(2, requires_grad=true)\ny = w * 3\nfn show(gin, gout) { print(gin[0], gout[0]) }\nh = y.grad_fn.register_hook(show)\ny.sum().backward()";
    Method Training "register_prehook", "node.register_prehook(hook)", "Calls `hook(grad_outputs)` before the node runs, after its outputs' tensor hooks (PyTorch's `Node` pre-hook); a tuple it gives replaces `grad_outputs`. Returns a handle: `h.remove()`.", "w = ones(2, requires_grad=true)\ny = w * 3\nfn double(gout) { return [gout[0] * 2] }\nh = y.grad_fn.register_prehook(double)\ny.sum().backward()\nw.grad";
    Method Training "step", "opt.step(closure=none)", "Updates every parameter that has a `.grad`, in place. A `closure` (a function that zeroes the gradients, computes the loss, calls `backward` and returns the loss) is called first, with grad mode on, and its loss returned, as PyTorch's optimizers do.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.5)\nw.sum().backward()\nopt.step()\nw";
    Method Training "zero_grad", "opt.zero_grad(set_to_none=true)", "Sets every parameter's `.grad` to none (as PyTorch 2's default), so the next backward starts afresh and the old gradients' memory is freed; with `set_to_none=false` each is zeroed in place (its memory kept).", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.5)\nw.sum().backward()\nopt.zero_grad()\nw.grad";
    Method Training "state_dict", "opt.state_dict()", "The optimizer's state and settings in PyTorch's layout: `{\"state\": {0: {\"step\": tensor(1.), \"exp_avg\": ...}}, \"param_groups\": [{\"lr\": ..., \"params\": [0, 1]}]}`, parameters by number; save it with the model's in a checkpoint.", "w = ones(2, requires_grad=true)\nopt = Adam([w])\nw.sum().backward()\nopt.step()\nopt.state_dict()[\"param_groups\"]";
    Method Training "load_state_dict", "opt.load_state_dict(state_dict)", "Restores settings and state from `opt.state_dict()` (or PyTorch's, from a checkpoint), with PyTorch's checks: as many groups, as many parameters in each; each state tensor copied onto its parameter's device and dtype.", "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1, momentum=0.9)\nw.sum().backward()\nopt.step()\nopt2 = SGD([w], lr=0.1, momentum=0.9)\nopt2.load_state_dict(opt.state_dict())";
    Statement Training "no_grad", "no_grad { ... }", "Runs the block without recording autograd's graph: results do not require grad and nothing is saved for backward (PyTorch's `with torch.no_grad():`). Parameters may be changed in place inside it.", "w = ones(2, requires_grad=true)\nno_grad { y = w * 2 }\ny.requires_grad";
    Statement Teaching "help", "help [TOPIC]", "Lists topics, or explains one builtin, method or statement.", "help randn";
}

/// PyTorch's spelling of a help topic, shown beside it by `help`.
pub fn pytorch_name(doc: &Doc) -> Option<String> {
    use Kind::{Function, Method, Property, Statement};
    let special = match (doc.kind, doc.name) {
        (Statement, "devices") => "nvidia-smi (a shell command)",
        (Statement, "with") => "with torch.cuda.device(n):  /  with torch.cuda.stream(s):",
        (Statement, "stream") => "with torch.cuda.stream(s):",
        (Statement, "wait") => "torch.cuda.current_stream().wait_stream(s)  /  .wait_event(e)",
        (Statement, "pin") => "x = x.pin_memory()",
        (Statement, "sync") => "torch.cuda.synchronize()  /  s.synchronize()  /  e.synchronize()",
        (Statement, "mem") => "print(torch.cuda.memory_summary())",
        (Statement, "del") => "del x",
        (Statement, "for") => "for i in range(a, b):",
        (Statement, "time") => {
            "torch.cuda.Event(enable_timing=True) around the work, then start.elapsed_time(end)"
        }
        (Statement, "profile") => "with torch.profiler.profile() as prof:",
        (Statement, "no_grad") => "with torch.no_grad():",
        (
            Function,
            "StepLR"
            | "MultiStepLR"
            | "ExponentialLR"
            | "CosineAnnealingLR"
            | "LambdaLR"
            | "ReduceLROnPlateau"
            | "OneCycleLR"
            | "CyclicLR"
            | "ConstantLR"
            | "LinearLR"
            | "PolynomialLR"
            | "MultiplicativeLR"
            | "CosineAnnealingWarmRestarts"
            | "SequentialLR"
            | "ChainedScheduler",
        ) => return Some(format!("torch.optim.lr_scheduler.{}", doc.name)),
        (Function, "grad" | "backward" | "Variable") => {
            return Some(format!("torch.autograd.{}", doc.name))
        }
        (Function, "vector_norm") => "torch.linalg.vector_norm",
        (Function, "linalg_norm") => "torch.linalg.norm",
        (Function, "autocast") => "torch.autocast / torch.amp.autocast / torch.cuda.amp.autocast",
        (Function, "GradScaler") => "torch.amp.GradScaler / torch.cuda.amp.GradScaler",
        (
            Function,
            "clip_grad_norm_"
            | "clip_grad_value_"
            | "parameters_to_vector"
            | "vector_to_parameters",
        ) => return Some(format!("torch.nn.utils.{}", doc.name)),
        (Function, "pad_sequence") => return Some(format!("torch.nn.utils.rnn.{}", doc.name)),
        (
            Function,
            "SGD" | "Adam" | "AdamW" | "RMSprop" | "Adagrad" | "Adadelta" | "Adamax" | "RAdam"
            | "NAdam",
        ) => return Some(format!("torch.optim.{}", doc.name)),
        (
            Function,
            "TensorDataset"
            | "Subset"
            | "random_split"
            | "DataLoader"
            | "RandomSampler"
            | "SequentialSampler"
            | "SubsetRandomSampler"
            | "WeightedRandomSampler"
            | "BatchSampler"
            | "Sampler",
        ) => return Some(format!("torch.utils.data.{}", doc.name)),
        (Function, "DistributedSampler") => "torch.utils.data.distributed.DistributedSampler",
        (Function, "Generator") => "torch.Generator",
        (
            Function,
            "Module"
            | "Parameter"
            | "Linear"
            | "ReLU"
            | "LeakyReLU"
            | "ELU"
            | "SELU"
            | "CELU"
            | "Softplus"
            | "Hardtanh"
            | "ReLU6"
            | "LogSigmoid"
            | "Hardswish"
            | "Hardsigmoid"
            | "Hardshrink"
            | "Softshrink"
            | "Threshold"
            | "Softsign"
            | "Tanhshrink"
            | "Softmin"
            | "GLU"
            | "PReLU"
            | "Tanh"
            | "Sigmoid"
            | "Identity"
            | "Flatten"
            | "Dropout"
            | "Dropout2d"
            | "GELU"
            | "SiLU"
            | "Mish"
            | "Softmax"
            | "LogSoftmax"
            | "Softmax2d"
            | "Bilinear"
            | "EmbeddingBag"
            | "Sequential"
            | "ModuleList"
            | "ModuleDict"
            | "ParameterList"
            | "ParameterDict"
            | "Embedding"
            | "BatchNorm1d"
            | "BatchNorm2d"
            | "InstanceNorm1d"
            | "InstanceNorm2d"
            | "InstanceNorm3d"
            | "BatchNorm3d"
            | "GroupNorm"
            | "LayerNorm"
            | "RMSNorm"
            | "Upsample"
            | "UpsamplingNearest2d"
            | "UpsamplingBilinear2d"
            | "PixelShuffle"
            | "PixelUnshuffle"
            | "Unflatten"
            | "ZeroPad1d"
            | "ZeroPad2d"
            | "ConstantPad1d"
            | "ConstantPad2d"
            | "ReflectionPad1d"
            | "ReflectionPad2d"
            | "ReplicationPad1d"
            | "ReplicationPad2d"
            | "CircularPad1d"
            | "CircularPad2d"
            | "Unfold"
            | "Fold"
            | "KLDivLoss"
            | "MarginRankingLoss"
            | "HingeEmbeddingLoss"
            | "CosineEmbeddingLoss"
            | "TripletMarginLoss"
            | "MultiLabelSoftMarginLoss"
            | "PoissonNLLLoss"
            | "GaussianNLLLoss"
            | "PairwiseDistance"
            | "CosineSimilarity"
            | "SoftMarginLoss"
            | "Conv1d"
            | "Conv2d"
            | "ConvTranspose1d"
            | "ConvTranspose2d"
            | "MaxPool1d"
            | "MaxPool2d"
            | "MaxUnpool1d"
            | "MaxUnpool2d"
            | "AvgPool1d"
            | "AvgPool2d"
            | "AdaptiveAvgPool1d"
            | "AdaptiveAvgPool2d"
            | "AdaptiveMaxPool1d"
            | "AdaptiveMaxPool2d"
            | "MSELoss"
            | "CrossEntropyLoss"
            | "NLLLoss"
            | "BCELoss"
            | "BCEWithLogitsLoss"
            | "L1Loss"
            | "SmoothL1Loss"
            | "HuberLoss"
            | "LSTM"
            | "GRU"
            | "RNN"
            | "LSTMCell"
            | "GRUCell"
            | "RNNCell"
            | "MultiheadAttention"
            | "TransformerEncoderLayer"
            | "TransformerDecoderLayer"
            | "TransformerEncoder"
            | "TransformerDecoder"
            | "Transformer"
            | "LazyLinear"
            | "LazyConv1d"
            | "LazyConv2d"
            | "LazyBatchNorm1d"
            | "LazyBatchNorm2d"
            | "LazyBatchNorm3d"
            | "UninitializedParameter"
            | "UninitializedBuffer",
        ) => return Some(format!("torch.nn.{}", doc.name)),
        (Function, "generate_square_subsequent_mask") => {
            "torch.nn.Transformer.generate_square_subsequent_mask"
        }
        (
            Function,
            "isinstance" | "type" | "super" | "staticmethod" | "classmethod" | "property"
            | "getattr" | "hasattr" | "setattr" | "delattr" | "vars" | "callable" | "divmod"
            | "chr" | "ord" | "globals" | "exec" | "eval" | "frozenset" | "bin" | "hex" | "oct",
        ) => return Some(format!("{}() (Python's)", doc.name)),
        (
            Function,
            "uniform_" | "normal_" | "zeros_" | "ones_" | "constant_" | "orthogonal_"
            | "xavier_uniform_" | "xavier_normal_" | "kaiming_uniform_" | "kaiming_normal_"
            | "trunc_normal_" | "calculate_gain",
        ) => return Some(format!("torch.nn.init.{}", doc.name)),
        (Statement, "class") => "class Name(nn.Module):",
        (
            Function,
            "mse_loss"
            | "leaky_relu"
            | "leaky_relu_"
            | "elu"
            | "elu_"
            | "selu"
            | "selu_"
            | "celu"
            | "celu_"
            | "softplus"
            | "hardtanh"
            | "hardtanh_"
            | "relu6"
            | "logsigmoid"
            | "hardswish"
            | "hardsigmoid"
            | "hardshrink"
            | "softshrink"
            | "threshold"
            | "threshold_"
            | "softsign"
            | "tanhshrink"
            | "softmin"
            | "glu"
            | "prelu"
            | "binary_cross_entropy"
            | "binary_cross_entropy_with_logits"
            | "l1_loss"
            | "smooth_l1_loss"
            | "huber_loss"
            | "nll_loss"
            | "cross_entropy"
            | "linear"
            | "bilinear"
            | "embedding_bag"
            | "dropout"
            | "scaled_dot_product_attention"
            | "dropout2d"
            | "gelu"
            | "embedding"
            | "batch_norm"
            | "group_norm"
            | "instance_norm"
            | "layer_norm"
            | "rms_norm"
            | "interpolate"
            | "upsample"
            | "pixel_shuffle"
            | "pixel_unshuffle"
            | "unfold"
            | "fold"
            | "kl_div"
            | "margin_ranking_loss"
            | "hinge_embedding_loss"
            | "cosine_embedding_loss"
            | "triplet_margin_loss"
            | "multilabel_soft_margin_loss"
            | "poisson_nll_loss"
            | "gaussian_nll_loss"
            | "pairwise_distance"
            | "soft_margin_loss"
            | "conv1d"
            | "conv2d"
            | "conv_transpose1d"
            | "conv_transpose2d"
            | "max_pool1d"
            | "max_pool2d"
            | "max_pool1d_with_indices"
            | "max_pool2d_with_indices"
            | "max_unpool1d"
            | "max_unpool2d"
            | "avg_pool1d"
            | "avg_pool2d"
            | "adaptive_avg_pool1d"
            | "adaptive_avg_pool2d"
            | "adaptive_max_pool1d"
            | "adaptive_max_pool2d"
            | "one_hot"
            | "pad"
            | "silu"
            | "mish"
            | "normalize"
            | "cosine_similarity",
        ) => return Some(format!("torch.nn.functional.{}", doc.name)),
        (Statement, "help") => "help(torch.zeros)",
        (Statement, "fn") => "def name(a, b=default):",
        (Statement, "if") => "if c:  /  elif c:  /  else:",
        (Statement, "while") => "while c:",
        (Statement, "return" | "yield" | "break" | "continue" | "and" | "or" | "not" | "in") => {
            return Some(format!("{} (Python's)", doc.name))
        }
        (Function, "seed") => "torch.manual_seed(n)",
        (Function, "device") => "torch.device(\"cuda\", n)",
        (Function, "set_device") => "torch.cuda.set_device / torch.accelerator.set_device_index",
        (Function, "devices") => {
            "[torch.device(\"cuda\", i) for i in range(torch.cuda.device_count())]"
        }
        (Function, "stream") => "torch.cuda.Stream()  /  torch.cuda.stream(s)",
        (Function, "event") => "torch.cuda.Event(enable_timing=True)",
        (Function, "reset_peak") => "torch.cuda.reset_peak_memory_stats()",
        (Function, "set_per_process_memory_fraction") => {
            "torch.cuda.set_per_process_memory_fraction"
        }
        (Function, "record_memory_history") => {
            "torch.cuda.memory._record_memory_history(max_entries=100000)"
        }
        (Function, "dump_snapshot") => "torch.cuda.memory._dump_snapshot(filename)",
        (Function, "scatter" | "gather") => {
            return Some(format!(
                "torch.nn.parallel.{0} / torch.cuda.comm.{0}",
                doc.name
            ))
        }
        (Function, "replicate") => {
            "torch.nn.parallel.replicate / torch.cuda.comm.broadcast(x, devices)"
        }
        (Function, "parallel_apply") => "torch.nn.parallel.parallel_apply",
        (Function, "DataParallel") => "torch.nn.DataParallel / torch.nn.parallel.DataParallel",
        (Function, "DistributedDataParallel") => "torch.nn.parallel.DistributedDataParallel",
        (Function, "broadcast") => "torch.distributed.broadcast / torch.cuda.comm.broadcast",
        (Function, "spawn") => "torch.multiprocessing.spawn",
        (
            Function,
            "init_process_group"
            | "get_rank"
            | "get_world_size"
            | "is_initialized"
            | "destroy_process_group"
            | "barrier"
            | "send"
            | "recv"
            | "isend"
            | "irecv"
            | "reduce"
            | "new_group",
        ) => return Some(format!("torch.distributed.{}", doc.name)),
        (Function, "dist_gather") => "torch.distributed.gather",
        (Function, "dist_scatter") => "torch.distributed.scatter",
        (Method, "wait") if doc.receiver() == "work" => "work.wait()",
        (Function, "save") => "torch.save / numpy.save / safetensors.torch.save_file",
        (Function, "load") => "torch.load / numpy.load / safetensors.torch.load_file",
        (Function, "print" | "len" | "list") => return Some(format!("{} (Python's)", doc.name)),
        (Method, "append") => return Some("xs.append(v) (Python's)".into()),
        (Function, "clear_output") => "IPython.display.clear_output(wait=True)",
        (Function, "sleep") => "time.sleep(seconds) (Python's)",
        (Function, "relu" | "relu_" | "softmax" | "log_softmax") => {
            return Some(format!("torch.{0} / F.{0}", doc.name))
        }
        (Method, "copy_to") => return None, // MXNet's copyto
        (Method, "pin") => "x.pin_memory()",
        (Method, "wait") => "s.wait_stream(t)  /  s.wait_event(e)",
        (Method, "sync") => return Some(format!("{}.synchronize()", receiver_letter(doc))),
        (Method, "elapsed") => "e.elapsed_time(end)",
        (Property, "is_pinned") => "x.is_pinned()",
        (Property, "pending") => return None,
        _ => "",
    };
    if !special.is_empty() {
        return Some(special.to_string());
    }
    Some(match (doc.kind, doc.group) {
        (Kind::Method, _) => format!("{}.{}(...)", receiver_letter(doc), doc.name),
        (Kind::Property, _) => format!("{}.{}", receiver_letter(doc), doc.name),
        (Kind::Function, Group::Tensors | Group::Math) => format!("torch.{}", doc.name),
        (Kind::Function, Group::Devices)
            if matches!(doc.name, "all_reduce" | "reduce_scatter" | "all_gather") =>
        {
            format!("torch.distributed.{}", doc.name)
        }
        (Kind::Function, _) => format!("torch.cuda.{}", doc.name),
        (Kind::Statement, _) => return None,
    })
}

fn receiver_letter(doc: &Doc) -> &'static str {
    match doc.receiver() {
        "stream" => "s",
        "event" => "e",
        "list" => "xs",
        "dict" => "d",
        "set" => "st",
        "file" => "f",
        "optimizer" => "opt",
        "scheduler" => "scheduler",
        "sampler" => "sampler",
        "generator" => "g",
        "handle" => "h",
        "work" => "work",
        "module" => "model",
        _ => "x",
    }
}

/// Every entry named `topic`: a function and a method can share a name.
pub fn lookup(topic: &str) -> Vec<&'static Doc> {
    let topic = topic.trim_start_matches('.');
    DOCS.iter().filter(|d| d.name == topic).collect()
}

/// Every builtin function.
pub fn functions() -> impl Iterator<Item = &'static Doc> {
    DOCS.iter().filter(|d| d.kind == Kind::Function)
}

pub fn function(name: &str) -> Option<&'static Doc> {
    DOCS.iter()
        .find(|d| d.kind == Kind::Function && d.name == name)
}

/// A method or property of values of kind `receiver` (`tensor`, `stream`, `event`).
pub fn member(receiver: &str, name: &str) -> Option<&'static Doc> {
    // Every method call and property read asks: an index, made once, not
    // a scan of every entry's signature (it was 90% of `x.T` in a loop).
    type Index = foldhash::HashMap<(&'static str, &'static str), &'static Doc>;
    static MEMBERS: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    let index = MEMBERS.get_or_init(|| {
        let mut index = Index::default();
        for d in DOCS
            .iter()
            .filter(|d| matches!(d.kind, Kind::Method | Kind::Property))
        {
            // The first entry of a name wins, as the scan's `find` did.
            index.entry((d.receiver(), d.name)).or_insert(d);
        }
        index
    });
    index.get(&(receiver, name)).copied()
}

/// The methods and properties of values of kind `receiver`.
pub fn members(receiver: &str) -> impl Iterator<Item = &'static Doc> + '_ {
    DOCS.iter().filter(move |d| {
        matches!(d.kind, Kind::Method | Kind::Property) && d.receiver() == receiver
    })
}

/// The `help` overview: topics grouped.
pub fn overview() -> String {
    let mut out = String::from("cudash help: `help NAME` explains one topic.\n");
    for g in Group::ALL {
        let mut names: Vec<String> = DOCS
            .iter()
            .filter(|d| d.group == g)
            .map(|d| match d.kind {
                Kind::Method | Kind::Property => format!(".{}", d.name),
                _ => d.name.to_string(),
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        names.retain(|n| seen.insert(n.clone()));
        out.push_str(&format!("\n{}:\n", g.title()));
        let mut line = String::from(" ");
        for n in names {
            if line.len() + n.len() + 1 > 78 {
                out.push_str(&line);
                out.push('\n');
                line = String::from(" ");
            }
            line.push(' ');
            line.push_str(&n);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// A parameter parsed from a signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub required: bool,
    pub variadic: bool,
    /// `**kwargs`: every keyword no other parameter takes.
    pub keywords: bool,
    /// The default as the signature writes it (`0.001`, `(0.9, 0.999)`).
    pub default: Option<&'static str>,
}

/// The parameters of a signature such as `zeros(*size, dtype=f32, device=cpu)`.
pub fn params(signature: &'static str) -> Vec<Param> {
    let inner = signature
        .split_once('(')
        .and_then(|(_, rest)| rest.rsplit_once(')'))
        .map(|(inner, _)| inner)
        .unwrap_or("");
    top_level_parts(inner)
        .into_iter()
        .filter(|p| !p.is_empty())
        .map(|p| {
            let keywords = p.starts_with("**");
            let variadic = p.starts_with('*') && !keywords;
            let p = p.trim_start_matches('*');
            let (name, default) = match p.split_once('=') {
                Some((n, d)) => (n, Some(d)),
                None => (p, None),
            };
            Param {
                name,
                required: default.is_none() && !variadic && !keywords,
                variadic,
                keywords,
                default,
            }
        })
        .collect()
}

/// `s` split at each `, ` outside brackets (a default may be a tuple:
/// `betas=(0.9, 0.999)`).
fn top_level_parts(s: &'static str) -> Vec<&'static str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    let bytes = s.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 && bytes.get(i + 1) == Some(&b' ') => {
                parts.push(&s[start..i]);
                start = i + 2;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_topic_but_a_few_names_its_pytorch_spelling() {
        let missing: Vec<&str> = DOCS
            .iter()
            .filter(|d| pytorch_name(d).is_none())
            .map(|d| d.name)
            .collect();
        assert_eq!(missing, ["copy_to", "pending"]);
    }
}
