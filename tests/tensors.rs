//! Tensor literals, factories, dtypes and promotion.

mod common;

#[test]
fn literals_and_tags() {
    shows!("[1., 2.]" => "[1., 2.]  f32[2] @cpu");
    shows!("[1, 2]" => "[1, 2]  i64[2] @cpu");
    shows!("[true, false]" => "[ true, false]  bool[2] @cpu");
    // `[]` is Python's empty list (`losses = []`); `tensor([])` the empty tensor.
    shows!("[]" => "[]");
    shows!("tensor([])" => "[]  f32[0] @cpu");
    shows!("[[1, 2], [3, 4]]" => "[[1, 2],\n [3, 4]]\ni64[2,2] @cpu");
    shows!("[1, 2.5]" => "[1.0000, 2.5000]  f32[2] @cpu");
}

#[test]
fn ragged_literal_is_an_error() {
    let (class, msg) = common::err("[[1, 2], [3]]");
    assert_eq!(class, "ShapeError");
    assert!(msg.contains("ragged"), "{msg}");
}

#[test]
fn lists_of_non_numbers_stay_lists() {
    shows!("[cpu, f16, \"a\"]" => "[cpu, f16, \"a\"]");
    shows!("[ones(1), 2]" => "[[1.]  f32[1] @cpu, 2]");
}

#[test]
fn factories() {
    shows!("zeros(2, 3)" => "[[0., 0., 0.],\n [0., 0., 0.]]\nf32[2,3] @cpu");
    shows!("ones([2], dtype=i32)" => "[1, 1]  i32[2] @cpu");
    shows!("full([2], 7)" => "[7, 7]  i64[2] @cpu");
    shows!("full([2], 7.)" => "[7., 7.]  f32[2] @cpu");
    shows!("arange(5)" => "[0, 1, 2, 3, 4]  i64[5] @cpu");
    shows!("arange(0, 1, 0.25)" => "[0.0000, 0.2500, 0.5000, 0.7500]  f32[4] @cpu");
    shows!("linspace(0, 1, 5)" => "[0.0000, 0.2500, 0.5000, 0.7500, 1.0000]  f32[5] @cpu");
    shows!("eye(2)" => "[[1., 0.],\n [0., 1.]]\nf32[2,2] @cpu");
    shows!("zeros_like(ones(2, dtype=f64))" => "[0., 0.]  f64[2] @cpu");
    shows!("ones(2, dtype=f64).new_full([3], 1.5)" => "[1.5000, 1.5000, 1.5000]  f64[3] @cpu");
    shows!("tensor([[1, 2]], dtype=bf16)" => "[[1., 2.]]  bf16[1,2] @cpu");
    shows!("x = ones(2, 3); zeros(x.shape)" => "[[0., 0., 0.],\n [0., 0., 0.]]\nf32[2,3] @cpu");
}

#[test]
fn seeded_random_numbers_repeat() {
    let a = common::ok("seed(3); randn(4)");
    let b = common::ok("seed(3); randn(4)");
    assert_eq!(a, b);
    assert_ne!(a, common::ok("seed(4); randn(4)"));
    // Different draws from one generator differ.
    let two = common::ok("seed(3); a = randn(4); b = randn(4); a == b");
    assert!(two.contains("false"));
    let u = common::ok("seed(1); x = rand(10000); [x.min().item() >= 0., x.max().item() < 1.]");
    assert_eq!(u, "[true, true]  bool[2] @cpu");
}

#[test]
fn randn_has_the_right_moments() {
    let out = common::ok("seed(0); x = randn(100000); m = x.mean().item(); v = ((x - m) ** 2).mean().item(); [m > -0.02, m < 0.02, v > 0.97, v < 1.03]");
    assert_eq!(out, "[true, true, true, true]  bool[4] @cpu");
}

