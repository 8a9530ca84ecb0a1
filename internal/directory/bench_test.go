package directory

import (
	"context"
	"testing"
	"time"
)

// BenchmarkAddResult writes results through the API and the client, each
// on disk (WAL, synchronous=FULL) before it is acknowledged.
func BenchmarkAddResult(b *testing.B) {
	c, _, _ := testServer(b)
	ctx := context.Background()
	registerAll(b, c, "a", "b")
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; b.Loop(); i++ {
		if _, err := c.AddResult(ctx, bwResult("a", "b", t0.Add(time.Duration(i)*time.Second), 1e6)); err != nil {
			b.Fatal(err)
		}
	}
}
