package tester

import (
	"context"
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/transport"
)

// fakeController admits one tester on net and sends it desc; it returns
// the address to dial and a channel that gets the tester's answer: the
// text of an Error frame, or "" for anything else.
func fakeController(t *testing.T, net *transport.Memory, secret testCred, desc protocol.TestDesc) (string, <-chan string) {
	t.Helper()
	ln, err := net.Listen("controller:0")
	if err != nil {
		t.Fatal(err)
	}
	answer := make(chan string, 1)
	go func() {
		defer ln.Close()
		nc, err := ln.Accept()
		if err != nil {
			answer <- "accept: " + err.Error()
			return
		}
		conn := protocol.NewConn(nc)
		defer conn.Close()
		if !fakeAdmit(conn, secret) || conn.WriteJSON(protocol.TypeTestDesc, desc) != nil {
			answer <- "handshake failed"
			return
		}
		typ, p, err := conn.Read()
		var m protocol.ErrorMsg
		if err == nil && typ == protocol.TypeError && protocol.DecodeJSON(typ, p, &m) == nil {
			answer <- m.Msg
			return
		}
		answer <- ""
	}()
	return ln.Addr().String(), answer
}

// testCred is a run's credentials in tests: the testers' token and the
// controller's key.
type testCred struct {
	tok credential.Token
	key ed25519.PrivateKey
}

// newTestCred makes a credential good for the run "test" for an hour.
func newTestCred(t *testing.T) testCred {
	t.Helper()
	tok, key, err := credential.New([]string{"test"}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return testCred{tok, key}
}

// fakeAdmit runs the controller's side of the handshake on conn and
// secures it; false if the tester did not prove itself.
func fakeAdmit(conn *protocol.Conn, c testCred) bool {
	_, err := protocol.Admit(conn, protocol.Controller{Secret: c.tok.Secret, Key: c.key, Run: "test"})
	return err == nil
}

// TestUnknownClientKindIsRefused has a controller ask for a client kind
// this tester does not know: the tester runs nothing, returns a clear
// error and tells the controller why.
func TestUnknownClientKindIsRefused(t *testing.T) {
	t.Parallel()
	net, secret := transport.NewMemory(), newTestCred(t)
	desc := protocol.TestDesc{Client: protocol.ClientDesc{Kind: "grpc", Argv: []string{"x"}}, DurationNs: 1e9, TimeoutNs: 1e9,
		SyncIntervalNs: 1e9, SyncProbes: 1, BatchNs: 1e9, TimeServer: "ts:1", TimeTransport: "tcp"}
	addr, answer := fakeController(t, net, secret, desc)
	err := Run(context.Background(), Options{Controller: addr, Token: secret.tok, Transport: net})
	const want = `unknown client kind "grpc"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("tester: %v, want an error holding %q", err, want)
	}
	if got := <-answer; !strings.Contains(got, want) {
		t.Errorf("the controller was told %q, want %q", got, want)
	}
}
