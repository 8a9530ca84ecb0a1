package timeserver

import (
	"bytes"
	"testing"
)

// FuzzTimeserverMessage feeds arbitrary bytes to the request and response
// decoders: neither panics, and what either accepts is exactly what its
// encoder writes for the values decoded (a request may carry trailing
// bytes, which the server ignores).
func FuzzTimeserverMessage(f *testing.F) {
	f.Add(AppendRequest(nil, 42))
	f.Add(AppendRequest(nil, -1))
	resp := make([]byte, ResponseSize)
	putResponse(resp, 1, 2)
	putT3(resp, 3)
	f.Add(resp)
	f.Add([]byte("DPTS\x01\x01\x00\x00"))
	f.Add([]byte{})
	f.Add(append(AppendRequest(nil, 7), 0xff))
	f.Fuzz(func(t *testing.T, p []byte) {
		if t1, ok := parseRequest(p); ok {
			if want := AppendRequest(nil, t1); !bytes.Equal(p[:headerSize+8], want[:headerSize+8]) {
				t.Errorf("request %x accepted as t1 %d, which encodes as %x", p, t1, want)
			}
		}
		t1, t2, t3, err := ParseResponse(p)
		if err != nil {
			return
		}
		want := make([]byte, ResponseSize)
		putResponse(want, t1, t2)
		putT3(want, t3)
		if !bytes.Equal(p, want) {
			t.Errorf("response %x accepted as %d, %d, %d, which encode as %x", p, t1, t2, t3, want)
		}
	})
}
