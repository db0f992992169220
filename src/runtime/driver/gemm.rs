//! A matrix product as cuBLAS takes it: the descriptor every driver runs.

/// The arguments of `cublas<t>gemmStridedBatched` (and of the plain gemm
/// when `batch` is 1), with `transa = transb = N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gemm {
    /// Rows of op(first operand) and of the column-major result.
    pub m: i32,
    pub n: i32,
    pub k: i32,
    /// The first operand is the row-major B.
    pub lda: i32,
    pub stride_a: i64,
    /// The second operand is the row-major A.
    pub ldb: i32,
    pub stride_b: i64,
    pub ldc: i32,
    pub stride_c: i64,
    pub batch: i32,
    /// f32 operands rounded to TF32 first, on tensor cores (cuBLAS's
    /// `CUBLAS_COMPUTE_32F_FAST_TF32`, what PyTorch asks for when
    /// `torch.backends.cuda.matmul.allow_tf32` is on).
    pub tf32: bool,
}

impl Gemm {
    /// `batch` row-major products of `[m, k]` by `[k, n]`, each operand contiguous
    /// per matrix (`a_stride`, `b_stride` elements apart; 0 to reuse one matrix
    /// for every batch, as a broadcast does). None if a size exceeds cuBLAS's `int`.
    pub fn row_major(
        m: usize,
        k: usize,
        n: usize,
        batch: usize,
        a_stride: usize,
        b_stride: usize,
    ) -> Option<Gemm> {
        let i = |v: usize| i32::try_from(v).ok();
        Some(Gemm {
            m: i(n)?,
            n: i(m)?,
            k: i(k)?,
            lda: i(n.max(1))?,
            stride_a: b_stride as i64,
            ldb: i(k.max(1))?,
            stride_b: a_stride as i64,
            ldc: i(n.max(1))?,
            stride_c: (m * n) as i64,
            batch: i(batch)?,
            tf32: false,
        })
    }

    /// Elements the first operand, the second and the result span over all
    /// batches (column-major, with their leading dimensions and strides).
    pub fn extents(&self) -> (usize, usize, usize) {
        let span = |rows: i32, cols: i32, ld: i32, stride: i64| {
            if self.batch == 0 || rows == 0 || cols == 0 {
                return 0;
            }
            ((self.batch as i64 - 1) * stride + (cols as i64 - 1) * ld as i64 + rows as i64)
                as usize
        };
        (
            span(self.m, self.k, self.lda, self.stride_a),
            span(self.k, self.n, self.ldb, self.stride_b),
            span(self.m, self.n, self.ldc, self.stride_c),
        )
    }
}
