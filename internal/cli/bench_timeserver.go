package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/timeserver"
)

// The load generator's source addresses are 127.0.0.10 and up.
const (
	benchFirstSource = 10
	benchMaxSources  = 255 - benchFirstSource + 1
	benchGrace       = time.Second
)

// benchTimeserverResult is the JSON line 'diperf bench timeserver' ends with.
type benchTimeserverResult struct {
	Bench         string  `json:"bench"`
	Rate          float64 `json:"rate"`
	DurationS     float64 `json:"duration_s"`
	Sent          uint64  `json:"sent"`
	Answered      uint64  `json:"answered"`
	AnsweredPerS  float64 `json:"answered_per_s"`
	Unanswered    uint64  `json:"unanswered"`
	RateLimited   uint64  `json:"rate_limited"`
	Malformed     uint64  `json:"malformed"`
	MaxReplyRatio float64 `json:"max_reply_to_request_ratio"`
	RTTP50us      float64 `json:"rtt_p50_us"`
	RTTP99us      float64 `json:"rtt_p99_us"`
}

func benchTimeserverCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench timeserver", "--rate R --duration D [--sources N]")
	rate := fs.Float64("rate", 100000, "requests/s to send, all sources together")
	dur := fs.Duration("duration", 10*time.Second, "how long to send")
	n := fs.Int("sources", 64, "sending sockets, from 127.0.0.10, 127.0.0.11, ...")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if *rate <= 0 || *dur <= 0 || *n < 1 || *n > benchMaxSources {
		return errs.Usagef("want --rate > 0, --duration > 0 and 1 <= --sources <= %d", benchMaxSources)
	}
	return benchTimeserver(ctx, e, *rate, *dur, *n)
}

// benchTimeserver serves a default-configured Server on loopback, loads it
// from n source addresses at rate for d, and prints the outcome.
func benchTimeserver(ctx context.Context, e *env, rate float64, d time.Duration, n int) error {
	uc, err := timeserver.ListenUDP("127.0.0.1:0")
	if err != nil {
		return err
	}
	defer uc.Close()
	srv := timeserver.New(timeserver.Config{})
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.ServeUDP(sctx, uc) }()
	fmt.Fprintf(e.stdout, "timeserver on udp://%s; sending %.0f requests/s for %v from %d sources\n", uc.LocalAddr(), rate, d, n)
	res, err := timeserver.Load(ctx, timeserver.LoadConfig{
		Target: uc.LocalAddr().String(), Rate: rate, Duration: d,
		Sources: benchSources(n), Grace: benchGrace,
	})
	stop()
	if serr := <-served; err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	return printBenchTimeserver(e, rate, res, srv.Stats())
}

// benchSources returns n loopback addresses from 127.0.0.10 on.
func benchSources(n int) []netip.Addr {
	out := make([]netip.Addr, n)
	a := netip.AddrFrom4([4]byte{127, 0, 0, benchFirstSource})
	for i := range out {
		out[i], a = a, a.Next()
	}
	return out
}

// printBenchTimeserver prints human lines, then the JSON line last.
func printBenchTimeserver(e *env, rate float64, res timeserver.LoadResult, st timeserver.Stats) error {
	r := benchTimeserverResult{
		Bench: "timeserver", Rate: rate, DurationS: round(res.Elapsed.Seconds(), 3),
		Sent: res.Sent, Answered: res.Answered,
		AnsweredPerS:  round(float64(res.Answered)/res.Elapsed.Seconds(), 1),
		Unanswered:    res.Sent - min(res.Answered, res.Sent),
		RateLimited:   st.RateLimited,
		Malformed:     st.Malformed,
		MaxReplyRatio: round(res.MaxReplyRatio, 3),
		RTTP50us:      round(float64(res.Quantile(0.50))/1e3, 1),
		RTTP99us:      round(float64(res.Quantile(0.99))/1e3, 1),
	}
	fmt.Fprintf(e.stdout, "sent %d in %.2fs (%d not sent: generator behind schedule; %d refused by the kernel)\n",
		r.Sent, r.DurationS, res.Skipped, res.Failed)
	fmt.Fprintf(e.stdout, "answered %d (%.0f/s), unanswered %d; server: answered %d, rate-limited %d, malformed %d\n",
		r.Answered, r.AnsweredPerS, r.Unanswered, st.Answered, st.RateLimited, st.Malformed)
	fmt.Fprintf(e.stdout, "round trip p50 %.1f µs, p99 %.1f µs; largest reply/request size %.3f\n",
		r.RTTP50us, r.RTTP99us, r.MaxReplyRatio)
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, string(b))
	return nil
}

// round rounds x to the given number of decimals.
func round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p) / p
}
