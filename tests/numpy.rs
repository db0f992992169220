//! cudash's NumPy (`src/eval/stdlib/numpy.py`, arrays over CPU tensors):
//! each program's expected lines are what NumPy 2 with PyTorch 2.15
//! printed for it.

mod common;

/// Arrays of lists and of `torch.arange(...).numpy()`, NumPy's dtypes (float64 by default, float32 printed by its own shortest digits), promotion of Python numbers, `torch.from_numpy` sharing the elements, reductions, `dot`/`@`, `where`, masks, and `np.random`'s legacy draws after `seed(0)`.
#[test]
fn arrays_print_and_compute_as_numpys() {
    let got = common::script_lines_on(
        0,
        "np2",
        r#"import numpy as np
import torch
np.random.seed(0)
print(np.random.rand(3))
print(np.random.randn(2, 3))
print(np.random.randint(0, 10, size=5), np.random.randint(5), np.random.permutation(6))
a = np.array([[1, 2], [3, 4]])
print(a, a.dtype, a.shape, repr(a))
b = np.array([1.5, 2.0, 3.25])
print(b, repr(b), b.dtype, b * 2, b + 1, b / 2, (b > 2))
f = np.array([3.3, 4.4], dtype=np.float32)
print(f, f.dtype, repr(f), f * 2.5)
t = torch.from_numpy(f)
print(t.dtype, t.tolist())
t.add_(1)
print(f)
x = torch.arange(4.).numpy()
print(x, type(x).__name__, x.dtype)
print(np.exp(1.0), np.sqrt(np.array([4., 9.])), np.maximum(np.array([-1., 2.]), 0))
print(np.sum(a), a.sum(axis=0), a.mean(), np.mean(b), a.T, a.dot(a), a @ a)
print(np.zeros((2, 3)), np.ones(3, dtype=np.int64), np.arange(5), np.arange(0, 1, 0.25), np.linspace(0, 1, 5))
print(np.square(b - 1).sum(), np.where(b > 2, b, 0.0), a.astype(np.float32), a.reshape(-1), a.tolist())
h = np.array([-1., 0.5, 2.])
h[h < 0] = 0
print(h, h.copy(), np.argmax(h), h.max(), h.min(), len(h), np.pi)
print(np.random.randn(), np.random.random((2,)))
"#,
    );
    let want: Vec<&str> = r#"[0.5488135  0.71518937 0.60276338]
[[-2.2683282   1.33354538 -0.84272405]
 [ 1.96992445  1.26611853 -0.50587654]]
[7 8 1 5 9] 0 [2 5 0 3 4 1]
[[1 2]
 [3 4]] int64 (2, 2) array([[1, 2],
       [3, 4]])
[1.5  2.   3.25] array([1.5 , 2.  , 3.25]) float64 [3.  4.  6.5] [2.5  3.   4.25] [0.75  1.    1.625] [False False  True]
[3.3 4.4] float32 array([3.3, 4.4], dtype=float32) [ 8.25 11.  ]
torch.float32 [3.299999952316284, 4.400000095367432]
[4.3 5.4]
[0. 1. 2. 3.] ndarray float32
2.718281828459045 [2. 3.] [0. 2.]
10 [4 6] 2.5 2.25 [[1 3]
 [2 4]] [[ 7 10]
 [15 22]] [[ 7 10]
 [15 22]]
[[0. 0. 0.]
 [0. 0. 0.]] [1 1 1] [0 1 2 3 4] [0.   0.25 0.5  0.75] [0.   0.25 0.5  0.75 1.  ]
6.3125 [0.   0.   3.25] [[1. 2.]
 [3. 4.]] [1 2 3 4] [[1, 2], [3, 4]]
[0.  0.5 2. ] [0.  0.5 2. ] 2 2.0 0.0 3 3.141592653589793
-0.07770456650883938 [0.80091075 0.52047748]
"#
        .lines()
        .collect();
    assert_eq!(got, want);
}

