package e2e

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// junitDoc is what a JUnit consumer reads of diperf's report.
type junitDoc struct {
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Tests int `xml:"tests,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// readJUnit parses path as XML with encoding/xml and with python3's
// xml.etree, a parser that shares no code with ours (scripts/test.sh
// installs python3; outside CI it may be missing, and is then skipped).
func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s is not valid XML: %v\n%s", path, err, b)
	}
	py, err := exec.LookPath("python3")
	if err != nil && os.Getenv("CI") != "" {
		t.Fatal("python3 is not installed (scripts/test.sh installs it)")
	}
	if err == nil {
		script := "import sys, xml.etree.ElementTree as ET\nr = ET.parse(sys.argv[1]).getroot()\n" +
			"print(r.tag, len(r.findall('testsuite/testcase')), len(r.findall('testsuite/testcase/failure')))"
		out, err := exec.Command(py, "-c", script, path).CombinedOutput()
		if err != nil {
			t.Fatalf("python3's xml.etree cannot read %s: %v\n%s", path, err, out)
		}
		cases, failed := 0, 0
		for _, su := range doc.Suites {
			for _, c := range su.Cases {
				cases++
				if c.Failure != nil {
					failed++
				}
			}
		}
		if got, want := strings.TrimSpace(string(out)), fmt.Sprintf("testsuites %d %d", cases, failed); got != want {
			t.Errorf("python3's xml.etree read %q, encoding/xml %q", got, want)
		}
	}
	return doc
}

// A run that breaks a threshold exits 3 after writing everything, prints
// each threshold, and its JUnit file is valid XML naming the failed
// threshold; a passing run exits 0 (with an abort threshold in its file,
// checked at the end too); diperf analyze says the same of the same runs.
func TestThresholdsExitCodeAndJUnit(t *testing.T) {
	t.Parallel()
	url := startTarget(t, 2, 20*time.Millisecond)
	exp := "name: thresholds\ntarget: " + url + "\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 2s\n" +
		"schedule:\n  testers: 2\n  tester_start_interval: 250ms\n  tester_duration: 3s\n  client_interval: 0s\n" +
		"thresholds:\n  - p99_ms < 5000\n  - \"error_rate < 1%\"\n  - check: throughput > 1\n    over: last 2s\n" +
		"  - {check: \"error_rate < 50%\", over: last 2s, abort: true, for: 1s}\n"
	tmp := t.TempDir()

	failing := filepath.Join(tmp, "failing")
	junit := filepath.Join(tmp, "failing.xml")
	r := diperf(t, time.Minute, "run", writeExperiment(t, exp+"  - p50_ms < 1\n"), "--out", failing, "--junit", junit)
	if r.code != 3 {
		t.Fatalf("a run with a broken threshold exited %d, want 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"PASS  p99_ms < 5000", "PASS  throughput > 1 over last 2s", "FAIL  p50_ms < 1  (observed "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "1 of 5 thresholds failed") {
		t.Errorf("stderr does not say what failed:\n%s", r.stderr)
	}
	checkRunDir(t, failing) // everything written, exit 3 or not
	doc := readJUnit(t, junit)
	if doc.Failures != 1 || len(doc.Suites) != 1 || doc.Suites[0].Tests != 5 {
		t.Fatalf("JUnit report: %+v", doc)
	}
	last := doc.Suites[0].Cases[4]
	if last.Name != "p50_ms < 1" || last.Failure == nil || !strings.Contains(last.Failure.Message, `threshold "p50_ms < 1" failed: observed`) {
		t.Errorf("the failed testcase: %+v", last)
	}
	checkSummaryThresholds(t, failing, 5, 1)

	passing := filepath.Join(tmp, "passing")
	junit2 := filepath.Join(tmp, "passing.xml")
	if r := diperf(t, time.Minute, "run", writeExperiment(t, exp), "--out", passing, "--junit", junit2); r.code != 0 {
		t.Fatalf("a passing run exited %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if doc := readJUnit(t, junit2); doc.Failures != 0 || doc.Suites[0].Tests != 4 {
		t.Errorf("JUnit report of the passing run: %+v", doc)
	}
	checkSummaryThresholds(t, passing, 4, 0)

	if r := diperf(t, time.Minute, "analyze", failing, "--junit", junit); r.code != 3 || !strings.Contains(r.stdout, "FAIL  p50_ms < 1") {
		t.Errorf("analyze of the failing run exited %d\n%s", r.code, r.stdout)
	}
	if r := diperf(t, time.Minute, "analyze", passing); r.code != 0 {
		t.Errorf("analyze of the passing run exited %d\n%s", r.code, r.stderr)
	}
	// A run compared with itself has not regressed; a bad --fail-if is bad usage.
	if r := diperf(t, time.Minute, "compare", passing, passing, "--fail-if", "slower,errors"); r.code != 0 {
		t.Errorf("compare of a run with itself exited %d\n%s", r.code, r.stderr)
	}
	if r := diperf(t, time.Minute, "compare", passing, failing, "--fail-if", "slowr"); r.code != 2 {
		t.Errorf("compare --fail-if slowr exited %d, want 2", r.code)
	}
}

// checkSummaryThresholds checks summary.json's thresholds: n, failed of
// them not passed.
func checkSummaryThresholds(t *testing.T, dir string, n, failed int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Samples    struct{ OK int } `json:"samples"`
		Thresholds []struct {
			Name     string   `json:"name"`
			Observed *float64 `json:"observed"`
			Passed   bool     `json:"passed"`
		} `json:"thresholds"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, th := range s.Thresholds {
		if !th.Passed {
			bad++
		}
		if th.Observed == nil {
			t.Errorf("threshold %q observed nothing", th.Name)
		}
	}
	if len(s.Thresholds) != n || bad != failed || s.Samples.OK == 0 {
		t.Errorf("summary.json: %d calls, thresholds %+v; want %d, %d failed", s.Samples.OK, s.Thresholds, n, failed)
	}
}

