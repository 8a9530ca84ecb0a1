package testbed

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/diperf/diperf/internal/experiment"
)

// execServer is an SSH server on loopback that runs each exec request
// with sh -c on this machine, as sshd does (stdin, stdout, stderr on the
// session, its exit status sent back); it passes on no signal, as an
// sshd that does not may. It counts the connections it took.
func execServer(t *testing.T, host ssh.Signer, user ssh.PublicKey) (addr string, conns *atomic.Int32) {
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
	conns = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go serveExecConn(c, cfg)
		}
	}()
	return ln.Addr().String(), conns
}

func serveExecConn(c net.Conn, cfg *ssh.ServerConfig) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go serveExec(ch, creqs)
	}
}

func serveExec(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for r := range reqs {
		if r.Type != "exec" || len(r.Payload) < 4 {
			_ = r.Reply(false, nil)
			continue
		}
		_ = r.Reply(true, nil)
		cmd := exec.Command("sh", "-c", string(r.Payload[4:]))
		cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
		in, err := cmd.StdinPipe()
		if err == nil {
			go func() { _, _ = io.Copy(in, ch); in.Close() }() // as sshd: the session's input until it ends
			err = cmd.Run()
		}
		status := uint32(0)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			status = uint32(ee.ExitCode())
		}
		_, _ = ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, status))
		return
	}
}

// sshExecFor is an SSHExec logging in to a fresh execServer with a key
// file, trusting its host key.
func sshExecFor(t *testing.T) (*SSHExec, string, *atomic.Int32) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	userKey, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	addr, conns := execServer(t, newKey(t), userKey.PublicKey())
	dir := t.TempDir()
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	id := filepath.Join(dir, "id")
	if err := os.WriteFile(id, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	x := NewSSHExec(experiment.Testbed{User: "me", IdentityFile: id, KnownHosts: filepath.Join(dir, "known_hosts"), TrustNewHosts: true})
	t.Cleanup(func() { x.Close() })
	return x, "me@" + addr, conns
}

// A command's output comes through, its failure carries its exit status
// and the end of its stderr, and every command to a host shares one
// connection.
func TestSSHExecRunsOnOneConnection(t *testing.T) {
	t.Parallel()
	x, host, conns := sshExecFor(t)
	ctx := context.Background()
	rc, err := x.Exec(ctx, host, []string{"printf", `%s\n`, "it's", "$HOME"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(b) != "it's\n$HOME\n" {
		t.Errorf("output %q, %v; want the arguments as given, unexpanded", b, err)
	}
	rc, err = x.Exec(ctx, host, []string{"sh", "-c", "echo out; echo oops >&2; exit 3"})
	if err != nil {
		t.Fatal(err)
	}
	b, err = io.ReadAll(rc)
	rc.Close()
	if string(b) != "out\n" || err == nil || !strings.Contains(err.Error(), "exited with status 3") || !strings.Contains(err.Error(), "oops") {
		t.Errorf("a failing command: %q, %v; want its output, then exit status 3 and its stderr", b, err)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for two commands, want 1", n)
	}
}

// Close stops a command that still runs, even when sshd passes no
// signal on: tail -F on a quiet file would run on forever.
func TestSSHExecCloseStopsTheCommand(t *testing.T) {
	t.Parallel()
	x, host, _ := sshExecFor(t)
	log := filepath.Join(t.TempDir(), "a.log")
	if err := os.WriteFile(log, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rc, err := x.Exec(context.Background(), host, []string{"sh", "-c", `echo $$; exec tail -F -n 0 -- "$0"`, log})
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(rc)
	line, err := br.ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("pid line %q: %v %v", line, err, perr)
	}
	got := make(chan string, 1)
	go func() { l, _ := br.ReadString('\n'); got <- l }()
	f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	defer f.Close()
	tk := time.NewTicker(50 * time.Millisecond) // until tail -F -n 0 has opened the file
	defer tk.Stop()
	for l := ""; l == ""; {
		f.WriteString("GET /\n")
		select {
		case l = <-got:
			if l != "GET /\n" {
				t.Fatalf("tail gave %q", l)
			}
		case <-tk.C:
		}
	}
	rc.Close()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("tail -F (pid %d) still runs 5 s after Close", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
