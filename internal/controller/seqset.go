package controller

// seqWindow is how far below a tester's highest sample seq a seq not seen
// yet is still taken: 131,072 samples, at most 16 KB of bitmap per tester,
// and only while its seqs have gaps. A tester's seqs come in order on TCP;
// over UDP a late datagram (protocol.UDPWindow datagrams at most) brings
// seqs at most some 70,000 below the highest. A seq further below is
// refused as a duplicate: it may have come already, and nothing the
// controller still holds can tell.
const seqWindow = 1 << 17

// seqSet is the set of a tester's sample seqs seen, in memory that does
// not grow with the run: every seq below base counts as seen, and a bitmap
// holds the seqs from base up (bit i of word w: seq base + 64w + i). The
// words below the first gap are dropped as they fill, so a tester whose
// seqs come in order holds a word or two; a gap that stays open is given
// up once it falls seqWindow below the highest seq.
type seqSet struct {
	base uint64 // a multiple of 64; every seq below it is seen
	bits []uint64
}

// add records seq and reports whether it was new (false: a duplicate, or
// too far below the highest seq to tell).
func (q *seqSet) add(seq uint64) bool {
	if q.base == 0 && len(q.bits) == 0 {
		q.bits = append(q.bits, 1) // 0 is no seq: it counts as seen
	}
	if seq < q.base {
		return false
	}
	if seq-q.base >= seqWindow+64 {
		q.slide(seq - seqWindow)
	}
	off := seq - q.base
	w, bit := int(off/64), uint64(1)<<(off%64)
	for len(q.bits) <= w {
		q.bits = append(q.bits, 0)
	}
	if q.bits[w]&bit != 0 {
		return false
	}
	q.bits[w] |= bit
	q.compact()
	return true
}

// slide gives up the seqs below low (rounded down to a word): they count
// as seen from now on.
func (q *seqSet) slide(low uint64) {
	low -= low % 64
	drop := (low - q.base) / 64
	if drop >= uint64(len(q.bits)) {
		q.bits = q.bits[:0]
	} else {
		q.bits = q.bits[drop:]
	}
	q.base = low
}

// compact drops the full words at the bottom.
func (q *seqSet) compact() {
	n := 0
	for n < len(q.bits) && q.bits[n] == ^uint64(0) {
		n++
	}
	if n == 0 {
		return
	}
	q.base += uint64(n) * 64
	if n == len(q.bits) {
		q.bits = q.bits[:0] // the same array again: in-order seqs allocate nothing
		return
	}
	q.bits = q.bits[n:]
}
