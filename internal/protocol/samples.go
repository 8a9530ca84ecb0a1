package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

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
// runs hold it. Version 4 adds, after the client index, a flags byte and
// what it flags: the intended start (a varint, Start − Intended), the HTTP
// phases (four uvarints) and the extras (a count, then each key's length
// and bytes and its value's IEEE 754 bits, 8 bytes little-endian).
const BatchVersion = 4

// Flags of a version 4 sample.
const (
	flagIntended = 1 << iota
	flagPhases
	flagExtras
	knownFlags = flagIntended | flagPhases | flagExtras
)

// batchVersion3 is the encoding before intended starts, phases and
// extras, still decoded.
const batchVersion3 = 3

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
	for i := range b.Samples {
		dst = appendSample(dst, &b.Samples[i], prev)
		prev = b.Samples[i].Start
	}
	return dst
}

// appendSample encodes s onto dst, its start as a delta from prev (the
// previous sample's start in the batch, 0 for the first).
func appendSample(dst []byte, s *sample.Sample, prev int64) []byte {
	dst = binary.AppendUvarint(dst, s.Seq)
	dst = binary.AppendVarint(dst, s.Start-prev)
	dst = binary.AppendVarint(dst, s.End-s.Start)
	dst = append(dst, byte(s.Status))
	dst = binary.AppendUvarint(dst, uint64(s.Client))
	dst = appendV4(dst, s)
	dst = binary.AppendVarint(dst, s.Bytes)
	e := s.Err
	if len(e) > MaxErrText {
		e = e[:MaxErrText]
	}
	dst = binary.AppendUvarint(dst, uint64(len(e)))
	return append(dst, e...)
}

// appendV4 encodes the version 4 fields of s: flags, then the flagged.
// Extras past sample.MaxExtras, or with an invalid key, are left out.
func appendV4(dst []byte, s *sample.Sample) []byte {
	var flags byte
	if s.Intended != 0 {
		flags |= flagIntended
	}
	if !s.Phases.Zero() {
		flags |= flagPhases
	}
	extras := validExtras(s.Extras)
	if extras > 0 {
		flags |= flagExtras
	}
	dst = append(dst, flags)
	if flags&flagIntended != 0 {
		dst = binary.AppendVarint(dst, s.Start-s.Intended)
	}
	if flags&flagPhases != 0 {
		for _, v := range [...]int64{s.Phases.DNS, s.Phases.Connect, s.Phases.TLS, s.Phases.FirstByte} {
			dst = binary.AppendUvarint(dst, uint64(max(v, 0)))
		}
	}
	if flags&flagExtras != 0 {
		dst = binary.AppendUvarint(dst, uint64(extras))
		for _, e := range s.Extras {
			if !encodable(e) || extras == 0 {
				continue
			}
			extras--
			dst = binary.AppendUvarint(dst, uint64(len(e.Key)))
			dst = append(dst, e.Key...)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(e.Value))
		}
	}
	return dst
}

// encodable reports whether e is sent: a valid key and a finite value.
func encodable(e sample.Extra) bool {
	return sample.ValidExtraKey(e.Key) && !math.IsNaN(e.Value) && !math.IsInf(e.Value, 0)
}

// validExtras counts the extras of es that are encoded: those with a
// valid key and a finite value, at most sample.MaxExtras.
func validExtras(es []sample.Extra) int {
	n := 0
	for _, e := range es {
		if encodable(e) {
			n++
		}
	}
	return min(n, sample.MaxExtras)
}

// Bounds of the encoding, for sizing batches before encoding them.
const (
	batchHeaderBound = 1 + 2*binary.MaxVarintLen64
	// seq, start, duration, bytes, intended; client; status, flags; error
	// length; phases
	sampleFixedBound = 5*binary.MaxVarintLen64 + binary.MaxVarintLen32 + 2 + 2 + 4*binary.MaxVarintLen64
	extraBound       = 1 + sample.MaxExtraKey + 8
)

// SampleBound is the most bytes s can take in an encoded batch.
func SampleBound(s *sample.Sample) int {
	return sampleFixedBound + min(len(s.Err), MaxErrText) + 1 + min(len(s.Extras), sample.MaxExtras)*extraBound
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
	if p[0] < batchVersion2 || p[0] > BatchVersion {
		return nil, fmt.Errorf("%w: version %d, this build reads %d to %d (are tester and controller the same diperf version?)",
			ErrBatchVersion, p[0], batchVersion2, BatchVersion)
	}
	d := decoder{p: p[1:], clients: p[0] >= batchVersion3, v4: p[0] >= 4}
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
	v4      bool // samples carry flags and what they flag (version 4 on)
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
	if d.v4 {
		if err := d.fieldsV4(&s); err != nil {
			return s, err
		}
	}
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

// fieldsV4 decodes the version 4 fields of s.
func (d *decoder) fieldsV4(s *sample.Sample) error {
	if d.err != nil || len(d.p) < 1 {
		return errShort
	}
	flags := d.p[0]
	d.p = d.p[1:]
	if flags&^knownFlags != 0 {
		return fmt.Errorf("protocol: sample %d has unknown flags %#x", s.Seq, flags)
	}
	if flags&flagIntended != 0 {
		lag := d.varint()
		s.Intended = s.Start - lag
		if s.Intended <= 0 && d.err == nil {
			return fmt.Errorf("protocol: sample %d has intended start %d", s.Seq, s.Intended)
		}
	}
	if flags&flagPhases != 0 {
		for _, v := range [...]*int64{&s.Phases.DNS, &s.Phases.Connect, &s.Phases.TLS, &s.Phases.FirstByte} {
			u := d.uvarint()
			if u > math.MaxInt64 {
				return fmt.Errorf("protocol: sample %d has a phase of %d ns", s.Seq, u)
			}
			*v = int64(u)
		}
	}
	if flags&flagExtras != 0 {
		return d.extras(s)
	}
	return d.err
}

// extras decodes the extras of s.
func (d *decoder) extras(s *sample.Sample) error {
	n := d.uvarint()
	if d.err != nil {
		return d.err
	}
	if n == 0 || n > sample.MaxExtras {
		return fmt.Errorf("protocol: sample %d has %d extras (1..%d)", s.Seq, n, sample.MaxExtras)
	}
	s.Extras = make([]sample.Extra, n)
	for i := range s.Extras {
		k := d.uvarint()
		if d.err != nil || k > sample.MaxExtraKey || k+8 > uint64(len(d.p)) {
			return fmt.Errorf("protocol: sample %d has a truncated or too long extra", s.Seq)
		}
		key := string(d.p[:k])
		v := math.Float64frombits(binary.LittleEndian.Uint64(d.p[k:]))
		d.p = d.p[k+8:]
		if !sample.ValidExtraKey(key) || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("protocol: sample %d has a bad extra %q=%v", s.Seq, key, v)
		}
		s.Extras[i] = sample.Extra{Key: key, Value: v}
	}
	return nil
}
