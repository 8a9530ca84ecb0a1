package sensord

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/sensor"
)

// Results kept while the directory was down are sent, in order, as soon
// as it answers again (the sensor's next query), not a test later.
func TestSensorSendsKeptResultsWhenTheDirectoryIsBack(t *testing.T) {
	var down atomic.Bool
	var calls atomic.Int32
	url, token := flakyDirectory(t, func(int32) bool { return down.Load() }, &calls)
	c, err := directory.NewClient(url, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		reg := directory.Registration{Name: name, Address: "127.0.0.1:1", Version: "1", Groups: []string{"local"}}
		if _, err := c.Register(ctx, reg); err != nil {
			t.Fatal(err)
		}
	}
	d := &dirAdapter{c: c}
	t0 := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	down.Store(true)
	for i := range 3 {
		r := sensor.Result{Src: "a", Dst: "b", Kind: sensor.Latency, At: t0.Add(time.Duration(i) * time.Minute),
			Took: time.Second, Measurement: sensor.Measurement{LatencyMs: float64(i + 1), P50Ms: 1, P90Ms: 1, P99Ms: 1}}
		if err := d.Write(ctx, r); err == nil {
			t.Fatalf("write %d taken while the directory is down", i)
		}
	}
	if _, err := d.Sensors(ctx); err == nil {
		t.Fatal("the directory answered while down")
	}
	down.Store(false)
	if _, err := d.Sensors(ctx); err != nil {
		t.Fatal(err)
	}
	rs, err := c.Results(ctx, directory.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || len(d.pending) != 0 {
		t.Fatalf("%d results stored, %d still kept, after the directory answered again; want the 3 kept stored", len(rs), len(d.pending))
	}
	for _, r := range rs { // sent in order: the ids follow the measurements
		if want := int64(r.LatencyMs); r.ID != rs[0].ID-int64(rs[0].LatencyMs)+want {
			t.Errorf("result %v measured at %v stored with id %d: out of order", r.LatencyMs, r.MeasuredAt, r.ID)
		}
	}
}
