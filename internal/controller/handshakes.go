package controller

import (
	"sync"
	"time"
)

// maxHandshakesPerSource is how many of the maxHandshakes one source
// address may hold at once: a source whose connections send a byte and
// then nothing holds its share for the handshake timeout, never all of
// them. The testers of one host (a local testbed, a bench generator) that
// join at once take their turns 16 at a time.
const maxHandshakesPerSource = 16

// handshakeGate caps the handshakes in progress: maxHandshakes in all,
// perSource from one source address. Safe for concurrent use.
type handshakeGate struct {
	all       gate
	perSource int
	mu        sync.Mutex
	sources   map[string]*sourceGate
}

// sourceGate is one source's share, kept while one of its connections
// holds or waits for a place.
type sourceGate struct {
	g     gate
	users int
}

func newHandshakeGate(all, perSource int) *handshakeGate {
	return &handshakeGate{all: newGate(all), perSource: perSource, sources: map[string]*sourceGate{}}
}

// acquire takes a place for a connection from src, waiting at most
// timeout for its source's share and then for the whole; ok false if none
// came free. release gives it back.
func (h *handshakeGate) acquire(src string, timeout time.Duration) (release func(), ok bool) {
	deadline := time.Now().Add(timeout)
	sg := h.join(src)
	if !sg.g.acquire(timeout) {
		h.leave(src, sg)
		return nil, false
	}
	if !h.all.acquire(time.Until(deadline)) {
		sg.g.release()
		h.leave(src, sg)
		return nil, false
	}
	return func() {
		h.all.release()
		sg.g.release()
		h.leave(src, sg)
	}, true
}

// join returns src's share, made if it has none, counting one more user.
func (h *handshakeGate) join(src string) *sourceGate {
	h.mu.Lock()
	defer h.mu.Unlock()
	sg := h.sources[src]
	if sg == nil {
		sg = &sourceGate{g: newGate(h.perSource)}
		h.sources[src] = sg
	}
	sg.users++
	return sg
}

// leave counts one user of src's share less, forgetting it at none.
func (h *handshakeGate) leave(src string, sg *sourceGate) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sg.users--; sg.users == 0 {
		delete(h.sources, src)
	}
}
