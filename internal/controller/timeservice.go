package controller

import (
	"fmt"
	"net"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/timeserver"
)

// timeService is the time server testers sync with: the controller's own,
// on the controller's listen host over the experiment's sync transport
// alone (its TCP listener opened through the controller's Transport, so
// testers reach it the way they reach the controller), or an external one
// (sync.server), which the controller then only names.
type timeService struct {
	addr string              // what testers are told
	svc  *timeserver.Service // nil: external
}

// startTimeService starts the controller's own time server on ln's host,
// told to testers with the advertised host and its own port.
func (c *controller) startTimeService(ln net.Addr) (*timeService, error) {
	e := c.exp
	if e.Sync.Server != "" {
		return &timeService{addr: e.Sync.Server}, nil
	}
	host, _, err := net.SplitHostPort(ln.String())
	if err != nil {
		return nil, fmt.Errorf("time server: the controller listens at %s, not host:port: give sync.server", ln)
	}
	o := timeserver.Options{ListenTCP: c.o.Transport.Listen}
	at := net.JoinHostPort(host, "0")
	if e.Sync.Transport == experiment.SyncTCP || c.ready.TimeOverTCP {
		o.TCP = at
		o.Config.MaxTCPConns = c.timeServerConns()
	}
	if e.Sync.Transport == experiment.SyncUDP {
		o.UDP = at
	}
	svc, err := timeserver.Start(o)
	if err != nil {
		return nil, fmt.Errorf("time server: %w", err)
	}
	_, port, err := net.SplitHostPort(svc.Addr())
	if err != nil {
		svc.Stop()
		return nil, fmt.Errorf("time server: %w", err)
	}
	return &timeService{addr: net.JoinHostPort(c.adv.host, port), svc: svc}, nil
}

// tcpAddr is the local address of the controller's own TCP time server
// ("" when it serves no TCP, or the run uses an external server).
func (t *timeService) tcpAddr() string {
	if t == nil || t.svc == nil {
		return ""
	}
	return t.svc.TCPAddr()
}

func (t *timeService) stop() {
	if t.svc != nil {
		_ = t.svc.Stop()
	}
}
