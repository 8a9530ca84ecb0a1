package experiment

import (
	"bytes"
	"strings"
	"testing"
)

// wantProblem parses in and checks that it has the problem at line and
// key, its message holding each of msgs.
func wantProblem(t *testing.T, in string, line int, key string, msgs ...string) {
	t.Helper()
	_, err := Parse([]byte(in), "exp.yaml")
	if err == nil {
		t.Fatalf("no problem, want one at line %d, key %q", line, key)
	}
next:
	for _, p := range problems(t, err) {
		if p.Line != line || p.Key != key {
			continue
		}
		for _, m := range msgs {
			if !strings.Contains(p.Msg, m) {
				continue next
			}
		}
		return
	}
	t.Errorf("got\n%v\nwant a problem at line %d, key %q, containing %q", err, line, key, msgs)
}

// TestExpectBytesHexRefused: expect.bytes_hex must be hex, alone (not with
// expect.bytes) and within what a tester takes; the problem names its line.
func TestExpectBytesHexRefused(t *testing.T) {
	t.Parallel()
	const head = "name: t\nclient:\n  udp:\n    address: 127.0.0.1:53\n    send_hex: abcd\n    expect:\n"
	big := strings.Repeat("00", MaxSocketPayload+1)
	tests := []struct {
		name, in string
		line     int
		key, msg string
	}{
		{"not hex", head + "      bytes_hex: 81zz\n", 7, "client.udp.expect.bytes_hex", "not hex"},
		{"odd length", head + "      bytes_hex: \"818\"\n", 7, "client.udp.expect.bytes_hex", "not hex"},
		{"both", head + "      bytes: x\n      bytes_hex: \"8180\"\n", 8, "client.udp.expect.bytes_hex", "give bytes or bytes_hex, not both"},
		{"too long", head + "      bytes_hex: " + big + "\n", 7, "client.udp.expect.bytes_hex", "262145 bytes, more than the 262144"},
		{"bytes too long", head + "      bytes: " + big[:MaxSocketPayload+1] + "\n", 7, "client.udp.expect.bytes", "more than the 262144"},
		{"connect_only", "name: t\nclient:\n  tcp: {address: \"127.0.0.1:1\", connect_only: true, expect: {bytes_hex: \"00\"}}\n",
			3, "client.tcp.connect_only", "sends and expects nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantProblem(t, tt.in, tt.line, tt.key, tt.msg)
		})
	}
}

// TestExpectPrefix: the bytes a reply must start with, from bytes_hex
// (any byte, ≥ 0x80 too) or bytes.
func TestExpectPrefix(t *testing.T) {
	t.Parallel()
	e, err := Parse([]byte("name: t\nclient:\n  udp: {address: \"127.0.0.1:53\", send: x, expect: {bytes_hex: \"ABCD8180\"}}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Client.UDP.Expect.Prefix(); !bytes.Equal(got, []byte{0xab, 0xcd, 0x81, 0x80}) {
		t.Errorf("bytes_hex prefix % x, want ab cd 81 80", got)
	}
	if got := (Expect{Bytes: "+OK"}).Prefix(); string(got) != "+OK" {
		t.Errorf("bytes prefix %q, want +OK", got)
	}
	if got := (Expect{}).Prefix(); got != nil {
		t.Errorf("no prefix gives %q, want nil", got)
	}
}
