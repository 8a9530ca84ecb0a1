package compare

import "testing"

// BenchmarkCompareMillion compares two runs of 1,000,000 successful calls
// each with the default 1000 resamples.
func BenchmarkCompareMillion(b *testing.B) {
	big := base.with(func(s *spec) { s.calls = 1_000_000; s.quanta = 3600 })
	da, db := synth(big, 1), synth(big.with(func(s *spec) { s.rtMs = 49 }), 2)
	for b.Loop() {
		Compare(da, db, Options{})
	}
}
