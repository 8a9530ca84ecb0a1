package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Chromium is Debian's Chromium, the browser `diperf bench dashboard`
// opens.
const Chromium = "/usr/bin/chromium"

// chromiumFlags run it headless, as root, without a GPU or any
// connection of its own.
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1100,900"}

// browsers are the browsers open on a dashboard.
type browsers struct {
	addr, token string
	cancel      context.CancelFunc
	procs       []*exec.Cmd
	dirs        []string
	wg          sync.WaitGroup
}

// openBrowsers opens n browsers of kind (chromium or sse) on the
// dashboard whose URL the controller logs in log, and waits until the
// dashboard streams to all of them.
func openBrowsers(ctx context.Context, log string, n int, kind string) (*browsers, error) {
	url, addr, token, err := dashboardURL(ctx, log)
	if err != nil {
		return nil, err
	}
	bctx, cancel := context.WithCancel(ctx)
	b := &browsers{addr: addr, token: token, cancel: cancel}
	for range n {
		if kind == "sse" {
			b.wg.Go(func() { b.listen(bctx) })
		} else if err := b.chromium(url); err != nil {
			b.close()
			return nil, err
		}
	}
	deadline := time.Now().Add(90 * time.Second)
	for b.clients() < n {
		if time.Now().After(deadline) {
			got := b.clients()
			b.close()
			return nil, fmt.Errorf("bench: %d of %d %s browsers on the dashboard after 90 s", got, n, kind)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return b, nil
}

// chromium starts one headless Chromium on url, in a process group of
// its own (its zygote and renderers go with it).
func (b *browsers) chromium(url string) error {
	dir, err := os.MkdirTemp("", "diperf-bench-chromium-")
	if err != nil {
		return err
	}
	b.dirs = append(b.dirs, dir)
	cmd := exec.Command(Chromium, append(append([]string(nil), chromiumFlags...), "--user-data-dir="+dir, url)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("bench: starting %s: %w", Chromium, err)
	}
	b.procs = append(b.procs, cmd)
	return nil
}

// listen is a browser that reads /events and throws the updates away.
func (b *browsers) listen(ctx context.Context) {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+b.addr+"/events", nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
}

// clients is how many browsers the dashboard says it streams to (its
// diperf_dashboard_clients metric); -1 when it does not answer.
func (b *browsers) clients() int {
	req, err := http.NewRequest("GET", "http://"+b.addr+"/metrics", nil)
	if err != nil {
		return -1
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "diperf_dashboard_clients "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err == nil {
				return int(n)
			}
		}
	}
	return -1
}

// close ends every browser.
func (b *browsers) close() {
	b.cancel()
	for _, p := range b.procs {
		_ = syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
		_ = p.Wait()
	}
	b.wg.Wait()
	for _, d := range b.dirs {
		_ = os.RemoveAll(d)
	}
}
