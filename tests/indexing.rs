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
    assert_eq!(msg, "index 3 is out of range for dimension 1 with size 3");
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
fn overlapping_assignment_reads_before_writing() {
    shows!("x = arange(5); x[1:] = x[:4]; x" => "[0, 0, 1, 2, 3]  i64[5] @cpu");
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
