package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateToleranceRefused: a tolerance that holds no interval to
// anything (NaN, infinite, negative, past 100%) is bad usage, exit 2,
// named in the message, before the run is read.
func TestValidateToleranceRefused(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	for _, tol := range []string{"nan%", "NaN", "inf%", "+Inf", "-inf%", "-1%", "1e308%", "101%", "1e400%", "%", "x%"} {
		var out, errb bytes.Buffer
		code := Main([]string{"validate", run, "--counter", "c", "--tolerance", tol}, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), "--tolerance") || !strings.Contains(errb.String(), "from 0% to 100%") {
			t.Errorf("--tolerance %s: exit %d, stderr %q; want exit 2 naming --tolerance and its range", tol, code, errb.String())
		}
	}
}
