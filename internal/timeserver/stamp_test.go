package timeserver

import (
	"encoding/binary"
	"net"
	"testing"
	"time"
)

// cmsg builds one control message as 64-bit Linux lays it out, padded to
// 8 bytes; hdrLen overrides the length field when not 0.
func cmsg(level, typ int32, data []byte, hdrLen uint64) []byte {
	n := uint64(cmsgHeaderLen + len(data))
	if hdrLen == 0 {
		hdrLen = n
	}
	b := binary.NativeEndian.AppendUint64(nil, hdrLen)
	b = binary.NativeEndian.AppendUint32(b, uint32(level))
	b = binary.NativeEndian.AppendUint32(b, uint32(typ))
	b = append(b, data...)
	for len(b)%cmsgAlign != 0 {
		b = append(b, 0)
	}
	return b
}

func timespec(sec, nsec int64) []byte {
	return binary.NativeEndian.AppendUint64(binary.NativeEndian.AppendUint64(nil, uint64(sec)), uint64(nsec))
}

func TestKernelStamp(t *testing.T) {
	t.Parallel()
	if !haveKernelStamps {
		t.Skip("no kernel timestamps on this platform")
	}
	ts := timespec(1_700_000_000, 123_456_789)
	const want = 1_700_000_000_123_456_789
	other := cmsg(0, 8, []byte{1, 2, 3, 4}, 0) // IP_PKTINFO-like, 20 bytes padded to 24
	tests := []struct {
		name string
		oob  []byte
		ok   bool
	}{
		{"timestamp alone", cmsg(solSocket, scmTimestampNS, ts, 0), true},                         // the usual case
		{"after another message", append(other, cmsg(solSocket, scmTimestampNS, ts, 0)...), true}, // walks past the first
		{"empty", nil, false},                                                     // no control data
		{"other message only", other, false},                                      // not a timestamp
		{"wrong level", cmsg(solSocket+1, scmTimestampNS, ts, 0), false},          // same type, other level
		{"truncated timespec", cmsg(solSocket, scmTimestampNS, ts[:8], 0), false}, // too short to hold it
		{"length past buffer", cmsg(solSocket, scmTimestampNS, ts, 64), false},    // lies about its length
		{"length below header", cmsg(solSocket, scmTimestampNS, ts, 8), false},    // would loop forever
		{"header cut short", cmsg(solSocket, scmTimestampNS, ts, 0)[:12], false},  // not even a header
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ns, ok := kernelStamp(tt.oob)
			if ok != tt.ok || (ok && ns != want) {
				t.Errorf("kernelStamp = %d, %v; want %d, %v", ns, ok, int64(want), tt.ok)
			}
		})
	}
}

func TestKernelStampAllocs(t *testing.T) {
	oob := cmsg(solSocket, scmTimestampNS, timespec(1, 2), 0)
	if n := testing.AllocsPerRun(100, func() { kernelStamp(oob) }); n != 0 {
		t.Errorf("kernelStamp allocates %v times", n)
	}
}

func TestListenUDPGivesKernelStamps(t *testing.T) {
	t.Parallel()
	if !haveKernelStamps {
		t.Skip("no kernel timestamps on this platform")
	}
	c, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := net.DialUDP("udp", nil, c.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := time.Now().UnixNano()
	if _, err := s.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf, oob := make([]byte, 8), make([]byte, oobSize)
	_, oobn, _, _, err := c.ReadMsgUDP(buf, oob)
	if err != nil {
		t.Fatal(err)
	}
	ns, ok := kernelStamp(oob[:oobn])
	if after := time.Now().UnixNano(); !ok || ns < before-int64(time.Millisecond) || ns > after {
		t.Errorf("kernel stamp %d, %v; want within [%d, %d]", ns, ok, before, after)
	}
}