#[test]
fn promotion_follows_pytorch() {
    shows!("(ones(2, dtype=i32) + 1).dtype" => "i32");
    shows!("(ones(2, dtype=i32) + 1.5).dtype" => "f32");
    shows!("(ones(2, dtype=f16) * 2.).dtype" => "f16");
    shows!("(ones(2, dtype=f16) + ones(2, dtype=bf16)).dtype" => "f32");
    shows!("(ones(2, dtype=i64) + ones(2, dtype=f16)).dtype" => "f16");
    shows!("(ones(2, dtype=f32) + ones(2, dtype=f64)).dtype" => "f64");
    // A 0-d tensor does not promote a dimensioned one of the same category.
    shows!("(ones(2, dtype=f32) + tensor(1., dtype=f64)).dtype" => "f32");
    shows!("(ones(2, dtype=i32) / 2).dtype" => "f32");
    shows!("([true] + [true]).dtype" => "bool");
    shows!("([1, 2] > 1).dtype" => "bool");
}

#[test]
fn casts() {
    shows!("[1.7, -1.7].to(i64)" => "[ 1, -1]  i64[2] @cpu");
    shows!("[0, 2].to(bool)" => "[false,  true]  bool[2] @cpu");
    shows!("x = ones(2); x.to(f32) is x" => "true");
    shows!("x = ones(2); x.to(f64) is x" => "false");
    shows!("[1., 2.].to(f16)" => "[1., 2.]  f16[2] @cpu");
}

#[test]
fn elementwise() {
    shows!("[1., 4.] ** 0.5" => "[1., 2.]  f32[2] @cpu");
    shows!("2 ** [1, 2, 3]" => "[2, 4, 8]  i64[3] @cpu");
    shows!("-[1, 2]" => "[-1, -2]  i64[2] @cpu");
    shows!("[1., 2.] / 0." => "[inf, inf]  f32[2] @cpu");
    shows!("[[1], [2]] + [10, 20]" => "[[11, 21],\n [12, 22]]\ni64[2,2] @cpu");
    shows!("exp([0.]) + log([1.]) + sqrt([4.])" => "[3.]  f32[1] @cpu");
    shows!("relu([-1., 2.])" => "[0., 2.]  f32[2] @cpu");
    shows!("sigmoid([0.])" => "[0.5000]  f32[1] @cpu");
    shows!("abs([-3, 4])" => "[3, 4]  i64[2] @cpu");
    shows!("exp([0, 1]).dtype" => "f32");
}

#[test]
fn integer_errors() {
    let (_, msg) = common::err("[2, 3] ** -1");
    assert!(msg.contains("negative integer powers"), "{msg}");
    let (_, msg) = common::err("9223372036854775807 + 1");
    assert!(msg.contains("overflow"), "{msg}");
    let (_, msg) = common::err("1 / 0");
    assert!(msg.contains("division by zero"), "{msg}");
    let (_, msg) = common::err("[true] - [true]");
    assert!(msg.contains("bool"), "{msg}");
}

#[test]
fn scalars_behave_like_python() {
    shows!("1 + 2" => "3");
    shows!("7 / 2" => "3.5");
    shows!("2 ** 10" => "1024");
    shows!("2 ** -1" => "0.5");
    shows!("0.1 + 0.2" => "0.30000000000000004");
    shows!("1e20" => "1e+20");
    shows!("1 < 2" => "true");
    shows!("cpu == cpu" => "true");
    shows!("f32 is f32" => "true");
}

#[test]
fn absurd_sizes_are_errors() {
    let (class, msg) = common::err("zeros(1e20)");
    assert_eq!(class, "ValueError");
    assert!(msg.contains("whole numbers"), "{msg}");
    let (_, msg) = common::err("zeros(1000000, 1000000)");
    assert!(msg.contains("out of memory"), "{msg}");
    let (_, msg) = common::err("zeros(-1)");
    assert!(msg.contains("negative"), "{msg}");
    let (_, msg) = common::err("zeros(4294967296, 4294967296, 4294967296)");
    assert!(msg.contains("more elements"), "{msg}");
}

