package client

import (
	"context"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// benchCalls makes b.N sequential calls and reports calls/s (allocations
// per call come with -benchmem or ReportAllocs).
func benchCalls(b *testing.B, c Client) {
	b.ReportAllocs()
	ctx, cancel := context.WithCancel(context.Background()) // a ctx that can be done, as the tester's
	defer cancel()
	for b.Loop() {
		if r := c.Call(ctx); r.Status != sample.OK {
			b.Fatalf("%+v", r)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkTCPEcho: one call after another against a loopback echo,
// reusing the connection or connecting per call.
func BenchmarkTCPEcho(b *testing.B) {
	srv := startTCP(b, echo)
	for _, keep := range []bool{true, false} {
		name := map[bool]string{true: "keepalive", false: "connect-per-call"}[keep]
		b.Run(name, func(b *testing.B) {
			c, err := NewTCP(protocol.SocketDesc{Address: srv.addr, Send: []byte("ping\n"),
				ExpectBytes: []byte("ping\n"), KeepAlive: keep}, 5*time.Second)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			benchCalls(b, c)
		})
	}
}

// BenchmarkUDPEcho: one call after another against a loopback UDP echo,
// from a pooled socket or a new socket per call.
func BenchmarkUDPEcho(b *testing.B) {
	addr := startUDP(b, udpEcho)
	for _, fresh := range []bool{false, true} {
		name := map[bool]string{false: "pooled", true: "socket-per-call"}[fresh]
		b.Run(name, func(b *testing.B) {
			c, err := NewUDP(protocol.SocketDesc{Address: addr, Send: []byte("ping"), ExpectBytes: []byte("ping")}, 5*time.Second)
			if err != nil {
				b.Fatal(err)
			}
			c.fresh = fresh
			defer c.Close()
			benchCalls(b, c)
		})
	}
}

// BenchmarkTCPEchoLoops: 50 client loops share one keep-alive client (its
// pool), as the loops of a tester do.
func BenchmarkTCPEchoLoops(b *testing.B) {
	srv := startTCP(b, echo)
	c, err := NewTCP(protocol.SocketDesc{Address: srv.addr, Send: []byte("ping\n"),
		ExpectBytes: []byte("ping\n"), KeepAlive: true}, 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background()) // a ctx that can be done, as the tester's
	defer cancel()
	b.ReportAllocs()
	b.SetParallelism(25) // x GOMAXPROCS (2 here): 50 loops
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if r := c.Call(ctx); r.Status != sample.OK {
				b.Errorf("%+v", r)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
