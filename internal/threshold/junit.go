package threshold

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
)

// The JUnit XML report: one testsuite, one testcase per threshold, a
// failure element for each failed one. CI systems (GitHub Actions, GitLab,
// Jenkins) read this format.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Output    string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Suite names the run a JUnit report is of.
type Suite struct {
	Name      string  // the experiment's name
	Dir       string  // the run directory
	DurationS float64 // the run's length, s
	Timestamp string  // when it started, RFC 3339 ("" to leave out)
}

// WriteJUnit writes rs as a JUnit XML report of suite s.
func WriteJUnit(w io.Writer, s Suite, rs []Result) error {
	suite := junitSuite{Name: "diperf thresholds: " + s.Name, Tests: len(rs), Time: seconds(s.DurationS), Timestamp: s.Timestamp}
	for _, r := range rs {
		c := junitCase{Name: r.Name, Classname: "diperf." + s.Name, Time: "0",
			Output: fmt.Sprintf("%s over %s: observed %s, bound %s %s (run %s)", r.Metric, r.Window, r.ObservedText(), r.Op, formatValue(r.Bound), s.Dir)}
		if !r.Passed {
			suite.Failures++
			c.Failure = &junitFailure{Type: "threshold",
				Message: fmt.Sprintf("threshold %q failed: observed %s", r.Name, r.ObservedText()),
				Text:    fmt.Sprintf("%s over %s was %s; the threshold wants %s %s %s", r.Metric, r.Window, r.ObservedText(), r.Metric, r.Op, formatValue(r.Bound))}
		}
		suite.Cases = append(suite.Cases, c)
	}
	doc := junitSuites{Name: "diperf", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing the JUnit report: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// seconds writes s as JUnit's time attribute.
func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }
