package bench

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"time"
)

// targetProc is `diperf target` running as a child process.
type targetProc struct {
	cmd    *exec.Cmd
	URL    string // http://127.0.0.1:PORT/
	exited chan struct{}
}

// servingRE is the line `diperf target` announces its address with.
var servingRE = regexp.MustCompile(`serving on (http://127\.0\.0\.1:[0-9]{1,5}/)`)

// startTarget runs `exe target` with c workers of service time s on a
// free loopback port and waits (at most 30 s) for it to say where it
// serves; its other lines go to log.
func startTarget(exe string, c int, s time.Duration, log io.Writer) (*targetProc, error) {
	cmd := exec.Command(exe, "target", "--listen", "127.0.0.1:0", "--workers", fmt.Sprint(c),
		"--service-time", s.String(), "--queue", "100000")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench search: starting diperf target: %w", err)
	}
	t := &targetProc{cmd: cmd, exited: make(chan struct{})}
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil && len(url) == 0 {
				url <- m[1]
			}
			fmt.Fprintln(log, "target:", sc.Text())
		}
		_ = cmd.Wait()
		close(t.exited)
	}()
	select {
	case t.URL = <-url:
		return t, nil
	case <-t.exited:
		return nil, fmt.Errorf("bench search: diperf target exited before serving: %v", cmd.ProcessState)
	case <-time.After(30 * time.Second):
		t.stop()
		return nil, fmt.Errorf("bench search: diperf target did not serve within 30 s")
	}
}

// stop kills the target (it holds no state worth a grace period) and
// waits for it.
func (t *targetProc) stop() {
	_ = t.cmd.Process.Kill()
	<-t.exited
}
