//! Forward-mode AD (`torch.autograd.forward_ad`): the tangents each op
//! carries, against PyTorch 2.15's for the same program (CPU, f64), on the
//! simulator and on emu; the tangents' memory, freed when the level closes;
//! PyTorch's refusals.

mod common;

const PROGRAM: &str = r#"import torch
import torch.nn.functional as F
import torch.autograd.forward_ad as fwAD
x = torch.tensor([[0.3, -1.2, 2.5], [1.1, 0.7, -0.4]], dtype=torch.float64)
y = torch.tensor([[1.5, 0.2, -0.8], [0.9, -2.0, 0.6]], dtype=torch.float64)
tx = torch.tensor([[0.5, -0.25, 1.0], [2.0, 0.125, -1.5]], dtype=torch.float64)
ty = torch.tensor([[-1.0, 0.75, 0.5], [0.25, 1.25, -0.5]], dtype=torch.float64)
w = torch.tensor([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6], [0.7, 0.8, -0.9], [1.0, -1.1, 1.2]], dtype=torch.float64)
tw = w.flip(0) * 0.5
cases = [
    ("exp", lambda a, b: a.exp()),
    ("log", lambda a, b: a.abs().log()),
    ("sin cos", lambda a, b: a.sin() * b.cos()),
    ("tanh sigmoid", lambda a, b: torch.tanh(a) + torch.sigmoid(b)),
    ("sqrt reciprocal", lambda a, b: a.abs().sqrt() / (b * b + 1).reciprocal()),
    ("relu gelu silu", lambda a, b: F.relu(a) + F.gelu(b) - F.silu(a)),
    ("pow", lambda a, b: a ** 3 + 2 ** b + a.abs() ** b),
    ("arith", lambda a, b: (a * b - a / (b + 3)) * 0.5 - b),
    ("maximum clamp where", lambda a, b: torch.maximum(a, b) + a.clamp(-1, 1) + torch.where(a > 0, a, b)),
    ("softmax", lambda a, b: F.softmax(a * b, dim=1) + F.log_softmax(a, dim=0)),
    ("matmul linear", lambda a, b: (a @ b.t()).sum(0) + F.linear(a, w, b[0, :].repeat(2)[:4]).mean(1).sum()),
    ("reductions views", lambda a, b: torch.cat([a.t().reshape(-1), b[1, 1:], torch.stack([a, b]).mean((0, 2))]).sum(dim=0, keepdim=True)),
    ("cumsum masked_fill repeat", lambda a, b: torch.cumsum(a * b, 1).masked_fill(a < 0, 0.5).repeat(1, 2)),
]
for name, f in cases:
    with fwAD.dual_level():
        out = f(fwAD.make_dual(x, tx), fwAD.make_dual(y, ty))
        print(name, fwAD.unpack_dual(out).tangent.flatten().tolist())
with fwAD.dual_level():
    out = F.linear(x, fwAD.make_dual(w, tw), fwAD.make_dual(y[0, :].clone().repeat(2)[:4], ty.flatten()[:4]))
    print("linear params", fwAD.unpack_dual(out).tangent.flatten().tolist())
"#;

