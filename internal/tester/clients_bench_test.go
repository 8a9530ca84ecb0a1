package tester

import (
	"context"
	"net"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// discard is a net.Conn that takes every write and keeps nothing.
type discard struct{ net.Conn }

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkClientLoops runs N client loops of an in-process client whose
// calls succeed at once, back-to-back, through the tester's real outbox
// (batches encoded and written to a connection that discards them): one
// op is one call, so ns/op is the tester's own cost per call and
// calls/s its ceiling with a free client; allocs/op counts the
// allocations per call (the samples' slice growing, amortized).
func BenchmarkClientLoops(b *testing.B) {
	for _, n := range []int{1, 100, 10_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			o := newOutbox(protocol.NewConn(discard{}), func(error) {})
			clk := clock.NewLocal(0, 0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var calls atomic.Int64
			target := int64(b.N)
			call := func(ctx context.Context, client uint32) sample.Status {
				if calls.Add(1) >= target {
					cancel()
				}
				return o.call(ctx, okClient{}, clk, client)
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			runClients(ctx, n, 0, time.Hour, 0, call)
			el := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(calls.Load())/el.Seconds(), "calls/s")
		})
	}
}

// BenchmarkIdleClientMemory starts 10,000 client loops that each make one
// call and then wait an hour for the next, and reports the memory they
// hold while idle (heap and goroutine stacks) per loop.
func BenchmarkIdleClientMemory(b *testing.B) {
	const n = 10_000
	for range b.N {
		o := newOutbox(protocol.NewConn(discard{}), func(error) {})
		clk := clock.NewLocal(0, 0)
		var calls atomic.Int64
		call := func(ctx context.Context, client uint32) sample.Status {
			calls.Add(1)
			return o.call(ctx, okClient{}, clk, client)
		}
		before := inUse()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { runClients(ctx, n, 0, 2*time.Hour, time.Hour, call); close(done) }()
		for calls.Load() < n {
			time.Sleep(time.Millisecond)
		}
		if err := o.flush(); err != nil { // the samples are not the loops' cost
			b.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // the last loops reach their wait
		after := inUse()
		cancel()
		<-done
		b.ReportMetric(float64(after-before)/n, "bytes/client")
	}
}

// inUse returns the heap and stack memory in use after a collection.
func inUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc + m.StackInuse)
}
