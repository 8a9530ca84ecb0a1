package controller

import (
	"fmt"
	"net"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
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
		c.events.Add("clock-unauthenticated", -1, "", "the time server "+e.Sync.Server+" (sync.server) holds no time keys: "+
			"the testers' clock syncs are not authenticated, and a relay on their path could shift them unseen but for the consistency checks")
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

// A session's time key fills a time server's key exactly (this fails to
// compile otherwise).
const _ = uint(protocol.TimeKeySize-timeserver.KeySize) + uint(timeserver.KeySize-protocol.TimeKeySize)

// issueKey registers with the controller's own time server the time key
// of the tester of slot, derived from its session's keys, and returns its
// id; 0 when the run uses an external server, which holds no keys. The
// id is slot + 1: a slot binds one tester once.
func (t *timeService) issueKey(slot int, keys protocol.Keys) uint32 {
	if t == nil || t.svc == nil {
		return 0
	}
	k := timeserver.Key{ID: uint32(slot) + 1}
	copy(k.Secret[:], keys.TimeKey(k.ID))
	t.svc.AddKey(k)
	return k.ID
}

// dropKey makes the time server refuse the key of the tester of slot,
// whose syncs are over.
func (t *timeService) dropKey(slot int) {
	if t != nil && t.svc != nil {
		t.svc.RemoveKey(uint32(slot) + 1)
	}
}

func (t *timeService) stop() {
	if t.svc != nil {
		_ = t.svc.Stop()
	}
}
