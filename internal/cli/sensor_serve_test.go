package cli

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/errs"
)

// TestSensorTestTimeOverProtocol: a --test-time longer than a sensor's
// server accepts (netprobe.MaxTestTime) is refused at start, exit 2,
// before the sensor listens or registers (issue 21: it started and every
// test failed).
func TestSensorTestTimeOverProtocol(t *testing.T) {
	tok := filepath.Join(t.TempDir(), "mesh.token")
	if err := os.WriteFile(tok, []byte("a-mesh-token-of-enough-bytes-0123"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var out bytes.Buffer
	start := time.Now()
	err := sensorDaemon(ctx, &env{stdout: &out, stderr: &out}, []string{"--directory", "http://127.0.0.1:1", "--token-file", tok,
		"--listen", "127.0.0.1:0", "--period", "10m", "--test-time", "90s"})
	if errs.Code(err) != errs.CodeUsage || !strings.Contains(fmtErr(err), "--test-time must be at most 1m0s") {
		t.Errorf("--test-time 90s: exit %d, %v; want exit 2 naming the most a sensor serves, 1m0s", errs.Code(err), err)
	}
	if d := time.Since(start); d > time.Second || out.Len() > 0 {
		t.Errorf("refused after %v, having said %q: want at once, before anything starts", d, out.String())
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A byte budget or a time share that is not a number is refused at start:
// NaN would pass every comparison and make no cap at all.
func TestSensorRefusesABudgetThatIsNotANumber(t *testing.T) {
	for _, f := range []sensorFlags{{budget: math.NaN()}, {bytesPerHour: math.NaN()}, {bytesPerHour: math.Inf(1)}} {
		f.name, f.groups, f.period, f.testTime = "a", "local", time.Minute, time.Second
		if err := f.check(); err == nil {
			t.Errorf("--budget %v --bytes-per-hour %v accepted", f.budget, f.bytesPerHour)
		}
	}
}
