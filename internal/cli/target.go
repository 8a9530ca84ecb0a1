package cli

import (
	"context"
	"fmt"
	"net"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/target"
)

func targetCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "target", "--listen ADDR --workers C --service-time S")
	cfg := target.DefaultConfig()
	listen := fs.String("listen", "127.0.0.1:8080", "address to serve on")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "service slots C")
	fs.DurationVar(&cfg.ServiceTime, "service-time", cfg.ServiceTime, "service time S per call (capacity = C/S calls/s)")
	fs.StringVar(&cfg.Dist, "service-dist", cfg.Dist, "service time distribution: fixed or exp")
	fs.IntVar(&cfg.Queue, "queue", cfg.Queue, "most calls waiting for a slot; beyond it, 503")
	fs.DurationVar(&cfg.PauseAt, "pause-at", 0, "stall the service this long after it starts ...")
	fs.DurationVar(&cfg.PauseFor, "pause-for", 0, "... for this long: calls then hold their slot until the pause is over")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	srv, err := target.New(cfg)
	if err != nil {
		return errs.Usage(err, "")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "diperf target: serving on http://%s/ with %d workers x %v = capacity %.1f calls/s (metrics on /metrics, server view on /served.csv)\n",
		ln.Addr(), cfg.Workers, cfg.ServiceTime, float64(cfg.Workers)/cfg.ServiceTime.Seconds())
	return target.Serve(ctx, ln, srv)
}
