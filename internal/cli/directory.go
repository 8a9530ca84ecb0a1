package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
)

// directoryOptions are the flags of 'diperf directory'.
type directoryOptions struct {
	listen, db, tokenFile, tlsCert, tlsKey string
	ttl                                    time.Duration
	maxSensors, newNamesPerHour            int
	retention                              directory.Retention
	probes                                 probeLimits
}

func directoryCmd(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "remove" {
		return directoryRemoveCmd(ctx, e, args[1:])
	}
	fs := newFlags(e, "directory", "--listen ADDR --db FILE [--token-file F] [--tls-cert F --tls-key F] [--ttl D] [--max-sensors N] [--new-names-per-hour N]")
	var o directoryOptions
	fs.StringVar(&o.listen, "listen", "127.0.0.1:7300", "TCP address to serve the API on")
	fs.StringVar(&o.db, "db", "", "SQLite database file (made if missing; WAL mode)")
	fs.StringVar(&o.tokenFile, "token-file", defaultMeshToken(), tokenFileUsage+": the bearer token every client sends (made, mode 0600, if missing)")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "serve HTTPS with this certificate (PEM), with --tls-key")
	fs.StringVar(&o.tlsKey, "tls-key", "", "the certificate's private key (PEM)")
	fs.DurationVar(&o.ttl, "ttl", directory.DefaultTTL, "lease of a registration that asks none; a sensor not renewing within it is stale")
	fs.IntVar(&o.maxSensors, "max-sensors", directory.DefaultMaxSensors, fmt.Sprintf("most sensors registered at once (at most %d: their list must fit in what a client reads)", directory.MaxSensorsLimit))
	fs.IntVar(&o.newNamesPerHour, "new-names-per-hour", directory.DefaultNewNamesPerHour, "names new to the directory one address may register in an hour")
	addRetentionFlags(fs, &o.retention)
	o.probes.add(fs)
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if err := o.probes.check(); err != nil {
		return err
	}
	if o.db == "" {
		return errs.Usagef("--db is required")
	}
	if o.tokenFile == "" {
		return errs.Usagef("--token-file is required (no default: neither $DIPERF_TOKEN_FILE nor a config directory)")
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return errs.Usagef("--tls-cert and --tls-key go together")
	}
	if o.ttl < directory.MinTTL {
		return errs.Usagef("--ttl must be at least %v", directory.MinTTL)
	}
	if o.maxSensors < 1 || o.maxSensors > directory.MaxSensorsLimit {
		return errs.Usagef("--max-sensors must be from 1 to %d (the list of that many fits in what a client reads), got %d", directory.MaxSensorsLimit, o.maxSensors)
	}
	if o.newNamesPerHour < 1 {
		return errs.Usagef("--new-names-per-hour must be at least 1, got %d", o.newNamesPerHour)
	}
	if err := checkRetention(o.retention); err != nil {
		return err
	}
	return serveDirectory(ctx, e, o)
}

// serveDirectory opens the database and serves until ctx is done. The
// TLS certificate and key are checked first: a bad one is refused (exit
// 2) before anything is made or served.
func serveDirectory(ctx context.Context, e *env, o directoryOptions) error {
	cfg, scheme, err := o.serveConfig()
	if err != nil {
		return err
	}
	token, err := directoryToken(e, o.tokenFile)
	if err != nil {
		return err
	}
	store, err := directory.OpenStore(o.db)
	if err != nil {
		return err
	}
	defer store.Close()
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return errs.Usage(err, "is --listen a free local address?")
	}
	fmt.Fprintf(e.stderr, "diperf directory: serving %s://%s from %s; at most %d connections without the token, %d from one source; interrupt to stop\n",
		scheme, ln.Addr(), o.db, cfg.Unproved.Conns, cfg.Unproved.PerSource)
	srv := directory.NewServer(store, directory.Options{Token: token, TTL: o.ttl,
		MaxSensors: o.maxSensors, NewNamesPerHour: o.newNamesPerHour,
		ProbesPerMinute: o.probes.perMinute, ProbesPending: o.probes.pending})
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	go store.RunRetention(rctx, o.retention, time.Now, func(f string, a ...any) { fmt.Fprintf(e.stderr, "diperf directory: "+f+"\n", a...) })
	return directory.ServeWith(ctx, ln, srv.Handler(), cfg)
}

// directoryToken reads the directory's token from path (private to its
// owner, as --secret-file); when the file does not exist it is made, mode
// 0600, with a new random token, and the user is told.
func directoryToken(e *env, path string) ([]byte, error) {
	if path == defaultMeshToken() {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("--token-file: %w", err)
		}
	}
	return readOrMakeToken(e, "--token-file", path, "sensors use it with --token-file "+path)
}

// serveConfig is how the directory serves, and its URL scheme: over TLS
// with --tls-cert and --tls-key, read and checked here (a bad one is a
// usage error).
func (o directoryOptions) serveConfig() (directory.ServeConfig, string, error) {
	cfg := directory.ServeConfig{Unproved: directory.DefaultUnproved()}
	if o.tlsCert == "" {
		return cfg, "http", nil
	}
	var err error
	if cfg.TLS, err = directory.LoadTLS(o.tlsCert, o.tlsKey); err != nil {
		return cfg, "", errs.Usage(err, "give --tls-cert a PEM certificate valid now and --tls-key its private key")
	}
	return cfg, "https", nil
}
