package contain

import (
	"context"
	"sync"
	"time"
)

// groupPoll is how often GroupGone looks for the groups waited on.
const groupPoll = 20 * time.Millisecond

// GroupGone returns a channel closed once process group pgid has no live
// process left (a zombie does not count), looked for every groupPoll
// until ctx is done. One scan of /proc per round serves every caller
// waiting at the time, so that a tester stopping a thousand calls at once
// does not scan /proc a thousand times a round.
func GroupGone(ctx context.Context, pgid int) <-chan struct{} {
	w := &groupWaiter{pgid: pgid, gone: make(chan struct{})}
	groups.add(w)
	context.AfterFunc(ctx, func() { groups.remove(w) })
	return w.gone
}

// groupWaiter is one caller of GroupGone.
type groupWaiter struct {
	pgid  int
	gone  chan struct{}
	round uint64 // the scans begun before it came
}

// groupWatch scans /proc for the groups waited on while any is.
type groupWatch struct {
	mu      sync.Mutex
	waiting map[*groupWaiter]bool
	running bool   // a scanning goroutine runs
	round   uint64 // scans begun
}

var groups groupWatch

func (g *groupWatch) add(w *groupWaiter) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.waiting == nil {
		g.waiting = map[*groupWaiter]bool{}
	}
	w.round = g.round
	g.waiting[w] = true
	if !g.running {
		g.running = true
		go g.loop()
	}
}

func (g *groupWatch) remove(w *groupWaiter) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.waiting, w)
}

// loop scans, closes the channels of the groups found empty, and sleeps,
// until nobody waits. A scan begun before a caller came says nothing of
// its group: the group may have been made after the scan passed by.
func (g *groupWatch) loop() {
	for {
		g.mu.Lock()
		g.round++
		round := g.round
		g.mu.Unlock()
		live := map[int]bool{}
		EachProcess(func(_ int, st Stat) {
			if st.Live {
				live[st.PGRP] = true
			}
		})
		g.mu.Lock()
		for w := range g.waiting {
			if w.round < round && !live[w.pgid] {
				close(w.gone)
				delete(g.waiting, w)
			}
		}
		if len(g.waiting) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		time.Sleep(groupPoll)
	}
}
