package netprobe

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

var testToken = []byte("mesh-token-for-the-tests-0123456789")

func TestRequestRoundTrip(t *testing.T) {
	sn := newNonce()
	for _, r := range []Request{
		{Kind: KindBandwidth, TestTime: 5 * time.Second, Nonce: newNonce()},
		{Kind: KindLatency, TestTime: Bin, Size: 1, Nonce: newNonce()},
		{Kind: KindLatency, TestTime: MaxTestTime, Size: MaxMessage, Nonce: newNonce()},
	} {
		raw, err := EncodeRequest(testToken, sn, r)
		if err != nil {
			t.Fatalf("EncodeRequest(%+v): %v", r, err)
		}
		if len(raw) != RequestSize {
			t.Fatalf("request of %d bytes, want %d", len(raw), RequestSize)
		}
		got, err := ParseRequest(testToken, sn, raw)
		if err != nil || got.Kind != r.Kind || got.TestTime != r.TestTime || got.Size != r.Size || !bytes.Equal(got.Nonce, r.Nonce) {
			t.Fatalf("ParseRequest = %+v, %v; want %+v", got, err, r)
		}
		if _, err := ParseRequest([]byte("another-token-of-the-mesh-0123"), sn, raw); !errors.Is(err, errBadRequest) {
			t.Errorf("another token: err = %v, want a bad request", err)
		}
		if _, err := ParseRequest(testToken, newNonce(), raw); !errors.Is(err, errBadRequest) {
			t.Errorf("another server nonce (a replay): err = %v, want a bad request", err)
		}
	}
}

func TestRequestLimits(t *testing.T) {
	for _, r := range []Request{
		{Kind: 3, TestTime: time.Second, Nonce: newNonce()},
		{Kind: KindBandwidth, TestTime: MaxTestTime + Bin, Nonce: newNonce()},
		{Kind: KindBandwidth, TestTime: 0, Nonce: newNonce()},
		{Kind: KindBandwidth, TestTime: 150 * time.Millisecond, Nonce: newNonce()},
		{Kind: KindBandwidth, TestTime: time.Second, Size: 1, Nonce: newNonce()},
		{Kind: KindLatency, TestTime: time.Second, Size: 0, Nonce: newNonce()},
		{Kind: KindLatency, TestTime: time.Second, Size: MaxMessage + 1, Nonce: newNonce()},
		{Kind: KindLatency, TestTime: time.Second, Size: 1, Nonce: []byte("short")},
	} {
		if _, err := EncodeRequest(testToken, newNonce(), r); !errors.Is(err, errBadRequest) {
			t.Errorf("EncodeRequest(%+v) = %v, want a bad request", r, err)
		}
		// The same request with a valid proof is refused by the parser too.
		sn := newNonce()
		body := r.body()
		if len(body) == requestBody {
			raw := append(body, mac(testToken, labelRequest, sn, body)...)
			if _, err := ParseRequest(testToken, sn, raw); !errors.Is(err, errBadRequest) {
				t.Errorf("ParseRequest(%+v) = %v, want a bad request", r, err)
			}
		}
	}
}

func TestReportProof(t *testing.T) {
	sn, body := newNonce(), []byte("request")
	rep := report{Elapsed: time.Second, Bins: []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	raw := encodeReport(testToken, sn, body, rep)
	bins, elapsed, err := reportHeader(raw[:reportHead])
	if err != nil || bins != 10 || elapsed != time.Second {
		t.Fatalf("reportHeader = %d, %v, %v", bins, elapsed, err)
	}
	got, err := parseReport(testToken, sn, body, raw[:reportHead], raw[reportHead:], bins, elapsed)
	if err != nil || got.Bins[9] != 10 {
		t.Fatalf("parseReport = %+v, %v", got, err)
	}
	raw[reportHead+7]++ // 1 byte more in bin 0
	if _, err := parseReport(testToken, sn, body, raw[:reportHead], raw[reportHead:], bins, elapsed); err == nil {
		t.Fatal("an altered report was accepted")
	}
	for _, head := range [][]byte{{0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, {0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1}, {0, 1, 0xff, 0, 0, 0, 0, 0, 0, 0}} {
		if _, _, err := reportHeader(head); err == nil {
			t.Errorf("reportHeader(%x) accepted", head)
		}
	}
}

// FuzzParseRequest: no input panics; what parses re-encodes to itself.
func FuzzParseRequest(f *testing.F) {
	sn := bytes.Repeat([]byte{7}, NonceSize)
	good, _ := EncodeRequest(testToken, sn, Request{Kind: KindLatency, TestTime: time.Second, Size: 1, Nonce: newNonce()})
	f.Add(good)
	f.Add(good[:40])
	f.Add(bytes.Repeat([]byte{0xff}, RequestSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRequest(testToken, sn, b)
		if err != nil {
			return
		}
		again, err := EncodeRequest(testToken, sn, r)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("parsed %+v from %x but it encodes to %x, %v", r, b, again, err)
		}
	})
}

// FuzzParseRequestBody fuzzes the fields behind a valid proof, so that
// the limits (not only the proof) see arbitrary values.
func FuzzParseRequestBody(f *testing.F) {
	sn := bytes.Repeat([]byte{7}, NonceSize)
	good, _ := EncodeRequest(testToken, sn, Request{Kind: KindBandwidth, TestTime: 5 * time.Second, Nonce: newNonce()})
	f.Add(good[:requestBody])
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > requestBody {
			body = body[:requestBody]
		}
		raw := append(append([]byte(nil), body...), mac(testToken, labelRequest, sn, body)...)
		r, err := ParseRequest(testToken, sn, raw)
		if err != nil {
			return
		}
		if r.validate() != nil || r.TestTime > MaxTestTime || r.Size > MaxMessage {
			t.Fatalf("accepted out of bounds: %+v", r)
		}
	})
}
