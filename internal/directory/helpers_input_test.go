package directory

import (
	"context"
	"testing"
)

// registerAll registers sensors under names, in group local.
func registerAll(tb testing.TB, c *Client, names ...string) {
	tb.Helper()
	for _, n := range names {
		if _, err := c.Register(context.Background(), reg(n, "local")); err != nil {
			tb.Fatalf("registering %s: %v", n, err)
		}
	}
}
