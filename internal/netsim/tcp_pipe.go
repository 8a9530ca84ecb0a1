package netsim

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// chunkSize is the largest single read relayed as one delayed chunk.
const chunkSize = 32 << 10

// queueChunks is how many chunks one direction holds before reading pauses.
const queueChunks = 64

// chunk is a piece of the byte stream, or its end, due at a given time.
type chunk struct {
	due  time.Time
	data []byte
	end  bool // the source finished: clean EOF unless failed
	fail bool // the source failed; tear the pair down
}

// pipe relays one direction of a proxied connection with delay.
type pipe struct {
	src, dst net.Conn
	delay    Delay
	rng      *rand.Rand
	clk      clock
	q        chan chunk
	count    *atomic.Uint64
}

// newPipe returns a pipe copying src to dst, with due times on clk.
func newPipe(src, dst net.Conn, d Delay, rng *rand.Rand, clk clock, count *atomic.Uint64) *pipe {
	return &pipe{src: src, dst: dst, delay: d, rng: rng, clk: clk, q: make(chan chunk, queueChunks), count: count}
}

// read reads chunks from src and queues each with its due time, never
// earlier than the previous chunk's, until src ends or stop is closed.
func (p *pipe) read(stop <-chan struct{}) {
	defer close(p.q)
	buf := make([]byte, chunkSize)
	var last time.Time
	for {
		n, err := p.src.Read(buf)
		now := p.clk.now()
		c := chunk{due: now.Add(p.delay.Draw(p.rng))}
		if c.due.Before(last) {
			c.due = last
		}
		last = c.due
		if n > 0 {
			c.data = bytes.Clone(buf[:n])
		} else if err != nil {
			c.end, c.fail = true, err != io.EOF
		}
		if !p.enqueue(c, stop) || c.end {
			return
		}
		if err != nil && n > 0 { // deliver the data, then the end
			p.enqueue(chunk{due: last, end: true, fail: err != io.EOF}, stop)
			return
		}
	}
}

// enqueue queues c, reporting false if stop closed first.
func (p *pipe) enqueue(c chunk, stop <-chan struct{}) bool {
	select {
	case p.q <- c:
		return true
	case <-stop:
		return false
	}
}

// write writes queued chunks to dst at their due times. At a clean end it
// closes dst's sending half. It reports false if the pair must be torn down.
func (p *pipe) write(stop <-chan struct{}) bool {
	w := p.clk.newWaiter(true)
	for c := range p.q {
		if !w.until(c.due, nil, stop) {
			return false
		}
		if c.end {
			return !c.fail && closeWrite(p.dst) == nil
		}
		if _, err := p.dst.Write(c.data); err != nil {
			return false
		}
		p.count.Add(uint64(len(c.data)))
	}
	return false // read stopped without an end marker: torn down
}

// closeWrite half-closes c if it supports it, and closes it otherwise.
func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}

// tcpPair is a client connection and its upstream connection.
type tcpPair struct {
	client, server net.Conn
	stop           chan struct{}
	once           sync.Once
}

// abort closes both connections and stops the pair's goroutines.
func (t *tcpPair) abort() {
	t.once.Do(func() {
		close(t.stop)
		t.client.Close()
		t.server.Close()
	})
}

// run relays both directions and returns when the pair is finished.
func (t *tcpPair) run(up, down *pipe) {
	var wg sync.WaitGroup
	for _, p := range []*pipe{up, down} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			p.read(t.stop)
		}()
		go func() {
			defer wg.Done()
			if !p.write(t.stop) {
				t.abort()
			}
		}()
	}
	wg.Wait()
	t.abort()
}