/// PyTorch 2.15's tangents for `PROGRAM` (printed with repr, exact).
const EXPECTED: &[(&str, &[f64])] = &[
    (
        "exp",
        &[
            0.6749294037880016,
            -0.07529855297805052,
            12.182493960703473,
            6.008332047892867,
            0.2517190884338096,
            -1.0054800690534589,
        ],
    ),
    (
        "log",
        &[
            1.6666666666666667,
            0.20833333333333334,
            0.4,
            1.8181818181818181,
            0.17857142857142858,
            3.75,
        ],
    ),
    (
        "sin cos",
        &[
            0.3285688395307769,
            0.05009200501691444,
            -0.34350331319885974,
            0.389393064495551,
            0.6924460245640007,
            -1.2502177307753115,
        ],
    ),
    (
        "tanh sigmoid",
        &[
            0.30842202884298175,
            0.10938243048204269,
            0.13354707494330778,
            0.7697777091561157,
            0.21058443050219045,
            -1.3978502993500952,
        ],
    ),
    (
        "sqrt reciprocal",
        &[
            -0.15975241260567338,
            0.4473067552958857,
            -0.7462975277997378,
            2.1977312682110903,
            -3.8097911922533805,
            1.2332882874656679,
        ],
    ),
    (
        "relu gelu silu",
        &[
            -0.951359197389421,
            0.4976016581068495,
            -0.10935003315442149,
            0.3511202036957497,
            -0.08446309928191396,
            -0.005028759606098554,
        ],
    ),
    (
        "pow",
        &[
            -1.2168914497425993,
            -0.2978038128169184,
            19.015426166307343,
            9.392251933826238,
            -1.2383895409041452,
            0.31750909354584955,
        ],
    ),
    (
        "arith",
        &[
            1.162037037037037,
            -1.2298828125,
            -0.37314049586776865,
            0.540129848783695,
            -0.5625,
            0.36604938271604937,
        ],
    ),
    ("maximum clamp where", &[0.0, 1.5, 2.0, 4.0, 0.375, -2.5]),
    (
        "softmax",
        &[
            -0.756455344224577,
            -0.6287490137552784,
            0.15441722187060544,
            0.9579136033611088,
            -0.0020520119447600405,
            -2.811648727525599,
        ],
    ),
    ("matmul linear", &[4.34375, 1.81875]),
    ("reductions views", &[3.145833333333333]),
    (
        "cumsum masked_fill repeat",
        &[
            0.45,
            0.0,
            -0.04999999999999999,
            0.45,
            0.0,
            -0.04999999999999999,
            2.075,
            2.7,
            0.0,
            2.075,
            2.7,
            0.0,
        ],
    ),
    (
        "linear params",
        &[
            1.31,
            -0.75,
            1.6099999999999999,
            -0.22999999999999998,
            -1.075,
            1.5950000000000002,
            0.42500000000000004,
            0.435,
        ],
    ),
];

fn check(lines: &[String]) {
    assert_eq!(lines.len(), EXPECTED.len(), "{lines:?}");
    for (line, (name, expected)) in lines.iter().zip(EXPECTED) {
        let (got_name, rest) = line.split_once(" [").expect("a name, then a list");
        assert_eq!(got_name, *name);
        // A few ulps: the formulas are PyTorch's, the order of a sum or
        // the last bit of `exp` not always.
        assert_close(name, rest, expected, 1e-14);
    }
}

/// The numbers of a printed list (its `[` taken off already), each within
/// `tol` of `expected`'s, relative (absolute below 1).
fn assert_close(name: &str, list: &str, expected: &[f64], tol: f64) {
    let got: Vec<f64> = list
        .trim_end_matches(']')
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(got.len(), expected.len(), "{name}: {got:?}");
    for (g, e) in got.iter().zip(expected) {
        assert!(
            (g - e).abs() <= tol * e.abs().max(1.0),
            "{name}: {got:?} vs {expected:?}"
        );
    }
}

