package relay

import (
	"fmt"
	"net"
	"os"
)

// Inherited descriptors of a worker process (Start's ExtraFiles).
const (
	listenerFD = 3 // the controller's listening socket
	parentFD   = 4 // the worker's end of its Unix socket to the controller
)

// RunWorker is the body of a relay worker process (`diperf relay`): it
// serves the listening socket and the controller's Unix socket it was
// started with until the controller hangs up or dies.
func RunWorker(maxConns int) error {
	lf := os.NewFile(listenerFD, "listener")
	ln, err := net.FileListener(lf)
	lf.Close()
	if err != nil {
		return fmt.Errorf("relay: fd %d is not the controller's listening socket: %w", listenerFD, err)
	}
	pf := os.NewFile(parentFD, "controller")
	pc, err := net.FileConn(pf)
	pf.Close()
	if err != nil {
		ln.Close()
		return fmt.Errorf("relay: fd %d is not a socket to the controller: %w", parentFD, err)
	}
	return Serve(ln, pc, maxConns, func(s string) { fmt.Fprintln(os.Stderr, "diperf relay:", s) })
}
