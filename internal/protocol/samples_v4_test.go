package protocol

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/sample"
)

// TestBatchV4RoundTrip carries every version 4 field through the encoding:
// an open-model call's intended start, HTTP phases, client extras, and the
// new statuses.
func TestBatchV4RoundTrip(t *testing.T) {
	t.Parallel()
	in := &Batch{Produced: 3, Samples: []sample.Sample{
		{Seq: 1, Client: 3, Start: 2_000_000, End: 2_500_000, Intended: 1_000_000, Status: sample.OK, Bytes: 612,
			Phases: sample.Phases{DNS: 10, Connect: 20_000, TLS: 300_000, FirstByte: 400_000}},
		{Seq: 2, Start: 3_000_000, End: 3_000_000, Intended: 900_000, Status: sample.Dropped, Err: "dropped"},
		{Seq: 3, Start: 4_000_000, End: 5_000_000, Status: sample.Lost,
			Extras: []sample.Extra{{Key: "mb", Value: 12.5}, {Key: "files", Value: 3}, {Key: "neg", Value: -1e-9}}},
	}}
	out, err := DecodeBatch(AppendBatch(nil, in))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", out, in)
	}
}

// TestBatchV4DropsBadExtras checks that extras the decoder would refuse
// (a bad key, a value that is not finite, more than MaxExtras) are left out
// by the encoder rather than making the whole batch undecodable.
func TestBatchV4DropsBadExtras(t *testing.T) {
	t.Parallel()
	var many []sample.Extra
	for i := range sample.MaxExtras + 5 {
		many = append(many, sample.Extra{Key: "k" + strings.Repeat("x", i%5) + string(rune('a'+i)), Value: float64(i)})
	}
	bad := []sample.Extra{{Key: "ok", Value: 1}, {Key: "Bad", Value: 2}, {Key: "nan", Value: math.NaN()},
		{Key: "inf", Value: math.Inf(1)}, {Key: strings.Repeat("a", sample.MaxExtraKey+1), Value: 3}, {Key: "", Value: 4}}
	in := &Batch{Produced: 2, Samples: []sample.Sample{{Seq: 1, Start: 5, End: 9, Extras: bad}, {Seq: 2, Start: 6, End: 9, Extras: many}}}
	p := AppendBatch(nil, in)
	if len(p) > 1+2*10+BatchFitBound(in.Samples) {
		t.Errorf("encoded %d bytes, over the bound", len(p))
	}
	out, err := DecodeBatch(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Samples[0].Extras; !reflect.DeepEqual(got, []sample.Extra{{Key: "ok", Value: 1}}) {
		t.Errorf("bad extras: got %+v, want only ok=1", got)
	}
	if got := out.Samples[1].Extras; !reflect.DeepEqual(got, many[:sample.MaxExtras]) {
		t.Errorf("too many extras: got %d, want the first %d", len(got), sample.MaxExtras)
	}
}

// BatchFitBound sums the samples' bounds, for the test above.
func BatchFitBound(ss []sample.Sample) int {
	n := 0
	for i := range ss {
		n += SampleBound(&ss[i])
	}
	return n
}

// TestDecodeBatchVersion3 decodes a batch as issue 9's testers and spools
// wrote it: client indexes, nothing of version 4.
func TestDecodeBatchVersion3(t *testing.T) {
	t.Parallel()
	in := &Batch{Produced: 2, Samples: []sample.Sample{
		{Seq: 1, Client: 4, Start: 1_000, End: 3_000, Status: sample.OK, Bytes: 5},
		{Seq: 2, Client: 0, Start: 500, End: 800, Status: sample.Failed, Err: "exit status 1"},
	}}
	out, err := DecodeBatch(appendOldBatch(nil, batchVersion3, in))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("version 3:\n got %+v\nwant %+v", out, in)
	}
}

// TestDecodeBatchV4Rejects checks that bad version 4 fields are refused.
func TestDecodeBatchV4Rejects(t *testing.T) {
	t.Parallel()
	enc := func(s sample.Sample) []byte {
		return AppendBatch(nil, &Batch{Produced: 1, Samples: []sample.Sample{s}})
	}
	withExtra := enc(sample.Sample{Seq: 1, Start: 5, End: 9, Extras: []sample.Extra{{Key: "ab", Value: 1}}})
	badKey := bytes.Replace(withExtra, []byte("ab"), []byte("A!"), 1)
	nanBits := bytes.Clone(withExtra)
	copy(nanBits[len(nanBits)-2-8:], []byte{1, 0, 0, 0, 0, 0, 0xf8, 0x7f}) // a NaN's bits, little-endian
	for name, p := range map[string][]byte{
		"bad key":       badKey,
		"not finite":    nanBits,
		"truncated":     withExtra[:len(withExtra)-5],
		"unknown flags": bytes.Replace(enc(sample.Sample{Seq: 1, Start: 5, End: 9}), []byte{0, 0, 0, 0}, []byte{0, 0x80, 0, 0}, 1),
	} {
		if _, err := DecodeBatch(p); err == nil {
			t.Errorf("%s: decoded % x", name, p)
		}
	}
}
