package testbed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// sweepWait bounds the cleanup of one host once the testers' grace is
// over: the sweep, the removal of files, and the connection's close.
const sweepWait = 20 * time.Second

// Cleanup waits for the testers to end until ctx is done, then on every
// host kills every process of every tester session of the run (diperf
// sweep: testers and their clients), removes the run's folder and,
// unless testbed.keep_files, every file and folder the run put there,
// and closes the connection.
func (t *SSH) Cleanup(ctx context.Context) error {
	t.mu.Lock()
	hs, hosts := t.handles, t.hosts
	t.handles, t.hosts, t.ready = nil, nil, map[string]*sshHost{}
	t.mu.Unlock()
	for _, h := range hs {
		select {
		case <-h.done:
		case <-ctx.Done():
		}
	}
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() { errs[i] = t.cleanHost(h) })
	}
	wg.Wait()
	for _, h := range hs {
		h.sess.Close()
	}
	if t.unagent != nil {
		t.unagent()
	}
	return errors.Join(errs...)
}

// cleanHost sweeps one host, bounded by sweepWait, and closes it.
func (t *SSH) cleanHost(h *sshHost) error {
	done := make(chan error, 1)
	go func() { done <- t.sweepHost(h) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(sweepWait):
		err = fmt.Errorf("%s: no answer within %v while cleaning up; what the run left there may still run", h.t.name, sweepWait)
	}
	h.close()
	return err
}

// sweepScript kills the run's sessions and removes its folder with the
// deployed diperf, or, if that binary cannot run, kills each tester's
// process group and removes the folder by hand.
const sweepScript = `%[1]s sweep --dir %[2]s --run %[3]s --remove && exit 0
for f in %[2]s/runs/%[3]s/pids/*; do [ -f "$f" ] && kill -KILL -- "-$(cat "$f")" 2>/dev/null; done
rm -rf -- %[2]s/runs/%[3]s; rmdir -- %[2]s/runs 2>/dev/null; exit 0`

// sweepHost kills what the run left on h and removes its files.
func (t *SSH) sweepHost(h *sshHost) error {
	out, err := h.run(fmt.Sprintf(sweepScript, shellQuote(h.abs("bin/diperf")), shellQuote(h.workDir), t.runID), nil)
	if err != nil {
		return fmt.Errorf("%s: sweeping the run: %w", h.t.name, err)
	}
	var sweepErr error
	if s := strings.TrimSpace(string(out)); strings.HasPrefix(s, "killed ") && !strings.HasPrefix(s, "killed 0 ") {
		sweepErr = fmt.Errorf("%s: %s still running at cleanup", h.t.name, s)
	}
	if !t.tb.KeepFiles {
		if err := h.removeMade(); err != nil {
			return errors.Join(sweepErr, fmt.Errorf("%s: removing the deployed files: %w", h.t.name, err))
		}
	}
	return sweepErr
}
