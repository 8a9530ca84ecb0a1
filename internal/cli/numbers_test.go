package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
)

// forecast prints a bandwidth in the bit/s unit that keeps it readable
// and a latency in µs, ms or s, never in scientific notation.
func TestForecastPrintsScaledUnits(t *testing.T) {
	lab := traceLab(t)
	ctx := context.Background()
	for _, f := range []directory.Forecast{
		{Src: "a1", Dst: "a2", Kind: directory.KindBandwidth, Value: 94.12e6, Error: 2.5e6, Method: "median"},
		{Src: "a1", Dst: "a2", Kind: directory.KindLatency, Value: 0.25, Error: 0.0123, Method: "mean"},
	} {
		f.MadeAt = time.Now()
		if _, err := lab.c.AddForecast(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"forecast", "a1", "a2", "--directory", lab.url, "--token-file", lab.tokenFile}, &out, &errb); code != 0 {
		t.Fatalf("forecast exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"bandwidth a1 → a2: 94.1 Mbit/s ± 2.5 Mbit/s (median)", "latency   a1 → a2: 250 µs ± 12.3 µs (mean)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("forecast printed:\n%s\nwant a line %q", out.String(), want)
		}
	}
}
