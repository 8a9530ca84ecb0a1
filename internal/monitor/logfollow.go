package monitor

import (
	"context"
	"time"
)

// logRemoteLag is how long after its stamp a line of a log on another
// host may come (tail -F, then ssh): a stamped endpoint's point there
// counts the lines stamped up to that long before it is taken.
const logRemoteLag = 250 * time.Millisecond

// logSource is where a log endpoint's lines come from: the file on this
// machine, or tail -F on the endpoint's host.
type logSource interface {
	// tick ends an interval's reading: whether it stopped at MaxLogRead,
	// and the failure, if any, since the last tick.
	tick() (capped bool, err error)
	close()
}

// localSource reads the file at each tick.
type localSource struct{ t *fileTail }

func (l localSource) tick() (bool, error) { return l.t.poll(MaxLogRead) }
func (l localSource) close()              { l.t.close() }

// follow reads ep's log file as it grows until ctx ends, and hands a
// point per interval to the sink (docs/monitor.md, format log): at once
// (lines already in the file are not counted), every interval, and once
// more at the end.
func (s *Scraper) follow(ctx context.Context, ep Endpoint) {
	p, err := newLogParser(ep.Log)
	if err != nil { // validation requires log: and compiles the same pattern: not reached
		s.record(ep.Name, err, 0, []Point{{TimeNs: s.Now().UnixNano(), Endpoint: ep.Name, Metric: Up}})
		<-ctx.Done()
		return
	}
	lag := time.Duration(0) // a local file is read at the point: every line stamped before it is there
	if ep.Host != "" {
		lag = min(logRemoteLag, ep.Interval/2)
	}
	st := newLogState(p, s.Now, ep.Interval, lag)
	sp := &splitter{line: st.add, long: func() { st.refuse(0) }}
	var src logSource
	if ep.Host == "" {
		src = localSource{newFileTail(ep.Log.Path, sp)}
	} else {
		src = s.newStreamTail(ep, sp)
	}
	defer s.noteLog(ep.Name, st)
	defer src.close()
	tk := time.NewTicker(ep.Interval)
	defer tk.Stop()
	for {
		s.logPoint(ep, st, src)
		select {
		case <-ctx.Done():
			s.logPoint(ep, st, src)
			return
		case <-tk.C:
		}
	}
}

// logPoint ends one interval of ep: its points to the sink.
func (s *Scraper) logPoint(ep Endpoint, st *logState, src logSource) {
	t0 := st.mark()
	capped, err := src.tick()
	if capped {
		st.mu.Lock()
		st.capped++
		st.mu.Unlock()
	}
	at, dur, series := st.point(t0)
	s.sink(ep.Name, at, dur, series, 0, err)
}
