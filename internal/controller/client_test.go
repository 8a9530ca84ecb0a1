package controller

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/transport"
)

// TestClientOverride runs testers with Options.Client in place of the
// experiment's client: the experiment's exec client always fails, the
// null client it is replaced with never does. An override the wire would
// refuse is refused before the run starts, with no run directory.
func TestClientOverride(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	exp := testExperiment(t, 1, 300*time.Millisecond)
	exp.Client.Exec = []string{"false"}
	exp.Schedule.ClientInterval = 0
	o := inprocOptions(exp, dir, newInproc(transport.NewMemory()))
	o.Client = &protocol.ClientDesc{Kind: protocol.ClientNull}
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if out.Samples == 0 || s.Samples.OK != int(out.Samples) || s.Samples.Failed != 0 {
		t.Errorf("outcome %+v, summary %+v: want every sample OK (the null client), none failed (the experiment's)", out, s.Samples)
	}

	bad := filepath.Join(t.TempDir(), "run")
	o = inprocOptions(exp, bad, newInproc(transport.NewMemory()))
	o.Client = &protocol.ClientDesc{Kind: protocol.ClientNull, Argv: []string{"x"}}
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "Options.Client") {
		t.Errorf("a null client with argv: err = %v, want it refused", err)
	}
}
