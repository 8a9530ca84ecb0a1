package netlab

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// procState tells a live process (by its command name, which a process in
// the middle of an exec still has) from a zombie and from one gone.
func TestProcState(t *testing.T) {
	if comm, live := procState(os.Getpid()); !live || comm == "" {
		t.Errorf("this process: %q, live %v", comm, live)
	}
	c := exec.Command("true")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, live := procState(c.Process.Pid); live; _, live = procState(c.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("an exited child not waited for is still live after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Wait()
	if _, live := procState(c.Process.Pid); live {
		t.Error("a reaped child is live")
	}
}
