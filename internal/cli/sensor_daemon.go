package cli

import (
	"context"
	"flag"
	"os"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/human"
	"github.com/diperf/diperf/internal/netprobe"
	"github.com/diperf/diperf/internal/sensor"
	"github.com/diperf/diperf/internal/sensord"
)

// sensorFlags are the flags of the sensor daemon.
type sensorFlags struct {
	dir, tokenFile, listen, advertise, name, site, groups string
	caFile, keyFile                                       string
	period, testTime                                      time.Duration
	budget, bytesPerHour                                  float64
}

func (f *sensorFlags) add(fs *flag.FlagSet) {
	host, _ := os.Hostname()
	fs.StringVar(&f.dir, "directory", "", "the directory's URL (http[s]://HOST:PORT)")
	fs.StringVar(&f.tokenFile, "token-file", defaultMeshToken(), tokenFileUsage+": the directory's, and the sensors' among themselves")
	fs.StringVar(&f.caFile, "ca-file", "", caFileUsage)
	fs.StringVar(&f.keyFile, "key-file", "", keyFileUsage)
	fs.StringVar(&f.listen, "listen", ":7655", "where this sensor's test server listens")
	fs.StringVar(&f.advertise, "advertise", "", "HOST:PORT its peers dial (default: the listen address)")
	fs.StringVar(&f.name, "name", host, "its registered host name")
	fs.StringVar(&f.site, "site", "default", "its site: sensors of one site test each other (the local group)")
	fs.StringVar(&f.groups, "groups", sensor.GroupLocal, "its groups: local, and global for a site's promoted sensors")
	fs.DurationVar(&f.period, "period", sensor.DefaultPeriod, "one test per period at most")
	fs.DurationVar(&f.testTime, "test-time", sensor.DefaultTestTime, "each test's length")
	fs.Float64Var(&f.budget, "budget", 0, "the share of time spent testing, its own tests and those it serves, at most (default: 3 × test-time / period)")
	fs.Float64Var(&f.bytesPerHour, "bytes-per-hour", 0, "bytes its tests may send an hour (0: no cap)")
}

// sensorDaemon is `diperf sensor --directory URL ...`: flags → options →
// sensord.Run, which serves tests, registers and renews, and runs the
// measurement loop until interrupted, then says what it did and spent.
func sensorDaemon(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "sensor", "--directory URL [--token-file F] [--listen ADDR --groups local[,global] --period D --test-time D]")
	var f sensorFlags
	f.add(fs)
	if err := fs.Parse(args); err != nil {
		return errs.Usage(err, "")
	}
	if f.dir == "" {
		return errs.Usagef("diperf sensor needs --directory")
	}
	if f.tokenFile == "" {
		return errs.Usagef("diperf sensor needs --token-file (no default: neither $DIPERF_TOKEN_FILE nor a config directory)")
	}
	if err := f.check(); err != nil {
		return err
	}
	token, err := readPrivateSecret("--token-file", f.tokenFile)
	if err != nil {
		return err
	}
	dc, err := directoryClient(f.dir, token, f.caFile)
	if err != nil {
		return err
	}
	return sensord.Run(ctx, f.options(e, dc, token))
}

// options are the daemon's options from the flags.
func (f *sensorFlags) options(e *env, dc *directory.Client, token []byte) sensord.Options {
	key := f.keyFile
	if key == "" {
		key = keyFileFor(f.tokenFile, f.name)
	}
	return sensord.Options{Directory: dc, Token: token, KeyFile: key, Listen: f.listen, Advertise: f.advertise,
		Name: f.name, Site: f.site, Groups: strings.Split(f.groups, ","), Version: Version,
		Period: f.period, TestTime: f.testTime, Budget: f.budget, BytesPerHour: f.bytesPerHour,
		Stdout: e.stdout, Stderr: e.stderr}
}

// check refuses flags that make no schedule.
func (f *sensorFlags) check() error {
	switch {
	case f.period <= 0:
		return errs.Usagef("--period must be above 0, got %v", f.period)
	case f.testTime <= 0 || f.testTime > f.period:
		return errs.Usagef("--test-time must be above 0 and at most --period (%v), got %v", f.period, f.testTime)
	case f.testTime > netprobe.MaxTestTime:
		return errs.Usagef("--test-time must be at most %v, the longest test a sensor serves, got %v", netprobe.MaxTestTime, f.testTime)
	case f.budget < 0 || f.budget > 1:
		return errs.Usagef("--budget is a share of the time, from 0 (the default, 3 × test-time / period) to 1, got %v", f.budget)
	case !(f.bytesPerHour >= 0 && f.bytesPerHour <= sensor.MaxBytesPerHour): // NaN, Inf too
		return errs.Usagef("--bytes-per-hour must be 0 (no cap) to %s, got %s", human.Number(sensor.MaxBytesPerHour, 6), human.Number(f.bytesPerHour, 6))
	case !(f.budget >= 0): // NaN, which passes the comparisons above
		return errs.Usagef("--budget is a share of the time, from 0 (the default, 3 × test-time / period) to 1, got %v", f.budget)
	case f.name == "":
		return errs.Usagef("--name must not be empty")
	}
	for _, g := range strings.Split(f.groups, ",") {
		if g == "" || strings.ContainsAny(g, " \t:") {
			return errs.Usagef("--groups %q: want names separated by commas (local, global), none empty, without spaces or ':'", f.groups)
		}
	}
	return nil
}
