package report

import "math"

// maxPoints bounds the points drawn for one series.
const maxPoints = 1500

// nan is a missing value: lines break at it and charts skip it.
var nan = math.NaN()

// minMax thins a line series to at most limit points. It cuts the series
// into limit/2 buckets of consecutive points and keeps, in order, the lowest
// and the highest point of each, so peaks survive. A bucket with no finite
// value becomes a single NaN point, which keeps the gap in the line.
func minMax(x, y []float64, limit int) ([]float64, []float64) {
	n := min(len(x), len(y))
	if n <= limit || limit < 2 {
		return x[:n], y[:n]
	}
	buckets := limit / 2
	xs, ys := make([]float64, 0, limit), make([]float64, 0, limit)
	for b := range buckets {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		iMin, iMax := extremes(y[lo:hi])
		switch {
		case iMin < 0:
			if len(ys) == 0 || !math.IsNaN(ys[len(ys)-1]) {
				xs, ys = append(xs, x[lo]), append(ys, math.NaN())
			}
		case iMin == iMax:
			xs, ys = append(xs, x[lo+iMin]), append(ys, y[lo+iMin])
		default:
			a, c := min(iMin, iMax)+lo, max(iMin, iMax)+lo
			xs, ys = append(xs, x[a], x[c]), append(ys, y[a], y[c])
		}
	}
	return xs, ys
}

// extremes returns the indexes of the lowest and highest finite values of
// y, or -1, -1 when there is none.
func extremes(y []float64) (iMin, iMax int) {
	iMin, iMax = -1, -1
	for i, v := range y {
		if !finite(v) {
			continue
		}
		if iMin < 0 || v < y[iMin] {
			iMin = i
		}
		if iMax < 0 || v > y[iMax] {
			iMax = i
		}
	}
	return iMin, iMax
}

// stride keeps a deterministic, evenly spread subset of at most limit
// points: every k-th one, starting with the first.
func stride(x, y []float64, limit int) ([]float64, []float64) {
	n := min(len(x), len(y))
	if n <= limit || limit < 1 {
		return x[:n], y[:n]
	}
	k := (n + limit - 1) / limit
	xs, ys := make([]float64, 0, limit), make([]float64, 0, limit)
	for i := 0; i < n; i += k {
		xs, ys = append(xs, x[i]), append(ys, y[i])
	}
	return xs, ys
}

// alignedMinMax thins columns that share x (an interactive chart's data) to
// at most limit rows. It cuts the rows into limit/2 buckets of consecutive
// rows and makes two rows of each, at the x of its first and its last row:
// in each column, the bucket's lowest and highest finite value, in the
// order they occur, so that every column's peaks survive; NaN in both when
// the bucket has none.
func alignedMinMax(x []float64, ys [][]float64, limit int) ([]float64, [][]float64) {
	n := len(x)
	if n <= limit || limit < 2 {
		return x, ys
	}
	buckets := limit / 2
	xs := make([]float64, 0, 2*buckets)
	out := make([][]float64, len(ys))
	for j := range out {
		out[j] = make([]float64, 0, 2*buckets)
	}
	for b := range buckets {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		xs = append(xs, x[lo], x[hi-1])
		for j, y := range ys {
			iMin, iMax := extremes(y[lo:hi])
			switch {
			case iMin < 0:
				out[j] = append(out[j], nan, nan)
			case iMin <= iMax:
				out[j] = append(out[j], y[lo+iMin], y[lo+iMax])
			default:
				out[j] = append(out[j], y[lo+iMax], y[lo+iMin])
			}
		}
	}
	return xs, out
}
