package tester

import (
	"fmt"

	"github.com/diperf/diperf/internal/protocol"
)

// readLoop handles what the controller sends during the test. Any read
// error, a Stop or an Error ends the test at once.
func (t *Tester) readLoop() {
	defer close(t.readCh)
	for {
		typ, _, err := t.conn.Read()
		if err != nil {
			t.cancel(fmt.Errorf("%w: %v", ErrLostController, err))
			return
		}
		switch typ {
		case protocol.TypeStop:
			t.cancel(errStopped)
		default:
			t.cancel(fmt.Errorf("%w: unexpected %s message", ErrLostController, typ))
			return
		}
	}
}

var errStopped = fmt.Errorf("stopped by the controller")
