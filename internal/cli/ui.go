package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/dashboard"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/rundir"
)

// defaultUI is where the dashboard listens unless told otherwise: Locust's
// port on loopback; when it is taken (another run), any free port.
const defaultUI = "127.0.0.1:8089"

// uiFlags are the dashboard's flags of `diperf run` and `diperf demo`.
type uiFlags struct {
	addr      string
	linger    time.Duration
	tokenFile string
}

func addUIFlags(fs *flag.FlagSet) *uiFlags {
	u := &uiFlags{}
	fs.StringVar(&u.addr, "ui", defaultUI, "serve the live dashboard (and the controller's Prometheus /metrics) on HOST:PORT, with a per-run token in its URL; off: none")
	fs.StringVar(&u.tokenFile, "ui-token-file", "", "read the dashboard's token from this file, private to its owner (mode 600), instead of making one per run: for a Prometheus that scrapes every run's /metrics")
	fs.DurationVar(&u.linger, "ui-linger", 0, "keep the dashboard up this long after the run ends (or until interrupted), to open its report link")
	return u
}

// ui is a run's dashboard, or nothing when it is off.
type ui struct {
	run    *live.Run // what it shows (nil when off: the controller keeps its own)
	srv    *dashboard.Server
	linger time.Duration
}

// startUI starts exp's dashboard on u's address, printing its URL on
// e.stderr; with --ui off it starts nothing.
func startUI(e *env, exp *experiment.Experiment, dir string, u *uiFlags) (*ui, error) {
	out := &ui{}
	if u == nil || u.addr == "off" || u.addr == "" {
		return out, nil
	}
	out.run = live.New(live.Options{Name: exp.Name, Testers: exp.Schedule.Testers})
	o := dashboard.Options{Addr: u.addr, Report: rundir.Path(dir, rundir.Report)}
	if u.tokenFile != "" {
		tok, err := readPrivateSecret("--ui-token-file", u.tokenFile)
		if err != nil {
			return nil, err
		}
		if o.Token = strings.TrimSpace(string(tok)); !urlSafe(o.Token) {
			return nil, errs.Usagef("--ui-token-file %s: the token must be 16 to 256 characters of A-Z a-z 0-9 . _ ~ -, to go in a URL", u.tokenFile)
		}
	}
	srv, err := dashboard.Start(out.run, o)
	if err != nil && u.addr == defaultUI && errors.Is(err, syscall.EADDRINUSE) {
		o.Addr = "127.0.0.1:0"
		srv, err = dashboard.Start(out.run, o)
	}
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			return nil, errs.Usage(err, "give --ui a free HOST:PORT of this machine, or --ui off")
		}
		return nil, err
	}
	out.srv, out.linger = srv, u.linger
	fmt.Fprintf(e.stderr, "diperf: live dashboard: %s\n", srv.URL())
	return out, nil
}

// urlSafe reports whether tok may stand in a URL unescaped and is long
// enough to guess at no better than a random one of 16 hex digits.
func urlSafe(tok string) bool {
	if len(tok) < 16 || len(tok) > 256 {
		return false
	}
	for _, c := range tok {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._~-", c)) {
			return false
		}
	}
	return true
}

// stop keeps the dashboard up for its linger (unless ctx ends first),
// then closes it.
func (u *ui) stop(ctx context.Context, e *env) {
	if u == nil || u.srv == nil {
		return
	}
	if u.linger > 0 && ctx.Err() == nil {
		fmt.Fprintf(e.stderr, "diperf: the dashboard stays up for %v (interrupt to end now): %s\n", u.linger, u.srv.URL())
		select {
		case <-ctx.Done():
		case <-time.After(u.linger):
		}
	}
	_ = u.srv.Close()
}
