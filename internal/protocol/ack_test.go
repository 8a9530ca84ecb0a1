package protocol

import (
	"math"
	"testing"
)

// TestAckRoundTrip encodes acks and reads them back; any other length is
// refused.
func TestAckRoundTrip(t *testing.T) {
	for _, seq := range []uint64{0, 1, 255, 1 << 40, math.MaxUint64} {
		p := AppendAck(nil, seq)
		if len(p) != AckSize {
			t.Fatalf("ack of %d is %d bytes, want %d", seq, len(p), AckSize)
		}
		got, err := ParseAck(p)
		if err != nil || got != seq {
			t.Errorf("ParseAck(AppendAck(%d)) = %d, %v", seq, got, err)
		}
	}
	for _, p := range [][]byte{nil, {1}, make([]byte, AckSize-1), make([]byte, AckSize+1), []byte(`{"seq":1}`)} {
		if _, err := ParseAck(p); err == nil {
			t.Errorf("ParseAck(%q) took a payload of %d bytes", p, len(p))
		}
	}
}
