package testbed

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// slurmQueue watches one job array with one squeue call per poll for all
// its tasks, and ends each task's handle when Slurm says it is over.
type slurmQueue struct {
	job     string // the array's job id
	every   time.Duration
	tasks   []*slurmTask
	stop    chan struct{} // closed by cleanup: the poller returns
	stopped chan struct{} // closed when the poller has returned
	once    sync.Once
}

// Timing of the slurm testbed's queue watch.
const (
	squeueTimeout = 20 * time.Second // one squeue or scancel call at most
	// slurmUnseenWait is how long a submitted task may stay out of
	// squeue's answers before it is taken for gone.
	slurmUnseenWait = 30 * time.Second
	// slurmGoneWait bounds how long cleanup waits, after scancel, for the
	// array's tasks to leave the queue.
	slurmGoneWait = 30 * time.Second
)

func newSlurmQueue(job string, n int, dir string, every time.Duration) *slurmQueue {
	q := &slurmQueue{job: job, every: every, stop: make(chan struct{}), stopped: make(chan struct{})}
	q.tasks = make([]*slurmTask, n)
	for i := range q.tasks {
		q.tasks[i] = &slurmTask{q: q, idx: i, id: job + "_" + strconv.Itoa(i), dir: dir,
			since: time.Now(), done: make(chan struct{})}
	}
	return q
}

// poll asks squeue about the array every q.every until every task has
// ended or cleanup stops it.
func (q *slurmQueue) poll() {
	defer close(q.stopped)
	tk := time.NewTicker(q.every)
	defer tk.Stop()
	for {
		q.pollOnce()
		if q.active() == 0 {
			return
		}
		select {
		case <-q.stop:
			return
		case <-tk.C:
		}
	}
}

// pollOnce runs one squeue for the whole array (every state, array tasks
// one per line) and updates each task.
func (q *slurmQueue) pollOnce() {
	ctx, cancel := context.WithTimeout(context.Background(), squeueTimeout)
	defer cancel()
	out, err := runSlurm(ctx, "squeue", "--noheader", "--array", "--states=all",
		"--jobs="+q.job, "--format=%i|%T|%r|%N")
	if err != nil && !strings.Contains(err.Error(), "Invalid job id") {
		for _, t := range q.tasks {
			t.queryFailed(err)
		}
		return
	}
	// "Invalid job id": the controller has forgotten the whole array
	rows := parseSqueue(out, q.job, len(q.tasks))
	for i, t := range q.tasks {
		r, ok := rows[i]
		t.update(r, ok)
	}
}

// squeueRow is what squeue says of one array task.
type squeueRow struct {
	State  string // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED...
	Reason string // why it is pending, or how it ended ("None": nothing to say)
	Node   string // the node it runs or ran on
}

// parseSqueue reads squeue's "%i|%T|%r|%N" lines for the tasks of job
// array job (ids job_N, 0 ≤ N < n), by task index; other lines are
// skipped.
func parseSqueue(out, job string, n int) map[int]squeueRow {
	rows := map[int]squeueRow{}
	for line := range strings.SplitSeq(out, "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) != 4 {
			continue
		}
		idx, ok := strings.CutPrefix(f[0], job+"_")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 || i >= n || idx != strconv.Itoa(i) {
			continue
		}
		rows[i] = squeueRow{State: f[1], Reason: f[2], Node: f[3]}
	}
	return rows
}

// slurmEnded reports whether a job state is final: the task is over and
// its processes are gone (COMPLETING is not final).
func slurmEnded(state string) bool {
	switch state {
	case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
		"OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", "REVOKED":
		return true
	}
	return false
}

// active counts the tasks not yet ended.
func (q *slurmQueue) active() int {
	n := 0
	for _, t := range q.tasks {
		if !t.ended() {
			n++
		}
	}
	return n
}

// waitEnded waits until every task has ended, ctx is done or the poller
// has stopped; it reports whether every task ended.
func (q *slurmQueue) waitEnded(ctx context.Context) bool {
	for _, t := range q.tasks {
		select {
		case <-t.done:
		case <-ctx.Done():
			return false
		case <-q.stopped:
			return q.active() == 0
		}
	}
	return true
}

// cleanup cancels the pending tasks at once, gives the running ones until
// ctx is done to end on their own, cancels the rest, and waits (at most
// slurmGoneWait) until none is left in the queue.
func (q *slurmQueue) cleanup(ctx context.Context) error {
	defer q.halt()
	if q.active() == 0 {
		return nil
	}
	q.scancel("--state=PENDING", q.job)
	if q.waitEnded(ctx) {
		return nil
	}
	left := q.active()
	q.scancel(q.job)
	gone, cancel := context.WithTimeout(context.Background(), slurmGoneWait)
	defer cancel()
	if !q.waitEnded(gone) {
		return fmt.Errorf("slurm testbed: %d task(s) of job %s still in the queue %v after scancel", q.active(), q.job, slurmGoneWait)
	}
	return fmt.Errorf("slurm testbed: cancelled %d task(s) of job %s still pending or running at cleanup", left, q.job)
}

// halt stops the poller and ends every handle still open.
func (q *slurmQueue) halt() {
	q.once.Do(func() { close(q.stop) })
	<-q.stopped
	for _, t := range q.tasks {
		t.end(fmt.Errorf("slurm: job %s left behind at cleanup", t.id))
	}
}

// scancel runs scancel with args; its failure is not the run's (the task
// may have ended meanwhile), and cleanup checks what is left.
func (q *slurmQueue) scancel(args ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), squeueTimeout)
	defer cancel()
	_, _ = runSlurm(ctx, "scancel", args...)
}
