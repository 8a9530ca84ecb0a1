package sensor

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// outageDir is a directory that goes down after its first answer and
// comes back at back.
type outageDir struct {
	fakeDir
	back    time.Time
	refused int // writes while down
}

func (d *outageDir) down() bool { return time.Now().Before(d.back) && d.queries > 0 }

func (d *outageDir) Sensors(ctx context.Context) ([]Peer, error) {
	d.mu.Lock()
	if d.down() {
		d.mu.Unlock()
		return nil, errors.New("dial tcp 127.0.0.1:7300: connect: connection refused")
	}
	d.mu.Unlock()
	return d.fakeDir.Sensors(ctx)
}

func (d *outageDir) Write(ctx context.Context, r Result) error {
	d.mu.Lock()
	if d.down() {
		d.refused++
		d.mu.Unlock()
		return errors.New("connection refused")
	}
	d.mu.Unlock()
	return d.fakeDir.Write(ctx, r)
}

// With the directory down for an hour, a sensor goes on testing the peers
// it listed last, a test a minute, and says so once; when the directory
// is back it queries it again.
func TestLoopTestsOnWhileTheDirectoryIsDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		self := Peer{Name: "a", Groups: []string{"local"}}
		start := time.Now()
		dir := &outageDir{fakeDir: fakeDir{peers: []Peer{self, {Name: "b", Groups: []string{"local"}}}}, back: start.Add(time.Hour)}
		pr := &fakeProber{busyOnce: map[string]bool{}}
		var mu sync.Mutex
		var logs []string
		cfg := Config{Self: self, Period: time.Minute, TestTime: 5 * time.Second, Rand: rand.New(rand.NewPCG(9, 10)),
			Log: func(s string) { mu.Lock(); logs = append(logs, s); mu.Unlock() }}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Minute)
		defer cancel()
		st := Run(ctx, cfg, dir, pr)
		// an hour down at one test a minute: about 55 tests (the random delays take up to a quarter period each)
		if dir.refused < 45 {
			t.Errorf("%d tests while the directory was down for an hour, want 45 at least (stats %+v)", dir.refused, st)
		}
		if len(dir.results) < 20 || dir.queries < 2 {
			t.Errorf("%d results written, %d queries in the half hour after it came back", len(dir.results), dir.queries)
		}
		said := 0
		for _, l := range logs {
			if strings.Contains(l, "querying the directory") {
				said++
			}
		}
		if said != 1 {
			t.Errorf("the outage said %d times in %q, want once", said, logs)
		}
	})
}
