package netprobe

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// DefaultMessage is the latency test's request and response size when
// none is given (netperf TCP_RR's default: 1 byte each way).
const DefaultMessage = 1

// LatencyResult is one latency test, as the client measured it.
type LatencyResult struct {
	// Transactions is how many request/response round trips completed.
	Transactions int
	// Elapsed is the time from the first request to the last response.
	Elapsed time.Duration
	// PerSec is Transactions/Elapsed.
	PerSec float64
	// Latency is 1/PerSec (netperf TCP_RR's latency).
	Latency time.Duration
	// P50, P90, P99 are percentiles of the round trips (HdrHistogram, 2
	// significant digits: within 1%).
	P50, P90, P99 time.Duration
	// Wire is what the test's connection sent and received at this end.
	Wire Traffic
	// Capped: the transactions stopped at the byte allowance, before the
	// test time.
	Capped bool
}

// Latency runs a latency test of testTime (rounded up to a whole number
// of Bin) to the server at addr: size-byte requests, each answered by
// size bytes, one at a time on one connection (size 0: DefaultMessage).
func (c *Client) Latency(ctx context.Context, addr string, testTime time.Duration, size int) (LatencyResult, error) {
	return c.LatencyWithin(ctx, addr, testTime, size, 0)
}

// LatencyWithin is Latency with a byte allowance: the test's traffic,
// both ways, stays within maxBytes (0: no cap); the transactions stop
// before the next would pass it, and the result is then Capped. The
// result's Wire is set even when the test fails.
func (c *Client) LatencyWithin(ctx context.Context, addr string, testTime time.Duration, size int, maxBytes uint64) (LatencyResult, error) {
	testTime = roundBins(testTime)
	if size == 0 {
		size = DefaultMessage
	}
	if _, err := dataAllowance(maxBytes, MinBytes(KindLatency, testTime, size)); err != nil {
		return LatencyResult{}, fmt.Errorf("netprobe: latency test to %s: %w", addr, err)
	}
	req := Request{Kind: KindLatency, TestTime: testTime, Size: size, Nonce: newNonce()}
	s, err := c.open(ctx, addr, req)
	if err != nil {
		return LatencyResult{Wire: s.traffic()}, err
	}
	defer s.Close()
	if maxBytes == 0 {
		maxBytes = math.MaxUint64
	}
	res, err := transact(s, testTime, size, maxBytes)
	res.Wire = s.traffic()
	if err != nil {
		return LatencyResult{Wire: res.Wire}, fmt.Errorf("netprobe: latency test to %s: %w", addr, err)
	}
	return res, nil
}

// transact runs round trips for testTime, while the next one keeps the
// traffic within maxBytes, and summarizes them.
func transact(s *session, testTime time.Duration, size int, maxBytes uint64) (LatencyResult, error) {
	h := hdr.New(1, int64(grace+MaxTestTime), 2)
	buf := make([]byte, size)
	start := time.Now()
	end, last, n := start.Add(testTime), start, 0
	fits := func() bool { return s.conn.total() <= maxBytes-2*uint64(size) }
	for last.Before(end) && fits() {
		if _, err := s.conn.Write(buf); err != nil {
			return LatencyResult{}, fmt.Errorf("request %d: %w", n+1, err)
		}
		if _, err := io.ReadFull(s.conn, buf); err != nil {
			return LatencyResult{}, fmt.Errorf("response %d: %w", n+1, err)
		}
		now := time.Now()
		_ = h.RecordValue(int64(now.Sub(last)))
		last = now
		n++
	}
	r := summarize(h, n, last.Sub(start))
	r.Capped = !fits()
	return r, nil
}

// summarize is n round trips in elapsed, recorded in h.
func summarize(h *hdr.Histogram, n int, elapsed time.Duration) LatencyResult {
	r := LatencyResult{Transactions: n, Elapsed: elapsed}
	r.PerSec = float64(n) / r.Elapsed.Seconds()
	r.Latency = time.Duration(float64(time.Second) / r.PerSec)
	r.P50 = time.Duration(h.ValueAtQuantile(50))
	r.P90 = time.Duration(h.ValueAtQuantile(90))
	r.P99 = time.Duration(h.ValueAtQuantile(99))
	return r
}
