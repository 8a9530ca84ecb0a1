package relay

import (
	"io"
	"testing"

	"github.com/hashicorp/yamux"
)

// serverSide is the controller's end of a relay session over conn, in
// process: every stream goes to h with its tester's address; log hears
// what the pool logs (nil: nothing).
func serverSide(t *testing.T, conn io.ReadWriteCloser, h *echoHandler, log func(event, detail string)) *yamux.Session {
	t.Helper()
	sess, err := yamux.Server(conn, muxConfig())
	if err != nil {
		t.Fatal(err)
	}
	if log == nil {
		log = func(string, string) {}
	}
	p := &Pool{o: Options{Handle: h.handle, Log: log}}
	go p.acceptAll(sess)
	return sess
}
