package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/rundir"
)

// hostileSearch is a search.json no search writes: a good step, then
// steps with a negative load, an interval upside down, a last second
// before the first, a decision no step takes, a step going back in time,
// more calls over the objective than measured, markup in an SLO's name
// and a why of a megabyte; then 5000 more good steps; and an answer whose
// capacity is negative.
func hostileSearch() string {
	slo := func(name string, v, lo, hi float64, over, of int) string {
		return fmt.Sprintf(`{"slo":%q,"value":%g,"low":%g,"high":%g,"objective":30,"over":%d,"of":%d,"decision":"meets","why":"w"}`,
			name, v, lo, hi, over, of)
	}
	step := func(n int, load float64, from, to int64, decision, slos, why string) string {
		return fmt.Sprintf(`{"step":%d,"load":%g,"from":%d,"to":%d,"seconds":%d,"warmup_s":2,"settled":true,"calls":100,`+
			`"measured":80,"throughput":%g,"decision":%q,"why":%q,"slos":[%s]}`, n, load, from, to, 5, load, decision, why, slos)
	}
	const t0 = 1_700_000_000
	good := slo("p99_ms < 30", 10, 8, 12, 0, 80)
	steps := []string{
		step(1, 100, t0, t0+4, "meets", good, "ok"),
		step(2, -5, t0+5, t0+9, "meets", good, "negative load"),
		step(3, 100, t0+10, t0+14, "meets", slo("p99_ms < 30", 10, 12, 8, 0, 80), "low above high"),
		step(4, 100, t0+20, t0+15, "meets", good, "to before from"),
		step(5, 100, t0+25, t0+29, "wins", good, "unknown decision"),
		step(6, 100, t0+1, t0+3, "meets", good, "back in time"),
		step(7, 100, t0+30, t0+34, "meets", slo("p99_ms < 30", 10, 8, 12, 90, 80), "over > of"),
		step(8, 100, t0+35, t0+39, "meets", slo("<script>alert(1)</script>", 10, 8, 12, 0, 80), "markup"),
		step(9, 100, t0+40, t0+44, "meets", good, strings.Repeat("x", 1<<20)),
	}
	for i := range 5000 {
		at := int64(t0 + 50 + 5*i)
		steps = append(steps, step(10+i, 100, at, at+4, "meets", good, "ok"))
	}
	return `{"verdict":"capacity","capacity":-5,"interval":[-5,1e300],"precision":7,"calls":1,"seconds":-3,` +
		`"why":"<img src=x onerror=alert(1)>","steps":[` + strings.Join(steps, ",") + `]}`
}

// TestReportRefusesHostileSearch: the report of a run whose search.json
// is hostile draws only what is possible, says what it refused, escapes
// every text, and stays small: the first 400 steps, a why cut to 300
// characters.
func TestReportRefusesHostileSearch(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rundir.Search), []byte(hostileSearch()), 0o644); err != nil {
		t.Fatal(err)
	}
	page := reportIn(t, dir, smallResult())
	for _, bad := range []string{"<script>alert", "<img src=x"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q unescaped", bad)
		}
	}
	for _, want := range []string{"search.json holds 4609 more steps: only the first 400 are drawn and listed.",
		"10 entries of search.json were refused", "step 2: load or throughput not a number",
		"the answer&#39;s verdict: verdict capacity with capacity - and breaking load -",
		"step 3: SLO &#34;p99_ms &lt; 30&#34;: an interval whose low end is above its high end",
		"step 4: its first and last seconds are not a span", "step 5: unknown decision &#34;wins&#34;",
		"step 6: it does not follow the step before it", "step 7: SLO &#34;p99_ms &lt; 30&#34;: more calls over",
		"the answer&#39;s capacity: not a number in [0, 1e9]", "<td class=\"l\">none: no load met every objective</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if rows := strings.Count(page, "<tr><td>") - testerRowsIn(page); rows != 400-6 {
		t.Errorf("steps table: %d rows, want the 394 possible of the first 400", rows)
	}
	if len(page) > 2<<20 || strings.Contains(page, strings.Repeat("x", maxSearchText+1)) {
		t.Errorf("page of %d bytes: a why is not cut", len(page))
	}
	for _, id := range []string{SearchLoadGraphID, SearchSLOGraphID + "2", SearchBracketGraphID} {
		if fi, err := os.Stat(filepath.Join(dir, rundir.GraphFile(id))); err != nil || fi.Size() > 512<<10 {
			t.Errorf("graph %s: %v", id, err)
		}
	}
}

// TestReportUnreadableSearch: a search.json that is not JSON leaves the
// search undrawn, with a note saying why; the report is still written.
func TestReportUnreadableSearch(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rundir.Search), []byte(`{"steps":[{"load":1e999}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if page := reportIn(t, dir, smallResult()); !strings.Contains(page, "The capacity search is not drawn: ") ||
		strings.Contains(page, "graph-s1") {
		t.Error("report of an unreadable search.json: no note, or a search graph")
	}
}
