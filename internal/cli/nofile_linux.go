package cli

import (
	"fmt"
	"io"
	"syscall"
)

// raiseNoFile fits this process's open-file limit to need (fitNoFile) and
// says on w what it changed.
func raiseNoFile(w io.Writer, what string, need uint64) error {
	msg, err := fitNoFile(what, need, getNoFile, setNoFile)
	if msg != "" {
		fmt.Fprintf(w, "diperf: %s\n", msg)
	}
	return err
}

func getNoFile() (rlimit, error) {
	var r syscall.Rlimit
	err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r)
	return rlimit{r.Cur, r.Max}, err
}

func setNoFile(l rlimit) error {
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: l.cur, Max: l.max})
}

// testersPerProcess is how many tester connections one generator
// process may hold: the open-file hard limit less genReserve.
func testersPerProcess() int {
	l, err := getNoFile()
	if err != nil || l.max <= 2*genReserve || l.max > 1<<30 {
		return 0 // no cap known (or none needed)
	}
	return int(l.max) - genReserve
}
