package controller

import (
	"context"
	"fmt"
	"net"
	"sync"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/timeserver"
)

// timeService is the time server testers sync with: the controller's own
// (UDP and TCP on the controller's host), or an external one
// (sync.server), which the controller then only names.
type timeService struct {
	addr   string // what testers are told, for the experiment's transport
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startTimeService(e *experiment.Experiment, controllerAddr string) (*timeService, error) {
	if e.Sync.Server != "" {
		return &timeService{addr: e.Sync.Server, cancel: func() {}}, nil
	}
	host, _, err := net.SplitHostPort(controllerAddr)
	if err != nil {
		return nil, err
	}
	udp, err := timeserver.ListenUDP(net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("time server: %w", err)
	}
	tcp, err := net.Listen("tcp", udp.LocalAddr().String())
	if err != nil { // the same port number is taken for TCP: any port will do
		tcp, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	}
	if err != nil {
		udp.Close()
		return nil, fmt.Errorf("time server: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &timeService{addr: udp.LocalAddr().String(), cancel: cancel}
	if e.Sync.Transport == experiment.SyncTCP {
		ts.addr = tcp.Addr().String()
	}
	srv := timeserver.New(timeserver.Config{})
	ts.wg.Add(2)
	go func() { defer ts.wg.Done(); _ = srv.ServeUDP(ctx, udp); udp.Close() }()
	go func() { defer ts.wg.Done(); _ = srv.ServeTCP(ctx, tcp); tcp.Close() }()
	return ts, nil
}

func (t *timeService) stop() {
	t.cancel()
	t.wg.Wait()
}
