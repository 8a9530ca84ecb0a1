//go:build linux

package client

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestHelperHTTPServer is not a test: run by BenchmarkLoopIdleClientMemory
// as a child process, it serves HTTP on loopback (so that the server's
// memory is not counted with the client's) and prints its address.
func TestHelperHTTPServer(t *testing.T) {
	if os.Getenv("DIPERF_HELPER_HTTP_SERVER") != "1" {
		t.Skip("a helper process, not a test")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(ln.Addr().String())
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("x")) }))
}

// BenchmarkLoopIdleClientMemory reports the Go heap the event loop holds
// per idle client (its connection open, waiting for its next call; the
// kernel's socket buffers are not counted), against a server in a child
// process:
//
//	go test -run '^$' -bench BenchmarkLoopIdleClientMemory ./internal/client/
func BenchmarkLoopIdleClientMemory(b *testing.B) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHTTPServer$")
	cmd.Env = append(os.Environ(), "DIPERF_HELPER_HTTP_SERVER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	const clients = 1000
	c, err := NewHTTPClient(get("http://"+addr[:len(addr)-1]+"/"), 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	lp := c.(Looper)
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		base := time.Now()
		now := func() int64 { return int64(time.Since(base)) }
		ctx, cancel := context.WithCancel(context.Background())
		n, failed := 0, 0
		lp.Loop(ctx, clients, time.Hour, int64(time.Minute), now, func(_ uint32, _, _ int64, r *Reply) {
			if r.Status != sample.OK {
				failed++
			}
			if n++; n == clients { // every client has made its call and now idles
				runtime.GC()
				runtime.ReadMemStats(&after)
				cancel()
			}
		})
		cancel()
		if failed > 0 {
			b.Fatalf("%d of %d calls failed", failed, clients)
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/clients, "heap-B/idle-client")
	}
}
