package protocol

import (
	"math/rand/v2"
	"testing"
)

// feed accounts for each sequence number of seqs (one sample each) and
// returns the drops by reason.
func feed(w *seqWindow, seqs ...uint64) map[DropReason]int {
	drops := map[DropReason]int{}
	for _, s := range seqs {
		if r := w.add(s, 1); r != 0 {
			drops[r]++
		}
	}
	return drops
}

func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

// TestSeqWindowCounts checks exact counts on synthetic streams: loss in
// the middle and at the end, reordering, duplication, replays, arrivals
// older than the window, and jumps past it.
func TestSeqWindowCounts(t *testing.T) {
	t.Parallel()
	cat := func(parts ...[]uint64) []uint64 {
		var out []uint64
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		seqs  []uint64
		last  uint64
		want  LossStats // Finished and Last are filled in
		drops map[DropReason]int
	}{
		{name: "clean", seqs: seqRange(1, 100), last: 100,
			want: LossStats{Received: 100, Samples: 100, Highest: 100}},
		{name: "nothing arrived", last: 7, want: LossStats{Lost: 7}},
		{name: "gaps and trailing loss", seqs: []uint64{1, 2, 4, 7, 8}, last: 10,
			want: LossStats{Received: 5, Samples: 5, Lost: 5, Highest: 8}}, // 3, 5, 6, 9, 10
		{name: "first ones lost", seqs: []uint64{3, 4}, last: 4,
			want: LossStats{Received: 2, Samples: 2, Lost: 2, Highest: 4}},
		{name: "reordered, nothing lost", seqs: []uint64{2, 1, 5, 3, 4, 6}, last: 6,
			want: LossStats{Received: 6, Samples: 6, Late: 3, Highest: 6}},
		{name: "duplicates and replays", seqs: []uint64{1, 1, 2, 3, 2, 1, 3, 4}, last: 4,
			want:  LossStats{Received: 4, Samples: 4, Duplicates: 4, Highest: 4},
			drops: map[DropReason]int{DropDuplicate: 4}},
		{name: "late within the window fills its gap",
			seqs: cat(seqRange(1, 9), seqRange(11, 10+UDPWindow-1), []uint64{10}), last: 10 + UDPWindow - 1,
			want: LossStats{Received: 9 + UDPWindow, Samples: 9 + UDPWindow, Late: 1, Highest: 10 + UDPWindow - 1}},
		{name: "late past the window is stale and lost once",
			seqs: cat(seqRange(1, 9), seqRange(11, 10+UDPWindow), []uint64{10, 10}), last: 10 + UDPWindow,
			want:  LossStats{Received: 9 + UDPWindow, Samples: 9 + UDPWindow, Stale: 2, Lost: 1, Highest: 10 + UDPWindow},
			drops: map[DropReason]int{DropStale: 2}},
		{name: "a replay of a received one past the window is stale, not lost",
			seqs: cat(seqRange(1, 2*UDPWindow), []uint64{1, 2}), last: 2 * UDPWindow,
			want:  LossStats{Received: 2 * UDPWindow, Samples: 2 * UDPWindow, Stale: 2, Highest: 2 * UDPWindow},
			drops: map[DropReason]int{DropStale: 2}},
		{name: "a jump past a whole window", seqs: []uint64{1, 2, 5, 5000, 4000, 3000}, last: 5001,
			want:  LossStats{Received: 5, Samples: 5, Late: 1, Stale: 1, Lost: 4996, Highest: 5000},
			drops: map[DropReason]int{DropStale: 1}},
		{name: "a first datagram far in", seqs: []uint64{1 << 31, 1<<31 - 1}, last: 1 << 31,
			want: LossStats{Received: 2, Samples: 2, Late: 1, Lost: 1<<31 - 2, Highest: 1 << 31}},
		{name: "absurdly far ahead", seqs: []uint64{1, MaxSeqJump + 2, 2}, last: 2,
			want: LossStats{Received: 2, Samples: 2, Ahead: 1, Highest: 2}, drops: map[DropReason]int{DropAhead: 1}},
		{name: "sequence 0", seqs: []uint64{0, 1}, last: 1,
			want: LossStats{Received: 1, Samples: 1, Highest: 1}, drops: map[DropReason]int{DropMalformed: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var w seqWindow
			drops := feed(&w, tc.seqs...)
			got, err := w.finish(tc.last)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Last, tc.want.Finished = tc.last, true
			if got != tc.want {
				t.Errorf("counts:\n got %+v\nwant %+v", got, tc.want)
			}
			if got.Received+got.Lost != got.Last {
				t.Errorf("received %d + lost %d != last %d", got.Received, got.Lost, got.Last)
			}
			if len(drops) != len(tc.drops) {
				t.Errorf("drops %v, want %v", drops, tc.drops)
			}
			for r, n := range tc.drops {
				if drops[r] != n {
					t.Errorf("drops %v, want %v", drops, tc.drops)
				}
			}
			if r := w.add(tc.last+1, 1); r != DropClosed {
				t.Errorf("after finish: %v, want closed", r)
			}
		})
	}
}

