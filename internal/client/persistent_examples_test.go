package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// exampleClient is one of examples/clients, run as an exec client (argv)
// and as a persistent client (argv + --persistent).
type exampleClient struct {
	name      string
	argv      []string
	execCalls int // calls timed per round as an exec client
}

// pythonExample resolves the interpreter itself (not a shim such as
// pyenv's, whose start would flatter the persistent client).
func pythonExample(t *testing.T) exampleClient {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skipf("python3 is not installed (scripts/test.sh installs it): %v", err)
	}
	py := strings.TrimSpace(string(out))
	return exampleClient{"python", []string{py, "../../examples/clients/python/echo_client.py"}, 10}
}

func javaExample(t *testing.T) exampleClient {
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("javac is not installed (scripts/test.sh installs openjdk-17-jdk-headless)")
	}
	dir := t.TempDir()
	if out, err := exec.Command(javac, "-d", dir, "../../examples/clients/java/EchoClient.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return exampleClient{"java", []string{"java", "-cp", dir, "EchoClient"}, 5}
}

// TestPersistentExamplesAreTenTimesFaster runs each example client both
// ways against a loopback HTTP server, alternating, and checks that as a
// persistent client it makes at least 10x the calls per second it makes
// as an exec client (the median of the rounds' ratios).
func TestPersistentExamplesAreTenTimesFaster(t *testing.T) {
	body := strings.Repeat("d", 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
	defer srv.Close()
	env := append(os.Environ(), "DIPERF_TARGET="+srv.URL)
	for _, mk := range []func(*testing.T) exampleClient{pythonExample, javaExample} {
		t.Run("", func(t *testing.T) {
			ex := mk(t)
			pers := NewPersistent(append(slices.Clone(ex.argv), "--persistent"), env, 30*time.Second)
			defer pers.Close()
			ex1 := NewExec(ex.argv, env, 30*time.Second)
			callRate(t, pers, 1) // start the process
			var ratios []float64
			for range 3 {
				e := callRate(t, ex1, ex.execCalls)
				p := callRate(t, pers, 20*ex.execCalls)
				ratios = append(ratios, p/e)
				t.Logf("%s: exec %.1f calls/s, persistent %.1f calls/s: %.1fx", ex.name, e, p, p/e)
			}
			slices.Sort(ratios)
			t.Logf("%s: median ratio persistent/exec %.1fx (rounds %.1f)", ex.name, ratios[1], ratios)
			if ratios[1] < 10 {
				t.Fatalf("%s: a persistent client makes only %.1fx the calls/s of an exec client, want >= 10x", ex.name, ratios[1])
			}
		})
	}
}

// callRate makes n calls one after another and returns calls per second;
// each must succeed with the body's bytes and a work_ms extra.
func callRate(t *testing.T, c Client, n int) float64 {
	t.Helper()
	start := time.Now()
	for range n {
		r := c.Call(context.Background())
		if r.Status != sample.OK || r.Bytes != 1000 || len(r.Extras) != 1 || r.Extras[0].Key != "work_ms" {
			t.Fatalf("call: %+v", r)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}
