package testbed

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/diperf/diperf/internal/errs"
)

func TestParseTarget(t *testing.T) {
	for _, c := range []struct{ in, user, addr string }{
		{"h1", "me", "h1:22"},
		{"h1:2222", "me", "h1:2222"},
		{"bob@h1", "bob", "h1:22"},
		{"bob@10.0.0.1:2200", "bob", "10.0.0.1:2200"},
		{"[::1]:2200", "me", "[::1]:2200"},
		{"::1", "me", "[::1]:22"},
	} {
		got, err := parseTarget(c.in, "me")
		if err != nil || got.user != c.user || got.addr != c.addr || got.name != c.in {
			t.Errorf("parseTarget(%q) = %+v, %v; want user %s addr %s", c.in, got, err, c.user, c.addr)
		}
	}
	for _, bad := range []string{"", "@h", "bob@", "h:", "a b", "h/x", "0[", "h:0", "h:99999", "h:ssh", "a@b@c", "fe80::zz"} {
		if _, err := parseTarget(bad, "me"); err == nil {
			t.Errorf("parseTarget(%q) accepted", bad)
		}
	}
}

func TestSSHTargetsReadsHostsFileOnceEach(t *testing.T) {
	f := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(f, []byte("# lab\nh2  # second\n\nh1\nbob@h3:2222\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := sshTargets([]string{"h1"}, f, "me")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tg := range ts {
		names = append(names, tg.name)
	}
	if strings.Join(names, ",") != "h1,h2,bob@h3:2222" {
		t.Errorf("targets %v", names)
	}
	if _, err := sshTargets(nil, "", "me"); errs.Code(err) != errs.CodeUsage {
		t.Errorf("no hosts: %v, want a usage error", err)
	}
	if _, err := sshTargets(nil, filepath.Join(t.TempDir(), "none"), "me"); errs.Code(err) != errs.CodeUsage {
		t.Errorf("missing hosts file: %v, want a usage error", err)
	}
}

func TestGoOSArch(t *testing.T) {
	for in, want := range map[string]string{"Linux x86_64": "linux/amd64", "Linux aarch64": "linux/arm64",
		"Darwin arm64": "darwin/arm64", "FreeBSD amd64": "freebsd/amd64", "Linux armv7l": "linux/arm"} {
		if got := goOSArch(in); got != want {
			t.Errorf("goOSArch(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseSums(t *testing.T) {
	a, b := strings.Repeat("a", 64), strings.Repeat("b", 64)
	out := a + "  bin/diperf\n" + b + " *files/x y\n\\" + a + "  files/we\\nird\nshort line\n"
	got := parseSums([]byte(out))
	if len(got) != 2 || got["bin/diperf"] != a || got["files/x y"] != b {
		t.Errorf("parseSums = %v", got)
	}
}

func FuzzParseSums(f *testing.F) {
	f.Add([]byte(strings.Repeat("0", 64) + "  bin/diperf\n"))
	f.Add([]byte("\\" + strings.Repeat("0", 64) + "  a\\nb\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for name, sum := range parseSums(b) {
			if len(sum) != 64 || strings.Contains(name, "\n") {
				t.Fatalf("bad entry %q: %q", name, sum)
			}
		}
	})
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"h", "u@h:22", "[::1]:22", "::1", "a@b@c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := parseTarget(s, "me")
		if err != nil {
			return
		}
		if _, _, err := net.SplitHostPort(tg.addr); err != nil || tg.user == "" {
			t.Fatalf("parseTarget(%q) = %+v: not a login", s, tg)
		}
	})
}

func TestDeployFilesRefusesPathsOutside(t *testing.T) {
	for _, p := range []string{"/etc/passwd", "../x", "a/../../x"} {
		if _, err := deployFiles([]string{p}); errs.Code(err) != errs.CodeUsage {
			t.Errorf("deployFiles(%q) = %v, want a usage error", p, err)
		}
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll("data/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("data/sub/f", []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	fs, err := deployFiles([]string{"data"})
	if err != nil || len(fs) != 1 || fs[0].remote != "files/data/sub/f" || fs[0].mode != 0o640 || fs[0].size != 1 ||
		fs[0].sum != "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" {
		t.Errorf("deployFiles = %+v, %v", fs, err)
	}
}

func TestTesterCommandQuotes(t *testing.T) {
	cmd := testerCommand("/w/it's", "runs/abc", Spec{Slot: 3, ExtraArgs: []string{"--clock-offset", "1s; rm -rf /"}}, "127.0.0.1:5", "/w/s")
	for _, want := range []string{`cd -- '/w/it'\''s/files'`, `> '/w/it'\''s/runs/abc/pids/3'`, `exec '/w/it'\''s/bin/diperf' tester --stdio --slot 3`,
		"--time-server 127.0.0.1:5 --time-transport tcp", `'1s; rm -rf /'`, "--spool '/w/s'", `echo "diperf-pid $$" >&2`} {
		if !strings.Contains(cmd, want) {
			t.Errorf("tester command lacks %s:\n%s", want, cmd)
		}
	}
}

// newKey makes an ed25519 host or user key.
func newKey(t *testing.T) ssh.Signer {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHostKeysTrustNewNeverChanged(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ssh", "known_hosts")
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2222}
	k1, k2 := newKey(t).PublicKey(), newKey(t).PublicKey()

	strict, err := newHostKeys(file, false)
	if err != nil {
		t.Fatal(err)
	}
	err = strict.callback("h")("127.0.0.1:2222", addr, k1)
	if !errors.Is(err, errHostKey) || !strings.Contains(err.Error(), "ssh-keyscan -p 2222 127.0.0.1") || !strings.Contains(err.Error(), "trust_new_hosts") {
		t.Errorf("unknown host, not trusted: %v", err)
	}
	if _, err := os.Stat(file); err == nil {
		t.Errorf("a strict check created %s", file)
	}

	trust, err := newHostKeys(file, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.callback("h")("127.0.0.1:2222", addr, k1); err != nil {
		t.Fatalf("trusting a new host: %v", err)
	}
	if err := trust.callback("h")("127.0.0.1:2222", addr, k2); err == nil {
		t.Errorf("a second key for the same host in one run was accepted")
	}
	b, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(b), "[127.0.0.1]:2222 ssh-ed25519 ") || strings.Count(string(b), "\n") != 1 {
		t.Errorf("known_hosts after trusting: %q", b)
	}

	again, err := newHostKeys(file, true) // the next run reads the file
	if err != nil {
		t.Fatal(err)
	}
	if err := again.callback("h")("127.0.0.1:2222", addr, k1); err != nil {
		t.Errorf("the trusted key, next run: %v", err)
	}
	err = again.callback("h")("127.0.0.1:2222", addr, k2)
	if !errors.Is(err, errHostKey) || !strings.Contains(err.Error(), "differs") || !strings.Contains(err.Error(), "ssh-keygen -R") {
		t.Errorf("a changed key with trust_new_hosts: %v, want refused", err)
	}
	if b2, _ := os.ReadFile(file); string(b2) != string(b) {
		t.Errorf("a changed key was written to known_hosts: %q", b2)
	}
}

// sshServer serves SSH handshakes on loopback for one user key.
func sshServer(t *testing.T, host ssh.Signer, user ssh.PublicKey) string {
	t.Helper()
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) == string(user.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("unknown key")
	}}
	cfg.AddHostKey(host)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
				if err != nil {
					return
				}
				go ssh.DiscardRequests(reqs)
				for ch := range chans {
					_ = ch.Reject(ssh.Prohibited, "no")
				}
				sc.Close()
			}()
		}
	}()
	return ln.Addr().String()
}

