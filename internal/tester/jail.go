package tester

import (
	"fmt"
	"io"
	"syscall"
	"time"
)

// closeClient ends the client once the client loop is over: its
// processes or connections (persistent, tcp keep-alive), then whatever
// its calls left in the tester's jail (processes that left their call's
// process group or session), asked to stop first like a call cut off.
func (t *Tester) closeClient() {
	if c, ok := t.client.(io.Closer); ok {
		_ = c.Close()
	}
	if n, sig := t.o.Jail.Stop(time.Duration(t.desc.Client.KillGraceNs)); n > 0 {
		how := "SIGTERM"
		if sig == syscall.SIGKILL {
			how = "SIGKILL"
		}
		fmt.Fprintf(t.o.Log, "tester %s: %d process(es) the clients left behind ended on %s\n", t.id, n, how)
	}
}
