package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// joinExperiment is a join-provider experiment: %[1]s is the client's
// marker directory, %[2]s the token file, %[3]s the listen address, %[4]d
// the testers, %[5]s testbed.wait; the client touches ran-<tester id> in
// the marker directory, so that a test sees which testers ran a client.
const joinExperiment = `name: join
client:
  exec: [sh, -c, 'touch "$0/ran-$DIPERF_TESTER_ID"; sleep 0.05', %[1]s]
testbed:
  provider: join
  token_file: %[2]s
  wait: %[5]s
controller:
  listen: %[3]s
schedule:
  testers: %[4]d
  tester_start_interval: 1s
  tester_duration: 3s
  client_interval: 0s
`

// joinSetup is one join run's files: the experiment, the marker directory
// of its clients, its token file (not made yet), its address and run dir.
type joinSetup struct {
	exp, ran, token, addr, out, logs string
	mark                             string
}

func joinNew(t *testing.T, testers int, wait string) *joinSetup {
	t.Helper()
	d := t.TempDir()
	s := &joinSetup{ran: filepath.Join(d, "ran"), token: filepath.Join(d, "token"), addr: freeAddr(t),
		out: filepath.Join(d, "run"), logs: filepath.Join(d, "testers"), mark: newMark(t)}
	for _, dir := range []string{s.ran, s.logs} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.exp = writeExperiment(t, fmt.Sprintf(joinExperiment, s.ran, s.token, s.addr, testers, wait))
	return s
}

// makeToken makes a token file good for runs, and its key file beside
// it, as a user does: diperf token FILE --runs RUNS.
func makeToken(t *testing.T, path string, runs string, extra ...string) {
	t.Helper()
	if r := diperf(t, 30*time.Second, append([]string{"token", path, "--runs", runs}, extra...)...); r.code != 0 {
		t.Fatalf("diperf token: exit %d\n%s", r.code, r.stderr)
	}
}

// joinShellLoop is how a user starts testers by hand: a plain shell loop,
// `for i in ...; do diperf tester --join ADDR --token-file F & done`; each
// tester's stderr goes to <logs>/<name>-<i>.err and its exit status to
// <name>-<i>.rc. Every process is marked with s.mark.
func (s *joinSetup) joinShellLoop(t *testing.T, name string, n int, token string, extra ...string) *background {
	t.Helper()
	script := `for i in $(seq 1 "$N"); do
  ( "$BIN" tester --join "$ADDR" --token-file "$TOKEN" "$@" 2>"$LOGS/$NAME-$i.err"; echo $? >"$LOGS/$NAME-$i.rc" ) &
done
wait`
	cmd := exec.Command("sh", append([]string{"-c", script, "sh"}, extra...)...)
	env := []string{markEnv + "=" + s.mark, "N=" + itoa(n), "BIN=" + bin, "ADDR=" + s.addr, "TOKEN=" + token, "LOGS=" + s.logs, "NAME=" + name}
	return startCmd(t, env, cmd)
}

// joinTester is what one tester of a shell loop did.
type joinTester struct {
	rc       int
	stderr   string
	id       string // host:pid, from its last log line
	produced int
}

var joinCountsRe = regexp.MustCompile(`tester (\S+): acked_samples=(\d+) produced_samples=(\d+)`)

// joinOutcomes reads what the testers of a shell loop did, once the loop
// has ended.
func (s *joinSetup) joinOutcomes(t *testing.T, name string, n int) []joinTester {
	t.Helper()
	out := make([]joinTester, n)
	for i := range out {
		base := filepath.Join(s.logs, fmt.Sprintf("%s-%d", name, i+1))
		rc, err := os.ReadFile(base + ".rc")
		if err != nil {
			t.Fatalf("tester %s-%d left no exit status: %v", name, i+1, err)
		}
		out[i].rc, _ = strconv.Atoi(strings.TrimSpace(string(rc)))
		e, _ := os.ReadFile(base + ".err")
		out[i].stderr = string(e)
		if m := joinCountsRe.FindAllStringSubmatch(out[i].stderr, -1); len(m) > 0 {
			last := m[len(m)-1]
			out[i].id = last[1]
			out[i].produced, _ = strconv.Atoi(last[3])
		}
	}
	return out
}

// joinRan reports whether a client of tester id ran.
func (s *joinSetup) joinRan(id string) bool {
	_, err := os.Stat(filepath.Join(s.ran, "ran-"+id))
	return err == nil
}

