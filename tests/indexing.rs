//! Indexing, slicing, views and indexed assignment.

mod common;

#[test]
fn indexing_and_slicing() {
    let m = "m = arange(12).reshape(3, 4); ";
    shows!(&format!("{m}m[1]") => "[4, 5, 6, 7]  i64[4] @cpu");
    shows!(&format!("{m}m[1, 2]") => "6  i64[] @cpu");
    shows!(&format!("{m}m[-1, -1]") => "11  i64[] @cpu");
    shows!(&format!("{m}m[:, 1:3]") => "[[ 1,  2],\n [ 5,  6],\n [ 9, 10]]\ni64[3,2] @cpu");
    shows!(&format!("{m}m[::2, ::3]") => "[[ 0,  3],\n [ 8, 11]]\ni64[2,2] @cpu");
    shows!(&format!("{m}m[5:]") => "[]  i64[0,4] @cpu");
}

#[test]
fn out_of_range_index_names_the_dimension() {
    let (class, msg) = common::err("m = zeros(2, 3); m[0, 3]");
    assert_eq!(class, "IndexError");
    assert_eq!(msg, "index 3 is out of bounds for dimension 1 with size 3");
    let (_, msg) = common::err("m = zeros(2); m[0, 0]");
    assert!(msg.contains("too many indices"), "{msg}");
}

#[test]
fn slices_are_views() {
    shows!("x = zeros(4); v = x[1:3]; w = v.fill_(5); x" => "[0., 5., 5., 0.]  f32[4] @cpu");
    shows!("x = zeros(2, 2); x.T[0] = 1; x" => "[[1., 0.],\n [1., 0.]]\nf32[2,2] @cpu");
}

#[test]
fn indexed_assignment_broadcasts_and_converts() {
    shows!("x = zeros(2, 3); x[0] = [1, 2, 3]; x" => "[[1., 2., 3.],\n [0., 0., 0.]]\nf32[2,3] @cpu");
    shows!("x = zeros(2, 3, dtype=i64); x[:, 1] = 2.9; x" => "[[0, 2, 0],\n [0, 2, 0]]\ni64[2,3] @cpu");
    let (_, msg) = common::err("x = zeros(2, 3); x[0] = [1, 2]");
    assert!(msg.contains("cannot assign"), "{msg}");
}

#[test]
fn overlapping_assignment_is_refused_as_pytorch_refuses_it() {
    // Shifted slices of one tensor: PyTorch's assert_no_partial_overlap.
    let (_, msg) = common::err("x = arange(5); x[1:] = x[:4]");
    assert!(msg.contains("refer to a single memory location"), "{msg}");
    shows!("x = arange(5); x[1:] = x[:4].clone(); x" => "[0, 0, 1, 2, 3]  i64[5] @cpu");
    // In place: x += x.T reads what it writes; an expanded view repeats elements.
    let (_, msg) = common::err("m = arange(4).reshape(2, 2); m += m.T");
    assert!(msg.contains("refer to a single memory location"), "{msg}");
    let (_, msg) = common::err("e = ones(1).expand(3); e += 1");
    assert!(msg.contains("more than one element"), "{msg}");
    let (_, msg) = common::err("e = ones(1).expand(3); e.fill_(2)");
    assert!(msg.contains("more than one element"), "{msg}");
    // Views that skip elements PyTorch cannot judge, and lets through:
    // cudash reads the source as it was before the write.
    shows!("x = arange(6).reshape(2, 3); x[:, 1:] = x[:, :-1]; x[0]" => "[0, 0, 1]  i64[3] @cpu");
}

#[test]
fn in_place_ops_write_where_the_tensor_lies() {
    shows!("x = arange(4); v = x[1:3]; x += 10; v" => "[11, 12]  i64[2] @cpu");
    shows!("x = arange(4); x[1:3] *= -1; x" => "[ 0, -1, -2,  3]  i64[4] @cpu");
    shows!("x = ones(2, 3); x.add_(tensor([1., 2., 3.])).sub_(1)[1]" => "[1., 2., 3.]  f32[3] @cpu");
    shows!("n = 7; n //= 2; n **= 2; n" => "9");
    shows!("x = zeros(2, 3); x[0] = ones(1, 3); x[0]" => "[1., 1., 1.]  f32[3] @cpu");
    let (_, msg) = common::err("x = arange(3); x /= 2");
    assert!(
        msg.contains("can't be cast to the desired output type Long"),
        "{msg}"
    );
    let (_, msg) = common::err("x = arange(3); x += ones(2, 3)");
    assert!(
        msg.contains("doesn't match the broadcast shape [2,3]"),
        "{msg}"
    );
    let (_, msg) = common::err("x = tensor([true]); x += 1");
    assert!(msg.contains("can't be cast"), "{msg}");
    let (_, msg) = common::err("f(1) += 2");
    assert!(msg.contains("cannot update this in place"), "{msg}");
}

