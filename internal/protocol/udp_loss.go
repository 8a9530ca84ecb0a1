package protocol

import (
	"fmt"
	"math/bits"
)

// Loss accounting of one UDP session: a sliding window of UDPWindow
// sequence numbers below the highest seen (as IPsec's and DTLS's
// anti-replay windows, RFC 4303 §3.4.3, RFC 6479), with exact counts.
// Every sequence number from 1 to the last the tester sealed ends in
// exactly one of Received and Lost:
//
//   - a new highest is received; the numbers it skips are gaps;
//   - a gap filled while it is still in the window is received (and
//     counted Late too);
//   - a gap that slides out of the window is lost, at that moment; a
//     datagram arriving for it later is Stale: dropped, its samples with
//     it, so that it is not counted twice;
//   - at the end (Finish, with the tester's last sequence number from its
//     Done) the gaps still in the window and the numbers past the highest
//     are lost.
//
// Duplicates (a number already received, within the window) are dropped
// and counted; a duplicate older than the window is Stale.
const (
	// UDPWindow is how far below the highest sequence number a late
	// datagram is still taken: 1,024 datagrams, 128 bytes of bitmap per
	// session. A tester sends a datagram per batch (at most a few
	// thousand a second), so this is a second or more of reordering; a
	// network reorders by a few datagrams.
	UDPWindow = 1024
	// MaxSeqJump is the most a datagram may advance the highest sequence
	// number: a genuine tester never skips four billion datagrams, and the
	// bound keeps the counts far from overflowing.
	MaxSeqJump = 1 << 32
)

// LossStats are the counts of one UDP session's datagrams. After Finish,
// Received + Lost == Last.
type LossStats struct {
	Received   uint64 `json:"received"`   // distinct datagrams accepted
	Samples    uint64 `json:"samples"`    // samples they carried (their header counts)
	Late       uint64 `json:"late"`       // of Received, those that arrived below the highest (filled a gap)
	Duplicates uint64 `json:"duplicates"` // authentic datagrams already received, dropped
	Stale      uint64 `json:"stale"`      // authentic datagrams older than the window, dropped (their number is in Lost or Received already)
	Ahead      uint64 `json:"ahead"`      // authentic datagrams more than MaxSeqJump ahead, dropped
	Lost       uint64 `json:"lost"`       // sequence numbers never received: out of the window, or missing at Finish
	Highest    uint64 `json:"highest"`    // highest sequence number received
	Last       uint64 `json:"last"`       // the tester's last sequence number, once finished
	Finished   bool   `json:"finished"`
}

// seqWindow is the accounting of one session; not safe for concurrent use.
type seqWindow struct {
	bits [UDPWindow / 64]uint64 // bit seq%UDPWindow: seq received, for seq in (top-UDPWindow, top]
	st   LossStats
}

// add accounts for an authentic datagram; a drop returns its reason.
func (w *seqWindow) add(seq uint64, count uint16) DropReason {
	top := w.st.Highest
	switch {
	case w.st.Finished:
		return DropClosed
	case seq == 0:
		return DropMalformed
	case seq > top && seq-top > MaxSeqJump:
		w.st.Ahead++
		return DropAhead
	case seq > top:
		w.advance(seq)
	case top-seq >= UDPWindow:
		w.st.Stale++
		return DropStale
	case w.has(seq):
		w.st.Duplicates++
		return DropDuplicate
	default:
		w.st.Late++
	}
	w.bits[seq/64%uint64(len(w.bits))] |= 1 << (seq % 64)
	w.st.Received++
	w.st.Samples += uint64(count)
	return 0
}

func (w *seqWindow) has(seq uint64) bool {
	return w.bits[seq/64%uint64(len(w.bits))]&(1<<(seq%64)) != 0
}

// low is the lowest sequence number in the window (1 at the start).
func (w *seqWindow) low() uint64 {
	if w.st.Highest < UDPWindow {
		return 1
	}
	return w.st.Highest - UDPWindow + 1
}

// advance makes to the highest: the numbers leaving the window that were
// never received, and those skipped past it, are lost.
func (w *seqWindow) advance(to uint64) {
	from := w.st.Highest
	switch {
	case from == 0: // an empty window: nothing leaves
	case to-from >= UDPWindow: // the whole window leaves
		w.st.Lost += w.unreceived()
		w.bits = [UDPWindow / 64]uint64{}
	case to > UDPWindow: // the window's lowest, up to to-UDPWindow (below from), leave
		for s := w.low(); s <= to-UDPWindow; s++ {
			if !w.has(s) {
				w.st.Lost++
			}
			w.bits[s/64%uint64(len(w.bits))] &^= 1 << (s % 64)
		}
	}
	if to > UDPWindow && to-UDPWindow > from { // never in the window
		w.st.Lost += to - UDPWindow - from
	}
	w.st.Highest = to
}

// unreceived counts the numbers of the window not received.
func (w *seqWindow) unreceived() uint64 {
	if w.st.Highest == 0 {
		return 0
	}
	n := w.st.Highest - w.low() + 1
	for _, b := range w.bits {
		n -= uint64(bits.OnesCount64(b))
	}
	return n
}

// missing is how many numbers up to last are neither received nor yet
// counted lost: what a late datagram could still fill.
func (w *seqWindow) missing(last uint64) uint64 {
	n := w.unreceived()
	if last > w.st.Highest {
		n += last - w.st.Highest
	}
	return n
}

// finish ends the session at last, the tester's last sequence number:
// every number up to it not received is lost. A last below the highest
// received contradicts the datagrams (the tester's Done is wrong): the
// highest is used and the error says so.
func (w *seqWindow) finish(last uint64) (LossStats, error) {
	if w.st.Finished {
		return w.st, nil
	}
	var err error
	if last < w.st.Highest {
		err = fmt.Errorf("udp: the tester's last sequence number %d is below the highest received, %d", last, w.st.Highest)
		last = w.st.Highest
	}
	w.st.Lost += w.missing(last)
	w.st.Last, w.st.Finished = last, true
	return w.st, err
}
