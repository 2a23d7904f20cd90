//! The one place this crate uses `unsafe`: a bounds-checked, safe wrapper around
//! matrixmultiply's `sgemm`, which takes raw pointers and strides.
#![allow(unsafe_code)]

/// A read-only strided matrix view: element (i, j) is `data[i * row_stride + j * col_stride]`.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub cols: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

impl<'a> View<'a> {
    /// A row-major matrix with `cols` columns whose rows are `row_stride` apart.
    pub fn rows(data: &'a [f32], rows: usize, cols: usize, row_stride: usize) -> Self {
        View { data, rows, cols, row_stride, col_stride: 1 }
    }

    /// The transpose (no copy).
    pub fn t(self) -> Self {
        View { rows: self.cols, cols: self.rows, row_stride: self.col_stride, col_stride: self.row_stride, ..self }
    }

    /// The largest index the view touches, plus one (0 for an empty view).
    fn extent(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            return 0;
        }
        (self.rows - 1) * self.row_stride + (self.cols - 1) * self.col_stride + 1
    }
}

/// `c = alpha * a · b + beta * c`, where `c` is row-major with rows `c_row_stride` apart.
///
/// Panics if the shapes disagree or a view reaches outside its slice — a programming error in
/// this crate, never a consequence of user input.
pub(crate) fn gemm(alpha: f32, a: View<'_>, b: View<'_>, beta: f32, c: &mut [f32], c_row_stride: usize) {
    assert_eq!(a.cols, b.rows, "inner dimensions differ");
    let (m, k, n) = (a.rows, a.cols, b.cols);
    assert!(a.extent() <= a.data.len() && b.extent() <= b.data.len(), "operand view out of bounds");
    let c_extent = if m == 0 || n == 0 { 0 } else { (m - 1) * c_row_stride + n };
    assert!(c_extent <= c.len() && (m <= 1 || c_row_stride >= n), "output view out of bounds");
    if m == 0 || n == 0 {
        return;
    }
    // SAFETY: the asserts above keep every element sgemm reads or writes inside the slices, the
    // output rows do not overlap (row stride ≥ n), and `c` is borrowed mutably, so it cannot alias
    // `a` or `b`.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            c_row_stride as isize,
            beta != 0.0,
            a.data.as_ptr(),
            a.col_stride as isize,
            a.row_stride as isize,
            b.data.as_ptr(),
            b.col_stride as isize,
            b.row_stride as isize,
            beta,
            alpha,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Memory-map a file read-only. The weights file is never written while litnav runs; if another
/// process truncated it underneath, reads could fault, which is why the map is only used to copy
/// the tensors out once at load time.
pub(crate) fn map_file(file: &std::fs::File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: see above; the map lives only for the duration of loading.
    unsafe { memmap2::Mmap::map(file) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strided_product_matches_naive() {
        let a: Vec<f32> = (0..6).map(|x| x as f32).collect(); // 2×3
        let b: Vec<f32> = (0..12).map(|x| (x as f32) * 0.5).collect(); // 4×3, used transposed
        let mut c = vec![1.0f32; 2 * 4];
        gemm(1.0, View::rows(&a, 2, 3, 3), View::rows(&b, 4, 3, 3).t(), 1.0, &mut c, 4);
        for i in 0..2 {
            for j in 0..4 {
                let expected: f32 = 1.0 + (0..3).map(|k| a[i * 3 + k] * b[j * 3 + k]).sum::<f32>();
                assert_eq!(c[i * 4 + j], expected);
            }
        }
    }
}