/// Indexing with ints, slices and tuples of them (`a[0, 1:3]`, `a[:, 3] = -1`), uint16 arrays to int64 tensors as nanoGPT batches them, a seeded two-layer step with `maximum` and a mask.
#[test]
fn indexing_assignment_and_memmap_batches_as_numpys() {
    let got = common::script_lines_on(
        0,
        "np5",
        r#"import numpy as np
import torch
a = np.arange(12).reshape(3, 4)
print(a[1], a[1:], a[:, 0], a[0, 1:3], a[-1, ::2], a[1, 2])
a[0, :] = 9
a[:, 3] = -1
print(a)
b = np.zeros((2, 3), dtype=np.float32)
b[1] = np.array([1., 2., 3.])
print(b, b.dtype)
data = np.arange(100, dtype=np.uint16)
ix = torch.randint(len(data) - 8, (4,))
x = torch.stack([torch.from_numpy((data[i:i+8]).astype(np.int64)) for i in ix])
print(x.shape, x.dtype)
np.random.seed(3)
w = np.random.randn(4, 3)
h = w.dot(np.ones(3))
h_relu = np.maximum(h, 0)
print(h_relu, round(np.square(h).sum(), 9), w.T.shape)
grad = h.copy()
grad[h < 0] = 0
print(grad)
m = np.array([[1, 0], [0, 3]])
print(np.argwhere(m > 0), np.flatnonzero(m), np.nonzero(m)[1], np.array([-3, 4], dtype=np.int8).dtype)
"#,
    );
    let want: Vec<&str> = r#"[4 5 6 7] [[ 4  5  6  7]
 [ 8  9 10 11]] [0 4 8] [1 2] [ 8 10] 6
[[ 9  9  9 -1]
 [ 4  5  6 -1]
 [ 8  9 10 -1]]
[[0. 0. 0.]
 [1. 2. 3.]] float32
torch.Size([4, 8]) torch.int64
[2.32163579 0.         0.         0.        ] 13.007734817 (3, 4)
[2.32163579 0.         0.         0.        ]
[[0 0]
 [1 1]] [0 3] [0 1] int8
"#
    .lines()
    .collect();
    assert_eq!(got, want);
}

