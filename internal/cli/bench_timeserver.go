package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/bench"
	"github.com/diperf/diperf/internal/errs"
)

func benchTimeserverCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench timeserver", "--rate R --duration D [--sources N] [--auth]")
	var o bench.TimeserverOptions
	fs.Float64Var(&o.Rate, "rate", 100000, "requests/s to send, all sources together")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "how long to send")
	fs.IntVar(&o.Sources, "sources", 64, "sending sockets, from 127.0.0.10, 127.0.0.11, ...")
	fs.BoolVar(&o.Auth, "auth", false, "authenticate every request with a time key, as testers do with the controller's own time server")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if o.Rate <= 0 || o.Duration <= 0 || o.Sources < 1 || o.Sources > bench.MaxSources {
		return errs.Usagef("want --rate > 0, --duration > 0 and 1 <= --sources <= %d", bench.MaxSources)
	}
	r, err := bench.Timeserver(ctx, o, e.stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "sent %d in %.2fs (%d not sent: generator behind schedule; %d refused by the kernel)\n",
		r.Sent, r.DurationS, r.Skipped, r.Refused)
	fmt.Fprintf(e.stdout, "answered %d (%.0f/s), unanswered %d; server: answered %d, rate-limited %d, malformed %d, unauthentic %d\n",
		r.Answered, r.AnsweredPerS, r.Unanswered, r.ServerAnswered, r.RateLimited, r.Malformed, r.Unauthentic)
	fmt.Fprintf(e.stdout, "round trip p50 %.1f µs, p99 %.1f µs; largest reply/request size %.3f\n",
		r.RTTP50us, r.RTTP99us, r.MaxReplyRatio)
	return printJSON(e, r)
}
