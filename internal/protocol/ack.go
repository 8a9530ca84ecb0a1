package protocol

import (
	"encoding/binary"
	"fmt"
	"time"
)

// AckSize is the size of a TypeAck payload: the Seq, big-endian.
const AckSize = 8

// AckEvery is the least time between two acknowledgements to one tester:
// the controller acknowledges a batch at once unless it acknowledged one
// less than AckEvery ago; then the highest Seq spooled meanwhile goes in
// one acknowledgement when the period is over (or before the session
// ends). One frame per tester per period, however many batches it sends.
const AckEvery = 100 * time.Millisecond

// AppendAck appends the payload of a TypeAck frame saying that every
// sample up to seq is in the controller's spool: what a crash of the
// controller can no longer lose.
func AppendAck(b []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(b, seq)
}

// ParseAck reads a TypeAck payload.
func ParseAck(p []byte) (seq uint64, err error) {
	if len(p) != AckSize {
		return 0, fmt.Errorf("protocol: ack of %d bytes, want %d", len(p), AckSize)
	}
	return binary.BigEndian.Uint64(p), nil
}
