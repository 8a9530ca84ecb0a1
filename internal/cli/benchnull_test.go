package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/protocol"
)

// TestBenchNullClient gives the null client only when the benchmark's
// variable is exactly "1", and says so on stderr.
func TestBenchNullClient(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "yes": false, "1": true} {
		t.Setenv(bench.NullClientEnv, v)
		var stderr bytes.Buffer
		got := benchNullClient(&stderr)
		if (got != nil) != want || (got != nil && got.Kind != protocol.ClientNull) {
			t.Errorf("%s=%q: client %+v, want null client %v", bench.NullClientEnv, v, got, want)
		}
		if said := strings.Contains(stderr.String(), "null client"); said != want {
			t.Errorf("%s=%q: stderr %q", bench.NullClientEnv, v, stderr.String())
		}
	}
}
