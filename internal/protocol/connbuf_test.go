package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"sync"
	"testing"
	"testing/iotest"
	"time"
)

func TestBufClass(t *testing.T) {
	for _, c := range []struct{ n, size int }{{0, 1 << 10}, {1, 1 << 10}, {1 << 10, 1 << 10}, {1<<10 + 1, 2 << 10},
		{16 << 10, 16 << 10}, {MaxFrame + SecureOverhead + frameHeader, 2 << 20}, {maxBufClass, maxBufClass}} {
		b := getBuf(c.n)
		if len(*b) != c.size {
			t.Errorf("getBuf(%d): %d bytes, want %d", c.n, len(*b), c.size)
		}
		putBuf(b)
	}
}

// frames returns n payloads of sizes that cross the read-ahead buffer,
// the largest frame included.
func frames(n int, seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	sizes := []int{0, 1, 4, 5, readAhead - frameHeader - SecureOverhead, readAhead, 3*readAhead + 7, MaxFrame}
	out := make([][]byte, n)
	for i := range out {
		size := sizes[rng.IntN(len(sizes))]
		if rng.IntN(2) == 0 {
			size = rng.IntN(2000)
		}
		out[i] = make([]byte, size)
		for j := range out[i] {
			out[i][j] = byte(rng.Uint32())
		}
	}
	return out
}

// checkFrames reads want back from r and then the end of the stream.
func checkFrames(t *testing.T, r *Conn, want [][]byte) {
	t.Helper()
	for i, w := range want {
		typ, p, err := r.Read()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if typ != TypeSamples || !bytes.Equal(p, w) {
			t.Fatalf("frame %d: got %s of %d bytes, want samples of %d", i, typ, len(p), len(w))
		}
	}
	if _, _, err := r.Read(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last frame: %v, want EOF", err)
	}
	if r.rd.buf != nil {
		t.Fatal("a Conn at the end of its stream still holds a buffer")
	}
}

// TestConnFramesAnyChunking reads plain and secured frames back however
// the stream is cut: whole, a byte at a time, in halves.
func TestConnFramesAnyChunking(t *testing.T) {
	b := testBinding(1)
	for _, secure := range []bool{false, true} {
		want := frames(40, 7)
		m := newMemConn(nil)
		w := NewConn(m)
		if secure {
			w.Secure(keysOf(RoleTester, b))
		}
		for _, p := range want {
			if err := w.Write(TypeSamples, p); err != nil {
				t.Fatal(err)
			}
		}
		wire := m.w.Bytes()
		for name, r := range map[string]io.Reader{"whole": bytes.NewReader(wire),
			"bytes": iotest.OneByteReader(bytes.NewReader(wire)), "halves": iotest.HalfReader(bytes.NewReader(wire))} {
			t.Run(fmt.Sprintf("secure=%v/%s", secure, name), func(t *testing.T) {
				c := NewConn(&memConn{r: r})
				c.limit = MaxFrame
				if secure {
					c.Secure(keysOf(RoleController, b))
				}
				checkFrames(t, c, want)
			})
		}
	}
}

// TestConnTCP sends secured frames over loopback TCP (the raw read path)
// in back-to-back bursts.
func TestConnTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	want := frames(60, 3)
	b := testBinding(2)
	go func() {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return
		}
		defer nc.Close()
		w := NewConn(nc)
		w.Secure(keysOf(RoleTester, b))
		for i, p := range want {
			if w.Write(TypeSamples, p) != nil {
				return
			}
			if i%10 == 0 {
				time.Sleep(time.Millisecond) // the reader goes idle in between
			}
		}
	}()
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := NewConn(nc)
	if r.rd.raw == nil {
		t.Fatal("a TCP connection is not read through its raw connection")
	}
	r.Secure(keysOf(RoleController, b))
	checkFrames(t, r, want)
}

// TestConnReadDeadline: an idle read on TCP ends at its deadline with a
// timeout, as a Read on the connection does.
func TestConnReadDeadline(t *testing.T) {
	a, z := tcpPair(t)
	defer a.Close()
	defer z.Close()
	c := NewConn(a)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, _, err := c.Read()
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past its deadline: %v, want a timeout", err)
	}
	if c.rd.buf != nil {
		t.Fatal("a timed-out Conn holds a buffer")
	}
}

func tcpPair(t testing.TB) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type res struct {
		c   net.Conn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := ln.Accept()
		ch <- res{c, err}
	}()
	d, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.c, d
}

// TestIdleConnHoldsNoBuffer connects 1,000 Conns over net.Pipe and over
// loopback TCP, sends each a few frames (one larger than the read-ahead)
// and then nothing: once they wait for the next frame, they hold no
// buffer. The heap they hold then is measured: under 2 KB per Conn, its
// reader goroutine's descriptor included (two 16 KiB bufio buffers each
// before; 64 KiB if the read buffer were kept).
func TestIdleConnHoldsNoBuffer(t *testing.T) {
	for _, kind := range []string{"pipe", "tcp"} {
		t.Run(kind, func(t *testing.T) {
			const n = 1000
			ends := make([][2]net.Conn, n)
			for i := range ends {
				if kind == "pipe" {
					ends[i][0], ends[i][1] = net.Pipe()
				} else {
					ends[i][0], ends[i][1] = tcpPair(t)
				}
			}
			defer func() {
				for _, e := range ends {
					e[0].Close()
					e[1].Close()
				}
			}()
			before := heapInUse()
			conns := make([]*Conn, n)
			var got sync.WaitGroup
			got.Add(n)
			for i := range conns {
				conns[i] = NewConn(ends[i][0])
				conns[i].limit = MaxFrame // as once secured
				go func(c *Conn) {
					for k := 0; ; k++ {
						if _, _, err := c.Read(); err != nil {
							return
						}
						if k == 2 {
							got.Done()
						}
					}
				}(conns[i])
			}
			big := make([]byte, 3*readAhead)
			for i := range ends {
				w := NewConn(ends[i][1])
				for _, p := range [][]byte{nil, []byte("{}"), big} {
					if err := w.Write(TypeHeartbeat, p); err != nil { // its reader takes it
						t.Fatal(err)
					}
				}
			}
			got.Wait()
			var per float64
			for try := 0; try < 50; try++ { // the readers are back in Read soon after their last frame
				time.Sleep(20 * time.Millisecond)
				if per = float64(heapInUse()-before) / n; per < 2048 {
					break
				}
			}
			t.Logf("%s: %.0f bytes of heap per idle Conn", kind, per)
			if per >= 2048 {
				t.Fatalf("%s: idle Conns hold %.0f bytes of heap each, want under 2 KB", kind, per)
			}
			runtime.KeepAlive(conns)
		})
	}
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC() // empties the pools' victim caches too
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}
