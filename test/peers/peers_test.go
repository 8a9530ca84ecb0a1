package peers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRotation(t *testing.T) {
	tools := []string{"a", "b", "c"}
	want := [][]string{{"a", "b", "c"}, {"b", "c", "a"}, {"c", "a", "b"}, {"a", "b", "c"}}
	for r, w := range want {
		if got := Rotation(tools, r); !slices.Equal(got, w) {
			t.Errorf("round %d: %v, want %v", r, got, w)
		}
	}
}

func TestSummarizeMedians(t *testing.T) {
	s := summarize("x", []Result{
		{RequestsPerS: 30, P50Ms: 1, P99Ms: 9, CPUS: 2, Requests: 300, Errors: 1},
		{RequestsPerS: 10, P50Ms: 3, P99Ms: 7, CPUS: 1, Requests: 100},
		{RequestsPerS: 20, P50Ms: 2, P99Ms: 8, CPUS: 4, Requests: 200, Errors: 2},
	})
	if s.Runs != 3 || s.RequestsPerS != 20 || s.P50Ms != 2 || s.P99Ms != 8 || s.CPUS != 2 || s.Errors != 3 {
		t.Fatalf("%+v", s)
	}
	if s.RequestsPerCPUS != 100 { // 150, 100, 50 requests per CPU-second
		t.Fatalf("requests per CPU-second %v, want 100", s.RequestsPerCPUS)
	}
}

// TestRunChildCountsGrandchildren checks that the CPU of a tool's process
// tree is counted: the child's shell burns no CPU itself, its own child
// does, and says how much (the shell's `times`): at least that much is
// counted, however busy the machine.
func TestRunChildCountsGrandchildren(t *testing.T) {
	c, err := runChild(context.Background(), "", "sh", "-c",
		`sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; times'; true`)
	if err != nil {
		t.Fatal(err)
	}
	var um, us, sm, ss float64
	if _, err := fmt.Sscanf(string(c.Stdout), "%fm%fs %fm%fs", &um, &us, &sm, &ss); err != nil {
		t.Fatalf("the grandchild's times %q: %v", c.Stdout, err)
	}
	own := 60*um + us + 60*sm + ss
	if own < 0.05 || c.CPUS < own-0.02 {
		t.Fatalf("counted %.2f s of CPU for a grandchild that used %.2f s", c.CPUS, own)
	}
}

func TestRunChildError(t *testing.T) {
	_, err := runChild(context.Background(), "", "sh", "-c", "echo bad flag >&2; exit 3")
	if err == nil || !strings.Contains(err.Error(), "bad flag") {
		t.Fatalf("error %v, want the child's stderr in it", err)
	}
}

func TestNginxServesAndStops(t *testing.T) {
	ng := startTestNginx(t)
	resp, err := http.Get(ng.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(body) != 612 {
		t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
	}
	ng.Stop()
	if _, err := os.Stat(ng.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory %s left behind: %v", ng.dir, err)
	}
	if _, err := http.Get(ng.URL); err == nil {
		t.Errorf("nginx still answers after Stop")
	}
}

func startTestNginx(t *testing.T) *Nginx {
	t.Helper()
	if _, err := nginxExe(); err != nil {
		t.Skipf("%v (scripts/test.sh installs it)", err)
	}
	ng, err := StartNginx(context.Background(), NginxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ng.Stop)
	return ng
}

// TestToolsAgainstNginx runs every installed tool for one second.
func TestToolsAgainstNginx(t *testing.T) {
	ng := startTestNginx(t)
	for _, tool := range append(Defaults(), Locust{}) {
		t.Run(tool.Name(), func(t *testing.T) {
			if err := tool.Available(); err != nil {
				t.Skip(err)
			}
			r, err := tool.Run(context.Background(), Load{URL: ng.URL, Connections: 4, Duration: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if r.Requests < 100 || r.Errors != 0 || r.RequestsPerS <= 0 || r.P50Ms <= 0 || r.P50Ms > r.P99Ms || r.CPUS <= 0 {
				t.Fatalf("%+v", r)
			}
		})
	}
}
