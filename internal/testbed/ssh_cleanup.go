package testbed

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	kept := make([]int, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() { kept[i], errs[i] = t.cleanHost(h, settledOn(h, hs)) })
	}
	wg.Wait()
	if err := t.recordKept(hosts, kept, len(hs) > 0); err != nil {
		errs = append(errs, err)
	}
	for _, h := range hs {
		h.sess.Close()
	}
	if t.unagent != nil {
		t.unagent()
	}
	return errors.Join(errs...)
}

// settledOn lists the slots of the testers on h whose spools the
// controller settled, one per line (the sweep's stdin).
func settledOn(h *sshHost, hs []*sshHandle) []byte {
	var b []byte
	for _, hd := range hs {
		if hd.host == h && hd.settled.Load() {
			b = strconv.AppendInt(b, int64(hd.slot), 10)
			b = append(b, '\n')
		}
	}
	return b
}

// cleanHost sweeps one host, bounded by sweepWait, and closes it; it
// returns how many testers' spools it left there (-1: unknown).
func (t *SSH) cleanHost(h *sshHost, settled []byte) (int, error) {
	type swept struct {
		kept int
		err  error
	}
	done := make(chan swept, 1)
	go func() {
		kept, err := t.sweepHost(h, settled)
		done <- swept{kept, err}
	}()
	var r swept
	select {
	case r = <-done:
	case <-time.After(sweepWait):
		r = swept{-1, fmt.Errorf("%s: no answer within %v while cleaning up; what the run left there may still run", h.t.name, sweepWait)}
	}
	h.close()
	return r.kept, r.err
}

// sweepScript kills the run's sessions and removes its folder, but for the
// testers' spools not settled (their slots on stdin), with the deployed
// diperf; or, if that binary cannot run, kills each tester's process
// group and removes the folder by hand, but for every spool.
const sweepScript = `%[1]s sweep --dir %[2]s --run %[3]s --remove --settled-stdin && exit 0
for f in %[2]s/runs/%[3]s/pids/*; do [ -f "$f" ] && kill -KILL -- "-$(cat "$f")" 2>/dev/null; done
rm -rf -- %[2]s/runs/%[3]s/pids %[2]s/runs/%[3]s/made; rmdir -- %[2]s/runs/%[3]s/spool %[2]s/runs/%[3]s %[2]s/runs 2>/dev/null; exit 0`

// sweepHost kills what the run left on h and removes its files but for
// the spools not settled; it returns how many of those it kept (-1:
// unknown).
func (t *SSH) sweepHost(h *sshHost, settled []byte) (int, error) {
	out, err := h.run(fmt.Sprintf(sweepScript, shellQuote(h.abs("bin/diperf")), shellQuote(h.workDir), t.runID), settled)
	if err != nil {
		return -1, fmt.Errorf("%s: sweeping the run: %w", h.t.name, err)
	}
	var sweepErr error
	s, kept := strings.TrimSpace(string(out)), -1
	if strings.HasPrefix(s, "killed ") {
		kept = 0
	}
	if strings.HasPrefix(s, "killed ") && !strings.HasPrefix(s, "killed 0 ") {
		first, _, _ := strings.Cut(s, "\n")
		sweepErr = fmt.Errorf("%s: %s still running at cleanup", h.t.name, first)
	}
	if _, rest, ok := strings.Cut(s, "\nkept "); ok {
		kept, _ = strconv.Atoi(strings.Fields(rest)[0])
	}
	if !t.tb.KeepFiles {
		made := h.made
		if err := h.removeMade(); err != nil {
			return kept, errors.Join(sweepErr, fmt.Errorf("%s: removing the deployed files: %w", h.t.name, err))
		}
		if kept != 0 {
			sweepErr = errors.Join(sweepErr, h.keepFolders(t.runRel(), made))
		}
	}
	return kept, sweepErr
}

// keepFolders records in the run's MadeFile on h the folders it made that
// the spools it kept hold up (those of made still there): `diperf fetch`
// removes them once it took the spools.
func (h *sshHost) keepFolders(runRel string, made []string) error {
	if h.sftp == nil {
		return nil
	}
	var left []string
	for _, p := range made {
		if st, err := h.sftp.Stat(p); err == nil && st.IsDir() {
			left = append(left, p)
		}
	}
	h.made = left
	return h.writeMade(runRel)
}
