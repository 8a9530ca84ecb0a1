package testbed

import (
	"errors"
	"fmt"
	"io"
	"os/user"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// sshStream is a command's standard output on an ssh session.
type sshStream struct {
	s       *ssh.Session
	in      io.WriteCloser
	out     io.Reader
	errTail *tailBuffer
	what    string
	stop    func() bool // unregisters the context's end

	once sync.Once
	err  error // the command's end: nil (exit 0) or why
}

// Read reads the output; at its end, the command's exit.
func (st *sshStream) Read(p []byte) (int, error) {
	n, err := st.out.Read(p)
	if !errors.Is(err, io.EOF) {
		return n, err
	}
	st.once.Do(func() {
		var ee *ssh.ExitError
		switch werr := st.s.Wait(); {
		case errors.As(werr, &ee):
			st.err = fmt.Errorf("%s exited with status %d: %s", st.what, ee.ExitStatus(), st.errTail.String())
		case werr != nil:
			st.err = fmt.Errorf("%s: %w: %s", st.what, werr, st.errTail.String())
		}
	})
	if st.err != nil {
		return n, st.err
	}
	return n, io.EOF
}

// kill stops the command: SIGTERM (sshd may not pass it on), and the
// session's input closed, which its watcher turns into a SIGTERM.
func (st *sshStream) kill() {
	_ = st.s.Signal(ssh.SIGTERM)
	_ = st.in.Close()
}

// closeWait bounds how long Close waits for the command to exit.
const closeWait = 2 * time.Second

// Close stops the command if it still runs, waits for its exit (at most
// closeWait: the host may be gone) and ends its session.
func (st *sshStream) Close() error {
	st.stop()
	st.kill()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(io.Discard, st.out)
		st.once.Do(func() { _ = st.s.Wait() })
	}()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	return st.s.Close()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// currentUser is the login of the user running diperf ("" unknown: the
// host's parse then says so).
func currentUser() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.Username
}
