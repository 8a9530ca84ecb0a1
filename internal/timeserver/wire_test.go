package timeserver

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// plainResponse writes into p the unauthenticated response to a request
// carrying t1, with t3 zero.
func plainResponse(p []byte, t1, t2 int64) { putResponse(p, nil, request{t1: t1}, t2) }

// response builds a response; mutate changes it before it is returned.
func response(t1, t2, t3 int64, mutate func([]byte) []byte) []byte {
	p := make([]byte, ResponseSize)
	plainResponse(p, t1, t2)
	putT3(p, t3)
	if mutate != nil {
		p = mutate(p)
	}
	return p
}

func TestRequestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, t1 := range []int64{0, 1, -1, 1 << 62, -(1 << 62)} {
		p := AppendRequest([]byte("prefix"), t1)
		if len(p) != len("prefix")+RequestSize || !bytes.HasPrefix(p, []byte("prefix")) {
			t.Fatalf("AppendRequest(%d) = %d bytes, want prefix + %d", t1, len(p), RequestSize)
		}
		got, ok := parseRequest(p[len("prefix"):])
		if !ok || got != (request{t1: t1}) {
			t.Errorf("parseRequest(AppendRequest(%d)) = %+v, %v", t1, got, ok)
		}
	}
}

func TestResponseRoundTrip(t *testing.T) {
	t.Parallel()
	t1, t2, t3, err := ParseResponse(response(-5, 1<<40, 1<<41, nil))
	if err != nil || t1 != -5 || t2 != 1<<40 || t3 != 1<<41 {
		t.Fatalf("ParseResponse = %d, %d, %d, %v", t1, t2, t3, err)
	}
}

func TestParseResponseStrict(t *testing.T) {
	t.Parallel()
	set := func(i int, b byte) func([]byte) []byte {
		return func(p []byte) []byte { p[i] = b; return p }
	}
	tests := []struct {
		name   string
		mutate func([]byte) []byte
		ok     bool
	}{
		{"valid", nil, true}, // as the server writes it
		{"empty", func([]byte) []byte { return nil }, false},           // nothing at all
		{"short", func(p []byte) []byte { return p[:47] }, false},      // one byte missing
		{"long", func(p []byte) []byte { return append(p, 0) }, false}, // one byte too many
		{"bad magic", set(0, 'X'), false},                              // not ours
		{"bad version", set(4, 3), false},                              // a future version
		{"version 1", set(4, 1), false},                                // no longer spoken
		{"request kind", set(5, kindRequest), false},                   // a request, not a response
		{"reserved byte", set(7, 1), false},                            // reserved bytes must be zero
		{"stray MAC", set(macAt, 1), false},                            // unauthenticated: no MAC
		{"authenticated", set(5, kindAuthResponse), true},              // its MAC is the Client's to check
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, _, err := ParseResponse(response(1, 2, 3, tt.mutate))
			if (err == nil) != tt.ok {
				t.Errorf("ParseResponse error = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func FuzzParseResponse(f *testing.F) {
	f.Add(response(1, 2, 3, nil))
	f.Add(AppendRequest(nil, 7))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, p []byte) {
		t1, t2, t3, err := ParseResponse(p)
		if err != nil {
			return
		}
		if len(p) != ResponseSize || int64(binary.BigEndian.Uint64(p[8:])) != t1 ||
			int64(binary.BigEndian.Uint64(p[16:])) != t2 || int64(binary.BigEndian.Uint64(p[24:])) != t3 {
			t.Fatalf("accepted %x as %d, %d, %d", p, t1, t2, t3)
		}
	})
}
