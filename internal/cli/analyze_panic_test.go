package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/errs"
)

// TestAnalyzePanicIsAnError injects a panic into `diperf analyze`: it
// must exit 2 with one line that names the run directory and says it is a
// defect, and a hint; no stack unless DIPERF_DEBUG=1 asks for it.
func TestAnalyzePanicIsAnError(t *testing.T) {
	testHookAnalyze = func(string) { panic("injected") }
	defer func() { testHookAnalyze = nil }()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, debug := range []string{"", "1"} {
		t.Setenv(errs.DebugEnv, debug)
		var out, stderr bytes.Buffer
		code := Main([]string{"analyze", dir}, &out, &stderr)
		msg := stderr.String()
		if code != errs.CodeUsage || !strings.Contains(msg, "analyzing "+dir+": internal error (a defect of diperf") ||
			!strings.Contains(msg, "injected") {
			t.Errorf("%s=%q: exit %d, stderr:\n%s", errs.DebugEnv, debug, code, msg)
		}
		if stack := strings.Contains(msg, "goroutine ") && strings.Contains(msg, "analyze_panic_test.go"); stack != (debug == "1") {
			t.Errorf("%s=%q: a stack in stderr is %v:\n%s", errs.DebugEnv, debug, stack, msg)
		}
	}
}
