package testbed

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// slurmTask is the handle of one array task, job_N: the tester of slot N.
// Its state comes from the queue's poller.
type slurmTask struct {
	q     *slurmQueue
	idx   int
	id    string // JOBID_N
	dir   string // where Slurm writes its output (task-N.out)
	since time.Time

	mu      sync.Mutex
	row     squeueRow // the last word of squeue
	seen    bool      // squeue has named it at least once
	queryEr error     // the last squeue failure, if the last poll failed
	done    chan struct{}
	err     error // how it ended, valid once done is closed
}

var (
	_ Handle         = (*slurmTask)(nil)
	_ StatusReporter = (*slurmTask)(nil)
)

// update takes squeue's word on the task (ok: squeue named it).
func (t *slurmTask) update(r squeueRow, ok bool) {
	t.mu.Lock()
	t.queryEr = nil
	switch {
	case ok:
		t.row, t.seen = r, true
	case t.seen:
		t.row.State = "gone from the queue"
	case time.Since(t.since) < slurmUnseenWait:
		t.mu.Unlock()
		return // just submitted: squeue may not name it yet
	default:
		t.row.State = "never seen in the queue"
	}
	row := t.row
	t.mu.Unlock()
	switch {
	case row.State == "COMPLETED":
		t.end(nil)
	case slurmEnded(row.State) || !ok:
		t.end(errors.New(t.describe(row)))
	}
}

// queryFailed records that squeue could not be asked.
func (t *slurmTask) queryFailed(err error) {
	t.mu.Lock()
	t.queryEr = err
	t.mu.Unlock()
}

// end closes the handle once, with how the task ended.
func (t *slurmTask) end(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.done:
	default:
		t.err = err
		close(t.done)
	}
}

func (t *slurmTask) ended() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// Host is the node the task runs on, once Slurm has placed it.
func (t *slurmTask) Host() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.row.Node
}

// PID is 0: the task's process lives on its node; the tester says its pid
// when it joins.
func (t *slurmTask) PID() int { return 0 }

// Wait returns once Slurm says the task is over: nil when it completed
// (exit status 0), else its final state, reason and last output line.
func (t *slurmTask) Wait() error {
	<-t.done
	return t.err
}

// Kill cancels the task (scancel JOBID_N) without waiting for scancel: the
// controller calls it holding its lock, and the poller sees the end.
func (t *slurmTask) Kill() error {
	if !t.ended() {
		go t.q.scancel(t.id)
	}
	return nil
}

// Status is Slurm's word on the task, e.g. "slurm: job 12_5 PENDING
// (Resources)", with the last line the task wrote to its Slurm output (the
// batch script's error when it could not find the binary).
func (t *slurmTask) Status() string {
	t.mu.Lock()
	row, seen, qerr := t.row, t.seen, t.queryEr
	t.mu.Unlock()
	switch {
	case !seen && qerr != nil:
		return fmt.Sprintf("slurm: job %s: squeue failed: %v", t.id, qerr)
	case !seen && row.State == "":
		return fmt.Sprintf("slurm: job %s not in the queue yet", t.id)
	}
	return t.describe(row)
}

// describe says the task's state, reason, node and last output line.
func (t *slurmTask) describe(r squeueRow) string {
	s := "slurm: job " + t.id + " " + r.State
	if r.Reason != "" && r.Reason != "None" {
		s += " (" + r.Reason + ")"
	}
	if r.Node != "" && r.State != "PENDING" {
		s += " on " + r.Node
	}
	if last := lastLine(filepath.Join(t.dir, "task-"+strconv.Itoa(t.idx)+".out")); last != "" {
		s += ": " + last
	}
	return s
}

// maxStatusLine bounds the output line a status quotes.
const maxStatusLine = 400

// lastLine returns the last non-empty line of a file's last 4 KiB, at most
// maxStatusLine bytes of it ("" when there is none).
func lastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 4096)
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-int64(len(buf)), 0)
	n, _ := f.ReadAt(buf, off)
	lines := bytes.Split(bytes.TrimSpace(buf[:n]), []byte("\n"))
	last := bytes.TrimSpace(lines[len(lines)-1])
	if len(last) > maxStatusLine {
		last = last[len(last)-maxStatusLine:]
	}
	return string(last)
}
