package tester

import (
	"fmt"

	"github.com/diperf/diperf/internal/clocksync"
	"github.com/diperf/diperf/internal/timeserver"
)

// timeKey is the tester's time key, derived from its session's keys, nil
// when its test description names none (a time server without keys).
func (t *Tester) timeKey() *timeserver.Key {
	keys, ok := t.conn.Keys()
	if t.desc.TimeKeyID == 0 || !ok {
		return nil
	}
	k := &timeserver.Key{ID: t.desc.TimeKeyID}
	copy(k.Secret[:], keys.TimeKey(k.ID))
	return k
}

// syncHealth returns the Syncer's Health after a sync and logs what is
// new in it: replies refused, probes that disagree.
func (t *Tester) syncHealth() clocksync.Health {
	h := t.sy.Health()
	if h.Refused > t.refusedLogged {
		fmt.Fprintf(t.o.Log, "tester %s: clock sync: %d time replies refused so far: they failed authentication (forged or altered on the path)\n",
			t.id, h.Refused)
		t.refusedLogged = h.Refused
	}
	if h.Disagreeing > 0 {
		fmt.Fprintf(t.o.Log, "tester %s: clock sync: %d of %d probes disagree beyond their error bounds: a reply was shifted on the path\n",
			t.id, h.Disagreeing, h.Probes)
	}
	if h.Inconsistent > t.inconsistentLogged {
		fmt.Fprintf(t.o.Log, "tester %s: clock sync: %d syncs disagree with the first ones beyond their error bounds: not used\n",
			t.id, h.Inconsistent)
		t.inconsistentLogged = h.Inconsistent
	}
	return h
}
