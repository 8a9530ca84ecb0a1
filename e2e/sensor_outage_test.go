package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
)

// TestSensorsTestThroughADirectoryOutage: the directory is killed for 4 s,
// many lists' time at a test per 300 ms: the two sensors test on from the
// peers it listed last, and what they measured while it was down arrives
// once it is back, each sensor's in the order measured.
func TestSensorsTestThroughADirectoryOutage(t *testing.T) {
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
	for _, name := range []string{"o1", "o2"} {
		s := exec.Command(bin, "sensor", "--directory", url, "--token-file", token, "--listen", freeAddr(t),
			"--name", name, "--site", "A", "--period", "300ms", "--test-time", "100ms")
		s.Stderr = &lockedBuffer{}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Process.Kill(); s.Wait() })
	}
	waitResults(t, c, 4)
	if err := d.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	d.Wait()
	downAt := time.Now()
	time.Sleep(4 * time.Second)
	upAt := time.Now()
	startDirectory(t, addr, db, token)
	time.Sleep(2 * time.Second) // a list or two: each sensor's next query sends what it kept
	rs := waitResults(t, c, 1)
	whileDown := map[string]int{}
	bySrc := map[string][]directory.Result{}
	for _, r := range rs {
		if r.MeasuredAt.After(downAt) && r.MeasuredAt.Before(upAt) {
			whileDown[r.Src]++
		}
		bySrc[r.Src] = append(bySrc[r.Src], r)
	}
	for src, list := range bySrc { // stored in the order measured: the ids follow the times
		sort.Slice(list, func(i, j int) bool { return list[i].MeasuredAt.Before(list[j].MeasuredAt) })
		for i := 1; i < len(list); i++ {
			if list[i].ID < list[i-1].ID {
				t.Errorf("%s: result %d measured %v stored after result %d measured %v", src,
					list[i-1].ID, list[i-1].MeasuredAt, list[i].ID, list[i].MeasuredAt)
			}
		}
	}
	// 4 s at a test per 0.3–0.4 s, less busy retries and missed tests: 5
	// each at least (the list it was on when the directory went down
	// holds two)
	t.Logf("measured while the directory was down: %v", whileDown)
	if whileDown["o1"] < 5 || whileDown["o2"] < 5 {
		t.Errorf("results measured in the 4 s the directory was down: %v; want 5 from each sensor at least", whileDown)
	}
}
