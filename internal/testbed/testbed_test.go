package testbed

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
)

// TestNew picks the provider the experiment names; the others give the
// message experiment validation gives, as a bad experiment (exit code 2).
func TestNew(t *testing.T) {
	t.Parallel()
	host, _ := os.Hostname()
	tests := []struct {
		name    string
		tb      experiment.Testbed
		wantErr string // "" = a testbed
	}{
		{"local", experiment.Testbed{Provider: "local"}, ""},
		{"local naming this machine", experiment.Testbed{Provider: "local", Hosts: []string{"localhost", "127.0.0.1", "::1", host}}, ""},
		{"local naming another host", experiment.Testbed{Provider: "local", Hosts: []string{"localhost", "node7.example.org"}}, `"node7.example.org" is not this machine`},
		{"join", experiment.Testbed{Provider: "join"}, ""},
		{"slurm", experiment.Testbed{Provider: "slurm", Partition: "lab", TimeLimit: experiment.Duration(time.Hour)}, ""},
		{"unknown", experiment.Testbed{Provider: "k8s"}, "must be one of local, ssh, slurm or join"},
	}
	for _, tt := range tests {
		tb, err := New(tt.tb)
		switch {
		case tt.wantErr == "" && (err != nil || tb == nil):
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: err = %v, want one holding %q", tt.name, err, tt.wantErr)
		case tt.wantErr != "" && errs.Code(err) != errs.CodeUsage:
			t.Errorf("%s: exit code %d, want %d", tt.name, errs.Code(err), errs.CodeUsage)
		}
	}
	// The factory and Validate give the same words.
	e := experiment.Default()
	e.Client.Exec = []string{"true"}
	e.Testbed.Provider = "k8s"
	if p := e.Validate(); len(p) != 1 || !strings.Contains(p[0].Msg, experiment.CheckProvider("k8s").Error()) {
		t.Errorf("validation says %v", p)
	}
}

func TestReadyHostFor(t *testing.T) {
	t.Parallel()
	r := Ready{Hosts: []string{"a", "b", "c"}, PerHost: 2}
	want := []string{"a", "a", "b", "b", "c", "c", "a", "a"} // filled 2 by 2, then round again
	for i, w := range want {
		if got := r.HostFor(i); got != w {
			t.Errorf("slot %d on %q, want %q", i, got, w)
		}
	}
	if got := (Ready{Hosts: []string{"a", "b"}}).HostFor(3); got != "b" {
		t.Errorf("PerHost 0 counts as 1: slot 3 on %q, want b", got)
	}
	if got := (Ready{}).HostFor(0); got != "" {
		t.Errorf("no hosts: %q", got)
	}
	if !(Ready{Hosts: []string{LocalHost, "127.0.0.1"}}).Local() || (Ready{Hosts: []string{"localhost", "10.0.0.9"}}).Local() || (Ready{}).Local() {
		t.Error("Local: every host and at least one must be this machine")
	}
}

// TestLocalPrepareChecksDeploy checks that deploy files must exist, every
// missing one named at once.
func TestLocalPrepareChecksDeploy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	have := filepath.Join(dir, "client.sh")
	if err := os.WriteFile(have, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := NewLocal(experiment.Testbed{Provider: "local", TestersPerHost: 3, Deploy: []string{have, dir}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := l.Prepare(context.Background(), Plan{Testers: 5, Dir: dir})
	if err != nil || len(r.Hosts) != 1 || r.Hosts[0] != LocalHost || r.PerHost != 3 {
		t.Fatalf("ready %+v, %v", r, err)
	}
	_, err = l.Prepare(context.Background(), Plan{Testers: experiment.MaxLocalTesters + 1, Dir: dir})
	if err == nil || errs.Code(err) != errs.CodeUsage || !strings.Contains(errs.Hint(err), "more hosts") {
		t.Errorf("%d local testers: %v (hint %q), want a usage error saying to use more hosts", experiment.MaxLocalTesters+1, err, errs.Hint(err))
	}
	l.Deploy = []string{have, filepath.Join(dir, "gone-1"), filepath.Join(dir, "gone-2")}
	_, err = l.Prepare(context.Background(), Plan{})
	if err == nil || !strings.Contains(err.Error(), "gone-1") || !strings.Contains(err.Error(), "gone-2") ||
		errs.Code(err) != errs.CodeUsage || !strings.Contains(errs.Hint(err), "relative to the directory diperf runs in") {
		t.Fatalf("missing deploy files: %v (hint %q)", err, errs.Hint(err))
	}
}

// fakeTester writes a script that stands in for the diperf binary.
func fakeTester(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-diperf")
	writeExecutable(t, p, "#!/bin/sh\n"+body+"\n")
	return p
}

// writeExecutable writes an executable file through a child (cp): a
// parallel test's fork in this process between our open and close would
// otherwise inherit the write descriptor and make exec fail with "text
// file busy".
func writeExecutable(t *testing.T, path, content string) {
	t.Helper()
	src := path + ".src"
	if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", src, path).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestLocalStartAndCleanup starts testers, checks what they are given,
// and that Cleanup kills the one still running once its context is done.
func TestLocalStartAndCleanup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The fake tester writes its secret (read from fd 3), its argv and
	// whether its environment holds the secret.
	l := &Local{Binary: fakeTester(t, `s=$(cat <&3); echo "$s $* env:$(env | grep -c "$s")" > "`+dir+`/args.$$"; [ "$5" = 1 ] && exec sleep 600; exit 0`)}
	if _, err := l.Start(context.Background(), Spec{Slot: 9, Host: "node7.example.org"}); err == nil {
		t.Error("local testbed started a tester on another host")
	}
	quick, err := l.Start(context.Background(), Spec{Slot: 0, Host: LocalHost, Controller: "ctl:1", Token: []byte("s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	if err := quick.Wait(); err != nil {
		t.Fatalf("quick tester: %v", err)
	}
	if err := quick.Kill(); err != nil {
		t.Errorf("killing a tester already reaped: %v, want nil (nothing to do)", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "args."+strconv.Itoa(quick.PID())))
	if got := strings.TrimSpace(string(b)); got != "s3cret tester --controller ctl:1 --slot 0 --secret-fd 3 env:0" {
		t.Errorf("tester given %q", got)
	}
	slow, err := l.Start(context.Background(), Spec{Slot: 1, Controller: "ctl:1", Token: []byte("s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no grace: kill what is left
	if err := l.Cleanup(ctx); err == nil || !strings.Contains(err.Error(), "killed 1 tester") {
		t.Errorf("cleanup: %v, want it to say it killed 1 tester", err)
	}
	if err := slow.Wait(); err == nil {
		t.Error("the tester left running was not killed")
	}
	if err := l.Cleanup(context.Background()); err != nil {
		t.Errorf("second cleanup: %v", err)
	}
}