#[test]
fn a_tensor_placed_in_a_device_block_keeps_its_elements() {
    use cudash::runtime::backend::SimBackend;
    use cudash::runtime::devices::Devices;
    use cudash::runtime::{Device, Tensor};
    let sim = SimBackend {
        count: 1,
        memory: 1 << 30,
    };
    let devices = Devices::new(&sim, "");
    let on_device =
        |v: Vec<f32>, shape: Vec<usize>| Tensor::from_vec(v, shape).with_device(Device::Cuda(0));
    // A fresh tensor keeps its own buffer.
    let fresh = on_device(vec![1., 2.], vec![2]);
    let a = fresh.placed(devices.alloc(0, 8).unwrap());
    assert_eq!(a.to_vec::<f32>(), vec![1., 2.]);
    assert!(a.memory().and_then(|m| m.block()).is_some());
    // A strided view of shared storage: its elements, in logical order, and
    // the storage it viewed is left as it was.
    let t = on_device((0..6).map(|i| i as f32).collect(), vec![2, 3]);
    let b = t.t().placed(devices.alloc(0, 24).unwrap());
    assert_eq!(b.to_vec::<f32>(), vec![0., 3., 1., 4., 2., 5.]);
    assert!(b.is_contiguous());
    assert_eq!(t.to_vec::<f32>(), vec![0., 1., 2., 3., 4., 5.]);
    // The last view gone, each block goes back to the allocator.
    let allocated = || {
        devices
            .gpu(0)
            .unwrap()
            .allocator
            .stats()
            .allocated_bytes
            .all
            .current
    };
    assert_eq!(allocated(), 1024);
    drop((a, b));
    assert_eq!(allocated(), 0);
}

/// Where cudash differed from PyTorch (issue 21), PyTorch's behaviour,
/// checked against PyTorch's own rules (`powi`, `sub_check`, arange's bound
/// check, matmul's equal dtypes, relu as a clamp).
#[test]
fn integer_powers_follow_pytorch() {
    // Once a panic: the exponent was read as i64 whatever its dtype.
    shows!("tensor([3], dtype=i32) ** 2" => "[9]  i32[1] @cpu");
    shows!("tensor([3], dtype=i32) ** tensor([2], dtype=i32)" => "[9]  i32[1] @cpu");
    // Tensor exponents below 0: 1 for 1, ±1 for -1, 0 for the rest.
    shows!("tensor([1, -1, -1, 2, 0]) ** tensor([-3, -3, -2, -1, -1])" => "[ 1, -1,  1,  0,  0]  i64[5] @cpu");
    // Exponents past 2^32 are not clamped: squaring goes on, wrapping.
    shows!("tensor([3]) ** tensor([2**33])" => "[4982619357117939713]  i64[1] @cpu");
    shows!("tensor([-1]) ** tensor([2**33 + 1])" => "[-1]  i64[1] @cpu");
    let (_, msg) = common::err("tensor([2], dtype=i32) ** -1");
    assert!(msg.contains("negative integer powers"), "{msg}");
    let (class, msg) = common::err("[true, false] ** [true, true]");
    assert_eq!(class, "DTypeError");
    assert!(msg.contains("bool"), "{msg}");
    shows!("[true, false] ** 2" => "[1, 0]  i64[2] @cpu");
    // To the power of a written `true` or `false`, PyTorch copies or fills
    // ones before its kernel's dtype check; a tensor exponent is refused.
    shows!("[true, false] ** true" => "[ true, false]  bool[2] @cpu");
    shows!("[true, false] ** false" => "[true, true]  bool[2] @cpu");
    shows!("x = tensor([true, false]); x **= false; x" => "[true, true]  bool[2] @cpu");
    let (class, _) = common::err("[true, false] ** tensor(true)");
    assert_eq!(class, "DTypeError");
}

