package forecast

import "testing"

// TestShiftDetector: a measurement breaks from the 10 before it when it
// lies more than 4 robust σ (IQR / 1.349) from their median. On readings
// alternating between two strata (50 and 45, in no fixed order) the IQR
// spans both, so neither stratum breaks; a fall to 10 does, and so does
// the next 10 while the window still holds mostly the old level; a
// constant series breaks at any change. Nothing breaks before 4
// measurements.
func TestShiftDetector(t *testing.T) {
	for _, tt := range []struct {
		name   string
		vs     []float64
		breaks []bool // of the last len(breaks) measurements
	}{
		{"too few", []float64{1, 1, 1, 100}, []bool{false}},
		{"strata", []float64{50, 45, 50, 50, 45, 50, 45, 45, 50, 50, 45, 50}, []bool{false, false}},
		{"fall", []float64{50, 45, 50, 50, 45, 50, 45, 45, 50, 50, 10, 10}, []bool{true, true}},
		{"constant", []float64{7, 7, 7, 7, 7, 7.5}, []bool{true}},
		{"noise", []float64{100, 101, 99, 102, 98, 100, 103, 97, 100, 101, 104}, []bool{false}},
	} {
		d := newShiftDetector()
		var got []bool
		for _, v := range tt.vs {
			got = append(got, d.observe(v))
		}
		got = got[len(got)-len(tt.breaks):]
		for i := range got {
			if got[i] != tt.breaks[i] {
				t.Errorf("%s: breaks %v, want %v", tt.name, got, tt.breaks)
				break
			}
		}
	}
}
