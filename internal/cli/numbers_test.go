package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// exponent matches a number in scientific notation.
var exponent = regexp.MustCompile(`[0-9]e[+-]?[0-9]`)

// sensor evaluate's tables write a bandwidth trace's errors (MSE of the
// order of 1e12 (bit/s)²) in plain digits.
func TestEvaluateTablesHaveNoExponent(t *testing.T) {
	var b strings.Builder
	b.WriteString("time,value,test_time\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%d,%d,%d\n", 1_700_000_000+60*i, 90_000_000+(i*7919)%5_000_000, 1+9*(i%2))
	}
	path := filepath.Join(t.TempDir(), "bw.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"sensor", "evaluate", path}, &out, &errb); code != 0 {
		t.Fatalf("evaluate exit %d: %s", code, errb.String())
	}
	if m := exponent.FindAllString(out.String(), 3); m != nil || !strings.Contains(out.String(), "MSE") {
		t.Errorf("the tables hold numbers in scientific notation (%v):\n%s", m, out.String())
	}
}