#[test]
fn pytorch_refuses_these_and_so_does_cudash() {
    for (src, says) in [
        ("[true, false] - 1", "with a bool tensor"),
        ("[1, 2] - [true, false]", "with a bool tensor"),
        ("[true] - [true]", "two bool tensors"),
        ("arange(0, -5)", "goes against the step"),
        ("arange(0, 5, -1)", "goes against the step"),
        ("[true, false].argmax()", "bool"),
        ("ones(2, 2) @ ones(2, 2, dtype=f64)", "one dtype"),
        ("[true].abs()", "bool"),
        ("relu([true])", "bool"),
    ] {
        let (_, msg) = common::err(src);
        assert!(msg.contains(says), "{src}: {msg}");
    }
    shows!("arange(5, 5)" => "[]  i64[0] @cpu");
}

#[test]
fn relu_lets_nan_through_and_cat_skips_1d_empty_tensors() {
    shows!("relu([0. / 0., -1., 2.])" => "[nan, 0., 2.]  f32[3] @cpu");
    shows!("relu(tensor([0. / 0.], dtype=f16))" => "[nan]  f16[1] @cpu");
    shows!("cat([ones(2, 2), zeros(0)]).shape" => "[2, 2]");
    shows!("cat([zeros(0), ones(1, 2), zeros(0)], 1).shape" => "[1, 2]");
    shows!("cat([zeros(0), zeros(0)]).shape" => "[0]");
}

#[test]
fn tensor_reads_its_literal_exactly() {
    shows!("tensor([0.1, 1e-300], dtype=f64) * 1e300" => "[1.0000e+299,  1.0000e+00]  f64[2] @cpu");
    shows!("tensor([0.1], dtype=f64) == 0.1" => "[true]  bool[1] @cpu");
    shows!("tensor([0.1]).dtype" => "f32");
    shows!("tensor([1, 2]).dtype" => "i64");
    shows!("ones(1, dtype=f64).new_tensor([0.1]) == 0.1" => "[true]  bool[1] @cpu");
}

/// `full`, `fill_`, `new_full` and `full_like` take the number as written
/// (integers exact past 2^53) and refuse what does not fit, as PyTorch's
/// `value cannot be converted ... without overflow`.
#[test]
fn fills_are_exact_and_refuse_what_does_not_fit() {
    shows!("full(1, 2**60 + 1, dtype=i64)" => "[1152921504606846977]  i64[1] @cpu");
    shows!("ones(1, dtype=i64).new_full([1], 2**62 + 3)" => "[4611686018427387907]  i64[1] @cpu");
    shows!("zeros(1, dtype=i64).fill_(2**62 + 3)" => "[4611686018427387907]  i64[1] @cpu");
    shows!("full(1, 2147483647.5, dtype=i32)" => "[2147483647]  i32[1] @cpu");
    shows!("full(1, 70000., dtype=f16)" => "[inf]  f16[1] @cpu");
    for src in [
        "full(3, 3e9, dtype=i32)",
        "full(1, -2147483648.5, dtype=i32)",
        "full(1, 1e39)",
        "zeros(2, dtype=i32).fill_(0. / 0.)",
        "full_like(ones(1, dtype=i32), 2**40)",
    ] {
        let (class, msg) = common::err(src);
        assert_eq!(class, "DTypeError", "{src}");
        assert!(msg.contains("without overflow"), "{src}: {msg}");
    }
}

#[test]
fn rounding_and_trigonometry_follow_pytorch() {
    shows!("round(tensor([0.5, 1.5, 2.5, -0.5]))" => "[0., 2., 2., -0.]  f32[4] @cpu");
    shows!("floor(tensor([-1.5, 2.7]))" => "[-2.,  2.]  f32[2] @cpu");
    shows!("ceil(tensor([-1.5, 2.2]))" => "[-1.,  3.]  f32[2] @cpu");
    shows!("trunc(tensor([-1.7, 1.7]))" => "[-1.,  1.]  f32[2] @cpu");
    // Integers are integral already: the same dtype, every digit kept.
    shows!("tensor([2**60 + 1]).floor()" => "[1152921504606846977]  i64[1] @cpu");
    shows!("round(tensor([3], dtype=i32)).dtype" => "i32");
    shows!("sin(tensor([0, 1])).dtype" => "f32");
    shows!("cos([0.])" => "[1.]  f32[1] @cpu");
    let (class, msg) = common::err("floor([true])");
    assert_eq!(class, "DTypeError");
    assert!(msg.contains("bool"), "{msg}");
}