// TestJoinShellLoop starts the controller of a join run, whose missing
// token file it makes (private, and it says how testers join), then three
// testers from a shell loop: they join, keep the ramp-up (start times one
// tester_start_interval apart), and every sample each one recorded is in
// the run, under its own host and pid.
func TestJoinShellLoop(t *testing.T) {
	t.Parallel()
	s := joinNew(t, 3, "60s")
	run := hardenStartRun(t, s.mark, "run", s.exp, "--out", s.out)
	waitEvent(t, s.out, "batch-start", -1)
	st, err := os.Stat(s.token)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v; want one made with mode 0600", err, st.Mode())
	}
	loop := s.joinShellLoop(t, "ok", 3, s.token)
	if code := run.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("run exit %d\n%s", code, run.stderr.String())
	}
	loop.wait(t, 30*time.Second)
	if want := "testers join with: diperf tester --join " + s.addr + " --token-file " + s.token; !strings.Contains(run.stderr.String(), want) {
		t.Errorf("the run does not tell how testers join (%q):\n%s", want, run.stderr.String())
	}
	checkRunDir(t, s.out)
	testers := s.joinOutcomes(t, "ok", 3)
	byID := map[string]joinTester{}
	for i, jt := range testers {
		if jt.rc != 0 || jt.id == "" || jt.produced == 0 {
			t.Fatalf("tester %d: exit %d, id %q, %d samples\n%s", i+1, jt.rc, jt.id, jt.produced, jt.stderr)
		}
		byID[jt.id] = jt
	}
	host, _ := os.Hostname()
	inParquet := samplesPerTester(t, s.out)
	rows := readTesters(t, s.out)
	if len(rows) != 3 {
		t.Fatalf("testers.csv has %d rows, want 3", len(rows))
	}
	var starts, planned []float64
	for _, r := range rows {
		i, id := r.int(t, "index"), r.str(t, "id")
		jt, ok := byID[id]
		switch {
		case !ok:
			t.Errorf("testers.csv tester %d is %q, none of the joined testers %v", i, id, byID)
		case r.str(t, "failed") != "false":
			t.Errorf("tester %d failed: %s", i, r.str(t, "failure_reason"))
		case r.str(t, "host") != host || id != host+":"+r.str(t, "pid"):
			t.Errorf("tester %d: host %q pid %q, want the joiner's own %q", i, r.str(t, "host"), r.str(t, "pid"), id)
		case r.int(t, "samples_received") != jt.produced || inParquet[int32(i)] != jt.produced:
			t.Errorf("tester %d (%s) recorded %d samples; testers.csv received %d, samples.parquet has %d",
				i, id, jt.produced, r.int(t, "samples_received"), inParquet[int32(i)])
		case !s.joinRan(id):
			t.Errorf("tester %d (%s) ran no client", i, id)
		}
		starts = append(starts, r.float(t, "start_ns"))
		planned = append(planned, r.float(t, "planned_start_ns"))
	}
	joinCheckRamp(t, starts, planned)
	admitted := map[float64]bool{}
	for _, e := range eventsOf(t, s.out) {
		if _, ok := byID[fmt.Sprint(e["id"])]; ok && e["event"] == "admitted" {
			admitted[e["tester"].(float64)] = true
		}
	}
	if len(admitted) != 3 {
		t.Errorf("admitted events name the slots %v, want the three each joiner got", admitted)
	}
	if left := hardenLeft(t, s.mark); len(left) > 0 {
		t.Errorf("processes of the run alive 5 s after it ended: %s", describePIDs(left))
	}
}

// joinCheckRamp checks the ramp-up of a join run, testers.csv in index
// order: planned starts exactly one tester_start_interval (1 s) apart,
// and the actual starts too, give or take what a busy machine allows.
func joinCheckRamp(t *testing.T, starts, planned []float64) {
	t.Helper()
	for i := 1; i < len(starts); i++ {
		if gap := (planned[i] - planned[i-1]) / 1e9; gap < 0.999 || gap > 1.001 {
			t.Errorf("planned starts of testers %d and %d are %.3f s apart, want 1 s", i-1, i, gap)
		}
		if gap := (starts[i] - starts[i-1]) / 1e9; gap < 0.5 || gap > 1.5 {
			t.Errorf("testers %d and %d started %.3f s apart, want about 1 s (tester_start_interval)", i-1, i, gap)
		}
	}
}

