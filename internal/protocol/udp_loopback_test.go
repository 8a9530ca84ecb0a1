package protocol

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestUDPLoopbackLossExact sends 100,000 datagrams through a real UDP
// socket pair on loopback at a paced 100,000 a second, to a receiver with
// a small socket buffer that pauses now and then, so that the kernel
// drops some. The receiver's count of lost datagrams must be exactly what
// the kernel says it dropped on that socket (/proc/net/udp), plus what
// the sender failed to send; received + lost must be what was sent; and
// the samples counted must be exactly those of the datagrams received.
func TestUDPLoopbackLossExact(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 100,000 datagrams")
	}
	const total, rate = 100_000, 100_000
	rc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if err := rc.SetReadBuffer(16 << 10); err != nil {
		t.Fatal(err)
	}
	sc, err := net.DialUDP("udp4", nil, rc.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	s, r := udpPair(t, testBinding(1), testGrant)
	recv := startLoopbackReceiver(rc, r, total)

	pool := testSamples(3000)
	counts := make([]int, total+1) // samples in datagram seq
	var sendErrors uint64
	start := time.Now()
	for i, produced := 0, 0; i < total; i++ {
		k := 1 + i%3
		from := i % (len(pool) - 3)
		d, n, err := s.SealBatch(uint64(produced+k), pool[from:from+k])
		if err != nil || n != k {
			t.Fatalf("seal: %d of %d, %v", n, k, err)
		}
		counts[s.LastSeq()], produced = n, produced+n
		if _, err := sc.Write(d); err != nil {
			sendErrors++
		}
		if i%100 == 99 {
			time.Sleep(time.Until(start.Add(time.Duration(i+1) * time.Second / rate)))
		}
	}
	sent := time.Since(start)
	recv.quiet()
	kernel, err := udpSocketDrops(rc.LocalAddr().(*net.UDPAddr).Port)
	if err != nil {
		t.Fatal(err)
	}
	if err := recv.stop(); err != nil {
		t.Fatal(err)
	}
	st, err := r.Finish(testGrant.Session, s.LastSeq())
	if err != nil {
		t.Fatal(err)
	}
	var lostSamples, allSamples uint64
	for seq := 1; seq <= total; seq++ {
		allSamples += uint64(counts[seq])
		if !recv.got[seq] {
			lostSamples += uint64(counts[seq])
		}
	}
	t.Logf("sent %d datagrams in %v; the socket delivered %d; kernel drops %d, send errors %d; counted %+v",
		total, sent.Round(time.Millisecond), recv.delivered.Load(), kernel, sendErrors, st)
	switch {
	case st.Received != recv.delivered.Load():
		t.Errorf("received %d, the socket delivered %d", st.Received, recv.delivered.Load())
	case st.Lost != kernel+sendErrors:
		t.Errorf("lost %d, the kernel dropped %d and the sender failed %d", st.Lost, kernel, sendErrors)
	case st.Received+st.Lost != total || st.Last != total:
		t.Errorf("received %d + lost %d != sent %d", st.Received, st.Lost, total)
	case st.Samples != recv.samples || st.Samples != allSamples-lostSamples:
		t.Errorf("samples counted %d, decoded %d, sent %d of which %d in lost datagrams", st.Samples, recv.samples, allSamples, lostSamples)
	}
	if kernel == 0 {
		t.Log("the kernel dropped nothing this time: the comparison held for 0 loss only")
	}
}

// loopbackReceiver reads datagrams until its socket closes, pausing 20 ms
// every 20,000 so that its small buffer overflows.
type loopbackReceiver struct {
	rc        *net.UDPConn
	delivered atomic.Uint64
	got       []bool // by sequence number, written by the reader
	samples   uint64
	done      chan error
}

func startLoopbackReceiver(rc *net.UDPConn, r *UDPReceiver, total int) *loopbackReceiver {
	lr := &loopbackReceiver{rc: rc, got: make([]bool, total+1), done: make(chan error, 1)}
	go func() {
		buf := make([]byte, MaxDatagram)
		for {
			n, err := rc.Read(buf)
			if err != nil {
				lr.done <- nil
				return
			}
			if lr.delivered.Add(1)%20_000 == 0 {
				time.Sleep(20 * time.Millisecond)
			}
			dg, err := r.Open(buf[:n])
			if err != nil {
				lr.done <- fmt.Errorf("a genuine datagram dropped: %w", err)
				return
			}
			b, err := dg.DecodeBatch()
			if err != nil {
				lr.done <- err
				return
			}
			lr.got[dg.Seq] = true
			lr.samples += uint64(len(b.Samples))
		}
	}()
	return lr
}

// quiet waits until nothing has arrived for 300 ms.
func (lr *loopbackReceiver) quiet() {
	for last := ^uint64(0); ; {
		time.Sleep(300 * time.Millisecond)
		n := lr.delivered.Load()
		if n == last {
			break
		}
		last = n
	}
}

// stop closes the socket and waits for the reader.
func (lr *loopbackReceiver) stop() error {
	lr.rc.Close()
	return <-lr.done
}

// udpSocketDrops reads the kernel's count of datagrams dropped on the
// IPv4 UDP socket bound to port (the last column of /proc/net/udp).
func udpSocketDrops(port int) (uint64, error) {
	f, err := os.Open("/proc/net/udp")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	want := fmt.Sprintf("0100007F:%04X", port) // 127.0.0.1, as a little-endian machine prints it
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) > 12 && fs[1] == want {
			return strconv.ParseUint(fs[len(fs)-1], 10, 64)
		}
	}
	return 0, fmt.Errorf("no socket on port %d in /proc/net/udp", port)
}
