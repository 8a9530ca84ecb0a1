package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/diperf/diperf/internal/monitor"
)

// monitorCmd serves this host's figures in the Prometheus text format
// under node_exporter's names, for a host with no exporter, until
// SIGINT/SIGTERM.
func monitorCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "monitor", "--listen ADDR [--proc DIR]")
	listen := fs.String("listen", "127.0.0.1:9100", "address to serve /metrics on")
	proc := fs.String("proc", "/proc", "the proc file system to read")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv, err := hostServer(*proc)
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintf(e.stdout, "http://%s/metrics\n", ln.Addr())
	fmt.Fprintf(e.stderr, "diperf monitor: serving this host's figures (node_exporter's names) on http://%s/metrics\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// hostServer is an HTTP server of this host's figures (read from the proc
// file system at proc) at /metrics, under node_exporter's names.
func hostServer(proc string) (*http.Server, error) {
	hc, err := monitor.NewHostCollector(proc)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(hc); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, nil
}