// TestSeqWindowFinishBelowHighest: a Done whose last is below what
// arrived is an error, and the counts use the highest.
func TestSeqWindowFinishBelowHighest(t *testing.T) {
	t.Parallel()
	var w seqWindow
	feed(&w, 1, 3)
	st, err := w.finish(2)
	if err == nil {
		t.Fatal("no error for a last below the highest")
	}
	if st.Last != 3 || st.Lost != 1 || st.Received != 2 {
		t.Errorf("counts %+v", st)
	}
}

// TestSeqWindowMissing: what a late datagram could still fill.
func TestSeqWindowMissing(t *testing.T) {
	t.Parallel()
	var w seqWindow
	feed(&w, 1, 2, 4, 6)
	if got := w.missing(8); got != 4 { // 3, 5, 7, 8
		t.Errorf("missing %d, want 4", got)
	}
	feed(&w, 3, 5, 7, 8)
	if got := w.missing(8); got != 0 {
		t.Errorf("missing %d, want 0", got)
	}
}

// TestSeqWindowModel runs random streams (loss, reordering by up to twice
// the window, duplication) through the window and through a plain model
// that keeps every number received: the counts agree at every step.
func TestSeqWindowModel(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := uint64(2000 + rng.IntN(20000))
		var stream []uint64
		for s := uint64(1); s <= n; s++ {
			if rng.Float64() < 0.1 {
				continue // lost
			}
			stream = append(stream, s)
			if rng.Float64() < 0.05 {
				stream = append(stream, s) // duplicated
			}
		}
		for range len(stream) / 10 { // reordered
			i := rng.IntN(len(stream))
			j := min(len(stream)-1, i+rng.IntN(2*UDPWindow))
			stream[i], stream[j] = stream[j], stream[i]
		}
		var w seqWindow
		got := map[uint64]bool{}
		var top, stale, dups uint64
		for i, s := range stream {
			var want DropReason
			switch {
			case s > top:
				top = s
				got[s] = true
			case top-s >= UDPWindow:
				stale++
				want = DropStale
			case got[s]:
				dups++
				want = DropDuplicate
			default:
				got[s] = true
			}
			if r := w.add(s, 1); r != want {
				t.Fatalf("seed %d, %d: %v, the model says %v", seed, s, r, want)
			}
			if w.st.Received != uint64(len(got)) || w.st.Stale != stale || w.st.Duplicates != dups {
				t.Fatalf("seed %d after %d: window %+v, model received %d stale %d dups %d", seed, s, w.st, len(got), stale, dups)
			}
			if i%997 == 0 && top > UDPWindow { // numbers out of the window never received
				if lost := top - UDPWindow - uint64(countBelow(got, top-UDPWindow)); w.st.Lost != lost {
					t.Fatalf("seed %d after %d: lost %d, model %d", seed, s, w.st.Lost, lost)
				}
			}
		}
		st, err := w.finish(n)
		if err != nil {
			t.Fatal(err)
		}
		if st.Received+st.Lost != n || st.Lost != n-uint64(len(got)) {
			t.Fatalf("seed %d: %+v, model received %d of %d", seed, st, len(got), n)
		}
	}
}

// countBelow counts the numbers in set at or below x.
func countBelow(set map[uint64]bool, x uint64) int {
	n := 0
	for s := range set {
		if s <= x {
			n++
		}
	}
	return n
}

// FuzzSeqWindow feeds arbitrary streams of sequence numbers (each byte
// pair a signed step from the last number) to the window: after Finish
// every number up to the last is in exactly one of Received and Lost, and
// Received is the number of distinct numbers accepted.
func FuzzSeqWindow(f *testing.F) {
	f.Add([]byte{1, 0, 1, 0, 0xff, 0xff, 3, 0})
	f.Add([]byte{0, 4, 0, 0xfc, 1, 0})
	f.Fuzz(func(t *testing.T, steps []byte) {
		var w seqWindow
		accepted := map[uint64]bool{}
		seq := uint64(1)
		for i := 0; i+1 < len(steps); i += 2 {
			seq += uint64(int64(int16(uint16(steps[i])<<8 | uint16(steps[i+1]))))
			if w.add(seq, 1) == 0 {
				if accepted[seq] {
					t.Fatalf("%d accepted twice", seq)
				}
				accepted[seq] = true
			}
		}
		st, _ := w.finish(w.st.Highest + uint64(len(steps)))
		if st.Received != uint64(len(accepted)) || st.Received+st.Lost != st.Last {
			t.Fatalf("%+v, %d accepted", st, len(accepted))
		}
	})
}
