package tree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/stats"
)

// summaryV1 is the version byte of a summary's wire form.
const summaryV1 = 1

// NewHist returns an empty response-time histogram of the summaries'
// geometry: the analyzer's (stats.NewRTHist), so that a leaf's summaries
// merge into what `diperf analyze` would compute.
func NewHist() *hdr.Histogram { return stats.NewRTHist() }

// countsLen is the number of buckets of a histogram of that geometry.
var countsLen = len(NewHist().Export().Counts)

// Summary is what one node of the tree knows of one quantum (one second):
// calls by status, exact moments of their response times, the terms of
// Jain's fairness index over its testers, and the response-time histogram
// as dense HDR counts. Every field merges by addition (min/max by min/max),
// so a parent's summary is its children's merged, whatever the subtree's
// size. Its figures are read as a stats.Bucket (Bucket), as every other
// view's are.
type Summary struct {
	Quantum       int64    // quantum index on the global timeline
	ByStatus      []uint64 // calls ended in the quantum, by sample.Status
	stats.Moments          // the calls' response times: count, Σ, Σ², min, max (ns)
	Testers       uint64   // testers active in the quantum
	SumOK         float64  // Σ over testers of its successful calls
	SqOK          float64  // Σ over testers of its successful calls²
	Counts        []int64  // HDR counts by flat bucket index
}

// NewSummary returns an empty summary of quantum q.
func NewSummary(q int64) *Summary {
	return &Summary{Quantum: q, ByStatus: make([]uint64, len(sample.Statuses())), Counts: make([]int64, countsLen)}
}

// SetHist replaces s's histogram counts by h's (h must have NewHist's
// geometry).
func (s *Summary) SetHist(h *hdr.Histogram) { copy(s.Counts, h.Export().Counts) }

// Hist returns s's response-time histogram as an hdr.Histogram, for
// percentiles.
func (s *Summary) Hist() *hdr.Histogram {
	return hdr.Import(&hdr.Snapshot{LowestTrackableValue: stats.RTLowestUs, HighestTrackableValue: stats.RTHighestUs,
		SignificantFigures: stats.RTDigits, Counts: s.Counts, IntegerToDoubleConversionRatio: 1})
}

// Bucket is s as a stats.Bucket: its successful and failed calls (not the
// cancelled ones), its response times and their histogram.
func (s *Summary) Bucket() *stats.Bucket {
	b := &stats.Bucket{Moments: s.Moments, Hist: s.Hist()}
	for i, n := range s.ByStatus {
		switch sample.Status(i) {
		case sample.OK:
			b.OK += n
		case sample.Cancelled:
		default:
			b.Failed += n
		}
	}
	return b
}

// Jain returns Jain's fairness index of the quantum's successful calls per
// tester (1 when every tester got as many; 0 when none succeeded).
func (s *Summary) Jain() float64 {
	if s.Testers == 0 || s.SqOK == 0 {
		return 0
	}
	return s.SumOK * s.SumOK / (float64(s.Testers) * s.SqOK)
}

// Merge adds o into s (both of the same quantum).
func (s *Summary) Merge(o *Summary) {
	for i, c := range o.ByStatus {
		s.ByStatus[i] += c
	}
	s.Moments.Merge(o.Moments)
	s.Testers += o.Testers
	s.SumOK += o.SumOK
	s.SqOK += o.SqOK
	for i, c := range o.Counts {
		s.Counts[i] += c
	}
}

// AppendEncoded appends s's wire form to dst: a version byte, the scalars
// as varints and float64s, then the non-zero buckets as (index delta,
// count) varint pairs. Its size grows with the buckets in use (the spread
// of the quantum's response times), not with the calls or the testers.
func (s *Summary) AppendEncoded(dst []byte) []byte {
	dst = append(dst, summaryV1)
	dst = binary.AppendVarint(dst, s.Quantum)
	dst = binary.AppendUvarint(dst, uint64(len(s.ByStatus)))
	for _, c := range s.ByStatus {
		dst = binary.AppendUvarint(dst, c)
	}
	dst = binary.AppendUvarint(dst, uint64(s.N))
	dst = binary.AppendVarint(dst, s.Min)
	dst = binary.AppendVarint(dst, s.Max)
	dst = binary.AppendUvarint(dst, s.Testers)
	for _, f := range [...]float64{s.Sum, s.SumSq, s.SumOK, s.SqOK} {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
	}
	nz := 0
	for _, c := range s.Counts {
		if c != 0 {
			nz++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(nz))
	last := -1
	for i, c := range s.Counts {
		if c != 0 {
			dst = binary.AppendUvarint(dst, uint64(i-last))
			dst = binary.AppendUvarint(dst, uint64(c))
			last = i
		}
	}
	return dst
}

// maxCalls bounds the response times a summary may count (more than any
// run reaches in a second: a count beyond is a corrupt summary).
const maxCalls = 1 << 40

// errSummary is wrapped by every decoding error.
var errSummary = errors.New("bad summary")

// MergeEncoded decodes one encoded summary and adds it into s without
// building the child's dense histogram: this is an aggregator's whole
// per-child work. The child's quantum must be s's.
func (s *Summary) MergeEncoded(b []byte) error {
	d := decoder{b: b}
	if v := d.byte(); v != summaryV1 {
		return fmt.Errorf("%w: version %d, want %d", errSummary, v, summaryV1)
	}
	if q := d.varint(); d.err == nil && q != s.Quantum {
		return fmt.Errorf("%w: quantum %d merged into quantum %d", errSummary, q, s.Quantum)
	}
	if n := d.uvarint(); d.err == nil && n != uint64(len(s.ByStatus)) {
		return fmt.Errorf("%w: %d status classes, want %d", errSummary, n, len(s.ByStatus))
	}
	for i := range s.ByStatus {
		s.ByStatus[i] += d.uvarint()
	}
	n, lo, hi := d.uvarint(), d.varint(), d.varint()
	s.Testers += d.uvarint()
	sum, sq := d.float(), d.float()
	s.SumOK += d.float()
	s.SqOK += d.float()
	if d.err != nil {
		return d.err
	}
	if n > maxCalls {
		return fmt.Errorf("%w: %d response times, more than %d", errSummary, n, uint64(maxCalls))
	}
	s.Moments.Merge(stats.Moments{N: int(n), Sum: sum, SumSq: sq, Min: lo, Max: hi})
	return s.mergeBuckets(&d)
}

// mergeBuckets adds the (index delta, count) pairs left in d to s.Counts.
func (s *Summary) mergeBuckets(d *decoder) error {
	nz := d.uvarint()
	idx := -1
	for i := uint64(0); i < nz && d.err == nil; i++ {
		delta, c := d.uvarint(), d.uvarint()
		if delta == 0 || delta > uint64(len(s.Counts)) {
			return fmt.Errorf("%w: bucket index delta %d", errSummary, delta)
		}
		idx += int(delta)
		if idx >= len(s.Counts) {
			return fmt.Errorf("%w: bucket %d beyond %d buckets", errSummary, idx, len(s.Counts))
		}
		s.Counts[idx] += int64(c)
	}
	if d.err == nil && len(d.b) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", errSummary, len(d.b))
	}
	return d.err
}

// decoder reads varints and floats, keeping the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) float() float64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

// fail records a truncated summary once.
func (d *decoder) fail() {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated", errSummary)
	}
	d.b = nil
}
