package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/netip"
	"time"

	"github.com/diperf/diperf/internal/timeserver"
)

// The time-server load generator's source addresses are 127.0.0.10 and up.
const (
	firstSource = 10
	// MaxSources is the most source addresses TimeserverOptions.Sources may ask for.
	MaxSources = 255 - firstSource + 1
	grace      = time.Second // how long the generator waits for late replies
)

// TimeserverOptions configure the time-server benchmark.
type TimeserverOptions struct {
	Rate     float64       // requests/s to send, all sources together
	Duration time.Duration // how long to send
	Sources  int           // sending sockets, from 127.0.0.10 on (1..MaxSources)
	// Auth authenticates every request with a time key the server holds,
	// as testers do with the controller's own time server.
	Auth bool
}

// TimeserverResult is what the time-server benchmark measured; it is the
// JSON line `diperf bench timeserver` ends with.
type TimeserverResult struct {
	Bench         string  `json:"bench"`
	Rate          float64 `json:"rate"`
	Auth          bool    `json:"auth"`        // requests and replies authenticated
	Unauthentic   uint64  `json:"unauthentic"` // requests the server refused as unauthentic
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

	Skipped        uint64 `json:"-"` // not sent: the generator fell behind its schedule
	Refused        uint64 `json:"-"` // sends the kernel refused
	ServerAnswered uint64 `json:"-"` // replies the server counted
}

// Timeserver serves a default-configured time server on loopback, loads it
// from o.Sources source addresses at o.Rate for o.Duration, and returns the
// figures; progress gets a line on what it does.
func Timeserver(ctx context.Context, o TimeserverOptions, progress io.Writer) (*TimeserverResult, error) {
	if o.Rate <= 0 || o.Duration <= 0 || o.Sources < 1 || o.Sources > MaxSources {
		return nil, fmt.Errorf("bench timeserver: want a rate > 0, a duration > 0 and 1 to %d sources", MaxSources)
	}
	svc, err := timeserver.Start(timeserver.Options{UDP: "127.0.0.1:0"})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "timeserver on udp://%s; sending %.0f requests/s for %v from %d sources (authenticated: %v)\n",
		svc.UDPAddr(), o.Rate, o.Duration, o.Sources, o.Auth)
	res, err := timeserver.Load(ctx, loadConfig(o, svc))
	if serr := svc.Stop(); err == nil {
		err = serr
	}
	if err != nil {
		return nil, err
	}
	r := timeserverResult(o.Rate, res, svc.Stats())
	r.Auth = o.Auth
	return r, nil
}

// loadConfig is the load o asks for on svc: its requests authenticated
// with a key svc holds, if o.Auth.
func loadConfig(o TimeserverOptions, svc *timeserver.Service) timeserver.LoadConfig {
	lc := timeserver.LoadConfig{Target: svc.UDPAddr(), Rate: o.Rate, Duration: o.Duration, Sources: sources(o.Sources), Grace: grace}
	if o.Auth {
		k := timeserver.NewKey(1)
		svc.AddKey(k)
		lc.Key = &k
	}
	return lc
}

// sources returns n loopback addresses from 127.0.0.10 on.
func sources(n int) []netip.Addr {
	out := make([]netip.Addr, n)
	a := netip.AddrFrom4([4]byte{127, 0, 0, firstSource})
	for i := range out {
		out[i], a = a, a.Next()
	}
	return out
}

// timeserverResult turns the generator's and the server's counts into the
// benchmark's figures.
func timeserverResult(rate float64, res timeserver.LoadResult, st timeserver.Stats) *TimeserverResult {
	return &TimeserverResult{
		Bench: "timeserver", Rate: rate, DurationS: round(res.Elapsed.Seconds(), 3),
		Sent: res.Sent, Answered: res.Answered,
		AnsweredPerS:   round(float64(res.Answered)/res.Elapsed.Seconds(), 1),
		Unanswered:     res.Sent - min(res.Answered, res.Sent),
		RateLimited:    st.RateLimited,
		Malformed:      st.Malformed,
		Unauthentic:    st.Unauthentic,
		MaxReplyRatio:  round(res.MaxReplyRatio, 3),
		RTTP50us:       round(float64(res.Quantile(0.50))/1e3, 1),
		RTTP99us:       round(float64(res.Quantile(0.99))/1e3, 1),
		Skipped:        res.Skipped,
		Refused:        res.Failed,
		ServerAnswered: st.Answered,
	}
}

// round rounds x to the given number of decimals.
func round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p) / p
}
