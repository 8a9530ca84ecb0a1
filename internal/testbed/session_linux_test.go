package testbed

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/contain"
)

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool { return contain.Alive(pid) }

// bgPids waits for the fake tester to write the pids of its two
// background children: one in a process group of its own, as a client is,
// and a shell with a child of its own.
func bgPids(t *testing.T, path string) []int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(path)
		if f := strings.Fields(string(b)); len(f) == 2 {
			var pids []int
			for _, s := range f {
				p, err := strconv.Atoi(s)
				if err != nil {
					t.Fatal(err)
				}
				pids = append(pids, p)
			}
			return pids
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pids in %s", path)
	return nil
}

// TestMain lets the test binary stand in for a client that puts itself in
// a process group of its own, as an exec client is, then sleeps.
func TestMain(m *testing.M) {
	if os.Getenv("DIPERF_TESTBED_OWN_GROUP") != "" {
		_ = syscall.Setpgid(0, 0)
		sleep, _ := exec.LookPath("sleep")
		_ = syscall.Exec(sleep, []string{"sleep", "60"}, os.Environ())
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestLocalKillsWhatATesterLeftBehind checks that whatever a tester's
// clients left in its session dies with the tester: when it is killed,
// and when it dies by itself with an error.
func TestLocalKillsWhatATesterLeftBehind(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, end string // how the fake tester ends
		kill      bool
	}{
		{"killed", "exec sleep 600", true},
		{"exits 1", "sleep 0.3; exit 1", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pids := filepath.Join(t.TempDir(), "pids")
			l := &Local{Binary: fakeTester(t, `DIPERF_TESTBED_OWN_GROUP=1 `+os.Args[0]+` & a=$!; sh -c 'sleep 60 & sleep 60' & echo "$a $!" > `+pids+`.tmp; mv `+pids+`.tmp `+pids+`; `+tt.end)}
			h, err := l.Start(context.Background(), Spec{Slot: 0, Token: []byte("x")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = h.Kill() }) // sweeps the session unless already reaped (and so swept)
			left := bgPids(t, pids)
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if pg, _ := syscall.Getpgid(left[0]); pg == left[0] {
					break
				} else if time.Now().After(deadline) {
					t.Fatalf("the background child is in group %d, want its own (%d)", pg, left[0])
				}
			}
			if tt.kill {
				if err := h.Kill(); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.Wait(); err == nil {
				t.Fatal("the tester exited 0")
			}
			deadline := time.Now().Add(5 * time.Second)
			for _, p := range left {
				for alive(p) {
					if time.Now().After(deadline) {
						t.Fatalf("process %d left by the tester still runs", p)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	pg, sid, live := parseStat([]byte("42 (a) b (c)) S 1 40 41 0 -1 4194560"))
	if pg != 40 || sid != 41 || !live {
		t.Errorf("got group %d session %d live %v", pg, sid, live)
	}
	if _, _, live := parseStat([]byte("42 (sh) Z 1 40 41 0")); live {
		t.Error("a zombie is not live")
	}
	if _, _, live := parseStat([]byte("garbage")); live {
		t.Error("garbage parsed")
	}
}
