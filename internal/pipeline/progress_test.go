package pipeline

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestProgress checks the progress line of a long read, on fake time: a
// read that ends within progressEvery stays silent; past it, one line says
// how far the read got, how fast and how long is left.
func TestProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		n := 0
		fn := progress(&out, 100, func(c []sample.Call) error { n += len(c); return nil })
		batch := make([]sample.Call, 10)
		_ = fn(batch)
		time.Sleep(progressEvery - time.Millisecond)
		_ = fn(batch)
		if out.Len() != 0 {
			t.Fatalf("a read within %v printed %q", progressEvery, out.String())
		}
		time.Sleep(2 * time.Millisecond)
		_ = fn(batch)
		want := "analyzing: 30 of 100 samples (30%), 0.0 M samples/s, about 5s left\n"
		if n != 30 || out.String() != want {
			t.Errorf("after %d calls: %q, want %q", n, out.String(), want)
		}
		_ = fn(batch) // within the next progressEvery: silent
		if strings.Count(out.String(), "\n") != 1 {
			t.Errorf("two lines within %v: %q", progressEvery, out.String())
		}
	})
}

// TestProgressOff checks that without a writer or a known total the read
// is not wrapped at all.
func TestProgressOff(t *testing.T) {
	fn := func([]sample.Call) error { return nil }
	if progress(nil, 100, nil) != nil {
		t.Errorf("no writer: want fn itself")
	}
	if got := progress(&bytes.Buffer{}, 0, fn); got == nil {
		t.Errorf("no total: want fn itself, got nil")
	}
}
