package model

import "math"

// solve solves the square system a·x = b by Gaussian elimination with
// partial pivoting, overwriting a and b; ok is false when a is singular.
func solve(a [][]float64, b []float64) (x []float64, ok bool) {
	n := len(b)
	for c := range n {
		pivot := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[pivot][c]) {
				pivot = r
			}
		}
		if a[pivot][c] == 0 || math.IsNaN(a[pivot][c]) {
			return nil, false
		}
		a[c], a[pivot] = a[pivot], a[c]
		b[c], b[pivot] = b[pivot], b[c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k < n; k++ {
				a[r][k] -= f * a[c][k]
			}
			b[r] -= f * b[c]
		}
	}
	return backSubstitute(a, b), true
}

// backSubstitute solves the upper-triangular system u·x = b.
func backSubstitute(u [][]float64, b []float64) []float64 {
	n := len(b)
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < n; k++ {
			s -= u[r][k] * x[k]
		}
		x[r] = s / u[r][r]
	}
	return x
}
