package relay

import (
	"io"
	"testing"

	"github.com/hashicorp/yamux"
)

// serverSide is the controller's end of a relay session over conn, in
// process: every stream goes to h with its tester's address.
func serverSide(t *testing.T, conn io.ReadWriteCloser, h *echoHandler) *yamux.Session {
	t.Helper()
	sess, err := yamux.Server(conn, muxConfig())
	if err != nil {
		t.Fatal(err)
	}
	p := &Pool{o: Options{Handle: h.handle, Log: func(string, string) {}}}
	go func() {
		for {
			st, err := sess.AcceptStream()
			if err != nil {
				return
			}
			go p.attach(st)
		}
	}()
	return sess
}
