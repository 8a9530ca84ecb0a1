package tester

import (
	"context"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/transport"
)

// fakeController admits one tester on net and sends it desc; it returns
// the address to dial and a channel that gets the tester's answer: the
// text of an Error frame, or "" for anything else.
func fakeController(t *testing.T, net *transport.Memory, secret []byte, desc protocol.TestDesc) (string, <-chan string) {
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

// fakeAdmit runs the controller's side of the handshake on conn and
// secures it; false if the tester did not prove itself.
func fakeAdmit(conn *protocol.Conn, secret []byte) bool {
	var h protocol.Hello
	var a protocol.Auth
	if conn.Expect(protocol.TypeHello, &h) != nil {
		return false
	}
	b := protocol.BindingOf(h, protocol.NewNonce())
	if conn.WriteJSON(protocol.TypeChallenge, protocol.Challenge{Proof: protocol.Proof(secret, protocol.RoleController, b), Nonce: b.ControllerNonce}) != nil ||
		conn.Expect(protocol.TypeAuth, &a) != nil || !protocol.CheckProof(secret, protocol.RoleTester, b, a.Proof) {
		return false
	}
	conn.Secure(protocol.SessionKeys(secret, protocol.RoleController, b))
	return true
}

// TestUnknownClientKindIsRefused has a controller ask for a client kind
// this tester does not know: the tester runs nothing, returns a clear
// error and tells the controller why.
func TestUnknownClientKindIsRefused(t *testing.T) {
	t.Parallel()
	net, secret := transport.NewMemory(), []byte("s3cret")
	desc := protocol.TestDesc{Client: protocol.ClientDesc{Kind: "grpc", Argv: []string{"x"}}, DurationNs: 1e9, TimeoutNs: 1e9,
		SyncIntervalNs: 1e9, SyncProbes: 1, BatchNs: 1e9, TimeServer: "ts:1", TimeTransport: "tcp"}
	addr, answer := fakeController(t, net, secret, desc)
	err := Run(context.Background(), Options{Controller: addr, Secret: secret, Transport: net})
	const want = `unknown client kind "grpc"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("tester: %v, want an error holding %q", err, want)
	}
	if got := <-answer; !strings.Contains(got, want) {
		t.Errorf("the controller was told %q, want %q", got, want)
	}
}
