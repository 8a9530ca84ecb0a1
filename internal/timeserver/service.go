package timeserver

import (
	"context"
	"errors"
	"net"
	"sync"
)

// Options say what Start serves.
type Options struct {
	Config Config // the Server's limits
	UDP    string // UDP address to serve on ("" = no UDP; port 0 = any)
	TCP    string // TCP address to serve on ("" = no TCP; port 0 = any)
	// ListenTCP opens the TCP listener, e.g. a transport's Listen, so that
	// the time server is reached the way the controller is; nil = plain TCP.
	ListenTCP func(addr string) (net.Listener, error)
}

// Service is one Server serving its sockets, as Start returns it: the
// single way diperf runs a time server (the controller's own and `diperf
// timeserver`).
type Service struct {
	srv    *Server
	udp    *net.UDPConn // nil: no UDP
	tcp    net.Listener // nil: no TCP
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error         // the first serving error
	failed chan struct{} // closed with err's arrival
	stop   sync.Once
}

// Start opens the sockets o names (UDP with ListenUDP's kernel timestamps)
// and serves them until Stop. At least one of UDP and TCP must be given.
func Start(o Options) (*Service, error) {
	if o.UDP == "" && o.TCP == "" {
		return nil, errors.New("timeserver: neither a UDP nor a TCP address to serve on")
	}
	s := &Service{srv: New(o.Config), failed: make(chan struct{})}
	if err := s.listen(o); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	if s.udp != nil {
		s.serve(func() error { return s.srv.ServeUDP(ctx, s.udp) })
	}
	if s.tcp != nil {
		s.serve(func() error { return s.srv.ServeTCP(ctx, s.tcp) })
	}
	return s, nil
}

// listen opens the sockets, all or none.
func (s *Service) listen(o Options) error {
	var err error
	if o.UDP != "" {
		if s.udp, err = ListenUDP(o.UDP); err != nil {
			return err
		}
	}
	if o.TCP != "" {
		listen := o.ListenTCP
		if listen == nil {
			listen = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
		}
		if s.tcp, err = listen(o.TCP); err != nil {
			if s.udp != nil {
				s.udp.Close()
			}
			return err
		}
	}
	return nil
}

// serve runs one server loop, keeping its error.
func (s *Service) serve(loop func() error) {
	s.wg.Go(func() {
		if err := loop(); err != nil {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.err == nil {
				s.err = err
				close(s.failed)
			}
		}
	})
}

// UDPAddr returns the UDP address served, its port filled in, or "".
func (s *Service) UDPAddr() string {
	if s.udp == nil {
		return ""
	}
	return s.udp.LocalAddr().String()
}

// TCPAddr returns the TCP address served, its port filled in, or "".
func (s *Service) TCPAddr() string {
	if s.tcp == nil {
		return ""
	}
	return s.tcp.Addr().String()
}

// Addr returns the address served: the UDP one, or the TCP one for a
// service on TCP alone.
func (s *Service) Addr() string {
	if s.udp != nil {
		return s.UDPAddr()
	}
	return s.TCPAddr()
}

// AddKey makes the service accept requests authenticated with k (see
// Server.AddKey).
func (s *Service) AddKey(k Key) { s.srv.AddKey(k) }

// RemoveKey makes the service refuse requests authenticated with the key
// named id.
func (s *Service) RemoveKey(id uint32) { s.srv.RemoveKey(id) }

// Stats returns the counts of every socket served so far.
func (s *Service) Stats() Stats { return s.srv.Stats() }

// Failed is closed when a server loop stops with an error before Stop.
func (s *Service) Failed() <-chan struct{} { return s.failed }

// Stop stops serving, closes the sockets and returns the first error a
// server loop met (nil if none). It may be called more than once.
func (s *Service) Stop() error {
	s.stop.Do(func() {
		s.cancel()
		s.wg.Wait()
		if s.udp != nil {
			s.udp.Close()
		}
		if s.tcp != nil {
			s.tcp.Close()
		}
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
