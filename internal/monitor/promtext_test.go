package monitor

import (
	"strconv"
	"strings"
	"testing"
)

// A page with every form of the text format becomes the series the
// exposition means, each line one series.
func TestScanPrometheusForms(t *testing.T) {
	page := `# HELP req_total Requests, with a \\ and a \n in the help.
# TYPE req_total counter
req_total{code="200",path="/a\"b\\c\nd"} 1027 1395066363000
req_total{ code = "500" , } 3
  # a comment
# TYPE lat histogram
lat_bucket{le="0.10"} 1
lat_bucket{le="1e1"} 2
lat_bucket{le="+Inf"} 3
lat_sum 0.5
lat_count 3
# TYPE rpc summary
rpc{quantile="0.50"} 4.5
rpc_sum 9
rpc_count 2

temp	-Inf
nan_gauge NaN
{"my.dotted", zone="é"} 7
other {a="1"} 2
tight{a="2"}3
`
	got, err := ParsePrometheus(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		`req_total|code="200",path="/a\"b\\c\nd"`: 1027, `req_total|code="500"`: 3,
		`lat_bucket|le="0.1"`: 1, `lat_bucket|le="10"`: 2, `lat_bucket|le="+Inf"`: 3, `lat_sum|`: 0.5, `lat_count|`: 3,
		`rpc|quantile="0.5"`: 4.5, `rpc_sum|`: 9, `rpc_count|`: 2, `my.dotted|zone="é"`: 7, `other|a="1"`: 2, `tight|a="2"`: 3,
	}
	have := map[string]float64{}
	for _, s := range got {
		have[s.Metric+"|"+s.Labels] = s.Value
	}
	for k, v := range want {
		if x, ok := have[k]; !ok || x != v {
			t.Errorf("%s = %v (%v), want %v", k, x, ok, v)
		}
	}
	if len(got) != len(want)+2 || have["nan_gauge|"] == have["nan_gauge|"] || have["temp|"] > -1e308 {
		t.Errorf("%d series %v; want %d, NaN and -Inf", len(got), have, len(want)+2)
	}
}

// A malformed line makes the page unreadable, and the error names the line.
func TestScanPrometheusRefuses(t *testing.T) {
	for _, bad := range []string{
		`m{a="1"`, `m{a=1} 1`, `m{a="1",a="2"} 1`, `m{a="\q"} 1`, `m 1 2 3`, `m 0x10`, `m 1_0`, `m abc`, `m 1 1.5`,
		`m{"a=b"="1"} 1`, "m{a=\"\xff\"} 1", `{a="1"} 1`, `9m 1`, `m{1a="1"} 1`, `# TYPE m counter extra`, `# TYPE m bogus`,
		`# TYPE h histogram` + "\n" + `h_bucket{le="x"} 1`, `m`, "m " + strings.Repeat("1", maxLine),
	} {
		_, err := ParsePrometheus(strings.NewReader("ok 1\n" + bad + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line "+strconv.Itoa(2+strings.Count(bad, "\n"))) {
			t.Errorf("%.60q: %v; want refused at line 2", bad, err)
		}
	}
}
