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
	retention                              directory.Retention
}

func directoryCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "directory", "--listen ADDR --db FILE [--token-file F] [--tls-cert F --tls-key F] [--ttl D]")
	var o directoryOptions
	fs.StringVar(&o.listen, "listen", "127.0.0.1:7300", "TCP address to serve the API on")
	fs.StringVar(&o.db, "db", "", "SQLite database file (made if missing; WAL mode)")
	fs.StringVar(&o.tokenFile, "token-file", defaultMeshToken(), tokenFileUsage+": the bearer token every client sends (made, mode 0600, if missing)")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "serve HTTPS with this certificate (PEM), with --tls-key")
	fs.StringVar(&o.tlsKey, "tls-key", "", "the certificate's private key (PEM)")
	fs.DurationVar(&o.ttl, "ttl", directory.DefaultTTL, "lease of a registration that asks none; a sensor not renewing within it is stale")
	addRetentionFlags(fs, &o.retention)
	if _, err := parse(fs, args, 0); err != nil {
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
	if err := checkRetention(o.retention); err != nil {
		return err
	}
	return serveDirectory(ctx, e, o)
}

// serveDirectory opens the database and serves until ctx is done.
func serveDirectory(ctx context.Context, e *env, o directoryOptions) error {
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
	scheme := "http"
	if o.tlsCert != "" {
		scheme = "https"
	}
	fmt.Fprintf(e.stderr, "diperf directory: serving %s://%s from %s; interrupt to stop\n", scheme, ln.Addr(), o.db)
	srv := directory.NewServer(store, directory.Options{Token: token, TTL: o.ttl})
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	go store.RunRetention(rctx, o.retention, time.Now, func(f string, a ...any) { fmt.Fprintf(e.stderr, "diperf directory: "+f+"\n", a...) })
	return directory.Serve(ctx, ln, srv.Handler(), o.tlsCert, o.tlsKey)
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
