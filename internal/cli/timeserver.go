package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

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
	if o.listen == "" {
		return errs.Usagef("--listen must name a UDP address")
	}
	if o.cfg.RatePerSource <= 0 || o.cfg.BurstPerSource < 1 || o.cfg.MaxSources < 1 {
		return errs.Usagef("--rate-per-source must be > 0, --burst-per-source and --max-sources >= 1")
	}
	return serveTime(ctx, e, o)
}

// serveTime serves UDP, and TCP if asked, until ctx is done or a server
// fails, then prints the server's Stats.
func serveTime(ctx context.Context, e *env, o timeserverOptions) error {
	svc, err := timeserver.Start(timeserver.Options{Config: o.cfg, UDP: o.listen, TCP: o.tcp})
	if err != nil {
		return errs.Usage(err, listenHint(err))
	}
	fmt.Fprintf(e.stderr, "diperf timeserver: serving on udp://%s%s, %.0f requests/s per source (burst %.0f); interrupt to stop\n",
		svc.UDPAddr(), tcpNote(svc.TCPAddr()), o.cfg.RatePerSource, o.cfg.BurstPerSource)
	select {
	case <-ctx.Done():
	case <-svc.Failed():
	}
	err = svc.Stop()
	st := svc.Stats()
	fmt.Fprintf(e.stdout, "answered %d, rate-limited %d, malformed %d, unauthentic %d\n", st.Answered, st.RateLimited, st.Malformed, st.Unauthentic)
	return err
}

// listenHint names the flag whose address could not be listened on.
func listenHint(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && strings.HasPrefix(oe.Net, "tcp") {
		return "is --tcp a free local address?"
	}
	return "is --listen a free local address?"
}

func tcpNote(addr string) string {
	if addr == "" {
		return ""
	}
	return " and tcp://" + addr
}
