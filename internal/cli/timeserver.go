package cli

import (
	"context"
	"fmt"
	"net"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/timeserver"
)

// timeserverOptions are the flags of 'diperf timeserver'.
type timeserverOptions struct {
	listen, tcp string
	cfg         timeserver.Config
}

func timeserverCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "timeserver", "[--listen ADDR] [--tcp ADDR] [--rate-per-source R --burst-per-source B]")
	var o timeserverOptions
	fs.StringVar(&o.listen, "listen", "127.0.0.1:7123", "UDP address to serve on")
	fs.StringVar(&o.tcp, "tcp", "", "TCP address to serve on as well, for networks that drop UDP (\"\" = none)")
	fs.Float64Var(&o.cfg.RatePerSource, "rate-per-source", timeserver.DefaultRatePerSource, "requests/s answered per source IP")
	fs.Float64Var(&o.cfg.BurstPerSource, "burst-per-source", timeserver.DefaultBurstPerSource, "burst of requests answered per source IP")
	fs.IntVar(&o.cfg.MaxSources, "max-sources", timeserver.DefaultMaxSources, "source IPs given their own rate limit; beyond, they share one")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if o.cfg.RatePerSource <= 0 || o.cfg.BurstPerSource < 1 || o.cfg.MaxSources < 1 {
		return errs.Usagef("--rate-per-source must be > 0, --burst-per-source and --max-sources >= 1")
	}
	return serveTime(ctx, e, o)
}

// serveTime serves UDP, and TCP if asked, until ctx is done, then prints
// the server's Stats.
func serveTime(ctx context.Context, e *env, o timeserverOptions) error {
	uc, err := timeserver.ListenUDP(o.listen)
	if err != nil {
		return errs.Usage(err, "is --listen a free local address?")
	}
	defer uc.Close()
	var ln net.Listener
	if o.tcp != "" {
		if ln, err = net.Listen("tcp", o.tcp); err != nil {
			return errs.Usage(err, "is --tcp a free local address?")
		}
	}
	srv := timeserver.New(o.cfg)
	fmt.Fprintf(e.stderr, "diperf timeserver: serving on udp://%s%s, %.0f requests/s per source (burst %.0f); interrupt to stop\n",
		uc.LocalAddr(), tcpNote(ln), o.cfg.RatePerSource, o.cfg.BurstPerSource)
	err = runServers(ctx, srv, uc, ln)
	st := srv.Stats()
	fmt.Fprintf(e.stdout, "answered %d, rate-limited %d, malformed %d\n", st.Answered, st.RateLimited, st.Malformed)
	return err
}

// runServers serves uc and ln (if not nil) until ctx is done or one fails.
func runServers(ctx context.Context, srv *timeserver.Server, uc *net.UDPConn, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 2)
	n := 1
	go func() { errc <- srv.ServeUDP(ctx, uc) }()
	if ln != nil {
		n++
		go func() { errc <- srv.ServeTCP(ctx, ln) }()
	}
	var first error
	for range n {
		if err := <-errc; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	return first
}

func tcpNote(ln net.Listener) string {
	if ln == nil {
		return ""
	}
	return " and tcp://" + ln.Addr().String()
}
