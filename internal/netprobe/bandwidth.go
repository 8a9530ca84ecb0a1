package netprobe

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// BandwidthResult is one bandwidth test, as the receiver counted it.
type BandwidthResult struct {
	// TestTime is the receiver's counting window (the requested test time).
	TestTime time.Duration
	// Bytes is what arrived at the receiver within the window.
	Bytes uint64
	// BitsPerSec is the throughput over the whole test: Bytes·8/TestTime.
	BitsPerSec float64
	// SteadyBitsPerSec is the throughput after slow start: over the bins
	// from SteadyFrom to the end (see Steady).
	SteadyBitsPerSec float64
	// SteadyFrom is when, from the window's start, the steady part begins.
	SteadyFrom time.Duration
	// Bins are the bytes that arrived in each Bin of the window.
	Bins []uint64
	// Sent is what the sender wrote (some of it may not have arrived in
	// the window).
	Sent uint64
	// Start is when the sender began to send (after the handshake): the
	// test's data flowed from then for TestTime.
	Start time.Time
}

// Bandwidth runs a bandwidth test of testTime (rounded up to a whole
// number of Bin) from here to the server at addr: it sends as fast as TCP
// takes for testTime and returns what the receiver counted. ErrBusy when
// the server takes part in another bandwidth test.
func (c *Client) Bandwidth(ctx context.Context, addr string, testTime time.Duration) (BandwidthResult, error) {
	testTime = (testTime + Bin - 1) / Bin * Bin
	req := Request{Kind: KindBandwidth, TestTime: testTime, Nonce: newNonce()}
	s, err := c.open(ctx, addr, req)
	if err != nil {
		return BandwidthResult{}, err
	}
	defer s.Close()
	start := time.Now()
	sent, err := send(s.conn, testTime)
	if err != nil {
		return BandwidthResult{}, fmt.Errorf("netprobe: bandwidth test to %s: %w", addr, err)
	}
	rep, err := c.readReport(s.conn, s.nonce, s.body)
	abort(s.conn)
	if err != nil {
		return BandwidthResult{}, fmt.Errorf("netprobe: bandwidth test to %s: %w", addr, err)
	}
	r := resultOf(rep, sent)
	r.Start = start
	return r, nil
}

// send writes for testTime and returns the bytes written.
func send(conn net.Conn, testTime time.Duration) (uint64, error) {
	buf := make([]byte, 128<<10)
	_ = conn.SetWriteDeadline(time.Now().Add(testTime))
	var sent uint64
	for {
		n, err := conn.Write(buf)
		sent += uint64(n)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return sent, nil
			}
			return sent, fmt.Errorf("sending: %w", err)
		}
	}
}

// abort makes the coming Close reset the connection: what the sender
// still holds (up to its send buffer: seconds of a slow link) is dropped
// instead of sent, so the link is free when the test time is over.
func abort(conn net.Conn) {
	if l, ok := conn.(interface{ SetLinger(int) error }); ok {
		_ = l.SetLinger(0)
	}
}

// readReport reads and checks the receiver's report.
func (c *Client) readReport(conn net.Conn, nonce, body []byte) (report, error) {
	_ = conn.SetReadDeadline(time.Now().Add(grace))
	head := make([]byte, reportHead)
	if _, err := io.ReadFull(conn, head); err != nil {
		return report{}, fmt.Errorf("reading the receiver's report: %w", err)
	}
	bins, elapsed, err := reportHeader(head)
	if err != nil {
		return report{}, err
	}
	rest := make([]byte, 8*bins+32)
	if _, err := io.ReadFull(conn, rest); err != nil {
		return report{}, fmt.Errorf("reading the receiver's report: %w", err)
	}
	return parseReport(c.Token, nonce, body, head, rest, bins, elapsed)
}

// resultOf derives the throughputs from a report.
func resultOf(rep report, sent uint64) BandwidthResult {
	r := BandwidthResult{TestTime: rep.Elapsed, Bins: rep.Bins, Sent: sent}
	for _, n := range rep.Bins {
		r.Bytes += n
	}
	r.BitsPerSec = float64(r.Bytes) * 8 / rep.Elapsed.Seconds()
	r.SteadyFrom, r.SteadyBitsPerSec = Steady(rep.Bins)
	return r
}

// Steady is the throughput after slow start of a test's bins (bytes per
// Bin): the final second's average (the last 10 bins, or all when fewer)
// is the reference; the steady part starts at the first bin that reaches
// 90% of it and runs to the end. It returns the steady part's start (from
// the test's start) and its throughput in bits/s.
func Steady(bins []uint64) (from time.Duration, bitsPerSec float64) {
	if len(bins) == 0 {
		return 0, 0
	}
	last := bins[max(0, len(bins)-int(time.Second/Bin)):]
	var sum uint64
	for _, n := range last {
		sum += n
	}
	threshold := 0.9 * float64(sum) / float64(len(last))
	start := len(bins) - 1
	for i, n := range bins {
		if float64(n) >= threshold {
			start = i
			break
		}
	}
	var steady uint64
	for _, n := range bins[start:] {
		steady += n
	}
	span := time.Duration(len(bins)-start) * Bin
	return time.Duration(start) * Bin, float64(steady) * 8 / span.Seconds()
}

// equalMAC compares two MACs in constant time.
func equalMAC(a, b []byte) bool { return hmac.Equal(a, b) }
