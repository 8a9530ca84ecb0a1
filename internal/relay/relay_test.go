package relay

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/yamux"
)

// The test binary is its own relay worker when this is set.
const workerEnv = "DIPERF_RELAY_TEST_WORKER"

func TestMain(m *testing.M) {
	if n := os.Getenv(workerEnv); n != "" {
		var maxConns int
		for i, a := range os.Args {
			if a == "--max-conns" && i+1 < len(os.Args) {
				maxConns, _ = strconv.Atoi(os.Args[i+1])
			}
		}
		if err := RunWorker(maxConns); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func workerCommand() *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	return cmd
}

// echoHandler answers each line of a relayed connection with the
// connection's remote address and the line, and records the connections.
type echoHandler struct {
	mu    sync.Mutex
	conns []net.Conn
	ended chan net.Conn
}

func newEchoHandler() *echoHandler { return &echoHandler{ended: make(chan net.Conn, 1000)} }

func (h *echoHandler) handle(c net.Conn) {
	h.mu.Lock()
	h.conns = append(h.conns, c)
	h.mu.Unlock()
	go func() {
		defer func() { c.Close(); h.ended <- c }()
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if _, err := fmt.Fprintf(c, "%s %s", c.RemoteAddr(), line); err != nil {
				return
			}
		}
	}()
}

func (h *echoHandler) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

type logSink struct {
	mu     sync.Mutex
	events []string
}

func (l *logSink) log(event, detail string) {
	l.mu.Lock()
	l.events = append(l.events, event+": "+detail)
	l.mu.Unlock()
}

func (l *logSink) has(event string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.events {
		if strings.HasPrefix(e, event+":") {
			return true
		}
	}
	return false
}

func startPool(t *testing.T, workers, maxConns int, h *echoHandler, log *logSink) (*net.TCPListener, *Pool) {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p, err := Start(ln, Options{Workers: workers, MaxConns: maxConns, Command: workerCommand, Handle: h.handle, Log: log.log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return ln, p
}

// ask writes a line and reads the answer.
func ask(t *testing.T, c net.Conn, r *bufio.Reader, line string) string {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the answer to %q: %v", line, err)
	}
	return strings.TrimSuffix(got, "\n")
}

// Connections through the relays reach the handler with their own
// addresses, both ways, and many at once.
func TestRelayCarriesConnectionsWithTheirAddresses(t *testing.T) {
	h := newEchoHandler()
	ln, _ := startPool(t, 2, 1000, h, &logSink{})
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			r := bufio.NewReader(c)
			_ = c.SetDeadline(time.Now().Add(20 * time.Second))
			for k := range 3 {
				msg := fmt.Sprintf("conn %d line %d %s", i, k, strings.Repeat("x", 40_000*k))
				fmt.Fprintf(c, "%s\n", msg)
				got, err := r.ReadString('\n')
				if err != nil {
					errs <- err
					return
				}
				if want := c.LocalAddr().String() + " " + msg + "\n"; got != want {
					errs <- fmt.Errorf("conn %d: answer %.60q…, want %.60q…", i, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := h.count(); got != n {
		t.Errorf("the handler saw %d connections, want %d", got, n)
	}
}

// A worker holds at most MaxConns testers; the next connection waits in
// the accept queue until one of them hangs up.
func TestRelayCapLeavesConnectionsQueued(t *testing.T) {
	h := newEchoHandler()
	ln, _ := startPool(t, 1, 3, h, &logSink{})
	var conns []net.Conn
	for i := range 4 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
		if i < 3 {
			ask(t, c, bufio.NewReader(c), "hello")
		}
	}
	_ = conns[3].SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	fmt.Fprintf(conns[3], "waiting\n")
	if _, err := bufio.NewReader(conns[3]).ReadString('\n'); err == nil {
		t.Fatal("a fourth connection was served by a worker capped at 3")
	}
	conns[0].Close()
	_ = conns[3].SetReadDeadline(time.Now().Add(20 * time.Second))
	if got, err := bufio.NewReader(conns[3]).ReadString('\n'); err != nil || !strings.HasSuffix(got, "waiting\n") {
		t.Fatalf("after one hung up, the queued connection got %q, %v", got, err)
	}
}

// A worker killed with SIGKILL ends its testers' streams (the controller
// reads EOF) and is logged; the other worker goes on serving.
func TestRelayWorkerKilled(t *testing.T) {
	h := newEchoHandler()
	log := &logSink{}
	ln, p := startPool(t, 2, 1000, h, log)
	for range 20 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ask(t, c, bufio.NewReader(c), "hi")
	}
	victim := p.Pids()[0]
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for !log.has("relay-exit") {
		select {
		case <-deadline:
			t.Fatal("no relay-exit logged for the killed worker")
		case <-time.After(10 * time.Millisecond):
		}
	}
	ended := 0
	for ended < 20 {
		select {
		case <-h.ended:
			ended++
		case <-time.After(time.Second):
			goto counted
		}
	}
counted:
	if ended == 0 || ended == 20 {
		t.Errorf("%d of 20 relayed connections ended when one of two workers was killed; want its share only", ended)
	}
	for range 10 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if got := ask(t, c, bufio.NewReader(c), "after"); !strings.HasSuffix(got, "after") {
			t.Fatalf("after the kill, got %q", got)
		}
	}
}

// When the controller's end of the Unix socket closes (it died), Serve
// returns, stops accepting and closes every relayed connection.
func TestServeEndsWithTheController(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ln, a, 10, nil) }()
	h := newEchoHandler()
	srv := serverSide(t, b, h, nil)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ask(t, c, bufio.NewReader(c), "one")
	srv.Close()
	b.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return when the controller's end closed")
	}
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the relayed connection stayed open after the controller went away")
	}
	if c2, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c2.Close()
		t.Error("the relay still listens after the controller went away")
	}
}

// A stream whose header is no tester address (a broken or hostile relay)
// is closed and logged; the controller never serves it.
func TestBadStreamHeaderIsRefused(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	h := newEchoHandler()
	log := &logSink{}
	serverSide(t, b, h, log.log)
	cli, err := yamux.Client(a, muxConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, hdr := range [][]byte{{5, 'h', 'e', 'l', 'l', 'o'}, {0}, append([]byte{39}, []byte("999.999.999.999:99999999999999999999999")...)} {
		st, err := cli.OpenStream()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Write(hdr); err != nil {
			t.Fatal(err)
		}
		_ = st.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := st.Read(make([]byte, 1)); err == nil {
			t.Errorf("header %q: the stream stayed open", hdr)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for !log.has("relay-error") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !log.has("relay-error") {
		t.Error("no relay-error logged")
	}
	if n := h.count(); n != 0 {
		t.Errorf("%d streams with a bad header reached the controller", n)
	}
}
