package monitor

import (
	"context"
	"errors"
	"fmt"
	"github.com/diperf/diperf/internal/clock"
	"io"
	"sync"
	"time"
)

// Backoff of a remote tail -F that ended: it starts again after
// logRestartMin, doubling to logRestartMax while it keeps failing.
const (
	logRestartMin = 100 * time.Millisecond
	logRestartMax = 10 * time.Second
)

// streamTail reads tail -F -n 0 -- PATH run on the endpoint's host
// through Exec, restarting it when it ends; at most MaxLogRead bytes
// per interval (the stream waits for the next).
type streamTail struct {
	mu     sync.Mutex
	err    error // the first failure since the last tick
	up     bool  // a stream is being read
	capped bool  // the budget ran out since the last tick
	budget int64
	more   chan struct{} // a tick gave more budget
	stop   context.CancelFunc
	done   chan struct{}
	first  chan struct{} // closed once the first start returned
	once   sync.Once
}

// newStreamTail starts following ep's file on ep.Host into sp.
func (s *Scraper) newStreamTail(ep Endpoint, sp *splitter) *streamTail {
	exec := s.Exec
	if exec == nil {
		exec = LocalExec
	}
	ctx, stop := context.WithCancel(context.Background())
	t := &streamTail{budget: MaxLogRead, more: make(chan struct{}, 1), stop: stop, done: make(chan struct{}), first: make(chan struct{})}
	argv := []string{"tail", "-F", "-n", "0", "--", ep.Log.Path}
	go func() {
		defer close(t.done)
		t.run(ctx, func(ctx context.Context) (io.ReadCloser, error) { return exec(ctx, ep.Host, argv) }, sp)
	}()
	wait := time.NewTimer(ep.Interval) // the first point counts from the stream's start
	defer wait.Stop()
	select {
	case <-t.first:
	case <-wait.C:
	}
	return t
}

// started notes that the first start returned.
func (t *streamTail) started() { t.once.Do(func() { close(t.first) }) }

// run keeps a stream going until ctx ends; each end is a failure.
func (t *streamTail) run(ctx context.Context, open func(context.Context) (io.ReadCloser, error), sp *splitter) {
	wait := logRestartMin
	for {
		start := time.Now()
		err := t.stream(ctx, open, sp)
		if ctx.Err() != nil {
			return
		}
		sp.reset()
		t.fail(err)
		if time.Since(start) > logRestartMax {
			wait = logRestartMin
		}
		if !clock.Sleep(ctx, wait) {
			return
		}
		wait = min(2*wait, logRestartMax)
	}
}

// stream reads one run of the command to its end.
func (t *streamTail) stream(ctx context.Context, open func(context.Context) (io.ReadCloser, error), sp *splitter) error {
	rc, err := open(ctx)
	if err != nil {
		t.fail(err)
		t.started()
		return fmt.Errorf("tail -F: %w", err)
	}
	defer rc.Close()
	t.mu.Lock()
	t.up = true
	t.mu.Unlock()
	t.started()
	buf := make([]byte, 64<<10)
	for {
		if !t.take(ctx) {
			return ctx.Err()
		}
		n, err := rc.Read(buf)
		t.mu.Lock()
		t.budget -= int64(n)
		t.mu.Unlock()
		sp.feed(buf[:n])
		if errors.Is(err, io.EOF) {
			return errors.New("tail -F ended")
		}
		if err != nil {
			return fmt.Errorf("tail -F: %w", err)
		}
	}
}

// take waits until the interval has budget left to read.
func (t *streamTail) take(ctx context.Context) bool {
	for {
		t.mu.Lock()
		ok := t.budget > 0
		if !ok {
			t.capped = true
		}
		t.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.more:
		}
	}
}

// fail notes a stream that ended.
func (t *streamTail) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.up = false
	if t.err == nil {
		t.err = err
	}
}

func (t *streamTail) tick() (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	err, capped := t.err, t.capped
	if err == nil && !t.up {
		err = errors.New("tail -F not running")
	}
	t.err, t.capped, t.budget = nil, false, MaxLogRead
	select {
	case t.more <- struct{}{}:
	default:
	}
	return capped, err
}

// close stops the stream and waits for it.
func (t *streamTail) close() {
	t.stop()
	<-t.done
}
