package e2e

import (
	"crypto/ed25519"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/protocol"
)

// TestTrustImpostorControllerRunsNothing is the attack of issue 20 row 1:
// a tester host holds the run's token (as every tester does) and answers
// a joining tester's Hello as the controller, to make it run `sh -c`. It
// has the secret but not the controller's key: the real `diperf tester
// --join` refuses it, exits non-zero saying why, and the command never
// runs. (Before protocol 9 the token was the controller's credential too:
// the command ran.)
func TestTrustImpostorControllerRunsNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokPath, marker := filepath.Join(dir, "token"), filepath.Join(dir, "pwned")
	makeToken(t, tokPath, "victim")
	tok, err := credential.ReadToken(tokPath, true)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go impostor(ln, tok, marker)
	r := diperf(t, time.Minute, "tester", "--join", ln.Addr().String(), "--token-file", tokPath, "--join-retry", "0")
	if r.code == 0 || !strings.Contains(r.stderr, "could not prove it is the run's controller") {
		t.Errorf("tester: exit %d, want it to refuse the impostor:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the impostor's command ran on the tester")
	}
}

// impostor answers one tester on ln as a controller holding tok's secret
// but a key of its own, and commands it to touch marker.
func impostor(ln net.Listener, tok credential.Token, marker string) {
	nc, err := ln.Accept()
	if err != nil {
		return
	}
	conn := protocol.NewConn(nc)
	defer conn.Close()
	_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
	_, key, _ := ed25519.GenerateKey(nil)
	if _, err := protocol.Admit(conn, protocol.Controller{Secret: tok.Secret, Key: key, Run: "victim"}); err != nil {
		return
	}
	_ = conn.WriteJSON(protocol.TypeTestDesc, protocol.TestDesc{
		Client:     protocol.ClientDesc{Kind: protocol.ClientExec, Argv: []string{"sh", "-c", "touch " + marker}},
		DurationNs: 1e9, TimeoutNs: 1e9, SyncIntervalNs: 1e9, SyncProbes: 1, BatchNs: 1e8,
		TimeServer: "127.0.0.1:1", TimeTransport: "udp"})
	for {
		if _, _, err := conn.Read(); err != nil {
			return
		}
	}
}

// TestTrustTokensThatCannotServe: a token that expired, one made for
// other runs, one without its controller key, and a bare secret (the
// format from before the controller had a key) are refused by `diperf
// run` and by `diperf tester --join` before anything starts, each with
// what to do; a --secret-file under 32 random bytes is refused too.
func TestTrustTokensThatCannotServe(t *testing.T) {
	t.Parallel()
	s := joinNew(t, 1, "2s")
	dir := t.TempDir()
	cases := []struct {
		name        string
		make        func(path string)
		run, tester string // what each says; "" = the tester is not tried
	}{
		{"expired", func(p string) {
			tok, key, _ := credential.New([]string{"join"}, time.Now().Add(-time.Minute))
			_ = credential.WritePair(p, credential.KeyPathFor(p), tok, key)
		}, "expired at", "stale token"},
		{"other runs", func(p string) { makeToken(t, p, "nightly,weekly") }, `not for "join"`, ""},
		{"no key", func(p string) { makeToken(t, p, "join"); _ = os.Remove(credential.KeyPathFor(p)) }, "controller.key_file", ""},
		{"bare secret", func(p string) {
			_ = os.WriteFile(p, []byte("q8Lx+/0m1Jt3fC5yQ2n7R4s6U9w0zA8bD1eF3gH5iJ4=\n"), 0o600)
		}, "not a diperf token", "not a diperf token"},
	}
	for _, c := range cases {
		c.make(s.token)
		out := filepath.Join(t.TempDir(), "run")
		if r := diperf(t, 30*time.Second, "run", s.exp, "--out", out); r.code != 2 || !strings.Contains(r.stderr, c.run) {
			t.Errorf("%s: diperf run exit %d, want 2 saying %q:\n%s", c.name, r.code, c.run, r.stderr)
		}
		if c.tester != "" {
			r := diperf(t, 30*time.Second, "tester", "--join", s.addr, "--token-file", s.token, "--join-retry", "0")
			if r.code != 2 || !strings.Contains(r.stderr, c.tester) {
				t.Errorf("%s: diperf tester exit %d, want 2 saying %q:\n%s", c.name, r.code, c.tester, r.stderr)
			}
		}
		_ = os.Remove(s.token)
		_ = os.Remove(credential.KeyPathFor(s.token))
	}
	weak := filepath.Join(dir, "weak")
	if err := os.WriteFile(weak, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	local := writeExperiment(t, "name: weak\nclient:\n  exec: [\"true\"]\nschedule:\n  testers: 1\n  tester_duration: 1s\n")
	if r := diperf(t, 30*time.Second, "run", local, "--out", filepath.Join(dir, "run"), "--secret-file", weak); r.code != 2 ||
		!strings.Contains(r.stderr, "32 random bytes") || !strings.Contains(r.stderr, "head -c 32 /dev/urandom") {
		t.Errorf("a 16-byte secret in hex: exit %d, want 2 with a hint:\n%s", r.code, r.stderr)
	}
}