/// `np.memmap` of a uint16 file and nanoGPT's `get_batch` (`torch.from_numpy(data[i:i+n].astype(np.int64))`), NumPy's scalars.
#[test]
fn nanogpt_batches_from_a_memmap() {
    const SRC: &str = r#"import numpy as np
import torch
torch.manual_seed(1337)
data = np.memmap('train.bin', dtype=np.uint16, mode='r')
print(len(data), data.dtype, data[:5], data[-3:])
block_size, batch_size = 8, 4
ix = torch.randint(len(data) - block_size, (batch_size,))
x = torch.stack([torch.from_numpy((data[i:i+block_size]).astype(np.int64)) for i in ix])
y = torch.stack([torch.from_numpy((data[i+1:i+1+block_size]).astype(np.int64)) for i in ix])
print(x.tolist(), y[0].tolist())
meta_vocab = np.array([3, 1, 2])
print(np.exp(2.5), np.log(np.array([1.0, np.e])), np.float32(1.5), np.int64(3))
"#;
    // The file nanoGPT's prepare.py writes: uint16 token ids.
    let dir = std::env::temp_dir().join(format!("cudash-np-memmap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ids: Vec<u8> = (0..1000u32)
        .flat_map(|i| (((i * 7919) % 65536) as u16).to_le_bytes())
        .collect();
    std::fs::write(dir.join("train.bin"), ids).unwrap();
    let src = SRC.replace(
        "'train.bin'",
        &format!("'{}'", dir.join("train.bin").display()),
    );
    let got = common::script_lines_on(0, "mm", &src);
    let _ = std::fs::remove_dir_all(&dir);
    let want: Vec<&str> = r#"1000 uint16 [    0  7919 15838 23757 31676] [30923 38842 46761]
[[24857, 32776, 40695, 48614, 56533, 64452, 6835, 14754], [50579, 58498, 881, 8800, 16719, 24638, 32557, 40476], [12068, 19987, 27906, 35825, 43744, 51663, 59582, 1965], [32792, 40711, 48630, 56549, 64468, 6851, 14770, 22689]] [32776, 40695, 48614, 56533, 64452, 6835, 14754, 22673]
12.182493960703473 [0. 1.] 1.5 3
"#
        .lines()
        .collect();
    assert_eq!(got, want);
}

/// `.numpy()` of a tensor that requires grad is PyTorch's error; uint8 wraps; scientific printing when the values span more than 1000; `randint`/`normal`/`uniform` after `seed(42)`.
#[test]
fn errors_dtypes_and_scientific_printing_as_numpys() {
    let got = common::script_lines_on(
        0,
        "np6",
        r#"import numpy as np
import torch
x = torch.ones(2, requires_grad=True)
try:
    x.numpy()
except RuntimeError as e:
    print(e)
print(x.detach().numpy())
np.random.seed(42)
print(np.random.randint(0, 100, (2, 3)), np.random.normal(5, 2, size=3), np.random.uniform(-1, 1, 2))
a = np.array([1, 2, 3], dtype=np.uint8)
print(a, a.dtype, a + 250, repr(a))
print(np.array([True, False]), np.array([[0.001, 1000.5], [2, 3]]), np.arange(25))
print(np.concatenate([np.ones(2), np.zeros(2)]), np.stack([np.arange(2), np.arange(2)]), np.mean(np.array([1, 2, 3, 4])))
print(np.int64(7) // 2, 7 / np.float32(2), np.array([1.0, 2.0]) * np.array([3, 4]))
print(np.where(np.array([1, 0, 2]) > 0), np.unique(np.array([3, 1, 3, 2])), np.argsort(np.array([3., 1., 2.])))
"#,
    );
    let want: Vec<&str> =
        r#"Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
[1. 1.]
[[51 92 14]
 [71 60 20]] [4.53169325 4.53172609 8.15842563] [-0.95883101  0.9398197 ]
[1 2 3] uint8 [251 252 253] array([1, 2, 3], dtype=uint8)
[ True False] [[1.0000e-03 1.0005e+03]
 [2.0000e+00 3.0000e+00]] [ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
 24]
[1. 1. 0. 0.] [[0 1]
 [0 1]] 2.5
3 3.5 [3. 8.]
(array([0, 2]),) [1 2 3] [1 2 0]
"#
        .lines()
        .collect();
    assert_eq!(got, want);
}

/// A two-layer network fitted by hand in NumPy (forward, loss, gradients
/// and the update written out, as PyTorch's tutorials start), 300 steps:
/// each loss within 1e-12 of NumPy's, relatively (sums add in another
/// order).
#[test]
fn a_network_trained_in_numpy_follows_numpys_losses() {
    let got = common::script_lines_on(0, "two_layer_numpy", TWO_LAYER);
    let want: Vec<&str> = TWO_LAYER_NUMPY.lines().collect();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        let (gs, ws): (Vec<&str>, Vec<&str>) = (g.split(' ').collect(), w.split(' ').collect());
        assert_eq!(gs[0], ws[0]);
        let (a, b): (f64, f64) = (gs[1].parse().unwrap(), ws[1].parse().unwrap());
        assert!((a - b).abs() <= 1e-12 * b.abs(), "{g} / {w}");
    }
}

const TWO_LAYER: &str = r#"# A two-layer network fitted by hand in NumPy: forward, loss, gradients
# and the update written out (cudash's own test program).
import numpy as np

np.random.seed(7)
batch, n_in, n_hidden, n_out = 32, 50, 20, 5
inputs = np.random.randn(batch, n_in)
targets = np.random.randn(batch, n_out)
w_in = np.random.randn(n_in, n_hidden) * 0.1
w_out = np.random.randn(n_hidden, n_out) * 0.1
step = 1e-3
for it in range(300):
    hidden = inputs.dot(w_in)
    active = np.maximum(hidden, 0)
    guess = active.dot(w_out)
    loss = np.square(guess - targets).sum()
    if it % 20 == 0:
        print(it, loss)
    d_guess = 2.0 * (guess - targets)
    d_w_out = active.T.dot(d_guess)
    d_active = d_guess.dot(w_out.T)
    d_hidden = d_active.copy()
    d_hidden[hidden < 0] = 0
    d_w_in = inputs.T.dot(d_hidden)
    w_in -= step * d_w_in
    w_out -= step * d_w_out
print("final", loss)
"#;

const TWO_LAYER_NUMPY: &str = r#"0 166.5591046529695
20 76.86164297462386
40 32.667858453408236
60 15.889200148857135
80 8.951918493945652
100 5.699076869325366
120 3.871928560239777
140 2.7127551473111193
160 1.9173593430954838
180 1.3475371794426343
200 0.9450486622994392
220 0.6583397546141737
240 0.4581584676424333
260 0.319892602619692
280 0.2242532767766686
final 0.16034000429025325
"#;

/// uint8 arrays are uint8 tensors: `torch.from_numpy` and `.numpy()` keep
/// the dtype, arithmetic wraps as NumPy's, sums widen.
#[test]
fn uint8_arrays_are_uint8_tensors() {
    let got = common::script_lines_on(
        0,
        "npu8",
        r#"import numpy as np
import torch
a = np.array([250, 3, 7], dtype=np.uint8)
print(a + 10, (a + 10).dtype, a * 2, a - 8, a.astype(np.int64) - 8)
t = torch.from_numpy(a)
print(t.dtype, t.tolist())
b = torch.tensor([1, 2, 255], dtype=torch.uint8).numpy()
print(b, b.dtype, repr(b))
print(a.sum(), a.max(), (a > 5), a / 2)
"#,
    );
    assert_eq!(
        got,
        [
            "[ 4 13 17] uint8 [244   6  14] [242 251 255] [242  -5  -1]",
            "torch.uint8 [250, 3, 7]",
            "[  1   2 255] uint8 array([  1,   2, 255], dtype=uint8)",
            "260 250 [ True False  True] [125.    1.5   3.5]",
        ]
    );
}
