package tester

import (
	"context"
	"crypto/ed25519"
	"errors"
	stdnet "net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/transport"
)

// evilDesc is a test description whose client leaves a marker file: if
// the tester ever obeys it, the marker exists.
func evilDesc(marker string) protocol.TestDesc {
	d := fakeDesc("ts:1", time.Second)
	d.Client.Argv = []string{"sh", "-c", "touch " + marker}
	return d
}

// TestTokenHolderCannotPoseAsController: a tester host holding the run's
// token (its secret, and the controller's public key) answers a joining
// tester's Hello as the controller. It passes every check the secret
// allows, but cannot sign with the controller's key: the tester refuses
// before it reads a command, and the command never runs. (Before
// protocol 9 the controller proved itself with the secret, which every
// tester holds: the impostor's command ran.)
func TestTokenHolderCannotPoseAsController(t *testing.T) {
	t.Parallel()
	net, cred := transport.NewMemory(), newTestCred(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	ln, err := net.Listen("controller:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, ownKey, _ := ed25519.GenerateKey(nil)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		conn := protocol.NewConn(nc)
		defer conn.Close()
		if _, err := protocol.Admit(conn, protocol.Controller{Secret: cred.tok.Secret, Key: ownKey, Run: "test"}); err == nil {
			go func() { _ = conn.WriteJSON(protocol.TypeTestDesc, evilDesc(marker)) }() // an unbuffered pipe: read too
		}
		drain(conn)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = Run(ctx, Options{Controller: ln.Addr().String(), Token: cred.tok, Transport: net})
	if !errors.Is(err, ErrImpostor) {
		t.Errorf("tester: %v, want %v", err, ErrImpostor)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the impostor's command ran")
	}
}

// TestTokenHolderOnThePathCannotInject: a tester host holding the token
// sits between a tester and the real controller, relays the handshake
// untouched (so the controller's signature checks), then sends its own
// command sealed with the keys the secret and the handshake it saw would
// give. It lacks the key exchange's secret: the tester refuses the frame
// (bad MAC) and runs nothing. (Before protocol 9 the session keys came
// from the secret and the nonces alone: the injected command ran.)
func TestTokenHolderOnThePathCannotInject(t *testing.T) {
	t.Parallel()
	net, cred := transport.NewMemory(), newTestCred(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	real, err := net.Listen("real:0")
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	go func() {
		if nc, err := real.Accept(); err == nil {
			conn := protocol.NewConn(nc)
			defer conn.Close()
			if fakeAdmit(conn, cred) {
				go func() { _ = conn.WriteJSON(protocol.TypeTestDesc, fakeDesc("ts:1", time.Second)) }()
				drain(conn)
			}
		}
	}()
	middle, err := net.Listen("middle:0")
	if err != nil {
		t.Fatal(err)
	}
	defer middle.Close()
	go relayThenInject(t, net, middle, real.Addr().String(), cred, evilDesc(marker))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = Run(ctx, Options{Controller: middle.Addr().String(), Token: cred.tok, Transport: net})
	if err == nil || !strings.Contains(err.Error(), "bad MAC") {
		t.Errorf("tester: %v, want the injected test description refused (bad MAC)", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the injected command ran")
	}
}

// relayThenInject relays one tester's handshake to upstream frame by
// frame, then seals desc with the session keys it can compute from the
// token and what it relayed, and sends it to the tester.
func relayThenInject(t *testing.T, net *transport.Memory, ln stdnet.Listener, upstream string, cred testCred, desc protocol.TestDesc) {
	nc, err := ln.Accept()
	if err != nil {
		return
	}
	down := protocol.NewConn(nc)
	defer down.Close()
	uc, err := net.Dial(context.Background(), upstream)
	if err != nil {
		t.Error(err)
		return
	}
	up := protocol.NewConn(uc)
	defer up.Close()
	var h protocol.Hello
	var ch protocol.Challenge
	for i, leg := range []struct {
		from, to *protocol.Conn
		into     any
	}{{down, up, &h}, {up, down, &ch}, {down, up, nil}, {up, down, nil}} { // Hello, Challenge, Auth, Welcome
		typ, p, err := leg.from.Read()
		if err != nil {
			t.Errorf("handshake frame %d: %v", i, err)
			return
		}
		if leg.into != nil {
			_ = protocol.DecodeJSON(typ, p, leg.into)
		}
		if err := leg.to.Write(typ, p); err != nil {
			return
		}
	}
	b := protocol.BindingOf(h, ch)
	down.Secure(protocol.SessionKeys(cred.tok.Secret, nil, protocol.RoleController, b)) // all it knows
	go func() { _ = down.WriteJSON(protocol.TypeTestDesc, desc) }()
	drain(down)
}

// drain reads conn until it fails: the peer's writes on an unbuffered
// in-memory pipe never block.
func drain(conn *protocol.Conn) {
	for {
		if _, _, err := conn.Read(); err != nil {
			return
		}
	}
}