/// More ops: the selections (max, sort, topk, median), gather and
/// scatter, pooling, the normalizations, the losses, the statistics
/// (var, std, norms, amax, logsumexp), the linear ops the evaluator
/// computes as PyTorch's `auto_linear` (flip, pad, interpolate, ...),
/// prod and cumprod (with zeros), glu, prelu, var_mean, the activations
/// with settings and the modules that pad, upsample and shuffle, and
/// lerp/addcmul/baddbmm; each tangent's length, and ten of its elements
/// evenly spaced.
const MORE: &str = r#"import torch
import torch.nn.functional as F
import torch.autograd.forward_ad as fwAD
x = (torch.arange(96, dtype=torch.float64).reshape(2, 3, 4, 4) * 0.37).sin() * 2
tx = (torch.arange(96, dtype=torch.float64).reshape(2, 3, 4, 4) * 0.61).cos()
w = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64)
tw = torch.tensor([0.25, 1.0, -0.5], dtype=torch.float64)
b = torch.tensor([0.1, 0.2, -0.3], dtype=torch.float64)
tb = torch.tensor([-1.0, 0.5, 2.0], dtype=torch.float64)
rm = torch.tensor([0.2, -0.1, 0.4], dtype=torch.float64)
rv = torch.tensor([1.5, 0.5, 2.0], dtype=torch.float64)
idx = torch.tensor([[[[0, 3, 1, 2]], [[2, 2, 0, 1]], [[3, 0, 0, 1]]]] * 2)
target = torch.tensor([2, 0])
probs = (x * 0.5).sigmoid()
cases = [
    ("selections", lambda d: torch.cat([d.max(1).values.flatten(), d.min(3, keepdim=True).values.flatten(), d.sort(2, descending=True).values.flatten(), d.topk(2, dim=3).values.flatten(), d.median(1).values.flatten(), d.max().reshape(1), d.median().reshape(1), d.amin((1, 2)).flatten()])),
    ("gather index", lambda d: torch.cat([d.gather(2, idx).flatten(), d.index_select(3, torch.tensor([3, 0])).flatten(), d.masked_select(x > 0.5), torch.zeros(2, 3, 4, 4, dtype=torch.float64).scatter(2, idx, d).flatten(), x.scatter(3, idx, 0.5).flatten() + d.flatten()])),
    ("pooling", lambda d: torch.cat([F.max_pool2d(d, 2).flatten(), F.max_pool2d(d, 3, 1, 1).flatten(), F.avg_pool2d(d, 2).flatten(), F.adaptive_avg_pool2d(d, 1).flatten()])),
    ("normalizations", lambda d: torch.cat([F.layer_norm(d.transpose(1, 3), (3,), fwAD.make_dual(w, tw), fwAD.make_dual(b, tb)).flatten(), F.layer_norm(d, (4, 4)).flatten(), F.batch_norm(d, None, None, fwAD.make_dual(w, tw), b, training=True).flatten(), F.batch_norm(d, rm, rv, w, fwAD.make_dual(b, tb), training=False).flatten(), F.group_norm(d, 3, fwAD.make_dual(w, tw), b).flatten()])),
    ("losses", lambda d: torch.stack([F.mse_loss(d, x.flip(0)), F.cross_entropy(d[:, :, 0, 0], target), F.nll_loss(F.log_softmax(d[:, :, 1, 1], 1), target, reduction="sum"), F.binary_cross_entropy(d.sigmoid(), probs), F.binary_cross_entropy_with_logits(d, probs), F.smooth_l1_loss(d, x * 0.5, beta=0.4), F.huber_loss(d, x.flip(3), delta=0.3)])),
    ("statistics", lambda d: torch.cat([d.var((0, 2)).flatten(), d.std(1, keepdim=True).flatten(), d.norm(dim=3).flatten(), d.norm(p=1, dim=(1, 2)).flatten(), torch.linalg.vector_norm(d, ord=3, dim=0).flatten(), d.amax(2).flatten(), d.logsumexp((1, 3)).flatten(), d.var().reshape(1)])),
    ("linear ops", lambda d: torch.cat([d.flip(1).flatten(), d.roll(1, 2).flatten(), d.tril(1).flatten(), F.pad(d, (1, 2), value=3.0).flatten(), F.interpolate(d, scale_factor=2).flatten(), F.interpolate(d, size=(5, 3), mode="bilinear").flatten(), d[0, 0].diag().flatten(), d[1, 2].trace().reshape(1), F.embedding(torch.tensor([[3, 0], [1, 1]]), d[0, 0]).flatten()])),
    ("products", lambda d: torch.cat([(d * (x.abs() > 0.3)).prod(1).flatten(), (d * (x.abs() > 0.5)).cumprod(3).flatten(), d[0, 0].prod().reshape(1), d[1].cumprod(0).flatten()])),
    ("two halves and pairs", lambda d: torch.cat([F.glu(d, 1 if False else 2).flatten(), F.prelu(d, fwAD.make_dual(w, tw)).flatten(), F.prelu(x, fwAD.make_dual(torch.tensor([0.2], dtype=torch.float64), torch.tensor([1.5], dtype=torch.float64))).flatten(), torch.cat(torch.var_mean(d, (0, 3), correction=0)).flatten(), torch.cat(torch.std_mean(d, 1, keepdim=True)).flatten()])),
    ("activations and module forms", lambda d: torch.cat([F.elu(d).flatten(), F.selu(d).flatten(), F.leaky_relu(d, 0.2).flatten(), F.hardswish(d).flatten(), F.softplus(d, beta=2.0).flatten(), F.logsigmoid(d).flatten(), F.hardtanh(d, -0.5, 0.5).flatten(), torch.nn.Upsample(scale_factor=2)(d).flatten(), torch.nn.ZeroPad2d(1)(d).flatten(), torch.nn.ConstantPad2d(1, 3.0)(d).flatten(), torch.nn.ReflectionPad2d(1)(d).flatten(), torch.nn.PixelShuffle(2)(d[:, :1].repeat(1, 4, 1, 1)).flatten(), torch.nn.ELU(alpha=0.5)(d).flatten()])),
    ("blends", lambda d: torch.cat([torch.lerp(d, x.flip(2), 0.3).flatten(), torch.lerp(x, d * 2, 0.8).flatten(), torch.addcmul(d, d, x, value=0.5).flatten(), torch.addcdiv(x, d, x.abs() + 1, value=-2.0).flatten(), torch.baddbmm(d[0], d[1], x[0, :, :, :], beta=0.5, alpha=2.0).flatten()])),
]
for name, f in cases:
    with fwAD.dual_level():
        t = fwAD.unpack_dual(f(fwAD.make_dual(x, tx))).tangent.flatten()
        step = max(1, t.numel() // 10)
        print(name, t.numel(), t[::step].tolist())
"#;

/// PyTorch 2.15's answers for `MORE` (printed with repr, exact).
const MORE_EXPECTED: &[(&str, usize, &[f64])] = &[
    (
        "selections",
        242,
        &[
            1.0,
            0.9980601600227396,
            0.2278881106647955,
            0.9336336440746373,
            -0.13603930475245693,
            0.9980601600227396,
            0.5615673191549685,
            -0.8014093051320119,
            0.9342958652838964,
            0.10511930440367864,
            0.9700201889673719,
        ],
    ),
    (
        "gather index",
        306,
        &[
            1.0,
            -0.9624854679762374,
            -0.19563657157033057,
            0.2260834079058878,
            0.34364574631604705,
            0.0,
            -0.8360763613353418,
            1.0,
            0.8527565521308732,
            0.45438747440426913,
            -0.07779276012199682,
        ],
    ),
    (
        "pooling",
        150,
        &[
            -0.7638152020777741,
            -0.6804052755506189,
            -0.9958083245390612,
            0.9704688648082586,
            -0.8370915446993543,
            -0.5339599119152096,
            0.7823931009425596,
            -0.5840597479719506,
            0.01500612280716107,
            0.2297508886041012,
        ],
    ),
    (
        "normalizations",
        480,
        &[
            -0.16545040022144386,
            -0.6863533871475838,
            0.6670996181977829,
            -0.8527395547760867,
            0.30172670748744557,
            -0.6901236410844347,
            -0.5917530703569678,
            -1.218626757306049,
            0.3259416980829311,
            -0.7731783470480539,
        ],
    ),
    (
        "losses",
        7,
        &[
            -0.10157945304032577,
            0.0382118947156522,
            0.23005381458405666,
            -0.0053766265792583035,
            -0.0053766265792583035,
            -0.0354590044227473,
            -0.009713442873183651,
        ],
    ),
    (
        "statistics",
        157,
        &[
            -0.8041127949190618,
            0.33264312637523097,
            -0.09409298602938897,
            -1.567240996343783,
            0.6478955804846971,
            0.06770451545126843,
            -0.13024127017983134,
            -0.34861412058004576,
            0.6136618679636359,
            0.2260834079058878,
            0.3178907480131016,
        ],
    ),
    (
        "linear ops",
        951,
        &[
            0.7835458221012972,
            0.7445818236347878,
            -0.07779276012199682,
            0.983604310238315,
            0.954124775510773,
            -0.9958083245390612,
            0.39974662253068577,
            0.954124775510773,
            -0.7221507646257157,
            -0.8845415559936279,
            -0.42809968152039385,
        ],
    ),
    (
        "products",
        177,
        &[
            0.0,
            0.7139085573846708,
            0.0,
            0.0,
            -0.9995149223555243,
            1.7799784213757217,
            -0.0,
            0.0,
            -0.5339599119152096,
            0.06684676467977506,
            -2.9471161999039603,
        ],
    ),
    (
        "two halves and pairs",
        328,
        &[
            0.5893290826608146,
            -0.00813488855298261,
            0.7059988100729067,
            -0.7109736159191886,
            1.1803443425145426,
            -1.065760679964128,
            -2.65926434172672,
            -2.910317201121556,
            -0.37052571196942496,
            0.9711948833636501,
            -0.2956502289781336,
        ],
    ),
    (
        "activations and module forms",
        1928,
        &[
            1.0,
            0.2,
            0.5,
            1.0,
            -0.4819098543316285,
            0.9980601600227396,
            0.0,
            0.0,
            0.9704688648082586,
            -0.7638152020777741,
            -0.9629866151249363,
        ],
    ),
    (
        "blends",
        432,
        &[
            0.7,
            0.3192261921379136,
            -0.4088418235803654,
            0.45806359546547964,
            -1.155441223401145,
            0.19172146577836366,
            -0.28935753184461377,
            0.0507912979229891,
            0.6335018265165039,
            -6.456078171635719,
            3.3016027314591576,
        ],
    ),
];

/// Each line of `MORE` against PyTorch's, within 1e-12 relative (the
/// normalizations and norms sum in another order than PyTorch's kernels).
fn check_more(lines: &[String]) {
    assert_eq!(lines.len(), MORE_EXPECTED.len(), "{lines:?}");
    for (line, (name, n, expected)) in lines.iter().zip(MORE_EXPECTED) {
        let (head, rest) = line
            .split_once(" [")
            .expect("a name, a length, then a list");
        assert_eq!(head, format!("{name} {n}"));
        assert_close(name, rest, expected, 1e-12);
    }
}

#[test]
fn more_ops_tangents_are_pytorchs_on_sim_and_emu() {
    check_more(&common::script_lines_on(0, "more_tangents", MORE));
    check_more(&common::script_lines_on_emu("more_tangents_emu", MORE));
}
#[test]
fn each_ops_tangent_is_pytorchs_on_sim_and_emu() {
    check(&common::script_lines_on(0, "tangents", PROGRAM));
    check(&common::script_lines_on_emu("tangents_emu", PROGRAM));
}

#[test]
fn tangents_are_freed_when_the_level_closes() {
    // Inside: the input's tangent, y and y's tangent (the temporaries of
    // `d * 2` and of exp's formula freed); after: y alone, as PyTorch drops
    // every tangent of the level.
    let out = common::script_lines_on(
        1,
        "tangent_memory",
        r#"import torch
import torch.autograd.forward_ad as fwAD
x = torch.randn(256, 256, device="cuda")
base = torch.cuda.memory_allocated()
with fwAD.dual_level():
    d = fwAD.make_dual(x, torch.randn(256, 256, device="cuda"))
    y = (d * 2).exp()
    print(torch.cuda.memory_allocated() - base, fwAD.unpack_dual(y).tangent.device)
print(torch.cuda.memory_allocated() - base, fwAD.unpack_dual(y).tangent)
"#,
    );
    assert_eq!(out, ["786432 cuda:0", "262144 None"]);
}

#[test]
fn ops_without_a_forward_formula_are_refused_and_the_level_goes_on() {
    let out = common::script_lines_on(
        0,
        "refusals",
        r#"import torch
import torch.autograd.forward_ad as fwAD
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
with fwAD.dual_level():
    d = fwAD.make_dual(torch.ones(3), torch.ones(3))
    for f in [lambda: torch.cdist(d.view(1, 3), d.view(1, 3)), lambda: torch.nn.functional.bilinear(d.view(1, 3), d.view(1, 3), torch.ones(2, 3, 3)), lambda: torch.nn.functional.embedding_bag(torch.tensor([0, 1]), d.view(3, 1), torch.tensor([0]))]:
        try:
            f()
        except RuntimeError as e:
            print(str(e)[:30])
    try:
        with fwAD.dual_level():
            pass
    except RuntimeError as e:
        print(e)
    try:
        Twice.apply(d)
    except NotImplementedError as e:
        print(e)
    print(fwAD.unpack_dual(d * 3).tangent, d.argmax())
    # Forward-over-reverse: `grad` through tensors with tangents is
    # refused (PyTorch's gradients would carry tangents); `.backward()`
    # fills `.grad` without one, as PyTorch's does.
    x0 = torch.ones(3, requires_grad=True)
    dx = fwAD.make_dual(x0, torch.ones(3))
    try:
        torch.autograd.grad((dx * dx).sum(), x0)
    except RuntimeError as e:
        print(str(e)[:40])
    w = torch.ones(3, requires_grad=True)
    (w * d).sum().backward()
    print(w.grad, fwAD.unpack_dual(w.grad).tangent)
try:
    fwAD.exit_dual_level()
except RuntimeError as e:
    print(e)
"#,
    );
    let refused = "Trying to use forward AD with ";
    assert_eq!(
        out,
        [
            refused,
            refused,
            refused,
            "Nested forward mode AD is not supported at the moment",
            "You must implement the jvp function for custom autograd.Function to use it with \
             forward mode AD.",
            "tensor([3., 3., 3.]) tensor(0)",
            "cudash computes no forward-mode tangents",
            "tensor([1., 1., 1.]) None",
            "Trying to exit a forward AD level that was not the last one that was created. This \
             is not supported.",
        ]
    );
}

#[test]
fn convolutions_carry_tangents_as_pytorchs() {
    // PyTorch 2.15's lines for the same program (CPU, f64); the numbers
    // within a few ulps.
    let expected = [
        "all -85.74418293675149 [-5.108805491089084, 8.554190039555824, 2.574631555076248]",
        "x -6.745882511252898 [-0.5831825654375771, 5.623849486170243, 5.881571101994272]",
        "wb -78.9983004254986 [-4.525622925651508, 2.930340553385582, -3.3069395469180236]",
        "b -61.39833025838254 [-1.8621467195649242, -1.8621467195649242, -1.8621467195649242]",
        "1d torch.Size([2, 5, 6]) 60.0",
        "net [[-0.04430272400460673, 0.1010059475601101], [0.46982149595310446, 0.5218583469521965]]",
    ];
    let out = common::script_lines_on(0, "conv_tangents", CONV);
    assert_eq!(out.len(), expected.len(), "{out:?}");
    for (got, want) in out.iter().zip(expected) {
        let numbers = |s: &str| -> Vec<f64> {
            s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
                .filter_map(|x| x.parse().ok())
                .collect()
        };
        let (g, w) = (numbers(got), numbers(want));
        assert_eq!(g.len(), w.len(), "{got} vs {want}");
        for (a, b) in g.iter().zip(&w) {
            assert!((a - b).abs() <= 1e-13 * b.abs().max(1.0), "{got} vs {want}");
        }
    }
}

const CONV: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.autograd.forward_ad as fwAD
torch.manual_seed(0)
x = torch.randn(2, 3, 6, 6, dtype=torch.float64)
w = torch.randn(4, 3, 3, 3, dtype=torch.float64)
b = torch.randn(4, dtype=torch.float64)
tx, tw, tb = torch.randn_like(x), torch.randn_like(w), torch.randn_like(b)
x1 = torch.randn(2, 3, 8, dtype=torch.float64); w1 = torch.randn(5, 3, 3, dtype=torch.float64); b1 = torch.randn(5, dtype=torch.float64)
with fwAD.dual_level():
    for name, args in [("all", (tx, tw, tb)), ("x", (tx, None, None)), ("wb", (None, tw, tb)), ("b", (None, None, tb))]:
        xs = [fwAD.make_dual(p, t) if t is not None else p for p, t in zip((x, w, b), args)]
        out = F.conv2d(xs[0], xs[1], xs[2], padding=1, stride=2)
        print(name, fwAD.unpack_dual(out).tangent.sum().item(), fwAD.unpack_dual(out).tangent[0, 1, 1].tolist())
    out = F.conv1d(x1, w1, fwAD.make_dual(b1, torch.ones(5, dtype=torch.float64)))
    print("1d", fwAD.unpack_dual(out).tangent.shape, fwAD.unpack_dual(out).tangent.sum().item())
    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2)).double()
    print("net", fwAD.unpack_dual(net(fwAD.make_dual(x, tx))).tangent.tolist())
"#;

#[test]
fn dropout_carries_the_tangent_through_its_mask_on_sim_and_emu() {
    // PyTorch's formula: the tangent through the same mask, scaled (the
    // fused CUDA kernel's node, and the CPU path's `x * noise`).
    let program = r#"import torch
import torch.nn.functional as F
import torch.autograd.forward_ad as fwAD
torch.manual_seed(0)
for device in ["cuda", "cpu"]:
    x = torch.randn(4, 5, device=device)
    with fwAD.dual_level():
        y = F.dropout(fwAD.make_dual(x, torch.ones_like(x)), 0.5, training=True)
        p, t = fwAD.unpack_dual(y)
        print(torch.equal(t, (p != 0).float() * 2), t.device)
"#;
    let expected = ["True cuda:0", "True cpu"];
    assert_eq!(
        common::script_lines_on(1, "dropout_tangent", program),
        expected
    );
    assert_eq!(
        common::script_lines_on_emu("dropout_tangent_emu", program),
        expected
    );
}
