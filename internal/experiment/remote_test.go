package experiment

import (
	"strings"
	"testing"
	"time"
)

// TestRemoteKeys reads every key of the ssh, slurm and join providers and
// of the failure policy.
func TestRemoteKeys(t *testing.T) {
	t.Parallel()
	body := `client: {exec: [x]}
testbed:
  provider: ssh
  hosts: [h1, "root@h2:2222"]
  user: bench
  identity_file: /k/id
  known_hosts: /k/known
  trust_new_hosts: true
  min_hosts: 1
  keep_files: true
  work_dir: /srv/diperf
  connect_timeout: 3s
  tester_binaries:
    linux/arm64: /bin/diperf-arm64
controller:
  listen: 0.0.0.0:7070
  advertise: 10.0.0.1
failure_policy: tolerate
tolerate_lost: 12.5%
`
	e, err := Parse([]byte(body), "exp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tb := e.Testbed
	if tb.User != "bench" || tb.IdentityFile != "/k/id" || tb.KnownHosts != "/k/known" || !tb.TrustNewHosts ||
		tb.MinHosts != 1 || !tb.KeepFiles || tb.WorkDir != "/srv/diperf" || tb.ConnectTimeout.D() != 3*time.Second ||
		tb.TesterBinaries["linux/arm64"] != "/bin/diperf-arm64" || len(tb.Hosts) != 2 {
		t.Errorf("testbed %+v", tb)
	}
	if e.Controller.Listen != "0.0.0.0:7070" || e.Controller.Advertise != "10.0.0.1" {
		t.Errorf("controller %+v", e.Controller)
	}
	if e.FailurePolicy != PolicyTolerate || e.TolerateLost != 12.5 {
		t.Errorf("policy %q %v", e.FailurePolicy, e.TolerateLost)
	}
	if line := e.lines["testbed.tester_binaries.linux/arm64"]; line != 14 {
		t.Errorf("tester_binaries entry on line %d, want 14", line)
	}
	y, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(y, "again.yaml")
	if err != nil || !sameValues(*back, *e) {
		t.Errorf("round trip: %v\n%s", err, y)
	}
	s, err := Parse([]byte("client: {exec: [x]}\ntestbed:\n  provider: slurm\n  partition: debug\n  account: perf\n  time_limit: 10m\n  sbatch_args: [--qos=low]\n  wait: 1m\n"), "s.yaml")
	if err != nil || s.Testbed.Partition != "debug" || s.Testbed.Account != "perf" || s.Testbed.TimeLimit.D() != 10*time.Minute ||
		s.Testbed.SbatchArgs[0] != "--qos=low" || s.Testbed.Wait.D() != time.Minute {
		t.Errorf("slurm: %+v %v", s.Testbed, err)
	}
}

// TestRemoteKeyProblems names the key and line of each mistake.
func TestRemoteKeyProblems(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, body, want string }{
		{"key of another provider", "client: {exec: [x]}\ntestbed:\n  partition: debug\n", `exp.yaml:3: testbed.partition: applies to testbed.provider slurm only, and this experiment's is "local"`},
		{"a token for slurm", "client: {exec: [x]}\ntestbed:\n  provider: slurm\n  token_file: /t\n", `exp.yaml:4: testbed.token_file: applies to testbed.provider join only, and this experiment's is "slurm"`},
		{"a key for a local run", "client: {exec: [x]}\ncontroller:\n  key_file: /k\n", "exp.yaml:3: controller.key_file: applies to testbed.provider join only"},
		{"ssh without hosts", "client: {exec: [x]}\ntestbed:\n  provider: ssh\n", "exp.yaml:3: testbed.hosts: the ssh provider needs hosts"},
		{"min_hosts above hosts", "client: {exec: [x]}\ntestbed:\n  provider: ssh\n  hosts: [a]\n  min_hosts: 2\n", "exp.yaml:5: testbed.min_hosts: is 2, more than the 1 hosts listed"},
		{"host with a space", "client: {exec: [x]}\ntestbed:\n  provider: ssh\n  hosts: [\"a b\"]\n", "exp.yaml:4: testbed.hosts[0]: want [user@]host[:port]"},
		{"bad binary key", "client: {exec: [x]}\ntestbed:\n  provider: ssh\n  hosts: [a]\n  tester_binaries: {arm64: /x}\n", "exp.yaml:5: testbed.tester_binaries.arm64: keys are OS/ARCH"},
		{"binary map type", "client: {exec: [x]}\ntestbed:\n  provider: ssh\n  hosts: [a]\n  tester_binaries: [x]\n", "exp.yaml:5: testbed.tester_binaries: want a mapping"},
		{"policy", "client: {exec: [x]}\nfailure_policy: shrug\n", `exp.yaml:2: failure_policy: must be abort, continue or tolerate, got "shrug"`},
		{"tolerate without the policy", "client: {exec: [x]}\ntolerate_lost: 5%\n", "exp.yaml:2: tolerate_lost: applies to failure_policy: tolerate only"},
		{"tolerate over 100", "client: {exec: [x]}\nfailure_policy: tolerate\ntolerate_lost: 150%\n", "exp.yaml:3: tolerate_lost: must be 0% to 100%"},
		{"tolerate not a number", "client: {exec: [x]}\nfailure_policy: tolerate\ntolerate_lost: some\n", `exp.yaml:3: tolerate_lost: want a percentage such as "10%", got "some"`},
		{"zero connect timeout", "client: {exec: [x]}\ntestbed:\n  connect_timeout: 0s\n", "exp.yaml:3: testbed.connect_timeout: must be more than zero"},
		{"unknown controller key", "client: {exec: [x]}\ncontroller:\n  lisen: x\n", "exp.yaml:3: controller.lisen: unknown key"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.body), "exp.yaml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v\nwant %q", tt.name, err, tt.want)
		}
	}
}
