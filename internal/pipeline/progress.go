package pipeline

import (
	"fmt"
	"io"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// progressEvery is how often a long read reports its progress.
const progressEvery = 2 * time.Second

// progress wraps fn so that every progressEvery it writes how far the read
// of total samples has got to w, as one line (nothing for a read that ends
// sooner).
func progress(w io.Writer, total int64, fn func([]sample.Call) error) func([]sample.Call) error {
	if w == nil || total <= 0 {
		return fn
	}
	start := time.Now()
	next := start.Add(progressEvery)
	var done int64
	return func(calls []sample.Call) error {
		done += int64(len(calls))
		if now := time.Now(); now.After(next) {
			next = now.Add(progressEvery)
			rate := float64(done) / now.Sub(start).Seconds()
			left := time.Duration(float64(total-done) / rate * float64(time.Second))
			fmt.Fprintf(w, "analyzing: %d of %d samples (%.0f%%), %.1f M samples/s, about %v left\n",
				done, total, 100*float64(done)/float64(total), rate/1e6, left.Round(time.Second))
		}
		return fn(calls)
	}
}