// TestJoinFewerThanAsked has one tester of three join: the run waits
// testbed.wait for the others, marks them failed as never joined, and
// still writes its whole run directory with the one tester's samples.
func TestJoinFewerThanAsked(t *testing.T) {
	t.Parallel()
	s := joinNew(t, 3, "4s")
	run := hardenStartRun(t, s.mark, "run", s.exp, "--out", s.out)
	batch := waitEvent(t, s.out, "batch-start", -1)
	loop := s.joinShellLoop(t, "one", 1, s.token)
	code := run.wait(t, 90*time.Second)
	loop.wait(t, 30*time.Second)
	if code == 2 {
		t.Fatalf("run exit %d (usage)\n%s", code, run.stderr.String())
	}
	checkRunDir(t, s.out)
	one := s.joinOutcomes(t, "one", 1)[0]
	if one.rc != 0 || one.produced == 0 {
		t.Fatalf("the tester that joined: exit %d, %d samples\n%s", one.rc, one.produced, one.stderr)
	}
	failed := 0
	for _, r := range readTesters(t, s.out) {
		if r.str(t, "id") == one.id {
			if r.str(t, "failed") != "false" || r.int(t, "samples_received") != one.produced {
				t.Errorf("joined tester: failed %s (%s), %d samples received of %d", r.str(t, "failed"),
					r.str(t, "failure_reason"), r.int(t, "samples_received"), one.produced)
			}
			continue
		}
		failed++
		if r.str(t, "failed") != "true" || !strings.HasPrefix(r.str(t, "failure_reason"), "never joined") {
			t.Errorf("tester %d, which never joined: failed %s, reason %q", r.int(t, "index"), r.str(t, "failed"), r.str(t, "failure_reason"))
		}
	}
	if failed != 2 {
		t.Errorf("%d testers never joined, want 2", failed)
	}
	for _, e := range eventsOf(t, s.out) {
		if e["event"] == "failed" && strings.HasPrefix(fmt.Sprint(e["detail"]), "never joined") {
			if waited := (e["t_ns"].(float64) - batch["t_ns"].(float64)) / 1e9; waited < 3.9 {
				t.Errorf("a slot was given up %.2f s after the testers were asked for, before testbed.wait (4s)", waited)
			}
		}
	}
	if !strings.Contains(run.stderr.String(), "2 of 3 testers failed") {
		t.Errorf("the run does not say 2 of 3 testers failed:\n%s", run.stderr.String())
	}
}

// TestJoinRefused checks the two testers a join run turns away: one with
// the wrong token (it runs no client: the run gives it no command) and
// one more than the run has slots for (told so by the proved controller, a
// spare that exits 0 with why, as a Kubernetes Job's spare pod must); the
// run goes on with the others.
func TestJoinRefused(t *testing.T) {
	t.Parallel()
	s := joinNew(t, 2, "60s")
	makeToken(t, s.token, "join")
	wrong := filepath.Join(t.TempDir(), "wrong")
	makeToken(t, wrong, "join") // another secret, another key
	run := hardenStartRun(t, s.mark, "run", s.exp, "--out", s.out)
	waitEvent(t, s.out, "batch-start", -1)
	s.joinShellLoop(t, "wrong", 1, wrong).wait(t, 30*time.Second)
	bad := s.joinOutcomes(t, "wrong", 1)[0]
	if bad.rc == 0 || !strings.Contains(bad.stderr, "diperf tester: the controller refused this tester's token") {
		t.Errorf("the tester with the wrong token: exit %d, stderr:\n%s", bad.rc, bad.stderr)
	}
	if entries, _ := os.ReadDir(s.ran); len(entries) > 0 {
		t.Errorf("a client ran for the tester with the wrong token: %v", entries)
	}
	loop := s.joinShellLoop(t, "ok", 3, s.token)
	if code := run.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("run exit %d\n%s", code, run.stderr.String())
	}
	loop.wait(t, 30*time.Second)
	var refused []joinTester
	for _, jt := range s.joinOutcomes(t, "ok", 3) {
		switch {
		case jt.rc == 0 && jt.produced > 0 && s.joinRan(jt.id):
		case jt.rc == 0 && strings.Contains(jt.stderr, "this tester is not needed") && strings.Contains(jt.stderr, "all 2 are taken"):
			// a spare (a Job's pod that lost the race): told so by the proved controller, it exits 0
			refused = append(refused, jt)
		default:
			t.Errorf("tester %s: exit %d, %d samples\n%s", jt.id, jt.rc, jt.produced, jt.stderr)
		}
	}
	if len(refused) != 1 {
		t.Fatalf("%d testers were refused for want of a slot, want 1", len(refused))
	}
	if s.joinRan(refused[0].id) {
		t.Errorf("a client ran for the refused tester %s", refused[0].id)
	}
	checkRunDir(t, s.out)
	rejected := 0
	for _, e := range eventsOf(t, s.out) {
		if e["event"] == "rejected" {
			rejected++
		}
	}
	if rejected != 2 {
		t.Errorf("events.jsonl has %d rejected connections, want 2 (wrong token, no slot left)", rejected)
	}
	for _, r := range readTesters(t, s.out) {
		if r.str(t, "failed") != "false" || r.str(t, "id") == refused[0].id || r.str(t, "id") == bad.id {
			t.Errorf("testers.csv tester %d: %s failed %s", r.int(t, "index"), r.str(t, "id"), r.str(t, "failed"))
		}
	}
}

