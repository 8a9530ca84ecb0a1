package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/sample"
)

func TestBatchRoundTrip(t *testing.T) {
	t.Parallel()
	in := &Batch{Produced: 42, Samples: []sample.Sample{
		{Seq: 1, Start: 1_000_000, End: 1_050_000, Status: sample.OK, Bytes: 12},
		{Seq: 2, Start: 900_000, End: 2_000_000, Status: sample.Timeout, Err: "killed after 1s"},
		{Seq: 3, Start: -5, End: -5, Status: sample.FailedToStart, Err: strings.Repeat("x", 1000)},
	}}
	out, err := DecodeBatch(AppendBatch(nil, in))
	if err != nil {
		t.Fatal(err)
	}
	in.Samples[2].Err = in.Samples[2].Err[:MaxErrText] // long texts are cut, not rejected
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", out, in)
	}
}

func TestDecodeBatchRejects(t *testing.T) {
	t.Parallel()
	good := AppendBatch(nil, &Batch{Produced: 1, Samples: []sample.Sample{{Seq: 1, Start: 10, End: 20}}})
	tests := []struct {
		name string
		p    []byte
	}{
		{"empty payload", nil},
		{"truncated", good[:len(good)-2]},
		{"trailing bytes", append(append([]byte{}, good...), 0)},
		{"too many samples", binary.AppendUvarint(binary.AppendUvarint(nil, 1), MaxBatch+1)},
		{"unknown status", AppendBatch(nil, &Batch{Samples: []sample.Sample{{Seq: 1, Status: 200}}})},
		{"ends before start", AppendBatch(nil, &Batch{Samples: []sample.Sample{{Seq: 1, Start: 10, End: 5}}})},
	}
	for _, tt := range tests {
		if _, err := DecodeBatch(tt.p); err == nil {
			t.Errorf("%s: decoded without error", tt.name)
		}
	}
}

func TestFrameLimits(t *testing.T) {
	t.Parallel()
	var hdr [5]byte
	binary.BigEndian.PutUint32(hdr[:4], MaxFrame+1)
	hdr[4] = byte(TypeSamples)
	if _, _, err := ReadFrame(bytes.NewReader(hdr[:])); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("oversized frame: err = %v, want ErrFrameTooLarge", err)
	}
	hdr = [5]byte{0, 0, 0, 0, 99}
	if _, _, err := ReadFrame(bytes.NewReader(hdr[:])); err == nil {
		t.Error("unknown type accepted")
	}
	if err := WriteFrame(&bytes.Buffer{}, TypeSamples, make([]byte, MaxFrame+1)); err == nil {
		t.Error("oversized write accepted")
	}
}

func TestConnJSONAndBinary(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	ca, cb := NewConn(a), NewConn(b)
	defer ca.Close()
	defer cb.Close()
	go func() {
		_ = ca.WriteJSON(TypeHello, Hello{Proto: Version, Slot: 3, ID: "h:1"})
		_ = ca.Write(TypeSamples, AppendBatch(nil, &Batch{Produced: 1, Samples: []sample.Sample{{Seq: 1, Start: 1, End: 2}}}))
		_ = ca.WriteJSON(TypeError, ErrorMsg{Msg: "go away"})
	}()
	var h Hello
	if err := cb.Expect(TypeHello, &h); err != nil || h.Slot != 3 || h.ID != "h:1" {
		t.Fatalf("hello: %+v %v", h, err)
	}
	typ, p, err := cb.Read()
	if err != nil || typ != TypeSamples {
		t.Fatalf("samples: %v %v", typ, err)
	}
	if b, err := DecodeBatch(p); err != nil || b.Produced != 1 || len(b.Samples) != 1 || b.Samples[0].End != 2 {
		t.Fatalf("batch %+v %v", b, err)
	}
	if err := cb.Expect(TypeDone, &Done{}); err == nil || !strings.Contains(err.Error(), "go away") {
		t.Fatalf("error frame: %v", err)
	}
}

func TestProof(t *testing.T) {
	t.Parallel()
	secret, nonce := []byte("s3cret"), NewNonce()
	p := Proof(secret, RoleTester, nonce)
	if !CheckProof(secret, RoleTester, nonce, p) {
		t.Error("valid proof refused")
	}
	if CheckProof(secret, RoleController, nonce, p) {
		t.Error("proof reflected to the other role accepted")
	}
	if CheckProof([]byte("other"), RoleTester, nonce, p) {
		t.Error("proof with the wrong secret accepted")
	}
}

func FuzzDecodeBatch(f *testing.F) {
	f.Add(AppendBatch(nil, &Batch{Produced: 2, Samples: []sample.Sample{{Seq: 1, Start: 5, End: 9, Err: "e"}}}))
	f.Fuzz(func(t *testing.T, p []byte) {
		b, err := DecodeBatch(p)
		if err != nil {
			return
		}
		if _, err := DecodeBatch(AppendBatch(nil, b)); err != nil {
			t.Fatalf("re-encoding a decoded batch fails: %v", err)
		}
	})
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 9, 0})
	f.Fuzz(func(t *testing.T, p []byte) {
		_, _, _ = ReadFrame(bytes.NewReader(p))
	})
}
