package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// healthRows are 3 testers' reports over smallResult's 12 s: tester 1
// peaks at 97.5% CPU in second 5, the host at 88% in second 3 (tester 2
// cannot see its host), the schedule lag at 1234.5 ms in second 7.
func healthRows() []sample.Health {
	origin := smallResult().Origin / 1e9
	var rows []sample.Health
	for s := range int64(12) {
		for slot := range 3 {
			h := sample.Health{Slot: slot, T: origin + s, CPUPct: 20 + float64(slot), CPUCores: 1, HostBusyPct: 40,
				HostStealPct: math.NaN(), LagMeanMs: 1, LagMaxMs: 2, Starts: 10, FDs: 12, FDLimit: 1024}
			switch {
			case slot == 1 && s == 5:
				h.CPUPct = 97.5
			case slot == 0 && s == 3:
				h.HostBusyPct = 88
			case slot == 2:
				h.HostBusyPct = math.NaN()
			case slot == 1 && s == 7:
				h.LagMaxMs = 1234.5
			}
			rows = append(rows, h)
		}
	}
	return rows
}

// writeRun writes the report of smallResult into a new run directory
// holding health.csv (when rows is not nil) and a quanta.csv of the given
// text (when not empty), and returns the directory and the page.
func writeRun(t *testing.T, rows []sample.Health, quanta string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	if rows != nil {
		if err := rundir.WriteHealth(dir, rows); err != nil {
			t.Fatal(err)
		}
	}
	if quanta != "" {
		if err := os.WriteFile(filepath.Join(dir, rundir.Quanta), []byte(quanta), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFile(dir, smallResult(), smallModel()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, rundir.Report))
	if err != nil {
		t.Fatal(err)
	}
	return dir, string(b)
}

// boundQuantaCSV marks quanta 6 and 7 of smallResult tester-bound (cpu)
// and quantum 9 (lag), with its columns in an order of its own.
const boundQuantaCSV = "load,tester_bound,t_s\n0,,0\n5,,5\n6,cpu,6.0000\n7,cpu,7\n8,,8\n9,lag,9\n"

var figIDRE = regexp.MustCompile(`<figure id="fig-([^"]+)">`)

// The health panel is the figure right under graph (a); it draws the
// highest of the testers each second (the values of health.csv), shades
// the tester-bound quanta of quanta.csv, says so in a caption of plain
// numbers, and is written beside the report.
func TestHealthPanelIsDrawnUnderGraphA(t *testing.T) {
	dir, page := writeRun(t, healthRows(), boundQuantaCSV)
	ids := figIDRE.FindAllStringSubmatch(page, -1)
	if len(ids) < 2 || ids[0][1] != idTimeline || ids[1][1] != HealthGraphID {
		t.Fatalf("figures %v: want graph (a), then %s", ids, HealthGraphID)
	}
	fig := page[strings.Index(page, `<figure id="fig-`+HealthGraphID+`">`):]
	fig = fig[:strings.Index(fig, "</figure>")]
	for _, want := range []string{lblTesterCPU, lblHostBusy, lblLag, lblBound, "CPU busy (%)", "schedule lag (ms)",
		"Figure a2. ", "Highest: tester CPU 97.5%, host CPU 88%, lag 1234 ms.", "over the 3 testers that reported",
		"the 3 quanta marked tester-bound in quanta.csv (2 cpu, 1 lag)"} {
		if !strings.Contains(fig, esc(want)) {
			t.Errorf("the health panel lacks %q", want)
		}
	}
	if regexp.MustCompile(`\d[eE][+-]?\d`).MatchString(figCaption(fig)) {
		t.Errorf("caption has a number in scientific notation: %s", figCaption(fig))
	}
	shade := regexp.MustCompile(`<g fill="` + colTesterBound + `" fill-opacity="[0-9.]+">(.*?)</g>`).FindStringSubmatch(fig)
	if shade == nil || strings.Count(shade[1], "<rect") != 3 {
		t.Errorf("tester-bound quanta shaded: %v, want 3 rects", shade)
	}
	spec := healthSpecOf(t, fig)
	for label, want := range map[string]float64{lblTesterCPU: 97.5, lblHostBusy: 88, lblLag: 1234.5} {
		if got := spec[label]; got != want {
			t.Errorf("interactive %q peaks at %v, want %v", label, got, want)
		}
	}
	checkSVGFile(t, filepath.Join(dir, HealthGraphID+".svg"), page)
	if strings.Contains(page, "Tester health not recorded") {
		t.Error("a run with health.csv says its health was not recorded")
	}
}

// figCaption is the text of a figure's caption.
func figCaption(fig string) string {
	i := strings.Index(fig, "<figcaption>")
	if i < 0 {
		return ""
	}
	return fig[i:]
}

// healthSpecOf parses the health panel's interactive chart and returns
// each series' largest value.
func healthSpecOf(t *testing.T, fig string) map[string]float64 {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="data-` + HealthGraphID + `">(.*?)</script>`).FindStringSubmatch(fig)
	if m == nil {
		t.Fatal("the health panel has no interactive chart")
	}
	var spec struct {
		Series []struct {
			Label  string     `json:"label"`
			Values []*float64 `json:"values"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(m[1]), &spec); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, s := range spec.Series {
		for _, v := range s.Values {
			if v != nil {
				out[s.Label] = max(out[s.Label], *v)
			}
		}
	}
	return out
}

// Without health.csv there is no panel, and the page says, under graph
// (a), that the testers' health was not recorded.
func TestNoHealthSaysNotRecorded(t *testing.T) {
	_, page := writeRun(t, nil, boundQuantaCSV)
	if strings.Contains(page, `id="fig-`+HealthGraphID+`"`) {
		t.Fatal("a run without health.csv has a health panel")
	}
	a := page[strings.Index(page, `<figure id="fig-`+idTimeline+`">`):]
	a = a[strings.Index(a, "</figure>"):]
	if !strings.HasPrefix(a, "</figure>\n<p class=\"note\">Tester health not recorded: ") {
		t.Errorf("after graph (a): %.200q", a)
	}
}

// Rows outside the run or beyond what is possible are left out and
// counted; a quanta.csv without tester_bound marks nothing.
func TestHealthRowsBeyondTheRunAreLeftOut(t *testing.T) {
	origin := smallResult().Origin / 1e9
	rows := append(healthRows(),
		sample.Health{Slot: 0, T: origin + 5, CPUPct: 1e9, HostBusyPct: math.NaN(), Starts: 1},
		sample.Health{Slot: 0, T: origin + 1e6, CPUPct: 99.9, HostBusyPct: 99.9, Starts: 1},
		sample.Health{Slot: 0, T: origin + 4, CPUPct: 50, HostBusyPct: 50, LagMaxMs: 1e12, Starts: 1})
	_, page := writeRun(t, rows, "t_s,load\n0,0\n6,1\n")
	fig := page[strings.Index(page, `<figure id="fig-`+HealthGraphID+`">`):]
	fig = fig[:strings.Index(fig, "</figure>")]
	for _, want := range []string{"Highest: tester CPU 97.5%, host CPU 88%, lag 1234 ms.",
		"3 rows outside the run or beyond what is possible were left out.", "No quantum is marked tester-bound."} {
		if !strings.Contains(fig, want) {
			t.Errorf("the health panel lacks %q", want)
		}
	}
	if strings.Contains(fig, `fill="`+colTesterBound+`"`) {
		t.Error("quanta shaded though quanta.csv has no tester_bound column")
	}
}
