package directory

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// A sensor's long poll does not hold the directory's shutdown: it
// answers at once, and the directory stops cleanly within its grace.
func TestProbePollEndsAtShutdown(t *testing.T) {
	store, err := OpenStore(filepath.Join(t.TempDir(), "dir.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- ServeWith(ctx, ln, NewServer(store, Options{Token: []byte(testToken)}).Handler(), ServeConfig{})
	}()
	c := signedClient(t, "http://"+ln.Addr().String(), nil)
	registerAll(t, c, "a")
	polled := make(chan error, 1)
	go func() { _, err := c.ClaimProbes(context.Background(), "a", MaxProbeWait); polled <- err }()
	time.Sleep(200 * time.Millisecond) // the poll is open
	start := time.Now()
	stop()
	if err := <-served; err != nil {
		t.Errorf("the directory stopped with %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the shutdown took %v with a poll open; want at once", d)
	}
	<-polled
}
