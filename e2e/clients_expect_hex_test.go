package e2e

import (
	"encoding/binary"
	"encoding/hex"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dnsQuery is a DNS query for example.com A with the ID 0xabcd.
const dnsQuery = "abcd01000001000000000000076578616d706c6503636f6d0000010001"

// dnsAnswer turns a query into its reply: the query's ID, flags 0x81 0x80
// (a response, recursion desired and available, no error), the question
// and one answer, 127.0.0.1.
func dnsAnswer(q []byte) []byte {
	if len(q) < 12 {
		return nil
	}
	r := append([]byte{q[0], q[1], 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0}, q[12:]...)
	return append(r, 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1)
}

// serveDNSUDP answers every datagram on a loopback port until the test ends.
func serveDNSUDP(t *testing.T) string {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			_, _ = pc.WriteTo(dnsAnswer(buf[:n]), from)
		}
	}()
	return pc.LocalAddr().String()
}

// serveDNSTCP answers DNS over TCP (each message after its 2-byte length)
// on a loopback port until the test ends.
func serveDNSTCP(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var n [2]byte
				for {
					if _, err := io.ReadFull(c, n[:]); err != nil {
						return
					}
					q := make([]byte, binary.BigEndian.Uint16(n[:]))
					if _, err := io.ReadFull(c, q); err != nil {
						return
					}
					r := dnsAnswer(q)
					_, _ = c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(r))), r...))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestClientsExpectBytesHex: expect.bytes_hex checks a binary reply (a DNS
// reply's flags 0x81 0x80, which expect.bytes cannot give) for udp and
// tcp: the right flags pass every call, the wrong ones fail every call
// naming what was expected and what came.
func TestClientsExpectBytesHex(t *testing.T) {
	t.Parallel()
	udp, tcp := serveDNSUDP(t), serveDNSTCP(t)
	tcpQuery := hex.EncodeToString([]byte{0, byte(len(dnsQuery) / 2)}) + dnsQuery
	tests := []struct {
		name, kind, addr, send, expect string
		why                            string // "": every call ok
	}{
		{"udp right flags", "udp", udp, dnsQuery, "abcd8180", ""},
		{"udp wrong flags", "udp", udp, dnsQuery, "abcd8183",
			`expected a reply starting "\xab\xcd\x81\x83", got "\xab\xcd\x81\x80\x00\x01`},
		{"tcp right flags", "tcp", tcp, tcpQuery, "002dabcd8180", ""},
		{"tcp wrong flags", "tcp", tcp, tcpQuery, "002dabcd8183",
			`expected a reply starting "\x00-\xab\xcd\x81\x83", got "\x00-\xab\xcd\x81\x80"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			exp := writeExperiment(t, `name: dns
client:
  `+tt.kind+`: {address: "`+tt.addr+`", send_hex: "`+tt.send+`", expect: {bytes_hex: "`+tt.expect+`"}}
  timeout: 2s
schedule:
  testers: 1
  tester_duration: 1s
  client_interval: 50ms
`)
			out := filepath.Join(t.TempDir(), "run")
			r := diperf(t, time.Minute, "run", exp, "--out", out, "--ui", "off")
			c := readSummary(t, out).Samples
			switch {
			case c.Total < 3:
				t.Fatalf("%d calls, want at least 3\nstderr %s", c.Total, r.stderr)
			case tt.why == "" && (r.code != 0 || c.OK != c.Total):
				t.Errorf("exit %d, %d of %d calls ok: want every call ok\nstderr %s", r.code, c.OK, c.Total, r.stderr)
			case tt.why != "" && (r.code != 1 || c.Failed != c.Total):
				t.Errorf("exit %d, %d of %d calls failed: want every call failed\nstderr %s", r.code, c.Failed, c.Total, r.stderr)
			}
			if tt.why != "" && !strings.Contains(r.stderr, tt.why) {
				t.Errorf("stderr lacks %s:\n%s", tt.why, r.stderr)
			}
		})
	}
}
