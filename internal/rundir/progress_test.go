package rundir

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestProgress checks the progress line of a long read and that a short
// read stays silent.
func TestProgress(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	n := 0
	fn := progress(&out, 100, func(c []sample.Call) error { n += len(c); return nil })
	batch := make([]sample.Call, 10)
	_ = fn(batch)
	if out.Len() != 0 {
		t.Fatalf("a fast read printed %q", out.String())
	}
	time.Sleep(progressEvery + 10*time.Millisecond)
	_ = fn(batch)
	if n != 20 || !strings.Contains(out.String(), "analyzing: 20 of 100 samples (20%)") {
		t.Errorf("after %d calls: %q", n, out.String())
	}
	if progress(nil, 100, nil) != nil {
		t.Errorf("no writer: want fn itself")
	}
}
