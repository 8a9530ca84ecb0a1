package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/experiment"
)

// diperf --help describes sensor fully: the daemon and its evaluate
// subcommand.
func TestHelpDescribesSensor(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var line string
	for l := range strings.Lines(out.String()) {
		if strings.HasPrefix(strings.TrimSpace(l), "sensor ") {
			line = l
		}
	}
	for _, want := range []string{"sensor --directory URL", "tests bandwidth and latency", "forecasts", "sensor evaluate TRACE.csv"} {
		if !strings.Contains(line, want) {
			t.Errorf("the sensor line of diperf --help lacks %q: %q", want, line)
		}
	}
	for name := range sensorCommands {
		if !strings.Contains(line, "sensor "+name) {
			t.Errorf("the sensor line of diperf --help lacks its subcommand %q: %q", name, line)
		}
	}
}

// The complete example names every testbed provider diperf has, not
// "only local so far".
func TestExampleNamesEveryProvider(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "http-target.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for l := range strings.Lines(string(b)) {
		if strings.HasPrefix(strings.TrimSpace(l), "provider:") {
			line = l
		}
	}
	if strings.Contains(line, "only local") {
		t.Errorf("the example says %q", strings.TrimSpace(line))
	}
	for _, p := range []string{experiment.ProviderLocal, experiment.ProviderSSH, experiment.ProviderSlurm, experiment.ProviderJoin} {
		if !strings.Contains(line, p) {
			t.Errorf("the example's provider line does not name %s: %q", p, strings.TrimSpace(line))
		}
	}
}
