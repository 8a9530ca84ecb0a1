package directory

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"
)

// scaleStore is a store holding the mesh of 1,000 sensors of bench
// directory (42,900 pairs and kinds) with 100,000 results.
func scaleStore(b *testing.B) *Store {
	b.Helper()
	s, err := OpenStore(filepath.Join(b.TempDir(), "dir.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	o := SynthOptions{Sensors: 1000, Site: 20, Results: 100_000, History: 24 * time.Hour}
	if _, err := s.Synthesize(context.Background(), o, time.Hour, time.Now()); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkMetricsScale is /metrics over 42,900 latest results.
func BenchmarkMetricsScale(b *testing.B) {
	h := NewServer(scaleStore(b), Options{Token: []byte(testToken)}).Handler()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkLatestPage is one page (1,000) of latest=true, from the middle.
func BenchmarkLatestPage(b *testing.B) {
	s := scaleStore(b)
	q := Query{Latest: true, Cursor: cursor{Key: []string{SynthName(500), SynthName(510), KindBandwidth}}.String()}
	for b.Loop() {
		if rs, _, err := s.ResultsPage(context.Background(), q); err != nil || len(rs) != DefaultLimit {
			b.Fatal(len(rs), err)
		}
	}
}
