package controller

import (
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// checkedDone is a tester's Done once checked (checkDone): what it said
// that is impossible is not taken.
type checkedDone struct {
	protocol.Done
	heardNs int64 // when it arrived, on the controller's clock
	timeOK  bool  // LocalNs is in the tester's window (else its stop is heardNs)
	lastOK  bool  // UDPLastSeq is possible (else its datagram loss is a lower bound)
}

// checkDone checks m, s's Done: its time must be in the tester's window,
// its produced count possible, and on UDP its last datagram's number at
// most its produced count (a datagram carries a sample at least) and its
// send errors at most that. Each claim refused is counted.
func (c *controller) checkDone(s *slot, m protocol.Done) checkedDone {
	now := time.Now().UnixNano()
	d := checkedDone{Done: m, heardNs: now, timeOK: true, lastOK: true}
	if err := s.claims.localTime("Done", m.LocalNs, now); err != nil {
		c.refuseMessage(s, err)
		d.timeOK = false
	}
	if err := s.claims.count("Done's produced count", m.Produced, now); err != nil {
		c.refuseMessage(s, err)
		d.Produced = 0
	}
	if m.UDPLastSeq > d.Produced || m.UDPSendErrors > m.UDPLastSeq {
		c.refuseMessage(s, fmt.Errorf("the last datagram %d or the send errors %d of Done are more than its %d samples produced allow",
			m.UDPLastSeq, m.UDPSendErrors, d.Produced))
		d.UDPLastSeq, d.UDPSendErrors, d.lastOK = 0, 0, false
	}
	c.checkLoadDone(s, &d)
	return d
}