#[test]
fn reshape_and_transpose() {
    shows!("arange(6).reshape(2, -1).shape" => "[2, 3]");
    shows!("arange(6).reshape([3, 2]).T.contiguous().reshape(6)" => "[0, 2, 4, 1, 3, 5]  i64[6] @cpu");
    shows!("ones(2, 3, 4).transpose(0, 2).shape" => "[4, 3, 2]");
    let (_, msg) = common::err("arange(6).reshape(4, -1)");
    assert!(msg.contains("cannot reshape"), "{msg}");
}

#[test]
fn properties() {
    shows!("x = ones(2, 3, dtype=f16); [x.ndim, x.numel(), x.nbytes]" => "[ 2,  6, 12]  i64[3] @cpu");
    shows!("ones(2).device" => "cpu");
    shows!("ones(2).is_pinned" => "false");
    let (class, msg) = common::err("ones(2).sum");
    assert_eq!(class, "ValueError");
    assert!(msg.contains("is a method"), "{msg}");
}

#[test]
fn python_operators_bind_as_in_python() {
    // * over +, + over &, & over ^, ^ over |, | over comparisons.
    shows!("1 + 2 * 3 & 5 | 8 ^ 1" => "13");
    shows!("-7 // 2 * 2 % 5" => "2");
    shows!("~5 & 15" => "10");
    shows!("x = arange(6); (x > 1) & ~(x > 4) | (x == 0)" => "[ true, false,  true,  true,  true, false]  bool[6] @cpu");
    shows!("2 ** -1 // 1" => "0.0");
}

#[test]
fn none_ellipsis_index_tensors_and_masks_as_pytorch() {
    shows!("x = arange(6).reshape(2, 3); x[none, ..., none].shape" => "[1, 2, 3, 1]");
    shows!("x = arange(6).reshape(2, 3); x[..., 1]" => "[1, 4]  i64[2] @cpu");
    shows!("x = arange(6).reshape(2, 3); x[tensor([1])]" => "[[3, 4, 5]]  i64[1,3] @cpu");
    shows!("x = arange(6).reshape(2, 3); x[:, [2, -3]]" => "[[2, 0],\n [5, 3]]\ni64[2,2] @cpu");
    shows!("x = arange(6).reshape(2, 3); x[x % 2 == 1]" => "[1, 3, 5]  i64[3] @cpu");
    // A copy, not a view.
    shows!("x = arange(3); y = x[[0]]; y[0] = 9; x" => "[0, 1, 2]  i64[3] @cpu");
    shows!("x = arange(6); x[x > 3] = 0; x[[0, 1]] = tensor([7, 8]); x" => "[7, 8, 2, 3, 0, 0]  i64[6] @cpu");
    let (_, msg) = common::err("x = arange(3); x[tensor([3])]");
    assert!(msg.contains("index 3 is out of bounds"), "{msg}");
    let (_, msg) = common::err("x = arange(3); x[..., ...]");
    assert!(msg.contains("single ellipsis"), "{msg}");
    // nonzero: one row of coordinates per non-zero element; as a tuple, an index.
    shows!("nonzero(tensor([[0, 3], [5, 0]]))" => "[[0, 1],\n [1, 0]]\ni64[2,2] @cpu");
    shows!("x = arange(6).reshape(2, 3); x[(x % 2 == 1).nonzero(as_tuple=true)]" => "[1, 3, 5]  i64[3] @cpu");
    // Several tensor indices broadcast together, as PyTorch's.
    shows!("x = arange(6).reshape(2, 3); x[[0, 1], [2, 0]]" => "[2, 3]  i64[2] @cpu");
    shows!("x = arange(6).reshape(2, 3); x[tensor([[1], [0]]), tensor([0, 2])]" => "[[3, 5],\n [0, 2]]\ni64[2,2] @cpu");
    shows!("x = arange(24).reshape(2, 3, 4); x[[1, 0], :, [0, 3]].shape" => "[2, 3]");
    shows!("x = arange(6).reshape(2, 3); x[[0, 1], [2, 0]] = -1; x" => "[[ 0,  1, -1],\n [-1,  4,  5]]\ni64[2,3] @cpu");
    let (_, msg) = common::err("x = arange(6).reshape(2, 3); x[[0, 1], [0, 1, 2]]");
    assert!(msg.contains("could not be broadcast together"), "{msg}");
    // Python's x[i] = x[i] + 1: the selection is updated and written back.
    shows!("x = arange(4); x[[0, 2]] += 10; x" => "[10,  1, 12,  3]  i64[4] @cpu");
    shows!("x = arange(4); x[x > 1] *= -1; x" => "[ 0,  1, -2, -3]  i64[4] @cpu");
    let (_, msg) = common::err("x = arange(3); x[[0]] = ones(1)");
    assert!(msg.contains("dtypes match"), "{msg}");
}

#[test]
fn assigning_into_an_empty_strided_view_changes_nothing() {
    // The one-pass copy of two same-shape views stops at once for no
    // element (a row of length 0 once read past the end of its buffer).
    let out = common::ok(
        "x = zeros(3, 0, dtype=bf16)\ny = ones(0, 3, dtype=bf16)\nx[:, :] = y.T\nx.shape",
    );
    assert_eq!(out.trim(), "[3, 0]");
}
