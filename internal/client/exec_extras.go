package client

import (
	"io"
	"os"
	"strconv"
	"time"
)

// ExtrasFD is the descriptor on which an exec client may write its
// extras (key=value pairs, any number of lines), named to it by the
// environment variable ExtrasFDEnv.
const (
	ExtrasFD    = 3
	ExtrasFDEnv = "DIPERF_EXTRAS_FD"
)

// extrasLinger is how long a call's extras are awaited after the client
// exited, for a descendant that still holds the pipe open.
const extrasLinger = 100 * time.Millisecond

// extrasPipe reads what one exec call writes to its fd 3.
type extrasPipe struct {
	r    *os.File
	done chan extrasOf
}

// openExtras makes the pipe of one call: it returns the reader and the
// end to give the client (the caller closes it once the client started).
func openExtras() (*extrasPipe, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	x := &extrasPipe{r: r, done: make(chan extrasOf, 1)}
	go x.read()
	return x, w, nil
}

// read reads up to MaxExtrasText bytes, then drains (so that a client
// writing more never blocks) and parses what it kept.
func (x *extrasPipe) read() {
	b, _ := io.ReadAll(io.LimitReader(x.r, MaxExtrasText+1))
	if len(b) > MaxExtrasText {
		_, _ = io.Copy(io.Discard, x.r)
		x.done <- extrasOf{dropped: "extras dropped: over " + strconv.Itoa(MaxExtrasText) + " bytes on fd 3"}
		return
	}
	x.done <- parseExtras(string(b))
}

// collect returns the extras once every writer closed the pipe, waiting
// at most extrasLinger more (then it takes none).
func (x *extrasPipe) collect() extrasOf {
	_ = x.r.SetReadDeadline(time.Now().Add(extrasLinger))
	r := <-x.done
	_ = x.r.Close()
	return r
}

// abandon stops reading: the call ended without a result.
func (x *extrasPipe) abandon() {
	_ = x.r.SetReadDeadline(time.Unix(1, 0))
	<-x.done
	_ = x.r.Close()
}

// withExtras adds a call's extras to its reply.
func withExtras(r Reply, x extrasOf) Reply {
	r.Bytes, r.Extras = x.bytes, x.extras
	r.Err = withNote(r.Err, x.dropped)
	return r
}
