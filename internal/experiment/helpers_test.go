package experiment

import (
	"errors"
	"os"
	"reflect"
	"testing"
	"time"
)

// example returns the contents of testdata/example.yaml.
func example(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// exampleWant is what testdata/example.yaml decodes to.
func exampleWant() Experiment {
	return Experiment{
		Name:    "http-cgi",
		Target:  "http://127.0.0.1:8080/cgi-bin/hello",
		Client:  Client{Exec: []string{"curl", "-sf", "$DIPERF_TARGET"}, Timeout: Duration(30 * time.Second), KillGrace: Duration(DefaultKillGrace)},
		Testbed: Testbed{Provider: "local", TestersPerHost: 1, ConnectTimeout: Duration(10 * time.Second)},
		Schedule: Schedule{
			Testers:             20,
			TesterStartInterval: Duration(2 * time.Second),
			TesterDuration:      Duration(time.Minute),
			ClientInterval:      Duration(time.Second),
			ClientsPerTester:    1,
		},
		Sync:          Sync{Interval: Duration(5 * time.Minute), Transport: SyncUDP, Probes: 16},
		Analysis:      Analysis{Quantum: Duration(time.Second)},
		FailurePolicy: "continue",
	}
}

// withExec returns the defaults plus a client command, which is valid.
func withExec() Experiment {
	e := Default()
	e.Client.Exec = []string{"true"}
	return e
}

// sameValues reports whether a and b hold the same exported values.
func sameValues(a, b Experiment) bool {
	a.file, a.lines, b.file, b.lines = "", nil, "", nil
	return reflect.DeepEqual(a, b)
}

// problems returns the problems in err, failing the test if err is not an
// *Error.
func problems(t testing.TB, err error) []Problem {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return e.Problems
}
