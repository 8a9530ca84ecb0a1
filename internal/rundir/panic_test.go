package rundir

import (
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/errs"
)

// TestStreamCallsPanicIsAnError injects a panic into the goroutine that
// decodes samples.parquet: StreamCalls must return an error that names
// the file, not let the process die.
func TestStreamCallsPanicIsAnError(t *testing.T) {
	testHookRowGroup = func() { panic("injected") }
	defer func() { testHookRowGroup = nil }()
	_, err := streamAll(withSamples(t, "duckdb.parquet"))
	if err == nil || !strings.Contains(err.Error(), Samples+": reading the calls: internal error") || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("StreamCalls: %v; want the injected panic as an error naming %s", err, Samples)
	}
	if errs.Code(err) != errs.CodeUsage {
		t.Errorf("exit code %d, want %d", errs.Code(err), errs.CodeUsage)
	}
}
