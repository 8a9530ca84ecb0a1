package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
)

// startDirectory starts `diperf directory` on addr over db and waits until
// it answers; the caller kills it.
func startDirectory(t *testing.T, addr, db, tokenFile string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(bin, "directory", "--listen", addr, "--db", db, "--token-file", tokenFile)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(stderr.String(), "serving http://") {
			return cmd, stderr
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("diperf directory did not start within 10 s:\n%s", stderr.String())
	return nil, nil
}

// lockedBuffer is a buffer a child's output goroutine writes while the
// test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestDirectoryRestartKeepsResults: register, write results and
// forecasts, kill -9 the directory, restart it on the same --db: every
// result and forecast is there, the token file is the same, and the
// sensors' renewals and re-registrations work.
func TestDirectoryRestartKeepsResults(t *testing.T) {
	dir := t.TempDir()
	db, tokFile, addr := filepath.Join(dir, "directory.db"), filepath.Join(dir, "token"), freeAddr(t)
	cmd, stderr := startDirectory(t, addr, db, tokFile)
	if !strings.Contains(stderr.String(), "made a new token in "+tokFile) {
		t.Fatalf("no note of the new token file:\n%s", stderr)
	}
	st, err := os.Stat(tokFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v; want 0600", err, st.Mode())
	}
	tok, _ := os.ReadFile(tokFile)
	c, err := directory.NewClient("http://"+addr, bytes.TrimSpace(tok), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	names := []string{"s1", "s2", "s3"}
	for _, n := range names {
		if _, err := c.Register(ctx, directory.Registration{Name: n, Address: n + ":7400", Groups: []string{"local"},
			Version: "1", Capabilities: []string{"bandwidth", "latency"}}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	var wrote []directory.Result
	for i := range 300 {
		r := directory.Result{Src: names[i%3], Dst: names[(i+1)%3], Kind: directory.KindBandwidth,
			BandwidthBps: float64(1e6 + i), BandwidthAfterSlowStartBps: float64(1.1e6 + i), TestTimeS: 5,
			MeasuredAt: t0.Add(time.Duration(i) * time.Second), Busy: int64(i / 10)}
		if r.ID, err = c.AddResult(ctx, r); err != nil {
			t.Fatal(err)
		}
		wrote = append(wrote, r)
	}
	fc := directory.Forecast{Src: "s1", Dst: "s2", Kind: directory.KindBandwidth, Value: 1e6, Error: 5e4, Method: "adaptive", MadeAt: t0}
	if fc.ID, err = c.AddForecast(ctx, fc); err != nil {
		t.Fatal(err)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil { // kill -9: no shutdown, no checkpoint
		t.Fatal(err)
	}
	cmd.Wait()
	startDirectory(t, addr, db, tokFile)
	tok2, _ := os.ReadFile(tokFile)
	if !bytes.Equal(tok, tok2) {
		t.Fatal("the restart changed the token file")
	}

	got, err := c.Results(ctx, directory.Query{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(wrote) {
		t.Fatalf("after kill -9 and restart: %d results; wrote %d", len(got), len(wrote))
	}
	for i, r := range got { // newest first
		w := wrote[len(wrote)-1-i]
		w.MeasuredAt = w.MeasuredAt.UTC()
		if !reflect.DeepEqual(r, w) {
			t.Fatalf("result %d after restart: %+v; wrote %+v", i, r, w)
		}
	}
	fcs, err := c.Forecasts(ctx, directory.Query{})
	if err != nil || len(fcs) != 1 || fcs[0] != fc {
		t.Fatalf("forecasts after restart: %+v, %v; want %+v", fcs, err, fc)
	}
	if _, err := c.Renew(ctx, "s1"); err != nil {
		t.Fatalf("renewal after restart: %v", err)
	}
	if _, err := c.Register(ctx, directory.Registration{Name: "s2", Address: "s2:7401", Groups: []string{"local", "global"},
		Version: "1"}); err != nil {
		t.Fatalf("re-registration after restart: %v", err)
	}
	list, err := c.Sensors(ctx, "global")
	if err != nil || len(list) != 1 || list[0].Address != "s2:7401" || list[0].State != directory.StateLive {
		t.Fatalf("group global after re-registration: %+v, %v", list, err)
	}
	bad, _ := directory.NewClient("http://"+addr, []byte("not-the-token"), nil)
	var ae *directory.APIError
	if _, err := bad.Sensors(ctx, ""); !errors.As(err, &ae) || ae.Status != 401 {
		t.Fatalf("a client with the wrong token: %v; want 401", err)
	}
	fmt.Fprintf(os.Stderr, "directory restart: %d results and 1 forecast kept across kill -9\n", len(got))
}
