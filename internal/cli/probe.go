package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/human"
)

// probeSummary is `diperf probe` in diperf --help.
const probeSummary = "ask sensor A to test B now, through the directory (an on-demand test), and print the result"

// probeCmd is `diperf probe A B`: sensor A tests B now; the result is
// stored in the directory like a scheduled one and printed. Exit 0 when
// done, 1 when failed, expired or timed out (with the reason), 2 for a
// bad request (an unknown sensor: the directory's are named).
func probeCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "probe", "A B --directory URL [--token-file F] [--kind bandwidth|latency] [--json] [--timeout D]")
	var m meshFlags
	m.add(fs)
	kind := fs.String("kind", directory.KindBandwidth, "the test: bandwidth (a TCP stream for A's test time) or latency (request/response transactions)")
	asJSON := fs.Bool("json", false, "print the probe as JSON: id, src, dst, kind, state, result (as stored), reason")
	timeout := fs.Duration("timeout", 90*time.Second, "give up waiting after this long (the probe itself expires in the directory)")
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	if *kind != directory.KindBandwidth && *kind != directory.KindLatency {
		return errs.Usagef("--kind %q: want bandwidth or latency", *kind)
	}
	if *timeout <= 0 {
		return errs.Usagef("--timeout must be above 0, got %v", *timeout)
	}
	c, err := m.client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	return probeRun(ctx, e, c, pos[0], pos[1], *kind, *asJSON, *timeout)
}

// probeRun asks src to test dst, waits for the answer and prints it.
func probeRun(ctx context.Context, e *env, c *directory.Client, src, dst, kind string, asJSON bool, timeout time.Duration) error {
	p, err := c.RequestProbe(ctx, src, dst, kind)
	if err != nil {
		return probeRefused(ctx, c, src, dst, err)
	}
	fmt.Fprintf(e.stderr, "diperf probe: %s asked to test %s's %s (probe %s)\n", src, dst, kind, p.ID)
	done, err := c.WaitProbe(ctx, p.ID, 250*time.Millisecond)
	if err != nil {
		return fmt.Errorf("probe %s: no answer within --timeout %v (%s): %w", p.ID, timeout, stateOrPending(done), err)
	}
	if asJSON {
		if err := printJSON(e, done); err != nil {
			return err
		}
	} else if done.State == directory.ProbeDone {
		printProbe(e, done)
	}
	if done.State != directory.ProbeDone {
		return fmt.Errorf("probe %s %s: %s", done.ID, done.State, done.Reason)
	}
	return nil
}

func stateOrPending(p directory.Probe) string {
	if p.State == "" {
		return "pending"
	}
	return "still " + p.State
}

// printProbe prints a done probe's result in human units.
func printProbe(e *env, p directory.Probe) {
	r := p.Result
	at := r.MeasuredAt.UTC().Format(time.RFC3339)
	if p.Kind == directory.KindBandwidth {
		fmt.Fprintf(e.stdout, "bandwidth %s → %s: %s (%s after slow start) over %s, measured at %s, result %d\n", p.Src, p.Dst,
			human.Bits(r.BandwidthBps), human.Bits(r.BandwidthAfterSlowStartBps), human.Seconds(r.TestTimeS), at, r.ID)
		return
	}
	fmt.Fprintf(e.stdout, "latency   %s → %s: %s (p50 %s, p90 %s, p99 %s) over %s, measured at %s, result %d\n", p.Src, p.Dst,
		human.Millis(r.LatencyMs), human.Millis(r.LatencyP50Ms), human.Millis(r.LatencyP90Ms), human.Millis(r.LatencyP99Ms),
		human.Seconds(r.TestTimeS), at, r.ID)
}

// probeRefused words the directory's refusal of a probe: an unknown
// sensor is a usage error naming the sensors it knows; the rest fail.
func probeRefused(ctx context.Context, c *directory.Client, src, dst string, err error) error {
	var api *directory.APIError
	if !errors.As(err, &api) || (api.Field != "src" && api.Field != "dst") ||
		(api.Status != http.StatusNotFound && api.Status != http.StatusBadRequest) {
		return fmt.Errorf("asking %s to test %s: %w", src, dst, err)
	}
	name := map[string]string{"src": src, "dst": dst}[api.Field]
	known := "none"
	if ss, lerr := c.Sensors(ctx, ""); lerr == nil && len(ss) > 0 {
		names := make([]string, 0, len(ss))
		for _, s := range ss {
			names = append(names, s.Name+" ("+s.State+")")
		}
		known = strings.Join(names[:min(len(names), 50)], ", ")
		if len(names) > 50 {
			known += fmt.Sprintf(" and %d more (diperf netmap)", len(names)-50)
		}
	}
	return errs.Usage(fmt.Errorf("%s: %s", api.Field, api.Msg), fmt.Sprintf("%q: the directory knows the sensors %s", name, known))
}