// TestJoinBeforeController starts the testers first, as an engine may:
// they keep trying until the controller listens, then the run completes.
// A tester whose controller never comes gives up after --join-retry,
// naming the address.
func TestJoinBeforeController(t *testing.T) {
	t.Parallel()
	s := joinNew(t, 2, "20s")
	makeToken(t, s.token, "join")
	loop := s.joinShellLoop(t, "early", 2, s.token)
	time.Sleep(2 * time.Second) // the testers try, and fail, meanwhile
	run := hardenStartRun(t, s.mark, "run", s.exp, "--out", s.out)
	if code := run.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("run exit %d\n%s", code, run.stderr.String())
	}
	loop.wait(t, 30*time.Second)
	for _, jt := range s.joinOutcomes(t, "early", 2) {
		if jt.rc != 0 || jt.produced == 0 || !strings.Contains(jt.stderr, "does not answer yet") {
			t.Errorf("early tester %s: exit %d, %d samples; want it to wait, join and run\n%s", jt.id, jt.rc, jt.produced, jt.stderr)
		}
	}
	checkRunDir(t, s.out)

	start := time.Now()
	s.joinShellLoop(t, "never", 1, s.token, "--join-retry", "1s").wait(t, 30*time.Second)
	never := s.joinOutcomes(t, "never", 1)[0]
	if never.rc == 0 || !strings.Contains(never.stderr, s.addr) || !strings.Contains(never.stderr, "--join-retry 1s") {
		t.Errorf("a tester with no controller: exit %d\n%s", never.rc, never.stderr)
	}
	if took := time.Since(start); took < time.Second {
		t.Errorf("a tester with no controller gave up after %v, before --join-retry 1s", took)
	}
}

// TestJoinUsage checks the join runs that cannot start: without a
// secret, on a wildcard address with nothing to advertise, or advertising
// an address of this machine where nobody listens. Each exits 2 saying
// why and leaves no run directory.
func TestJoinUsage(t *testing.T) {
	s := joinNew(t, 1, "2s")
	noToken := writeExperiment(t, strings.Replace(fmt.Sprintf(joinExperiment, s.ran, "X", s.addr, 1, "2s"), "  token_file: X\n", "", 1))
	port := s.addr[strings.LastIndexByte(s.addr, ':')+1:]
	wildcard := strings.Replace(joinRead(t, s.exp), "listen: "+s.addr, "listen: 0.0.0.0:"+port, 1)
	nobody := freeAddr(t)
	advertised := strings.Replace(joinRead(t, s.exp), "controller:\n", "controller:\n  advertise: "+nobody+"\n", 1)
	cases := []struct {
		name, exp string
		want      []string
	}{
		{"no token", noToken, []string{"testbed.token_file", "controller's key"}},
		{"wildcard", writeExperiment(t, wildcard), []string{"wildcard", "advertise"}},
		{"own address, nobody listens", writeExperiment(t, advertised), []string{nobody, "cannot reach"}},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "run")
		r := diperf(t, 30*time.Second, "run", c.exp, "--out", out)
		if r.code != 2 || !slices.ContainsFunc(c.want, func(w string) bool { return strings.Contains(r.stderr, w) }) {
			t.Errorf("%s: exit %d, want 2 naming %q\n%s", c.name, r.code, c.want, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: the message does not name %q:\n%s", c.name, w, r.stderr)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a run that could not start left %s", c.name, out)
		}
	}
}

// TestJoinAdvertiseElsewhere advertises a name this machine does not
// have (a NAT, a Kubernetes Service): the run cannot check it, says so in
// events.jsonl, and goes on.
func TestJoinAdvertiseElsewhere(t *testing.T) {
	s := joinNew(t, 1, "1s")
	exp := writeExperiment(t, strings.Replace(joinRead(t, s.exp), "controller:\n", "controller:\n  advertise: diperf-join-nowhere.invalid\n", 1))
	r := diperf(t, 60*time.Second, "run", exp, "--out", s.out)
	if r.code == 2 {
		t.Fatalf("exit 2: an address that is not this machine's must not stop the run\n%s", r.stderr)
	}
	port := s.addr[strings.LastIndexByte(s.addr, ':')+1:]
	for _, e := range eventsOf(t, s.out) {
		if e["event"] != "advertised" {
			continue
		}
		if d := fmt.Sprint(e["detail"]); !strings.HasPrefix(d, "diperf-join-nowhere.invalid:"+port) || !strings.Contains(d, "not checked") {
			t.Errorf("advertised event %q: want the name with the listen port, noted as not checked", d)
		}
		return
	}
	t.Errorf("events.jsonl has no advertised event")
}

func joinRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
