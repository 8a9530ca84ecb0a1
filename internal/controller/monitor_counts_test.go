package controller

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/monitor"
)

// TestScrapeCountsSayCutAndDropped: the run's monitor-stopped event says
// the scrapes the run's end cut short (not failed) and the series dropped.
func TestScrapeCountsSayCutAndDropped(t *testing.T) {
	var page strings.Builder
	for i := range monitor.MaxSeries + 100 {
		fmt.Fprintf(&page, "m{i=\"%04d\"} 1\n", i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	s := &monitor.Scraper{
		Endpoints: []monitor.Endpoint{{Name: "e", URL: "u", Interval: time.Minute}},
		Fetch: func(fctx context.Context, _ string) (io.ReadCloser, error) {
			if calls++; calls == 1 {
				cancel() // the run ends while the first page is awaited
				<-fctx.Done()
				return nil, fctx.Err()
			}
			return io.NopCloser(strings.NewReader(page.String())), nil
		},
	}
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want := "e: 1 scrapes, 0 failed, 1 cut short by the run's end, 100 series dropped"
	if got := scrapeCounts(s); got != want {
		t.Errorf("monitor-stopped says %q, want %q", got, want)
	}
}
