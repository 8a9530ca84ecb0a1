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
	// Wire is what the test's connection sent and received at this end.
	Wire Traffic
	// Capped: the sender stopped at its byte allowance; TestTime, Bins
	// and the throughputs cover the bins up to the last that received
	// data, and the throughput is at least what the link gives.
	Capped bool
}

// Bandwidth runs a bandwidth test of testTime (rounded up to a whole
// number of Bin) from here to the server at addr: it sends as fast as TCP
// takes for testTime and returns what the receiver counted. ErrBusy when
// the server takes part in another bandwidth test.
func (c *Client) Bandwidth(ctx context.Context, addr string, testTime time.Duration) (BandwidthResult, error) {
	return c.BandwidthWithin(ctx, addr, testTime, 0)
}

// BandwidthWithin is Bandwidth with a byte allowance: the test's traffic,
// both ways, stays within maxBytes (0: no cap). It stops sending when
// the data would pass what the handshake and the report leave; the
// result is then Capped and measured over the bins that received data.
// The result's Wire is set even when the test fails.
func (c *Client) BandwidthWithin(ctx context.Context, addr string, testTime time.Duration, maxBytes uint64) (BandwidthResult, error) {
	testTime = roundBins(testTime)
	payload, err := dataAllowance(maxBytes, MinBytes(KindBandwidth, testTime, 0))
	if err != nil {
		return BandwidthResult{}, fmt.Errorf("netprobe: bandwidth test to %s: %w", addr, err)
	}
	req := Request{Kind: KindBandwidth, TestTime: testTime, Nonce: newNonce()}
	s, err := c.open(ctx, addr, req)
	if err != nil {
		return BandwidthResult{Wire: s.traffic()}, err
	}
	defer s.Close()
	start := time.Now()
	sent, err := send(s.conn, testTime, payload)
	if err == nil {
		var rep report
		rep, err = c.readReport(s.conn, s.nonce, s.body, start.Add(testTime+AnswerTime(testTime)))
		abort(s.raw)
		if err == nil {
			r := resultOf(rep, sent, sent == payload)
			r.Start, r.Wire = start, s.traffic()
			return r, nil
		}
	}
	return BandwidthResult{Wire: s.traffic()}, fmt.Errorf("netprobe: bandwidth test to %s: %w", addr, err)
}

// send writes for testTime, at most limit bytes, and returns the bytes
// written.
func send(conn net.Conn, testTime time.Duration, limit uint64) (uint64, error) {
	buf := make([]byte, 128<<10)
	_ = conn.SetWriteDeadline(time.Now().Add(testTime))
	var sent uint64
	for sent < limit {
		n, err := conn.Write(buf[:min(uint64(len(buf)), limit-sent)])
		sent += uint64(n)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return sent, nil
			}
			return sent, fmt.Errorf("sending: %w", err)
		}
	}
	return sent, nil
}

// abort makes the coming Close reset the connection: what the sender
// still holds (up to its send buffer: seconds of a slow link) is dropped
// instead of sent, so the link is free when the test time is over.
func abort(conn net.Conn) {
	if l, ok := conn.(interface{ SetLinger(int) error }); ok {
		_ = l.SetLinger(0)
	}
}

// readReport reads and checks the receiver's report, until deadline.
func (c *Client) readReport(conn net.Conn, nonce, body []byte, deadline time.Time) (report, error) {
	_ = conn.SetReadDeadline(deadline)
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

// resultOf derives the throughputs from a report. A capped test is
// measured over its bins up to the last that received data: the sender
// stopped at its allowance, and the rest of the window is idle.
func resultOf(rep report, sent uint64, capped bool) BandwidthResult {
	bins := rep.Bins
	elapsed := rep.Elapsed
	if capped {
		last := len(bins) - 1
		for last > 0 && bins[last] == 0 {
			last--
		}
		bins = bins[:last+1]
		elapsed = min(elapsed, time.Duration(len(bins))*Bin)
	}
	r := BandwidthResult{TestTime: elapsed, Bins: bins, Sent: sent, Capped: capped}
	for _, n := range bins {
		r.Bytes += n
	}
	r.BitsPerSec = float64(r.Bytes) * 8 / elapsed.Seconds()
	r.SteadyFrom, r.SteadyBitsPerSec = Steady(bins)
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
