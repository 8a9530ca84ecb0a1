package netlab

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// packetMsg frames a queued packet as the kernel does.
func packetMsg(id uint32, payload []byte) []byte {
	hdr := append(be32(id), 0x08, 0x00, 1) // id, hw protocol, hook
	attrs := append(attr(nfqaPacketHdr, hdr), attr(nfqaPayload, payload)...)
	return nlMsg(nfnlSubsysQueue<<8|nfqnlMsgPacket, 0, 7, attrs)
}

func TestParsePackets(t *testing.T) {
	ip := []byte{0x45, 0, 0, 60, 0, 0, 0, 0, 64, 6, 0, 0, 10, 1, 2, 3, 10, 1, 2, 1}
	odd := []byte{1, 2, 3} // padded to 4 bytes on the wire
	b := append(packetMsg(41, ip), packetMsg(42, odd)...)
	b = append(b, nlMsg(unix.NLMSG_DONE, 0, 0, nil)...) // not a packet: skipped
	got := parsePackets(b, nil)
	if len(got) != 2 || got[0].id != 41 || got[1].id != 42 {
		t.Fatalf("parsePackets = %+v, want ids 41 and 42", got)
	}
	if !bytes.Equal(got[0].payload, ip) || !bytes.Equal(got[1].payload, odd) {
		t.Errorf("payloads %x %x, want %x %x", got[0].payload, got[1].payload, ip, odd)
	}
	// A message claiming more bytes than the read holds ends the batch.
	bad := packetMsg(43, ip)
	bad[0] = 0xff
	if got := parsePackets(append(packetMsg(40, ip), bad...), nil); len(got) != 1 || got[0].id != 40 {
		t.Errorf("with a truncated message: %+v, want only id 40", got)
	}
	// A packet without its header attribute has no id: skipped.
	if got := parsePackets(nlMsg(nfnlSubsysQueue<<8|nfqnlMsgPacket, 0, 7, attr(nfqaPayload, ip)), nil); len(got) != 0 {
		t.Errorf("packet without header: %+v, want none", got)
	}
}

func FuzzParsePackets(f *testing.F) {
	f.Add(packetMsg(1, []byte{0x45, 0, 0, 20}))
	f.Add(append(packetMsg(2, nil), packetMsg(3, make([]byte, 20))...))
	f.Add([]byte{})
	f.Add(make([]byte, 16))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, p := range parsePackets(b, nil) {
			if len(p.payload) > len(b) {
				t.Fatalf("payload of %d bytes from %d bytes", len(p.payload), len(b))
			}
		}
	})
}

func TestDelayFor(t *testing.T) {
	a, b := netip.MustParseAddr("10.1.2.3"), netip.MustParseAddr("10.1.2.4")
	d := newDelayer()
	d.set(a, 20*time.Millisecond)
	d.set(b, 5*time.Millisecond)
	fromA := []byte{0x45, 0, 0, 60, 0, 0, 0, 0, 64, 6, 0, 0, 10, 1, 2, 3, 10, 1, 2, 4}
	fromCtl := []byte{0x45, 0, 0, 60, 0, 0, 0, 0, 64, 6, 0, 0, 10, 1, 2, 1, 10, 1, 2, 4}
	inB := &delayQueue{host: b}
	inRoot := &delayQueue{}
	for _, c := range []struct {
		q       *delayQueue
		payload []byte
		want    time.Duration
	}{
		{inB, fromA, 25 * time.Millisecond}, // host to host: both links
		{inB, fromCtl, 5 * time.Millisecond},
		{inRoot, fromA, 20 * time.Millisecond},
		{inRoot, fromCtl, 0},
		{inB, []byte{0x60, 0, 0}, 5 * time.Millisecond}, // not IPv4: the host's own link only
	} {
		if got := d.delayFor(c.q, c.payload); got != c.want {
			t.Errorf("delayFor(%v, % x) = %v, want %v", c.q.host, c.payload[:min(len(c.payload), 4)], got, c.want)
		}
	}
}

func TestPickSubnet(t *testing.T) {
	if p, err := pickSubnet(Options{Hosts: 3, Subnet: "10.77.3.9/24"}); err != nil || p.String() != "10.77.3.0/24" {
		t.Errorf("pickSubnet(10.77.3.9/24) = %v, %v", p, err)
	}
	for _, bad := range []string{"10.77.3.0/30", "fe80::/64", "nonsense"} {
		if _, err := pickSubnet(Options{Hosts: 3, Subnet: bad}); err == nil {
			t.Errorf("pickSubnet(%q) accepted", bad)
		}
	}
	p, err := pickSubnet(Options{Hosts: 3})
	if err != nil || p.Bits() != 24 || p.Addr().As4()[0] != 10 {
		t.Errorf("a random subnet: %v, %v; want a 10.x.y.0/24", p, err)
	}
}
