package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

// cpuBed is an in-process testbed of three hosts whose idle CPU is
// known.
type cpuBed struct {
	*inproc
	idle map[string]float64
}

func (b cpuBed) IdleCPU(_ context.Context, host string) (float64, error) {
	if v, ok := b.idle[host]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("no /proc/stat on %s", host)
}

// selectRun runs 2 testers with testbed.select {testers: 2,
// min_idle_cpu: 50%} over hosts h1, h2, h3 of the given idle CPU.
func selectRun(t *testing.T, idle map[string]float64, allowFewer bool) (*cpuBed, string, error) {
	t.Helper()
	in := newInproc(transport.NewMemory())
	in.ready = testbed.Ready{Hosts: []string{"h1", "h2", "h3"}, PerHost: 1}
	tb := &cpuBed{in, idle}
	exp := testExperiment(t, 2, 500*time.Millisecond)
	exp.Testbed.Provider, exp.Testbed.Hosts = experiment.ProviderSSH, in.ready.Hosts // as the run directory records it
	exp.Testbed.Select = &experiment.Select{Testers: 2, MinIdleCPU: 50, AllowFewer: allowFewer}
	dir := filepath.Join(t.TempDir(), "run")
	o := inprocOptions(exp, dir, in)
	o.Testbed = tb
	_, err := Run(context.Background(), o)
	return tb, dir, err
}

// The hosts with the most idle CPU, above min_idle_cpu, get the testers,
// in that order; every candidate's reason is in events.jsonl,
// selection.csv and (for the chosen) testers.csv.
func TestSelectByIdleCPU(t *testing.T) {
	t.Parallel()
	tb, dir, err := selectRun(t, map[string]float64{"h1": 70, "h2": 20, "h3": 90}, false)
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, s := range tb.specs {
		hosts = append(hosts, s.Host)
	}
	if slices.Sort(hosts); !slices.Equal(hosts, []string{"h1", "h3"}) {
		t.Errorf("testers started on %v, want h3 and h1", hosts)
	}
	rows, err := rundir.ReadSelection(dir)
	if err != nil || len(rows) != 3 || rows[0].Host != "h3" || rows[1].Host != "h1" || rows[2].Chosen ||
		rows[2].Reason != "idle CPU 20% < min 50%" {
		t.Errorf("selection.csv: %+v, %v", rows, err)
	}
	ev, err := os.ReadFile(filepath.Join(dir, rundir.Events))
	if err != nil || !strings.Contains(string(ev), `"event":"host-left-out","detail":"h2: idle CPU 20% \u003c min 50%"`) ||
		strings.Count(string(ev), `"event":"host-chosen"`) != 2 {
		t.Errorf("events.jsonl:\n%s", ev)
	}
	recs, err := rundir.ReadTesters(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if !strings.HasPrefix(r.Chosen, "chosen ") {
			t.Errorf("tester %d: chosen %q", r.Slot, r.Chosen)
		}
	}
}

// Fewer hosts qualifying than asked refuse the run (exit 2, each host's
// reason, no run directory, no tester); allow_fewer runs on those that do.
func TestSelectTooFew(t *testing.T) {
	t.Parallel()
	idle := map[string]float64{"h1": 90, "h2": 20}
	tb, dir, err := selectRun(t, idle, false)
	if err == nil || errs.Code(err) != errs.CodeUsage || !strings.Contains(err.Error(), "1 of the 2 hosts asked for qualify") ||
		!strings.Contains(err.Error(), "h2: idle CPU 20% < min 50%") || !strings.Contains(err.Error(), "h3: idle CPU not known: no /proc/stat on h3") {
		t.Fatalf("err = %v (exit %d)", err, errs.Code(err))
	}
	if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) || len(tb.specs) != 0 || tb.cleaned != 1 {
		t.Errorf("a refused selection: dir %v, %d testers started, %d cleanups", serr, len(tb.specs), tb.cleaned)
	}
	tb, dir, err = selectRun(t, idle, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tb.specs {
		if s.Host != "h1" {
			t.Errorf("a tester started on %s, want h1 alone", s.Host)
		}
	}
	if ev, _ := os.ReadFile(filepath.Join(dir, rundir.Events)); !strings.Contains(string(ev), "testbed.select.allow_fewer: 1 hosts chosen of the 2 asked for") {
		t.Errorf("events.jsonl does not say the run went on fewer hosts:\n%s", ev)
	} else if !strings.Contains(string(ev), "testbed.select: 2 testers over the 1 hosts chosen: h1 2; up to 2 on a host, beyond testbed.testers_per_host 1") {
		t.Errorf("events.jsonl does not say h1 takes the testers beyond testers_per_host:\n%s", ev)
	}
}
