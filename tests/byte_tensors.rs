//! `torch.uint8` (cudash's `u8`): one byte per element, arithmetic that
//! wraps modulo 256, floats converted through int64 as c10 converts them,
//! promotion as PyTorch's, a uint8 index read as a mask with PyTorch's
//! deprecation warning. Each expected value is what PyTorch 2.15 printed
//! for the same program, as a Python program prints a tensor (PyTorch's
//! `tensor([...], dtype=torch.uint8)`).

mod common;

const PROGRAM: &str = r#"import torch
x = torch.tensor([0, 100, 200, 255], dtype=torch.uint8, device=DEV)
print(x.dtype, x.element_size(), x.dtype.is_signed, x.dtype.itemsize, x.is_floating_point())
print(x + 100)
print(x - 1)
print(-x)
print(x * 2)
print(x / 2)
print(x // 3, x % 7)
print(x.sum(), x.sum().dtype, x.cumsum(0))
print(x.max(), x.argmax(), x.prod())
print(torch.tensor([-1.0, 256.0, 3.7, 300.5], device=DEV).to(torch.uint8))
print(torch.tensor([-1, 256, 3], device=DEV).byte())
print(x + torch.tensor([1], dtype=torch.int32, device=DEV))
print((x + 1.5).dtype, (x * True).dtype)
print(x > 100, x & 0x0F, ~x)
print(torch.zeros(2, dtype=torch.uint8, device=DEV), torch.arange(3, dtype=torch.uint8, device=DEV))
print(x.type())
print(x.float().mean(), x.clamp(10, 150), torch.where(x > 100, x, 0))
print(x.sort(descending=True).values, x.tolist(), x[3].item())
print(torch.tensor([250], dtype=torch.uint8, device=DEV) + torch.tensor([10], dtype=torch.uint8, device=DEV))
print(x.pow(2), torch.tensor([[1, 2], [3, 4]], dtype=torch.uint8) @ torch.tensor([[100, 2], [3, 4]], dtype=torch.uint8))
y = x.clone()
y[0] = 4
print(y)
try:
    torch.tensor([-1, 300], dtype=torch.uint8)
except RuntimeError as e:
    print(e)
try:
    torch.full((2,), 300, dtype=torch.uint8)
except RuntimeError as e:
    print(e)
try:
    y[0] = 260
except RuntimeError as e:
    print(e)
try:
    x.mean()
except RuntimeError as e:
    print("mean refused")
print(torch.iinfo(torch.uint8).max, torch.iinfo(torch.uint8).min, torch.ByteTensor([1, 2]).dtype)
"#;

fn expected(dev: &str) -> Vec<String> {
    let (suffix, class) = match dev {
        "cpu" => (String::new(), "torch.ByteTensor"),
        _ => (format!(", device='{dev}'"), "torch.cuda.ByteTensor"),
    };
    [
        "torch.uint8 1 False 1 False",
        "tensor([100, 200,  44,  99]DEV, dtype=torch.uint8)",
        "tensor([255,  99, 199, 254]DEV, dtype=torch.uint8)",
        "tensor([  0, 156,  56,   1]DEV, dtype=torch.uint8)",
        "tensor([  0, 200, 144, 254]DEV, dtype=torch.uint8)",
        "tensor([  0.0000,  50.0000, 100.0000, 127.5000]DEV)",
        "tensor([ 0, 33, 66, 85]DEV, dtype=torch.uint8) tensor([0, 2, 4, 3]DEV, dtype=torch.uint8)",
        "tensor(555DEV) torch.int64 tensor([  0, 100, 300, 555]DEV)",
        "tensor(255DEV, dtype=torch.uint8) tensor(3DEV) tensor(0DEV)",
        "tensor([255,   0,   3,  44]DEV, dtype=torch.uint8)",
        "tensor([255,   0,   3]DEV, dtype=torch.uint8)",
        "tensor([  1, 101, 201, 256]DEV, dtype=torch.int32)",
        "torch.float32 torch.uint8",
        "tensor([False, False,  True,  True]DEV) tensor([ 0,  4,  8, 15]DEV, dtype=torch.uint8) tensor([255, 155,  55,   0]DEV, dtype=torch.uint8)",
        "tensor([0, 0]DEV, dtype=torch.uint8) tensor([0, 1, 2]DEV, dtype=torch.uint8)",
        "TYPE",
        "tensor(138.7500DEV) tensor([ 10, 100, 150, 150]DEV, dtype=torch.uint8) tensor([  0,   0, 200, 255]DEV, dtype=torch.uint8)",
        "tensor([255, 200, 100,   0]DEV, dtype=torch.uint8) [0, 100, 200, 255] 255",
        "tensor([4]DEV, dtype=torch.uint8)",
        "tensor([ 0, 16, 64,  1]DEV, dtype=torch.uint8) tensor([[106,  10],",
        "        [ 56,  22]], dtype=torch.uint8)",
        "tensor([  4, 100, 200, 255]DEV, dtype=torch.uint8)",
        "value cannot be converted to type uint8 without overflow",
        "value cannot be converted to type uint8_t without overflow",
        "value cannot be converted to type uint8_t without overflow",
        "mean refused",
        "255 0 torch.uint8",
    ]
    .iter()
    .map(|s| s.replace("DEV", &suffix).replace("TYPE", class))
    .collect()
}

/// Wrapping arithmetic, conversions, promotion, reductions into int64,
/// printing and the overflow errors, on the cpu (`full`'s message is
/// cudash's, naming the value; PyTorch's says `uint8_t`).
#[test]
fn uint8_tensors_compute_as_pytorchs_on_the_cpu() {
    let got = common::script_lines_on(0, "u8cpu", &PROGRAM.replace("DEV", "\"cpu\""));
    assert_eq!(got, expected("cpu"));
}

/// The same program on a simulated GPU: the same values, on cuda:0.
#[test]
fn uint8_tensors_compute_as_pytorchs_on_a_gpu() {
    let got = common::script_lines_on(1, "u8gpu", &PROGRAM.replace("DEV", "\"cuda\""));
    assert_eq!(got, expected("cuda:0"));
}

/// A uint8 index is a mask, with PyTorch's deprecation warning once per
/// line of the program, as Python's warning filter shows it (PyTorch
/// printed it 3 times for this program).
#[test]
fn a_uint8_index_is_a_mask_with_pytorchs_warning() {
    let (out, err, ok) = common::script_streams(
        "u8mask",
        r#"import torch
x = torch.tensor([5, 6, 7, 8])
m = torch.tensor([1, 0, 1, 0], dtype=torch.uint8)
print(x[m])
for i in range(3):
    x[m]
print(x[m])
"#,
    );
    assert!(ok, "{err}");
    assert_eq!(out, "tensor([5, 7])\ntensor([5, 7])\n");
    assert_eq!(
        err.matches("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.")
            .count(),
        3,
        "{err}"
    );
}

/// `torch.finfo` and `torch.iinfo` print as PyTorch's (each limit as C's
/// `%g`): what PyTorch 2.15 printed for the same program.
#[test]
fn dtype_limits_print_as_pytorchs() {
    let got = common::script_lines_on(
        0,
        "limits",
        r#"import torch
for d in [torch.float32, torch.float64, torch.float16, torch.bfloat16]: print(torch.finfo(d))
for d in [torch.uint8, torch.int32, torch.int64]: print(torch.iinfo(d))
print(repr(torch.iinfo(torch.uint8)))
"#,
    );
    assert_eq!(
        got,
        [
            "finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)",
            "finfo(resolution=1e-15, min=-1.79769e+308, max=1.79769e+308, eps=2.22045e-16, smallest_normal=2.22507e-308, tiny=2.22507e-308, dtype=float64)",
            "finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)",
            "finfo(resolution=0.01, min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=bfloat16)",
            "iinfo(min=0, max=255, dtype=uint8)",
            "iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)",
            "iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)",
            "iinfo(min=0, max=255, dtype=uint8)",
        ]
    );
}

/// `randint`'s ends must be values of its dtype (PyTorch's
/// `check_from_to_in_range`), and `warnings.warn` takes a Warning class:
/// what PyTorch 2.15 printed for the same program.
#[test]
fn randint_ends_fit_the_dtype() {
    let got = common::script_lines_on(
        0,
        "randint_bounds",
        r#"import torch, warnings
for t in ["torch.randint(0, 300, (3,), dtype=torch.uint8)", "torch.randint(0, 2**40, (3,), dtype=torch.int32)", "torch.randint(-1, 3, (3,), dtype=torch.uint8)", "warnings.warn(\"x\", int)"]:
    try:
        eval(t)
    except Exception as e:
        print(type(e).__name__, e)
print(torch.randint(0, 256, (2,), dtype=torch.uint8).dtype)
"#,
    );
    assert_eq!(
        got,
        [
            "RuntimeError to - 1 is out of bounds for unsigned char",
            "RuntimeError to - 1 is out of bounds for int",
            "RuntimeError from is out of bounds for unsigned char",
            "TypeError category must be a Warning subclass, not 'type'",
            "torch.uint8",
        ]
    );
}
