//! Row-major matrix products as cuBLAS calls. cuBLAS is column-major; a
//! row-major `C = A·B` is the column-major `Cᵀ = Bᵀ·Aᵀ`, and a row-major
//! matrix read as column-major *is* its transpose. So the call passes B first,
//! then A, with no transposition and no copy.

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
}

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
    })
}

/// A column-major gemm with no transposition, as cuBLAS defines it:
/// `C[i + j*ldc] = Σ_p A[i + p*lda] · B[p + j*ldb]`, for each batch. The tests
/// check `row_major`'s arguments against it; it is the contract, not a kernel.
pub fn reference_gemm(g: &Gemm, a: &[f64], b: &[f64], c: &mut [f64]) {
    for t in 0..g.batch as usize {
        let (oa, ob, oc) = (
            t * g.stride_a as usize,
            t * g.stride_b as usize,
            t * g.stride_c as usize,
        );
        for j in 0..g.n as usize {
            for i in 0..g.m as usize {
                let mut acc = 0.0;
                for p in 0..g.k as usize {
                    acc += a[oa + i + p * g.lda as usize] * b[ob + p + j * g.ldb as usize];
                }
                c[oc + i + j * g.ldc as usize] = acc;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_major_product(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    }

    #[test]
    fn operand_order_gives_the_row_major_product() {
        for (m, k, n) in [(2, 3, 4), (1, 5, 1), (7, 1, 3), (4, 4, 4)] {
            let a: Vec<f64> = (0..m * k).map(|x| x as f64 * 0.5 - 1.0).collect();
            let b: Vec<f64> = (0..k * n).map(|x| (x * x) as f64 % 7.0).collect();
            let g = row_major(m, k, n, 1, m * k, k * n).unwrap();
            let mut c = vec![f64::NAN; m * n];
            // cuBLAS's first operand is B, its second A.
            reference_gemm(&g, &b, &a, &mut c);
            assert_eq!(c, row_major_product(&a, &b, m, k, n), "{m}x{k}x{n}");
        }
    }

    #[test]
    fn batches_and_a_broadcast_operand() {
        let (m, k, n, batch) = (3, 2, 5, 4);
        let a: Vec<f64> = (0..batch * m * k).map(|x| x as f64).collect();
        let b: Vec<f64> = (0..k * n).map(|x| 1.0 + x as f64).collect(); // one B for all batches
        let g = row_major(m, k, n, batch, m * k, 0).unwrap();
        let mut c = vec![0.0; batch * m * n];
        reference_gemm(&g, &b, &a, &mut c);
        for t in 0..batch {
            let want = row_major_product(&a[t * m * k..(t + 1) * m * k], &b, m, k, n);
            assert_eq!(&c[t * m * n..(t + 1) * m * n], &want[..], "batch {t}");
        }
    }

    #[test]
    fn sizes_beyond_int_are_refused() {
        assert!(row_major(1 << 31, 2, 2, 1, 0, 0).is_none());
    }
}
