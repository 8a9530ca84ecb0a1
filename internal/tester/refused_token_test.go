package tester

import (
	"net"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/protocol"
)

// A tester whose token names the run but holds another secret is refused
// by the controller's real handshake, and says that its token was
// refused (not only that authentication failed).
func TestWrongTokenIsSaidRefused(t *testing.T) {
	right, wrong := newTestCred(t), newTestCred(t)
	mine, theirs := net.Pipe()
	admitted := make(chan error, 1)
	go func() {
		conn := protocol.NewConn(theirs)
		defer conn.Close()
		_, err := protocol.Admit(conn, protocol.Controller{Secret: right.tok.Secret, Key: right.key, Run: "test"})
		if err != nil { // as the controller's serve does
			_ = conn.WriteJSON(protocol.TypeError, protocol.ErrorMsg{Msg: err.Error()})
		}
		admitted <- err
	}()
	conn := protocol.NewConn(mine)
	defer conn.Close()
	_, err := Handshake(conn, wrong.tok, protocol.Hello{Proto: protocol.Version, ID: "t1"})
	if got := <-admitted; got == nil {
		t.Fatal("the controller admitted a tester with another secret")
	}
	if err == nil || !strings.Contains(err.Error(), "the controller refused this tester's token") ||
		!strings.Contains(err.Error(), wrong.tok.Fingerprint()) || !strings.Contains(err.Error(), "authentication failed") {
		t.Errorf("the tester says %v, want that its token (key %s) was refused", err, wrong.tok.Fingerprint())
	}
}
