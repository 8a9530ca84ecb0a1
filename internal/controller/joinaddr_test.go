package controller

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/testbed"
)

// A join run says the real address testers join at, on its progress
// output with the token file, and in the comment of the token its
// testbed hands over (what a slurm run writes for its tasks): never the
// placeholder HOST:PORT.
func TestJoinAddressIsTheRealOne(t *testing.T) {
	t.Parallel()
	tb, progress := joinRun(t, experiment.ProviderJoin)
	addr := tb.specs[0].Controller
	if !strings.HasPrefix(addr, "127.0.0.1:") || strings.HasSuffix(addr, ":0") {
		t.Fatalf("tester told to dial %q", addr)
	}
	if want := "diperf: testers join with: diperf tester --join " + addr + " --token-file the.token\n"; !strings.Contains(progress.String(), want) {
		t.Errorf("progress:\n%s\nwant the line %q", progress.String(), want)
	}
	tok := string(tb.specs[0].Token)
	if !strings.Contains(tok, "# testers join with: diperf tester --join "+addr+" ") || strings.Contains(tok, "HOST:PORT") {
		t.Errorf("the token handed to the tester says:\n%s\nwant the address %s", tok, addr)
	}
}

// A slurm run says the address its tasks join.
func TestSlurmAddressIsTheRealOne(t *testing.T) {
	t.Parallel()
	tb, progress := joinRun(t, experiment.ProviderSlurm)
	if want := "diperf: the slurm tasks join the controller at " + tb.specs[0].Controller + "\n"; !strings.Contains(progress.String(), want) {
		t.Errorf("progress:\n%s\nwant the line %q", progress.String(), want)
	}
}

// joinRun runs one tester in process, over loopback TCP, as a run of
// provider (join: with token file the.token); it returns the testbed and the
// progress output.
func joinRun(t *testing.T, provider string) (*inproc, *bytes.Buffer) {
	t.Helper()
	tb := newInproc(nil)
	tb.ready = testbed.Ready{Hosts: []string{testbed.LocalHost}}
	exp := testExperiment(t, 1, 300*time.Millisecond)
	exp.Sync.Transport = "udp"
	exp.Testbed.Provider = provider
	if provider == experiment.ProviderJoin {
		exp.Testbed.TokenFile = "the.token"
	}
	var progress bytes.Buffer
	out, err := Run(context.Background(), Options{Experiment: exp, Dir: filepath.Join(t.TempDir(), "run"), Testbed: tb,
		Listen: "127.0.0.1:0", Progress: &progress})
	if err != nil || out.Started != 1 {
		t.Fatalf("run: %+v, %v", out, err)
	}
	return tb, &progress
}
