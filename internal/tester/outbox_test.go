package tester

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/transport"
)

// sink is a net.Conn that keeps what is written to it.
type sink struct {
	net.Conn
	buf bytes.Buffer
}

func (s *sink) Write(p []byte) (int, error) { return s.buf.Write(p) }

// TestBatchesAreCappedByBytes flushes 8,192 samples with long error texts
// at once: they go out in several batches, each under the byte cap, every
// sample once and in order.
func TestBatchesAreCappedByBytes(t *testing.T) {
	t.Parallel()
	for _, errLen := range []int{128, protocol.MaxErrText, 4 * protocol.MaxErrText} {
		w := &sink{}
		o := newOutbox(protocol.NewConn(w), func(error) {})
		for i := range protocol.MaxBatch {
			o.produced++
			o.pending = append(o.pending, sample.Sample{Seq: o.produced, Start: int64(i) << 40, End: int64(i)<<40 + 1<<40,
				Status: sample.Failed, Bytes: -1 << 60, Err: strings.Repeat("e", errLen)})
		}
		if err := o.flush(); err != nil {
			t.Fatal(err)
		}
		var next uint64 = 1
		frames := 0
		for {
			typ, p, err := protocol.ReadFrame(&w.buf)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil || typ != protocol.TypeSamples {
				t.Fatalf("errors of %d bytes: frame %d: %v %v", errLen, frames, typ, err)
			}
			frames++
			if len(p) > protocol.MaxBatchBytes {
				t.Errorf("errors of %d bytes: a batch of %d bytes, over the cap of %d", errLen, len(p), protocol.MaxBatchBytes)
			}
			b, err := protocol.DecodeBatch(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range b.Samples {
				if s.Seq != next {
					t.Fatalf("sample %d where %d was expected", s.Seq, next)
				}
				next++
			}
		}
		if next != protocol.MaxBatch+1 || frames < 2 {
			t.Errorf("errors of %d bytes: %d samples in %d batches, want all 8192 in several", errLen, next-1, frames)
		}
	}
}

// TestOutboxFlushesAtTheByteCap checks that samples are shipped once
// their encoding could reach the cap, long before MaxBatch.
func TestOutboxFlushesAtTheByteCap(t *testing.T) {
	t.Parallel()
	o := newOutbox(nil, nil)
	s := sample.Sample{Err: strings.Repeat("e", protocol.MaxErrText)}
	for !o.fullLocked() {
		o.pending = append(o.pending, s)
		o.bound += protocol.SampleBound(&s)
	}
	if n := len(o.pending); n >= protocol.MaxBatch || n*protocol.SampleBound(&s) > protocol.MaxBatchBytes+protocol.SampleBound(&s) {
		t.Errorf("full at %d samples of %d bytes at most", n, protocol.SampleBound(&s))
	}
}

// TestFatalErrorReachesTheController has a tester admitted, then unable
// to reach its time server: it tells the controller why before it exits,
// and logs what was produced and acknowledged.
func TestFatalErrorReachesTheController(t *testing.T) {
	t.Parallel()
	net, secret := transport.NewMemory(), newTestCred(t)
	desc := protocol.TestDesc{Client: protocol.ClientDesc{Kind: protocol.ClientExec, Argv: []string{"true"}}, DurationNs: 1e9, TimeoutNs: 1e9,
		SyncIntervalNs: 1e9, SyncProbes: 1, BatchNs: 1e9, TimeServer: "nowhere:1", TimeTransport: "tcp"}
	addr, answer := fakeController(t, net, secret, desc)
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := Run(ctx, Options{Controller: addr, Token: secret.tok, Transport: net, Log: &log})
	if err == nil {
		t.Fatal("tester ran without a time server")
	}
	if got := <-answer; got == "" || !strings.Contains(got, "nowhere:1") {
		t.Errorf("the controller was told %q, want the time server error %v", got, err)
	}
	if !strings.Contains(log.String(), "acked_samples=0 produced_samples=0") {
		t.Errorf("tester log %q does not give the counts", log.String())
	}
}
