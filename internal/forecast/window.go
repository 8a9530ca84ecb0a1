package forecast

import "fmt"

// TrimmedMean predicts the mean of the last Window measurements without
// the lowest and highest quarter of them (NWS's trimmed median: robust to
// the odd burst, smoother than the median).
type TrimmedMean struct {
	w    sortedWindow
	name string
}

// TrimFraction is the share of a trimmed window cut at each end.
const TrimFraction = 0.25

// NewTrimmedMean returns a trimmed mean over size measurements
// (DefaultWindow when size < 1).
func NewTrimmedMean(size int) *TrimmedMean {
	if size < 1 {
		size = DefaultWindow
	}
	return &TrimmedMean{w: newSortedWindow(size), name: fmt.Sprintf("trim%d", size)}
}

// Name is "trim" and the window, e.g. "trim10".
func (t *TrimmedMean) Name() string { return t.name }

// Predict returns the mean of the window's middle values: with k values,
// ⌊k/4⌋ are cut at each end (none while k < 4).
func (t *TrimmedMean) Predict() (float64, bool) {
	k := len(t.w.sorted)
	if k == 0 {
		return 0, false
	}
	cut := int(TrimFraction * float64(k))
	s := 0.0
	for _, x := range t.w.sorted[cut : k-cut] {
		s += x
	}
	return s / float64(k-2*cut), true
}

// Observe adds m to the window. Values must be finite.
func (t *TrimmedMean) Observe(m Measurement) { t.w.add(m.Value) }