// An abort threshold that fails for its for: duration stops the run while
// it goes: the testers are told to stop long before their planned end,
// events.jsonl says which threshold, the run directory is complete, the
// threshold is a failure in summary.json and the JUnit file, and the exit
// code is 3.
func TestAbortThresholdStopsTheRun(t *testing.T) {
	t.Parallel()
	url := startTarget(t, 2, 20*time.Millisecond)
	exp := writeExperiment(t, "name: abort\ntarget: "+url+"\nclient:\n  http: {url: \"$DIPERF_TARGET\"}\n  timeout: 2s\n"+
		"schedule:\n  testers: 2\n  tester_start_interval: 250ms\n  tester_duration: 60s\n  client_interval: 0s\n"+
		"thresholds:\n  - {check: \"p50_ms < 1\", over: last 2s, abort: true, for: 2s}\n")
	out := filepath.Join(t.TempDir(), "run")
	junit := filepath.Join(t.TempDir(), "junit.xml")
	start := time.Now()
	r := diperf(t, 2*time.Minute, "run", exp, "--out", out, "--ui", "off", "--junit", junit)
	took := time.Since(start)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// The 2 s of failure are seen live.Lag (3 s) after they end; a run of
	// 60 s that took under 40 s was stopped.
	if took > 40*time.Second {
		t.Errorf("the run took %v: the abort threshold did not stop it", took)
	}
	checkRunDir(t, out)
	found := false
	for _, e := range eventsOf(t, out) {
		if e["event"] == "aborted" && strings.Contains(fmt.Sprint(e["detail"]), `threshold "p50_ms < 1`) {
			found = true
		}
	}
	if !found {
		t.Errorf("events.jsonl has no aborted event naming the threshold: %v", eventsOf(t, out))
	}
	if !strings.Contains(r.stdout, "stopped by a threshold") || !strings.Contains(r.stdout, "FAIL") {
		t.Errorf("stdout does not say the run was stopped by a threshold and list it:\n%s", r.stdout)
	}
	doc := readJUnit(t, junit)
	if doc.Failures != 1 {
		t.Errorf("JUnit counts %d failures, want 1", doc.Failures)
	}
}
