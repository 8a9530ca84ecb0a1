package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
)

// TestDirectoryNameBelongsToItsSensor runs the real directory and a real
// sensor s1: a holder of the mesh token registering s1 at another address,
// or writing a result as s1, is refused, and s1's renewals keep its own
// address. s1 interrupted deregisters; a sensor with another key is
// refused the name until an operator removes it (diperf directory remove).
func TestDirectoryNameBelongsToItsSensor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const token = "e2e-directory-owner-token-0123456789"
	tok, db, addr := filepath.Join(dir, "token"), filepath.Join(dir, "d.db"), freeAddr(t)
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitServing(t, exec.Command(bin, "directory", "--listen", addr, "--db", db, "--token-file", tok, "--ttl", "3s"), "serving http://")
	url, own := "http://"+addr, freeAddr(t)
	sensor := func(more ...string) *exec.Cmd {
		return exec.Command(bin, append([]string{"sensor", "--directory", url, "--token-file", tok, "--listen", own, "--name", "s1",
			"--period", "1h", "--test-time", "1s"}, more...)...)
	}
	s1 := sensor()
	waitServing(t, s1, "diperf sensor s1")
	c, err := directory.NewClient(url, []byte(token), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	evil := directory.Registration{Name: "s1", Address: "127.0.0.66:9", Groups: []string{"local"}, Version: "1"}
	if _, err := c.Register(ctx, evil); !isStatus(err, 403) {
		t.Errorf("a token holder registering s1 at another address: %v, want 403", err)
	}
	evil.Name = "other" // a name of its own, as the results' destination
	if _, err := c.Register(ctx, evil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddResult(ctx, directory.Result{Src: "s1", Dst: "other", Kind: directory.KindLatency, LatencyMs: 1, LatencyP50Ms: 1,
		LatencyP90Ms: 1, LatencyP99Ms: 1, TestTimeS: 1, MeasuredAt: time.Now().UTC()}); !isStatus(err, 403) {
		t.Errorf("a token holder writing a result as s1: %v, want 403", err)
	}
	time.Sleep(2500 * time.Millisecond) // s1 renews every second (a 3 s lease)
	if a := listedAt(t, c, "s1"); a != own {
		t.Fatalf("s1 is listed at %q after the attack and its renewals, want %s", a, own)
	}
	if st, err := os.Stat(filepath.Join(dir, "sensor-s1.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("s1's key file beside the token: %v", err)
	}
	_ = s1.Process.Signal(syscall.SIGINT)
	if err := s1.Wait(); err != nil {
		t.Fatalf("s1 interrupted: %v", err)
	}
	if a := listedAt(t, c, "s1"); a != "" {
		t.Errorf("s1 still listed (at %s) after its clean end", a)
	}
	other := filepath.Join(dir, "other.key")
	r := diperf(t, 20*time.Second, "sensor", "--directory", url, "--token-file", tok, "--listen", freeAddr(t), "--name", "s1",
		"--key-file", other, "--period", "1h", "--test-time", "1s")
	if r.code == 0 || !strings.Contains(r.stderr, "bound to another sensor's key") {
		t.Errorf("a sensor with another key as s1: exit %d\n%s", r.code, r.stderr)
	}
	if r := diperf(t, 10*time.Second, "directory", "remove", "s1", "--db", db); r.code != 0 {
		t.Fatalf("directory remove: exit %d\n%s", r.code, r.stderr)
	}
	waitServing(t, sensor("--key-file", other), "diperf sensor s1")
}

// isStatus reports whether err is the directory's answer code.
func isStatus(err error, code int) bool {
	var api *directory.APIError
	return errors.As(err, &api) && api.Status == code
}

// listedAt is the address the directory lists name at ("" if none).
func listedAt(t *testing.T, c *directory.Client, name string) string {
	t.Helper()
	ss, err := c.Sensors(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.Name == name {
			return s.Address
		}
	}
	return ""
}
