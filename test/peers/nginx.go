package peers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// NginxOptions configure the private nginx the peers are measured against.
type NginxOptions struct {
	Workers  int // worker_processes (0 = 1)
	FileSize int // bytes of the static file (0 = 612, the size of nginx's welcome page)
	// StubStatus serves nginx's stub_status page (its own request
	// counters) at /status too, for a server view of the run.
	StubStatus bool
}

// Nginx is a private nginx on loopback: its own configuration, files and
// logs in a temporary directory, run as a child in the foreground. The
// system's nginx service is never touched.
type Nginx struct {
	URL     string // the static file's address
	Status  string // the stub_status page's address (with NginxOptions.StubStatus; else "")
	dir     string
	cmd     *exec.Cmd
	done    chan struct{} // closed when the master process has exited
	waitErr error         // how it exited (read after done)
}

// nginxExe finds the nginx binary (Debian puts it in /usr/sbin, which may
// not be on PATH).
func nginxExe() (string, error) {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx", nil
	}
	return "", fmt.Errorf("nginx: %w", ErrNotInstalled)
}

// InstallNginx installs Debian's nginx package when nginx is missing.
func InstallNginx(ctx context.Context) error {
	if _, err := nginxExe(); err == nil {
		return nil
	}
	return aptInstall(ctx, "nginx")
}

// nginxConf is the private configuration: one server on loopback, no
// access log, keep-alive connections that last the whole run.
const nginxConf = `worker_processes %d;
daemon off;
master_process on;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 100000;
  keepalive_timeout 60s;
  client_body_temp_path %[2]s/tmp/body;
  proxy_temp_path %[2]s/tmp/proxy;
  fastcgi_temp_path %[2]s/tmp/fastcgi;
  uwsgi_temp_path %[2]s/tmp/uwsgi;
  scgi_temp_path %[2]s/tmp/scgi;
  server {
    listen 127.0.0.1:%[3]d;
    root %[2]s/www;%[4]s
  }
}
`

// StartNginx starts a private nginx serving one small file on a free
// loopback port and waits until it answers. Stop it with Stop.
func StartNginx(ctx context.Context, o NginxOptions) (*Nginx, error) {
	exe, err := nginxExe()
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range 3 { // the free port may be taken between probe and bind
		n, err := startNginxOnce(ctx, exe, o)
		if err == nil {
			return n, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func startNginxOnce(ctx context.Context, exe string, o NginxOptions) (*Nginx, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := nginxDir(o, port)
	if err != nil {
		return nil, err
	}
	n := &Nginx{URL: fmt.Sprintf("http://127.0.0.1:%d/index.html", port), dir: dir}
	if o.StubStatus {
		n.Status = fmt.Sprintf("http://127.0.0.1:%d/status", port)
	}
	conf := filepath.Join(dir, "nginx.conf")
	n.cmd = exec.Command(exe, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	n.cmd.Stdout, n.cmd.Stderr = os.Stderr, os.Stderr
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its workers too can be killed as a group
	if err := n.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start nginx: %w", err)
	}
	n.done = make(chan struct{})
	go func() { n.waitErr = n.cmd.Wait(); close(n.done) }()
	if err := n.waitReady(ctx); err != nil {
		n.Stop()
		return nil, err
	}
	return n, nil
}

// stubStatus is the server block's stub_status location, when o asks for it.
func stubStatus(o NginxOptions) string {
	if !o.StubStatus {
		return ""
	}
	return "\n    location = /status { stub_status; }"
}

// nginxDir writes the configuration and the file, readable by nginx's
// workers (which run as nobody when nginx starts as root).
func nginxDir(o NginxOptions, port int) (string, error) {
	dir, err := os.MkdirTemp("", "diperf-nginx-*")
	if err != nil {
		return "", fmt.Errorf("nginx directory: %w", err)
	}
	workers, size := max(o.Workers, 1), o.FileSize
	if size <= 0 {
		size = 612
	}
	err = errors.Join(
		os.Chmod(dir, 0o755),
		os.MkdirAll(filepath.Join(dir, "www"), 0o755),
		os.MkdirAll(filepath.Join(dir, "tmp"), 0o755),
		os.WriteFile(filepath.Join(dir, "www", "index.html"), []byte(strings.Repeat("x", size-1)+"\n"), 0o644),
		os.WriteFile(filepath.Join(dir, "nginx.conf"), fmt.Appendf(nil, nginxConf, workers, dir, port, stubStatus(o)), 0o644),
	)
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("nginx directory %s: %w", dir, err)
	}
	return dir, nil
}

// waitReady polls the file until nginx answers 200, nginx exits or 10 s pass.
func (n *Nginx) waitReady(ctx context.Context) error {
	deadline := time.After(10 * time.Second)
	for {
		resp, err := http.Get(n.URL)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-n.done:
			log, _ := os.ReadFile(filepath.Join(n.dir, "error.log"))
			return fmt.Errorf("nginx exited at start (%v): %s", n.waitErr, tail(log, 400))
		case <-deadline:
			return fmt.Errorf("nginx did not answer %s within 10 s", n.URL)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// freePort is a loopback TCP port free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Stop ends nginx (SIGQUIT: graceful; its process group is killed if it
// has not exited within 5 s) and removes its directory.
func (n *Nginx) Stop() {
	defer os.RemoveAll(n.dir)
	_ = n.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-n.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
		<-n.done
	}
}