#[test]
fn cast_methods_and_method_forms_of_the_operators() {
    shows!("arange(3).float()" => "[0., 1., 2.]  f32[3] @cpu");
    shows!("[arange(2).half().dtype, arange(2).bfloat16().dtype, arange(2).double().dtype]" => "[f16, bf16, f64]");
    shows!("[ones(2).int().dtype, ones(2).long().dtype, ones(2).bool().dtype]" => "[i32, i64, bool]");
    shows!("x = arange(2)\nx.long() is x" => "true");
    shows!("tensor([1, 2], dtype=i32).add(2)" => "[3, 4]  i32[2] @cpu");
    shows!("arange(3).mul(2.5).dtype" => "f32");
    shows!("arange(3).pow(2)" => "[0, 1, 4]  i64[3] @cpu");
    shows!("arange(6).reshape(2, 3).t().shape" => "[3, 2]");
    shows!("ones(2, 3, requires_grad=true).t().grad_fn" => "<TBackward0>");
    shows!("arange(3).t()" => "[0, 1, 2]  i64[3] @cpu");
    let (class, _) = common::err("arange(3).add(\"a\")");
    assert_eq!(class, "TypeError");
}

/// The tiled copy of a transposed view, `cat`/`stack` of strided views read
/// in place, and `x op= y` into a strided view: each element as an
/// element-by-element copy gives it (checked against sums of indices, which
/// any misplaced element changes).
#[test]
fn strided_copies_joins_and_in_place_ops_put_every_element_in_place() {
    let mut s = common::session();
    common::ok_in(&mut s, "x = arange(300 * 70).reshape(300, 70)\nb = arange(3 * 130 * 65).reshape(3, 130, 65).double()");
    for (src, want) in [
        // .T of a matrix and of a batch, by position: t[i, j] = x[j, i].
        ("t = x.T.contiguous()\n(t == x.T).all()", "true  bool[] @cpu"),
        ("(t[69] == arange(69, 300 * 70, 70)).all()", "true  bool[] @cpu"),
        ("u = b.transpose(1, 2).contiguous()\n(u == b.transpose(1, 2)).all()", "true  bool[] @cpu"),
        ("u[2, 64, 129].item() == b[2, 129, 64].item()", "true"),
        // stack of strided views, against their contiguous copies.
        (
            "v = [x[1:299:2, 3:70:3], x.T[5:40, 100:135], x[0:35, 0:35].T]\nw = [v[0][0:35, 0:20], v[1][:, 0:20], v[2][:, 0:20]]\n(stack(w, 1) == stack([w[0].contiguous(), w[1].contiguous(), w[2].contiguous()], 1)).all()",
            "true  bool[] @cpu",
        ),
        ("(cat([x.T, x.T[::3]], 0) == cat([x.T.contiguous(), x.T[::3].contiguous()], 0)).all()", "true  bool[] @cpu"),
        // in place into a strided view, a broadcast operand.
        ("y = zeros(300, 70)\ny.T[::2] += x.T[::2].float()\n(y[:, ::2] == x[:, ::2].float()).all() and (y[:, 1::2] == 0).all()", "true  bool[] @cpu"),
        // Parts with no element (a random program's find: [2, 0] parts).
        ("cat([ones(2, 0), -ones(2, 0)]).shape", "[4, 0]"),
        ("stack([ones(2, 0), ones(2, 0)], 1).shape", "[2, 2, 0]"),
        ("z = ones(4, 5, dtype=f64)\nz.T[1:3] *= tensor([2., 3., 4., 5.], dtype=f64)\nz.sum(0).tolist()", "[4.0, 14.0, 14.0, 4.0, 4.0]"),
    ] {
        assert_eq!(common::ok_in(&mut s, src), want, "{src}");
    }
}
