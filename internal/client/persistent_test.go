package client

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// shClient is a persistent client in sh: it says ready, then answers each
// call line with `reply "$n"` (n = 1, 2, ... per process), a shell function
// defined by body. Its pid is in every reply's extras as pid=.
func shClient(t *testing.T, body string, timeout time.Duration) *Persistent {
	t.Helper()
	script := body + `
echo ready
n=0
while read -r word seq; do
  n=$((n+1))
  reply "$n"
done
`
	file := filepath.Join(t.TempDir(), "client.sh") // a file: the tester expands $VAR in argv
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	p := NewPersistent([]string{"sh", file}, os.Environ(), timeout)
	p.Grace = 200 * time.Millisecond
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// pidOf returns the pid= extra of a reply (0: none).
func pidOf(r Reply) int {
	for _, e := range r.Extras {
		if e.Key == "pid" {
			return int(e.Value)
		}
	}
	return 0
}

func alive(pid int) bool {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(st), ") Z ")
}

func TestPersistentCalls(t *testing.T) {
	t.Parallel()
	p := shClient(t, `reply() { if [ $(($1 % 2)) = 0 ]; then echo "fail even call $1 | pid=$$"; else echo "ok bytes=$1 pid=$$ mb=0.5"; fi; }`, 5*time.Second)
	var pid int
	for i := 1; i <= 6; i++ {
		r := p.Call(context.Background())
		if pid == 0 {
			pid = pidOf(r)
		}
		if pidOf(r) != pid {
			t.Fatalf("call %d went to process %d, not %d: a healthy process was replaced", i, pidOf(r), pid)
		}
		if i%2 == 0 && (r.Status != sample.Failed || r.Err != fmt.Sprintf("even call %d", i)) {
			t.Fatalf("call %d: %+v", i, r)
		}
		if i%2 == 1 && (r.Status != sample.OK || r.Bytes != int64(i) || len(r.Extras) != 2 || r.Extras[1] != (sample.Extra{Key: "mb", Value: 0.5})) {
			t.Fatalf("call %d: %+v", i, r)
		}
	}
}

// TestPersistentBrokenReplies: a reply that breaks the protocol fails
// that call, and the process is killed and replaced on the next call.
func TestPersistentBrokenReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		second string // what the client does on its second call
		want   sample.Status
		errHas string
	}{
		{"garbage", `echo "hello"`, sample.Failed, `bad reply line "hello"`},
		{"oversized", `head -c 5000 /dev/zero | tr '\0' 'a'; echo`, sample.Failed, "over 4096 bytes"},
		{"eof", `echo boom >&2; exit 3`, sample.Failed, "exited (exit status 3: boom)"},
		{"crash", `kill -9 $$`, sample.Failed, "signal: killed"},
		{"timeout", `sleep 30`, sample.Timeout, "no reply within the timeout"},
		// two lines in one write: the second is in the buffer by the next call
		{"two lines", `printf 'ok pid=%s\nok pid=%s\n' $$ $$`, sample.OK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := shClient(t, `reply() { if [ "$1" = 2 ]; then `+tt.second+`; else echo "ok pid=$$"; fi; }`, time.Second)
			first := p.Call(context.Background())
			pid := pidOf(first)
			if first.Status != sample.OK || pid == 0 {
				t.Fatalf("first call: %+v", first)
			}
			r := p.Call(context.Background())
			if r.Status != tt.want || !strings.Contains(r.Err, tt.errHas) {
				t.Fatalf("second call: got %v %q, want %v with %q", r.Status, r.Err, tt.want, tt.errHas)
			}
			third := p.Call(context.Background())
			if tt.name == "two lines" {
				// the extra line is a protocol error caught on the next call
				if third.Status != sample.Failed || !strings.Contains(third.Err, "no call asked for") {
					t.Fatalf("third call after two lines: %+v", third)
				}
				third = p.Call(context.Background())
			}
			if third.Status != sample.OK || pidOf(third) == pid {
				t.Fatalf("call after the broken one: %+v (first process %d)", third, pid)
			}
			if !gone(t, pid) {
				t.Fatalf("the broken process %d is still running", pid)
			}
		})
	}
}

func TestPersistentStartFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		argv   []string
		want   sample.Status
		errHas string
	}{
		{[]string{"/nonexistent/client"}, sample.FailedToStart, "no such file"},
		{[]string{"sh", "-c", "echo 'fail no backend'; exit 1"}, sample.FailedToStart, "failed to start: no backend"},
		{[]string{"sh", "-c", "echo oops >&2; exit 2"}, sample.FailedToStart, "exited (exit status 2: oops) before its \"ready\" line"},
		{[]string{"sh", "-c", "echo hello"}, sample.FailedToStart, `first line "hello", want "ready"`},
		{[]string{"sleep", "30"}, sample.FailedToStart, "no \"ready\" line within the call timeout"},
	}
	for _, tt := range tests {
		p := NewPersistent(tt.argv, os.Environ(), 500*time.Millisecond)
		r := p.Call(context.Background())
		if r.Status != tt.want || !strings.Contains(r.Err, tt.errHas) {
			t.Errorf("%q: got %v %q, want %v with %q", tt.argv, r.Status, r.Err, tt.want, tt.errHas)
		}
		_ = p.Close()
	}
}

func TestPersistentCancelled(t *testing.T) {
	t.Parallel()
	p := shClient(t, `reply() { sleep 30; }`, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if r := p.Call(ctx); r.Status != sample.Cancelled || time.Since(start) > 5*time.Second {
		t.Fatalf("got %+v after %v", r, time.Since(start))
	}
}

// TestPersistentConcurrentCallsUseDistinctProcesses: calls made at once
// go to distinct processes, and no more processes start than there are
// concurrent callers.
func TestPersistentConcurrentCallsUseDistinctProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// each call holds a lock named after its process: a process serving
	// two calls at once would fail the second
	p := shClient(t, `reply() { mkdir `+dir+`/$$ || { echo "fail two calls at once"; return; }; sleep 0.05; rmdir `+dir+`/$$; echo "ok pid=$$"; }`, 10*time.Second)
	const callers, calls = 8, 6
	var mu sync.Mutex
	pids := map[int]int{}
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				r := p.Call(context.Background())
				mu.Lock()
				pids[pidOf(r)]++
				mu.Unlock()
				if r.Status != sample.OK {
					t.Errorf("call: %+v", r)
				}
			}
		}()
	}
	wg.Wait()
	if len(pids) < 2 || len(pids) > callers {
		t.Fatalf("%d processes served %d concurrent callers: %v", len(pids), callers, pids)
	}
	t.Logf("%d callers x %d calls: %d processes, calls per process %v", callers, calls, len(pids), pids)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived Close", pid)
		}
	}
	if r := p.Call(context.Background()); r.Status != sample.Cancelled {
		t.Fatalf("a call after Close: %+v", r)
	}
}

// TestPersistentCloseStopsStubbornClients: Close ends a client that
// ignores the end of its input and SIGTERM, and what it started.
func TestPersistentCloseStopsStubbornClients(t *testing.T) {
	t.Parallel()
	child := filepath.Join(t.TempDir(), "child.pid")
	p := NewPersistent([]string{"sh", "-c", `trap '' TERM; sleep 30 & echo $! > ` + child + `; echo ready
while true; do read -r l || sleep 30; echo "ok pid=$$$$"; done`}, os.Environ(), 5*time.Second)
	p.Grace = 200 * time.Millisecond
	r := p.Call(context.Background())
	if r.Status != sample.OK {
		t.Fatalf("call: %+v", r)
	}
	start := time.Now()
	_ = p.Close()
	el := time.Since(start)
	if el < 2*p.Grace || el > 5*time.Second {
		t.Errorf("Close took %v, want SIGKILL after 2 graces (%v)", el, 2*p.Grace)
	}
	for _, pid := range []int{pidOf(r), readPid(t, child)} {
		if !gone(t, pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d outlived Close", pid)
		}
	}
}

// TestPersistentCloseIsPromptForWellBehavedClients: a client that exits
// at the end of its input is not made to wait for a signal.
func TestPersistentCloseIsPromptForWellBehavedClients(t *testing.T) {
	t.Parallel()
	p := shClient(t, `reply() { echo "ok pid=$$"; }`, 5*time.Second)
	p.Grace = 5 * time.Second
	r := p.Call(context.Background())
	start := time.Now()
	_ = p.Close()
	if el := time.Since(start); el > 2*time.Second || alive(pidOf(r)) {
		t.Fatalf("Close took %v; process alive: %v", el, alive(pidOf(r)))
	}
}

// TestNewPersistent: client.New builds the persistent kind with the
// description's env after the tester's, expanded into argv.
func TestNewPersistent(t *testing.T) {
	t.Parallel()
	c, err := New(Spec{Desc: protocol.ClientDesc{Kind: protocol.ClientPersistent,
		Argv: []string{"sh", "-c", "echo ready; while read -r l; do echo ok $X=1; done"}, Env: []string{"X=mb"}},
		Env: os.Environ(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.(*Persistent).Close()
	if r := c.Call(context.Background()); r.Status != sample.OK || len(r.Extras) != 1 || r.Extras[0].Key != "mb" {
		t.Fatalf("got %+v", r)
	}
}
