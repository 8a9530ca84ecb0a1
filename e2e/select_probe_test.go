package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
)

// TestSelectProbesUnmeasured: testbed.select over a mesh whose sensors
// have tested nothing yet (a period of an hour) asks the host's sensor,
// through the directory, to test the target's now (diperf probe's
// on-demand test), chooses the host on that figure, says so
// (selection.csv's basis "probed now"), and the result is stored in the
// directory like any other.
func TestSelectProbesUnmeasured(t *testing.T) {
	url, token, c, _ := probeMesh(t)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	target := startTarget(t, 2, time.Millisecond)
	dir := t.TempDir()
	exp := filepath.Join(dir, "sel.yaml")
	body := "name: selprobe\ntarget: " + target + "\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 2s\n" +
		"testbed:\n  select: {min_bandwidth: 1Mbit/s}\nschedule:\n  testers: 1\n  tester_duration: 1s\n" +
		"sensors:\n  directory: " + url + "\n  token_file: " + token + "\n  target: b\n  names: {" + host + ": a}\n"
	if err := os.WriteFile(exp, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	r := diperf(t, time.Minute, "run", exp, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	sel := readCSV(t, filepath.Join(out, "selection.csv"), "host", "chosen", "reason", "basis", "bandwidth_bps")
	if len(sel.rows) != 1 || sel.rows[0].str(t, "chosen") != "true" || sel.rows[0].str(t, "basis") != "probed now" ||
		sel.rows[0].float(t, "bandwidth_bps") < 1e6 {
		t.Fatalf("selection.csv: %v", sel.rows)
	}
	if why := sel.rows[0].str(t, "reason"); !strings.Contains(why, "probed now") {
		t.Errorf("the reason does not say the figure was probed now: %q", why)
	}
	rs, err := c.Results(context.Background(), directory.Query{Src: "a", Dst: "b"})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, res := range rs {
		kinds[res.Kind] = true
	}
	if !kinds[directory.KindBandwidth] || !kinds[directory.KindLatency] {
		t.Errorf("the directory holds no probe result of a → b of both kinds: %v", rs)
	}
}
