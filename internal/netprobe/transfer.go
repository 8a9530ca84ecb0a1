package netprobe

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// receive counts what arrives for testTime in bins and sends the report;
// it returns the bytes that arrived. Past maxBytes (0: no bound) it stops
// with errOverBytes, and sends no report.
func receive(c net.Conn, testTime time.Duration, maxBytes uint64, token, nonce, request []byte) (uint64, error) {
	t0 := time.Now()
	_ = c.SetReadDeadline(t0.Add(testTime))
	rep := report{Elapsed: testTime, Bins: make([]uint64, testTime/Bin)}
	buf := make([]byte, 128<<10)
	var got uint64
	for {
		want := buf
		if maxBytes > 0 && uint64(len(want)) > maxBytes-got+1 {
			want = buf[:maxBytes-got+1]
		}
		n, err := c.Read(want)
		if n > 0 {
			got += uint64(n)
			i := min(int(time.Since(t0)/Bin), len(rep.Bins)-1)
			rep.Bins[i] += uint64(n)
		}
		if maxBytes > 0 && got > maxBytes {
			return got, errOverBytes
		}
		if err != nil {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				return got, fmt.Errorf("netprobe: receiving: %w", err)
			}
			break
		}
	}
	if _, err := c.Write(encodeReport(token, nonce, request, rep)); err != nil {
		return got, fmt.Errorf("netprobe: sending the report: %w", err)
	}
	return got, nil
}

// drain discards what still arrives after the counting window, until the
// sender closes, for at most drainTime, and at most left bytes (-1: no
// bound), so that the report is not lost to a reset of a connection
// closed with unread data. It returns the bytes discarded.
func drain(c net.Conn, left int64) uint64 {
	_ = c.SetReadDeadline(time.Now().Add(drainTime))
	var r io.Reader = c
	if left >= 0 {
		r = io.LimitReader(c, left)
	}
	n, _ := io.Copy(io.Discard, r)
	return uint64(n)
}

// echo answers size-byte requests with size bytes, one at a time, until
// the client closes or the deadline passes, or the bytes moved would pass
// maxBytes (0: no bound: errOverBytes). A request that arrives before the
// answer to the last one was sent (a client sending ahead, which makes a
// latency test a stream) ends it with errPipelined. It returns the
// transactions served and the bytes moved both ways.
func echo(c net.Conn, size int, maxBytes uint64) (n int, moved uint64, err error) {
	buf := make([]byte, size+1)
	per := 2 * uint64(size)
	for {
		if maxBytes > 0 && moved+per > maxBytes {
			return n, moved, errOverBytes
		}
		if err := readOne(c, buf); err != nil {
			return n, moved, err
		}
		if _, err := c.Write(buf[:size]); err != nil {
			return n, moved, err
		}
		n++
		moved += per
	}
}

// readOne reads one request of len(buf)-1 bytes; a byte more, already
// there, is errPipelined.
func readOne(c net.Conn, buf []byte) error {
	size := len(buf) - 1
	for got := 0; got < size; {
		k, err := c.Read(buf[got:])
		got += k
		if got > size {
			return errPipelined
		}
		if err != nil && got < size {
			return err
		}
	}
	return nil
}
