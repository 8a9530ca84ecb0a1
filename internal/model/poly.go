package model

import (
	"errors"
	"fmt"
	"math"
)

// MaxDegree is the highest polynomial degree Polyfit fits.
const MaxDegree = 6

// Polyfit returns the least-squares polynomial of the given degree through
// the points (x[i], y[i]), as coefficients c with y ≈ c[0] + c[1]x + … +
// c[degree]x^degree. Pairs with a NaN are skipped. For accuracy x is first
// mapped onto [−1, 1] and the system solved by Householder QR; the
// coefficients are then converted back to powers of x. It fails when the
// lengths differ, the degree is outside 0..MaxDegree, or there are fewer
// distinct x than coefficients.
func Polyfit(x, y []float64, degree int) ([]float64, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("model: polyfit: %d x values but %d y values", len(x), len(y))
	}
	if degree < 0 || degree > MaxDegree {
		return nil, fmt.Errorf("model: polyfit: degree %d outside 0..%d", degree, MaxDegree)
	}
	xs, ys := dropNaN(x, y)
	if len(xs) <= degree {
		return nil, fmt.Errorf("model: polyfit: %d points for degree %d", len(xs), degree)
	}
	center, half := centerScale(xs)
	a := vandermonde(xs, center, half, degree)
	c, err := leastSquares(a, ys)
	if err != nil {
		return nil, err
	}
	return unscale(c, center, half), nil
}

// PolyEval evaluates the polynomial with coefficients coef (lowest power
// first) at x, by Horner's rule.
func PolyEval(coef []float64, x float64) float64 {
	var v float64
	for i := len(coef) - 1; i >= 0; i-- {
		v = v*x + coef[i]
	}
	return v
}

// dropNaN returns copies of x and y without the pairs that hold a NaN.
func dropNaN(x, y []float64) (xs, ys []float64) {
	for i := range x {
		if !math.IsNaN(x[i]) && !math.IsNaN(y[i]) {
			xs, ys = append(xs, x[i]), append(ys, y[i])
		}
	}
	return xs, ys
}

// centerScale returns the midpoint and half-width of the range of x, the
// half-width 1 when x is constant.
func centerScale(x []float64) (center, half float64) {
	lo, hi := minMax(x)
	center, half = (lo+hi)/2, (hi-lo)/2
	if half == 0 {
		half = 1
	}
	return center, half
}

// vandermonde returns the rows 1, u, u², … of u = (x−center)/half.
func vandermonde(x []float64, center, half float64, degree int) [][]float64 {
	a := make([][]float64, len(x))
	for i, v := range x {
		u := (v - center) / half
		a[i] = make([]float64, degree+1)
		a[i][0] = 1
		for j := 1; j <= degree; j++ {
			a[i][j] = a[i][j-1] * u
		}
	}
	return a
}

// unscale turns the coefficients of a polynomial in u = (x−center)/half
// into those of the same polynomial in x, expanding each (x−center)^j by
// the binomial theorem.
func unscale(c []float64, center, half float64) []float64 {
	out := make([]float64, len(c))
	for j, cj := range c {
		f := cj / math.Pow(half, float64(j))
		binom := 1.0 // C(j, k)
		for k := 0; k <= j; k++ {
			out[k] += f * binom * math.Pow(-center, float64(j-k))
			binom = binom * float64(j-k) / float64(k+1)
		}
	}
	return out
}

// errRankDeficient reports a least-squares system without a unique
// solution.
var errRankDeficient = errors.New("model: polyfit: too few distinct x for the degree")

// leastSquares solves min ‖a·c − y‖ by Householder QR; a is m×n with
// m ≥ n. Its rows are extended in place by y as a last column.
func leastSquares(a [][]float64, y []float64) ([]float64, error) {
	n := len(a[0])
	norms := make([]float64, n)
	for i := range a {
		for j := range n {
			norms[j] = math.Hypot(norms[j], a[i][j])
		}
		a[i] = append(a[i], y[i])
	}
	for k := range n {
		if d := householder(a, k); math.Abs(d) <= 1e-10*norms[k] {
			return nil, errRankDeficient
		}
	}
	u := make([][]float64, n)
	b := make([]float64, n)
	for i := range u {
		u[i], b[i] = a[i][:n], a[i][n]
	}
	return backSubstitute(u, b), nil
}

// householder zeroes column k of a below the diagonal by a Householder
// reflection of rows k.. over columns k.., and returns the new diagonal
// entry (0 when the column is already zero from row k down).
func householder(a [][]float64, k int) float64 {
	var norm float64
	for i := k; i < len(a); i++ {
		norm = math.Hypot(norm, a[i][k])
	}
	if norm == 0 {
		return 0
	}
	if a[k][k] > 0 {
		norm = -norm
	}
	v := make([]float64, len(a)-k) // v = x − norm·e₁, never 0 by the sign choice
	for i := range v {
		v[i] = a[k+i][k]
	}
	v[0] -= norm
	vv := dot(v, v)
	for j := k; j < len(a[k]); j++ {
		var s float64
		for i, vi := range v {
			s += vi * a[k+i][j]
		}
		s = 2 * s / vv
		for i, vi := range v {
			a[k+i][j] -= s * vi
		}
	}
	return norm
}

// dot is the inner product of u and v.
func dot(u, v []float64) float64 {
	var s float64
	for i := range u {
		s += u[i] * v[i]
	}
	return s
}
