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
func waitUp(t testing.TB, c *directory.Client) {
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

// TestSensorsOutliveADirectoryRestart: two real sensors measure; the
// directory is killed with SIGKILL and, a few seconds later, started again
// on the same database and address. Every result stored before is there,
// the results the sensors made while it was down arrive after it is back,
// and both sensors are live again.
func TestSensorsOutliveADirectoryRestart(t *testing.T) {
	dir := t.TempDir()
	tok := []byte("an-e2e-mesh-token-of-enough-bytes")
	token, db, addr := filepath.Join(dir, "tok"), filepath.Join(dir, "dir.db"), freeAddr(t)
	if err := os.WriteFile(token, tok, 0o600); err != nil {
		t.Fatal(err)
	}
	d, _ := startDirectory(t, addr, db, token)
	url := "http://" + addr
	c, err := directory.NewClient(url, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"r1", "r2"} {
		s := exec.Command(bin, "sensor", "--directory", url, "--token-file", token, "--listen", freeAddr(t),
			"--name", name, "--site", "A", "--period", "300ms", "--test-time", "100ms")
		s.Stderr = &lockedBuffer{}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Process.Kill(); s.Wait() })
	}
	ctx := context.Background()
	before := waitResults(t, c, 4)
	if err := d.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	d.Wait()
	downAt := time.Now()
	time.Sleep(3 * time.Second) // the sensors test on, and cannot write
	upAt := time.Now()
	startDirectory(t, addr, db, token)
	after := waitResults(t, c, len(before)+8)
	ids := map[int64]bool{}
	var madeWhileDown int
	for _, r := range after {
		ids[r.ID] = true
		if r.MeasuredAt.After(downAt) && r.MeasuredAt.Before(upAt) {
			madeWhileDown++
		}
	}
	for _, r := range before {
		if !ids[r.ID] {
			t.Errorf("result %d (%s → %s %s) lost in the restart", r.ID, r.Src, r.Dst, r.Kind)
		}
	}
	if madeWhileDown == 0 {
		t.Errorf("no result measured in the 3 s the directory was down arrived after it came back")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ss, err := c.Sensors(ctx, "")
		if err == nil && stateOf(ss, "r1") == directory.StateLive && stateOf(ss, "r2") == directory.StateLive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sensors are not both live 10 s after the restart: %+v (%v)", ss, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d results before the kill, %d after the restart, %d of them measured while the directory was down",
		len(before), len(after), madeWhileDown)
}

// waitResults waits up to 20 s until the directory holds at least n
// results, and returns them.
func waitResults(t *testing.T, c *directory.Client, n int) []directory.Result {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rs, err := c.Results(context.Background(), directory.Query{Limit: 100000})
		if err == nil && len(rs) >= n {
			return rs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d results (%v) after 20 s, want %d", len(rs), err, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
