package threshold

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

// The report parses back as JUnit: one testcase per threshold, a failure
// naming the threshold and the observed value for each failed one.
func TestWriteJUnit(t *testing.T) {
	t.Parallel()
	v1, v2 := 312.5, 0.4
	rs := []Result{
		{Name: "p99_ms < 250", Metric: "p99_ms", Op: "<", Bound: 250, Window: "run", Observed: &v1},
		{Name: "error_rate < 1% over last 30s", Metric: "error_rate", Op: "<", Bound: 1, Window: "last 30s", Observed: &v2, Passed: true},
		{Name: "p50_ms < 5 & \"quoted\"", Metric: "p50_ms", Op: "<", Bound: 5, Window: "run"},
	}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, Suite{Name: "demo", Dir: "runs/demo-1", DurationS: 12.5}, rs); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Time  string `xml:"time,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	if doc.Failures != 2 || len(doc.Suites) != 1 || doc.Suites[0].Tests != 3 || len(doc.Suites[0].Cases) != 3 || doc.Suites[0].Time != "12.500" {
		t.Fatalf("report %+v\n%s", doc, buf.String())
	}
	cs := doc.Suites[0].Cases
	if cs[0].Name != rs[0].Name || cs[0].Failure == nil || !strings.Contains(cs[0].Failure.Message, `"p99_ms < 250"`) ||
		!strings.Contains(cs[0].Failure.Message, "312.5") {
		t.Errorf("failed case %+v", cs[0])
	}
	if cs[1].Failure != nil || cs[2].Name != rs[2].Name || cs[2].Failure == nil || !strings.Contains(cs[2].Failure.Message, "no data") {
		t.Errorf("cases %+v", cs)
	}
	if !strings.HasPrefix(buf.String(), "<?xml") {
		t.Errorf("no XML declaration:\n%s", buf.String())
	}
}

// Format writes PASS or FAIL, the threshold and the value, one per line.
func TestFormat(t *testing.T) {
	t.Parallel()
	v1, v2 := 0.12345, 312.0
	var buf bytes.Buffer
	err := Format(&buf, []Result{
		{Name: "error_rate < 1%", Metric: "error_rate", Observed: &v1, Passed: true},
		{Name: "p99_ms < 250", Metric: "p99_ms", Observed: &v2},
	})
	want := "PASS  error_rate < 1%  (observed 0.123%)\nFAIL  p99_ms < 250  (observed 312)\n"
	if err != nil || buf.String() != want {
		t.Errorf("Format wrote %q, %v; want %q", buf.String(), err, want)
	}
}
