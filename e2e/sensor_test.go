package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
)

// TestSensorsMeasureAndAKilledOneGoesStale runs the real directory and
// three real sensors on loopback (one site; s1 also global) with a short
// period: every ordered pair gets bandwidth and latency results, no
// sensor ran two bandwidth tests at once, each stayed within its time
// budget, and a sensor killed with SIGKILL is listed stale once its lease
// ends, its results kept.
func TestSensorsMeasureAndAKilledOneGoesStale(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "tok")
	if err := os.WriteFile(token, []byte("an-e2e-mesh-token-of-enough-bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	d := exec.Command(bin, "directory", "--listen", addr, "--db", filepath.Join(dir, "dir.db"), "--token-file", token, "--ttl", "2s")
	d.Stderr = &lockedBuffer{}
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Process.Kill(); d.Wait() })
	url := "http://" + addr
	c, err := directory.NewClient(url, []byte("an-e2e-mesh-token-of-enough-bytes"), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitUp(t, c)
	var sensors []*exec.Cmd
	for i := 1; i <= 3; i++ {
		groups := "local"
		if i == 1 {
			groups = "local,global"
		}
		s := exec.Command(bin, "sensor", "--directory", url, "--token-file", token, "--listen", freeAddr(t),
			"--name", fmt.Sprintf("s%d", i), "--site", "A", "--groups", groups, "--period", "500ms", "--test-time", "200ms")
		s.Stderr = &lockedBuffer{}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Process.Kill(); s.Wait() })
		sensors = append(sensors, s)
	}
	time.Sleep(12 * time.Second)
	ctx := context.Background()
	rs, err := c.Results(ctx, directory.Query{})
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string]bool{}
	bw := map[string][][2]time.Time{} // each host's bandwidth tests, as source or destination
	for _, r := range rs {
		pairs[r.Src+">"+r.Dst+"/"+r.Kind] = true
		if r.Kind == "bandwidth" {
			span := [2]time.Time{r.MeasuredAt, r.MeasuredAt.Add(time.Duration(r.TestTimeS * float64(time.Second)))}
			bw[r.Src] = append(bw[r.Src], span)
			bw[r.Dst] = append(bw[r.Dst], span)
		}
	}
	for _, a := range []string{"s1", "s2", "s3"} {
		for _, b := range []string{"s1", "s2", "s3"} {
			for _, k := range []string{"bandwidth", "latency"} {
				if a != b && !pairs[a+">"+b+"/"+k] {
					t.Errorf("no %s result %s → %s in 12 s", k, a, b)
				}
			}
		}
	}
	for h, spans := range bw {
		sort.Slice(spans, func(i, j int) bool { return spans[i][0].Before(spans[j][0]) })
		for i := 1; i < len(spans); i++ {
			if spans[i][0].Before(spans[i-1][1].Add(-10 * time.Millisecond)) {
				t.Errorf("host %s: bandwidth tests overlap: %v–%v and %v–%v", h, spans[i-1][0], spans[i-1][1], spans[i][0], spans[i][1])
			}
		}
	}
	if err := sensors[2].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ss, err := c.Sensors(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if stateOf(ss, "s3") == directory.StateStale && stateOf(ss, "s1") == directory.StateLive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("s3 not stale (or s1 not live) 10 s after s3 was killed, with a 2 s lease: %+v", ss)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, s := range sensors[:2] {
		_ = s.Process.Signal(syscall.SIGINT)
		if err := s.Wait(); err != nil {
			t.Errorf("a sensor interrupted: %v", err)
		}
		if out := s.Stderr.(*lockedBuffer).String(); !strings.Contains(out, "diperf sensor s") {
			t.Errorf("sensor stderr: %s", out)
		}
	}
}

// waitUp waits until the directory answers.
func waitUp(t *testing.T, c *directory.Client) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := c.Sensors(context.Background(), ""); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the directory did not answer within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func stateOf(ss []directory.Sensor, name string) string {
	for _, s := range ss {
		if s.Name == name {
			return s.State
		}
	}
	return ""
}
