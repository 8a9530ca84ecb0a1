package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/diperf/diperf/internal/sample"
)

// Batch is a group of samples from one tester. Produced counts every sample
// the tester has produced so far, so that the controller knows what is lost.
type Batch struct {
	Produced uint64
	Samples  []sample.Sample
}

// BatchVersion is the version of the sample batch encoding, carried in
// its first byte so that the encoding can change on its own (a batch also
// lives on in the run directory's spool). Version 1 was the encoding of
// protocol version 1, which had no version byte. Version 3 adds each
// sample's client index (a uvarint after its status); version 2, without
// it, is still read (every sample of client 0), since the spools of older
// runs hold it.
const BatchVersion = 3

// batchVersion2 is the encoding before client indexes, still decoded.
const batchVersion2 = 2

// ErrBatchVersion is returned for a batch in an encoding this build does
// not read.
var ErrBatchVersion = errors.New("protocol: unknown sample batch encoding")

var errShort = errors.New("protocol: truncated sample batch")

// AppendBatch encodes b onto dst: the BatchVersion byte, then the counts
// and the samples. Error texts are cut to MaxErrText bytes.
func AppendBatch(dst []byte, b *Batch) []byte {
	dst = append(dst, BatchVersion)
	dst = binary.AppendUvarint(dst, b.Produced)
	dst = binary.AppendUvarint(dst, uint64(len(b.Samples)))
	var prev int64
	for _, s := range b.Samples {
		dst = binary.AppendUvarint(dst, s.Seq)
		dst = binary.AppendVarint(dst, s.Start-prev)
		prev = s.Start
		dst = binary.AppendVarint(dst, s.End-s.Start)
		dst = append(dst, byte(s.Status))
		dst = binary.AppendUvarint(dst, uint64(s.Client))
		dst = binary.AppendVarint(dst, s.Bytes)
		e := s.Err
		if len(e) > MaxErrText {
			e = e[:MaxErrText]
		}
		dst = binary.AppendUvarint(dst, uint64(len(e)))
		dst = append(dst, e...)
	}
	return dst
}

// Bounds of the encoding, for sizing batches before encoding them.
const (
	batchHeaderBound = 1 + 2*binary.MaxVarintLen64
	// seq, start, duration, bytes; client; status; error length
	sampleFixedBound = 4*binary.MaxVarintLen64 + binary.MaxVarintLen32 + 1 + 2
)

// SampleBound is the most bytes s can take in an encoded batch.
func SampleBound(s *sample.Sample) int {
	return sampleFixedBound + min(len(s.Err), MaxErrText)
}

// BatchFit returns how many of the first samples fit one batch: at most
// MaxBatch samples, encoded in at most MaxBatchBytes (at least one sample
// when there is any, since one sample is always far under the cap).
func BatchFit(samples []sample.Sample) int {
	size := batchHeaderBound
	for i := range samples {
		size += SampleBound(&samples[i])
		if i == MaxBatch || (size > MaxBatchBytes && i > 0) {
			return i
		}
	}
	return len(samples)
}

// DecodeBatch decodes a batch, checking its version and every field.
func DecodeBatch(p []byte) (*Batch, error) {
	if len(p) == 0 {
		return nil, errShort
	}
	if p[0] != BatchVersion && p[0] != batchVersion2 {
		return nil, fmt.Errorf("%w: version %d, this build reads %d and %d (are tester and controller the same diperf version?)",
			ErrBatchVersion, p[0], batchVersion2, BatchVersion)
	}
	d := decoder{p: p[1:], clients: p[0] >= 3}
	b := &Batch{Produced: d.uvarint()}
	n := d.uvarint()
	if d.err == nil && n > MaxBatch {
		return nil, fmt.Errorf("protocol: batch of %d samples (limit %d)", n, MaxBatch)
	}
	b.Samples = make([]sample.Sample, 0, n)
	var prev int64
	for i := uint64(0); i < n && d.err == nil; i++ {
		s, err := d.sample(&prev)
		if err != nil {
			return nil, err
		}
		b.Samples = append(b.Samples, s)
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.p) != 0 {
		return nil, fmt.Errorf("protocol: %d trailing bytes after sample batch", len(d.p))
	}
	return b, nil
}

type decoder struct {
	p       []byte
	err     error
	clients bool // samples carry their client index (version 3 on)
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.p)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.p = d.p[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.p)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.p = d.p[n:]
	return v
}

func (d *decoder) sample(prev *int64) (sample.Sample, error) {
	var s sample.Sample
	s.Seq = d.uvarint()
	s.Start = *prev + d.varint()
	*prev = s.Start
	dur := d.varint()
	s.End = s.Start + dur
	if d.err != nil || len(d.p) < 1 {
		return s, errShort
	}
	s.Status = sample.Status(d.p[0])
	d.p = d.p[1:]
	var client uint64
	if d.clients {
		client = d.uvarint()
	}
	s.Client = uint32(client)
	s.Bytes = d.varint()
	n := d.uvarint()
	switch {
	case d.err != nil:
		return s, d.err
	case dur < 0:
		return s, fmt.Errorf("protocol: sample %d ends before it starts", s.Seq)
	case !s.Status.Valid():
		return s, fmt.Errorf("protocol: sample %d has unknown status %d", s.Seq, s.Status)
	case client > MaxClientIndex:
		return s, fmt.Errorf("protocol: sample %d has client index %d (at most %d)", s.Seq, client, MaxClientIndex)
	case n > MaxErrText || n > uint64(len(d.p)):
		return s, fmt.Errorf("protocol: sample %d error text of %d bytes is too long or truncated", s.Seq, n)
	}
	s.Err = string(d.p[:n])
	d.p = d.p[n:]
	return s, nil
}