func TestDialHostSaysWhyAHostIsUnusable(t *testing.T) {
	host, user, other := newKey(t), newKey(t), newKey(t)
	addr := sshServer(t, host, user.PublicKey())
	keys, err := newHostKeys(filepath.Join(t.TempDir(), "known_hosts"), true)
	if err != nil {
		t.Fatal(err)
	}
	tg := sshTarget{name: "lab", user: "me", addr: addr}
	cfg := func(s ssh.Signer) ssh.ClientConfig {
		return ssh.ClientConfig{User: "me", Auth: []ssh.AuthMethod{ssh.PublicKeys(s)}, HostKeyCallback: keys.callback("lab"), Timeout: 5 * time.Second}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := dialHost(ctx, tg, cfg(user))
	if err != nil {
		t.Fatalf("login with the right key: %v", err)
	}
	c.Close()
	var hp *hostProblem
	_, err = dialHost(ctx, tg, cfg(other))
	if !errors.As(err, &hp) || !hp.setup || !strings.Contains(err.Error(), `login as "me" refused`) {
		t.Errorf("wrong key: %v, want a setup problem", err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	_, err = dialHost(ctx, sshTarget{name: "gone", user: "me", addr: dead}, cfg(user))
	if !errors.As(err, &hp) || hp.setup || !strings.Contains(err.Error(), "gone: unreachable") {
		t.Errorf("no server: %v, want unreachable", err)
	}
	// A server that accepts and never speaks: the handshake ends when the
	// context does (here: once the client has sent its version line).
	mute, _ := net.Listen("tcp", "127.0.0.1:0")
	defer mute.Close()
	short, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go func() {
		if c, err := mute.Accept(); err == nil {
			defer c.Close()
			buf := make([]byte, 64)
			_, _ = c.Read(buf) // the client's version: its handshake has begun
			cancel2()
			_, _ = c.Read(buf) // hold it until the client gives up
		}
	}()
	c2 := cfg(user)
	c2.Timeout = 0
	if _, err := dialHost(short, sshTarget{name: "mute", user: "me", addr: mute.Addr().String()}, c2); err == nil ||
		!strings.Contains(err.Error(), "connect_timeout") {
		t.Errorf("a mute server: %v, want a timeout", err)
	}
}

// TestHomePath checks that identity_file, known_hosts and hosts_file may
// start with ~/ as in ssh's own config.
func TestHomePath(t *testing.T) {
	t.Setenv("HOME", "/home/bench")
	for in, want := range map[string]string{"~/.ssh/id_ed25519": "/home/bench/.ssh/id_ed25519",
		"keys/id": "keys/id", "/etc/k": "/etc/k", "~other/k": "~other/k", "": ""} {
		if got := homePath(in); got != want {
			t.Errorf("homePath(%q) = %q, want %q", in, got, want)
		}
	}
}
