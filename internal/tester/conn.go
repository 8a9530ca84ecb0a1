package tester

import (
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// readLoop handles what the controller sends during the test. Any read
// error (a forged, replayed or reordered frame included), a Stop or an
// Error ends the test at once; an Ack records what is safe; a load step
// goes to the steerer, which takes or refuses it; every frame,
// a heartbeat included, says the controller is still there.
func (t *Tester) readLoop() {
	defer close(t.readCh)
	for {
		typ, p, err := t.conn.Read()
		if err != nil {
			t.cancel(fmt.Errorf("%w: %v", ErrLostController, err))
			return
		}
		t.heard() // any frame is a sign of life
		switch typ {
		case protocol.TypeHeartbeat:
		case protocol.TypeStop:
			t.cancel(errStopped)
		case protocol.TypeAck:
			seq, err := protocol.ParseAck(p)
			if err != nil {
				t.cancel(fmt.Errorf("%w: %v", ErrLostController, err))
				return
			}
			t.out.ack(seq)
		case protocol.TypeLoad:
			t.steer.receive(p, time.Now())
		case protocol.TypeError:
			var m protocol.ErrorMsg
			_ = protocol.DecodeJSON(typ, p, &m)
			t.cancel(fmt.Errorf("%w: it said: %s", ErrLostController, m.Msg))
			return
		default:
			t.cancel(fmt.Errorf("%w: unexpected %s message", ErrLostController, typ))
			return
		}
	}
}

var errStopped = fmt.Errorf("stopped by the controller")
