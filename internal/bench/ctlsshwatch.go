package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/diperf/diperf/internal/pipeline"
	"github.com/diperf/diperf/internal/rundir"
)

// sshSetup bounds the hosts' deployment and the testers' connection: the
// ssh testbed checks each host within its connect_timeout (20 s), then
// copies the binary and starts the testers.
const sshSetup = 5 * time.Minute

// watchSSH follows the child through its run: the controller's memory
// before any tester (at "listening") and with every tester connected (at
// "synchronized-start"), its peak memory and CPU each second, and its CPU
// when the last tester finished ("all-finished").
func (ch *child) watchSSH(ctx context.Context, o SSHOptions, r *SSHResult, t0 time.Time, progress io.Writer) error {
	alive := func() error { return cmp.Or(ctx.Err(), ch.alive()) }
	if _, err := waitEvent(ch.dir, "listening", sshSetup, alive); err != nil {
		return err
	}
	base := ch.sample()
	r.BaseRSSMB = mb(base)
	fmt.Fprintf(progress, "controller pid %d (RSS %.1f MB); deploying %d testers on %d hosts over ssh ...\n",
		ch.cmd.Process.Pid, r.BaseRSSMB, o.Testers, len(o.Hosts))
	if _, err := waitEvent(ch.dir, "synchronized-start", sshSetup, alive); err != nil {
		return err
	}
	r.ConnectS = round(time.Since(t0).Seconds(), 2)
	idle := ch.sample()
	startCPU, _ := procCPU(ch.cmd.Process.Pid)
	r.BytesPerTester = round((float64(idle)-float64(base))/float64(o.Testers), 0)
	fmt.Fprintf(progress, "%d testers connected %.1f s after the start; controller RSS %.1f MB; %d clients call every %v for %v ...\n",
		o.Testers, r.ConnectS, mb(idle), o.Clients(), o.Interval(), o.Duration)
	if err := ch.followSSH(ctx, progress); err != nil {
		return err
	}
	ch.mu.Lock()
	if ch.cpuEnd > 0 {
		r.SendCPUS = round((ch.cpuEnd - startCPU).Seconds(), 2)
	}
	ch.mu.Unlock()
	return nil
}

// followSSH samples the controller each second until every tester has
// finished ("all-finished", looked for every 100 ms), and records its CPU
// then.
func (ch *child) followSSH(ctx context.Context, progress io.Writer) error {
	pid := ch.cmd.Process.Pid
	lastCPU, _ := procCPU(pid)
	events := filepath.Join(ch.dir, rundir.Events)
	tk := time.NewTicker(100 * time.Millisecond)
	defer tk.Stop()
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch.exited:
			return nil // it ended within 100 ms of its last tester: fillSSH takes its whole CPU
		case <-tk.C:
		}
		rss := ch.sample()
		cpu, err := procCPU(pid)
		if _, done := findEvent(events, "all-finished"); done && err == nil {
			ch.mu.Lock()
			ch.cpuEnd = cpu
			ch.mu.Unlock()
			fmt.Fprintf(progress, "every tester finished; the controller cleans the hosts up and writes the run directory ...\n")
			return nil
		}
		if i%10 == 0 {
			fmt.Fprintf(progress, "controller RSS %7.1f MB  CPU %3.0f%%\n", mb(rss), 100*(cpu-lastCPU).Seconds())
			lastCPU = cpu
		}
	}
}

// fillSSH completes r from the child's exit and its run directory: sent
// is what the testers said they produced (testers.csv).
func fillSSH(r *SSHResult, ch *child) error {
	recs, err := rundir.ReadTesters(ch.dir)
	if err != nil {
		return fmt.Errorf("bench: the run's testers.csv: %w", err)
	}
	var first, last int64
	for _, t := range recs {
		r.Sent += t.Sent
		if t.Failed {
			r.FailedSessions++
			r.FirstError = cmp.Or(r.FirstError, fmt.Sprintf("tester %d (%s): %s", t.Slot, t.Host, t.FailureReason))
		}
		if t.StartNs != 0 && (first == 0 || t.StartNs < first) {
			first = t.StartNs
		}
		last = max(last, t.StopNs)
	}
	fillController(r.ControllerResult, ch, ch.dir)
	if r.ControllerCPUS == 0 {
		r.ControllerCPUS = r.ControllerTotalCPUS
	}
	if last > first && first != 0 {
		r.LoopS = round(float64(last-first)/1e9, 2)
		r.LoopSamplesPerS = round(float64(r.Received)/r.LoopS, 0)
	}
	if s, err := pipeline.ReadSummary(ch.dir); err == nil {
		r.MedianSamplesPerS = round(s.Throughput.Median, 0)
	}
	r.Retrieved, err = retrievedSamples(ch.dir)
	return err
}

// retrievedSamples counts the samples the controller fetched from the
// testers' own spools at cleanup ("retrieved" events): those did not come
// over the live SSH streams.
func retrievedSamples(dir string) (uint64, error) {
	b, err := os.ReadFile(filepath.Join(dir, rundir.Events))
	if err != nil {
		return 0, fmt.Errorf("bench: the run's events: %w", err)
	}
	var n uint64
	for line := range bytes.Lines(b) {
		var e rundir.Event
		if json.Unmarshal(line, &e) != nil || e.Event != "retrieved" {
			continue
		}
		var k uint64
		if _, err := fmt.Sscanf(e.Detail, "%d samples", &k); err == nil {
			n += k
		}
	}
	return n, nil
}
