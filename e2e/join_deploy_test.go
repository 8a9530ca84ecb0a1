package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/diperf/diperf/internal/experiment"
)

// joinK8sDir holds the Kubernetes example of the join provider.
const joinK8sDir = "../deploy/kubernetes"

// joinK8sObject is the part of a Kubernetes object the checks read.
type joinK8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"` // ConfigMap
	Spec struct {
		// Job
		Parallelism          *int   `yaml:"parallelism"`
		Completions          *int   `yaml:"completions"`
		CompletionMode       string `yaml:"completionMode"`
		BackoffLimit         *int   `yaml:"backoffLimit"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		MaxFailedIndexes     *int   `yaml:"maxFailedIndexes"`
		Template             struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec joinK8sPodSpec `yaml:"spec"`
		} `yaml:"template"`
		// Pod
		joinK8sPodSpec `yaml:",inline"`
		// Service
		Type     string            `yaml:"type"`
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort int    `yaml:"targetPort"`
			Protocol   string `yaml:"protocol"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

type joinK8sPodSpec struct {
	RestartPolicy   string             `yaml:"restartPolicy"`
	SecurityContext joinK8sSecurity    `yaml:"securityContext"`
	InitContainers  []joinK8sContainer `yaml:"initContainers"`
	Containers      []joinK8sContainer `yaml:"containers"`
	Spread          []joinK8sSpread    `yaml:"topologySpreadConstraints"`
	Volumes         []joinK8sVolume    `yaml:"volumes"`
}

// The example's Secrets: the testers' token, mounted by the controller
// and the testers, and the controller's private key, mounted by the
// controller container alone (docs/design/017-trust-model.md).
const (
	joinK8sTokenSecret = "diperf-token"
	joinK8sKeySecret   = "diperf-controller-key"
)

// joinK8sLoad reads every document of every manifest of the example, by
// kind, and each document's YAML tree; kubectl apply -f reads the same
// files (.yaml, .yml, .json).
func joinK8sLoad(t *testing.T) (map[string]joinK8sObject, map[string]*yaml.Node) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(joinK8sDir, "*.y*ml"))
	if len(files) == 0 {
		t.Fatalf("no manifests in %s", joinK8sDir)
	}
	objs, nodes := map[string]joinK8sObject{}, map[string]*yaml.Node{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var n yaml.Node
			var o joinK8sObject
			err := dec.Decode(&n)
			if errors.Is(err, io.EOF) {
				break
			}
			if err == nil {
				err = n.Decode(&o)
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
				t.Fatalf("%s: a document without apiVersion, kind or metadata.name: kubectl apply refuses it", f)
			}
			if _, dup := objs[o.Kind]; dup {
				t.Fatalf("%s: a second %s; the checks expect one of each kind", f, o.Kind)
			}
			objs[o.Kind], nodes[o.Kind] = o, &n
		}
	}
	return objs, nodes
}

// joinK8sNames reports whether any value of the YAML tree n (not a
// comment) contains s: a volume, a projected volume, an env var's
// secretKeyRef, an envFrom.
func joinK8sNames(n *yaml.Node, s string) bool {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, s) {
		return true
	}
	return slices.ContainsFunc(n.Content, func(c *yaml.Node) bool { return joinK8sNames(c, s) })
}

// joinK8sMounters names the containers of pod p that mount the Secret
// secret.
func joinK8sMounters(p joinK8sPodSpec, secret string) []string {
	var names []string
	for _, c := range append(slices.Clone(p.InitContainers), p.Containers...) {
		if dir, _ := joinK8sSecretMount(p, c, secret); dir != "" {
			names = append(names, c.Name)
		}
	}
	return names
}

// joinK8sSecretMount returns the directory where container c of pod p
// mounts the Secret secret, and the Secret volume's mode.
func joinK8sSecretMount(p joinK8sPodSpec, c joinK8sContainer, secret string) (dir string, mode int) {
	for _, v := range p.Volumes {
		if v.Secret == nil || v.Secret.SecretName != secret {
			continue
		}
		for _, m := range c.VolumeMounts {
			if m.Name == v.Name {
				return m.MountPath, v.Secret.DefaultMode
			}
		}
	}
	return "", 0
}

// joinK8sExample is what the Kubernetes example's manifests say a run
// needs.
type joinK8sExample struct {
	exp        string                 // the ConfigMap's experiment
	e          *experiment.Experiment // parsed
	tester     []string               // the Job's argv, before $(VAR) expansion
	env        map[string]string      // the Job's env
	timeserver []string               // the timeserver container's argv
	mounts     map[string]string      // Secret → where the controller pod's init container mounts it
	testerDir  string                 // where the tester mounts the token Secret
	initScript string                 // the init container's script, which copies the Secrets for the controller
	credDir    string                 // where the controller container reads the copies
	uid        int                    // the user the controller pod runs as
}

// joinK8sManifests checks the fields of the Kubernetes example that a run
// relies on, against each other and against its experiment.
func joinK8sManifests(t *testing.T) joinK8sExample {
	t.Helper()
	objs, nodes := joinK8sLoad(t)
	want := map[string]string{"ConfigMap": "v1", "Pod": "v1", "Service": "v1", "Job": "batch/v1"}
	for kind, api := range want {
		if objs[kind].APIVersion != api {
			t.Fatalf("%s: apiVersion %q, want %q", kind, objs[kind].APIVersion, api)
		}
	}
	x := joinK8sExample{exp: objs["ConfigMap"].Data["experiment.yaml"], env: map[string]string{}, mounts: map[string]string{}}
	e, err := experiment.Parse([]byte(x.exp), "experiment.yaml of the ConfigMap")
	if err != nil {
		t.Fatalf("the ConfigMap's experiment: %v", err)
	}
	x.e = e
	if e.Testbed.Provider != experiment.ProviderJoin {
		t.Errorf("the experiment's provider is %q, want join", e.Testbed.Provider)
	}
	_, listenPort, _ := net.SplitHostPort(e.Controller.Listen)
	_, syncPort, _ := net.SplitHostPort(e.Sync.Server)
	joinK8sJob(t, &x, objs["Job"], nodes["Job"], objs["Service"].Metadata.Name, listenPort)
	joinK8sController(t, &x, objs["Pod"].Spec.joinK8sPodSpec, syncPort)
	joinK8sService(t, objs["Service"], objs["Pod"], listenPort, syncPort)
	return x
}

// joinK8sJob checks the testers: a Job of schedule.testers pods that join
// the Service with the token Secret, and never name the key Secret.
func joinK8sJob(t *testing.T, x *joinK8sExample, job joinK8sObject, node *yaml.Node, svc, listenPort string) {
	t.Helper()
	e, jp := x.e, job.Spec.Template.Spec
	if job.Spec.Parallelism == nil || job.Spec.Completions == nil || *job.Spec.Parallelism != e.Schedule.Testers ||
		*job.Spec.Completions != e.Schedule.Testers {
		t.Errorf("Job parallelism %s, completions %s; want both = schedule.testers %d",
			joinK8sInt(job.Spec.Parallelism), joinK8sInt(job.Spec.Completions), e.Schedule.Testers)
	}
	if jp.RestartPolicy != "Never" || len(jp.Containers) != 1 {
		t.Fatalf("the Job's pods: restartPolicy %q, %d containers; want Never and one tester", jp.RestartPolicy, len(jp.Containers))
	}
	x.tester = append(slices.Clone(jp.Containers[0].Command), jp.Containers[0].Args...)
	for _, v := range jp.Containers[0].Env {
		x.env[v.Name] = v.Value
	}
	dir, mode := joinK8sSecretMount(jp, jp.Containers[0], joinK8sTokenSecret)
	x.testerDir = dir
	joinK8sJobPolicy(t, job)
	if tokenArg := joinK8sFlag(t, x.tester, "--token-file"); dir == "" || filepath.Dir(tokenArg) != dir || mode != 0o440 {
		t.Errorf("the tester reads --token-file %s; the Secret %s is mounted at %q, mode %o", tokenArg, joinK8sTokenSecret, dir, mode)
	}
	if joinK8sNames(node, joinK8sKeySecret) {
		t.Errorf("the testers' Job names the Secret %s: the controller's key must never reach a tester", joinK8sKeySecret)
	}
	if join := joinK8sExpand(joinK8sFlag(t, x.tester, "--join"), x.env); join != net.JoinHostPort(svc, listenPort) ||
		e.Controller.Advertise != svc {
		t.Errorf("testers --join %q; want the Service %s on the listen port %s, which the experiment advertises (%q)",
			join, svc, listenPort, e.Controller.Advertise)
	}
}

// joinK8sController checks the controller pod: its init container alone
// mounts the token and key Secrets and copies them where the experiment
// reads them (joinK8sCredential runs its script); the controller and
// timeserver containers run without root; its timeserver container
// listens where sync.server says.
func joinK8sController(t *testing.T, x *joinK8sExample, pp joinK8sPodSpec, syncPort string) {
	t.Helper()
	joinK8sControllerUsers(t, x, pp)
	if len(pp.InitContainers) != 1 {
		t.Fatalf("the controller pod has %d init containers, want the one that copies the Secrets", len(pp.InitContainers))
	}
	ic := pp.InitContainers[0]
	x.initScript = strings.Join(append(slices.Clone(ic.Command), ic.Args...), " ")
	for secret, path := range map[string]string{joinK8sTokenSecret: x.e.Testbed.TokenFile, joinK8sKeySecret: x.e.Controller.KeyFile} {
		dir, mode := joinK8sSecretMount(pp, ic, secret)
		if dir == "" || mode != 0o400 {
			t.Errorf("the init container mounts the Secret %s at %q, mode %o; want a mount, 0400 (it belongs to root)", secret, dir, mode)
		}
		if m := joinK8sMounters(pp, secret); !slices.Equal(m, []string{ic.Name}) {
			t.Errorf("the Secret %s is mounted by the containers %q of the controller pod; want the init container %s alone", secret, m, ic.Name)
		}
		x.mounts[secret] = dir
		if d := filepath.Dir(path); x.credDir == "" || d == x.credDir {
			x.credDir = d
		} else {
			t.Errorf("the experiment reads %s outside %s", path, x.credDir)
		}
	}
	if v := joinK8sVolumeMount(pp, pp.Containers[0], x.credDir); pp.Containers[0].Name != "controller" || v == nil || v.EmptyDir == nil || v.EmptyDir.Medium != "Memory" {
		t.Errorf("the controller container reads the credentials in %s: want it a memory emptyDir the init container fills", x.credDir)
	}
	for _, c := range pp.Containers {
		if c.Name == "timeserver" {
			x.timeserver = append(slices.Clone(c.Command), c.Args...)
		}
	}
	if _, p, _ := net.SplitHostPort(joinK8sFlag(t, x.timeserver, "--listen")); p != syncPort {
		t.Errorf("the timeserver container listens on port %s; sync.server says %s", p, syncPort)
	}
}

// joinK8sService checks that the Service selects the controller pod and
// forwards its ports.
func joinK8sService(t *testing.T, svc, pod joinK8sObject, listenPort, syncPort string) {
	t.Helper()
	for k, v := range svc.Spec.Selector {
		if pod.Metadata.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, which the controller pod lacks", k, v)
		}
	}
	forwards := map[string]bool{}
	for _, p := range svc.Spec.Ports {
		if p.Port == p.TargetPort {
			forwards[fmt.Sprint(p.Port, "/", p.Protocol)] = true
		}
	}
	for _, need := range []string{listenPort + "/TCP", syncPort + "/UDP", syncPort + "/TCP"} {
		if !forwards[need] {
			t.Errorf("the Service does not forward %s (ports %+v)", need, svc.Spec.Ports)
		}
	}
	if svc.Spec.Type != "ClusterIP" {
		t.Errorf("the Service is of type %q, want ClusterIP", svc.Spec.Type)
	}
}

// joinK8sInt shows an optional integer.
func joinK8sInt(p *int) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// joinK8sFlag returns the value after flag in argv.
func joinK8sFlag(t *testing.T, argv []string, flag string) string {
	t.Helper()
	i := slices.Index(argv, flag)
	if i < 0 || i+1 >= len(argv) {
		t.Fatalf("%q has no %s", argv, flag)
	}
	return argv[i+1]
}

// joinK8sExpand expands $(VAR) as Kubernetes does in command and args.
func joinK8sExpand(s string, env map[string]string) string {
	for k, v := range env {
		s = strings.ReplaceAll(s, "$("+k+")", v)
	}
	return s
}

// joinK8sSecretFiles reads the README's `kubectl create secret generic
// NAME --from-file=KEY=FILE` commands (the first of each Secret): Secret
// → the key it holds the file as, and the file it is made from.
func joinK8sSecretFiles(readme string) map[string][2]string {
	out := map[string][2]string{}
	for _, l := range strings.Split(readme, "\n") {
		f := strings.Fields(l)
		if len(f) != 6 || strings.Join(f[:4], " ") != "kubectl create secret generic" {
			continue
		}
		kv, ok := strings.CutPrefix(f[5], "--from-file=")
		key, file, ok2 := strings.Cut(kv, "=")
		if _, seen := out[f[4]]; ok && ok2 && !seen {
			out[f[4]] = [2]string{key, file}
		}
	}
	return out
}

// joinK8sCredential runs the README's command that makes the token and
// the key, in dir, checks that the README's Secrets hold those files
// where the pods read them, and returns each pod path → the file made
// here (mode 0400, as the Secret volumes mount them).
func joinK8sCredential(t *testing.T, x joinK8sExample, readme, dir string) map[string]string {
	t.Helper()
	files := joinK8sSecretFiles(readme)
	cmd := fmt.Sprintf("diperf token %s --runs %s --valid 24h", files[joinK8sTokenSecret][1], x.e.Name)
	if !strings.Contains(readme, cmd) {
		t.Fatalf("README.md lacks the command %q that makes the token of the Secret %s for the experiment %q", cmd, joinK8sTokenSecret, x.e.Name)
	}
	mk := exec.Command(bin, strings.Fields(cmd)[1:]...)
	mk.Dir = dir
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	local := map[string]string{}
	mnt := []string{}
	for secret, podPath := range map[string]string{joinK8sTokenSecret: x.e.Testbed.TokenFile, joinK8sKeySecret: x.e.Controller.KeyFile} {
		f, ok := files[secret]
		if !ok {
			t.Fatalf("README.md does not create the Secret %s (kubectl create secret generic %s --from-file=KEY=FILE)", secret, secret)
		}
		if src := filepath.Join(x.mounts[secret], f[0]); !strings.Contains(x.initScript, src) || !strings.Contains(x.initScript, podPath) {
			t.Errorf("the Secret %s holds %s as %s; the init container (%q) must copy it to %s, which the experiment reads", secret, f[1], src, x.initScript, podPath)
		}
		here := filepath.Join(dir, f[1])
		if err := os.Chmod(here, 0o400); err != nil {
			t.Fatalf("the Secret %s is made from %s, which %q did not make: %v", secret, f[1], cmd, err)
		}
		m := filepath.Join(dir, "secret-"+secret) // the Secret's volume, here
		joinK8sCopy(t, here, filepath.Join(m, f[0]))
		mnt = append(mnt, x.mounts[secret], m)
		local[podPath] = filepath.Join(dir, "credentials", filepath.Base(podPath))
	}
	joinK8sRunInit(t, x, append(mnt, x.credDir, filepath.Join(dir, "credentials")), local)
	tok := files[joinK8sTokenSecret]
	if arg, want := joinK8sFlag(t, x.tester, "--token-file"), filepath.Join(x.testerDir, tok[0]); arg != want {
		t.Errorf("the tester reads --token-file %s; the Secret %s holds the token at %s", arg, joinK8sTokenSecret, want)
	}
	local[filepath.Join(x.testerDir, tok[0])] = filepath.Join(dir, tok[1])
	return local
}

// TestJoinKubernetesExample checks the manifests of deploy/kubernetes
// against each other and the README, then runs them on loopback as far
// as a machine without a cluster can: the token and key made by the
// README's own command, the ConfigMap's experiment with its addresses and
// the Secrets' paths moved to this machine, the init container's script
// copying the Secrets for the controller's user, the timeserver
// container's command beside it and three testers started with the Job's
// exact command line: two run, the spare exits 0. The Job's failure
// policy, spread and users are checked as written (joinK8sJobPolicy);
// deploy/kubernetes/check decodes every manifest strictly against the
// Kubernetes API's types.
func TestJoinKubernetesExample(t *testing.T) {
	t.Parallel()
	x := joinK8sManifests(t)
	readme := joinRead(t, filepath.Join(joinK8sDir, "README.md"))
	if cmd := "kubectl apply -f deploy/kubernetes/"; !strings.Contains(readme, cmd) {
		t.Errorf("README.md lacks the command %q", cmd)
	}
	d := t.TempDir()
	files := joinK8sCredential(t, x, readme, d)
	ctl := freeAddr(t)
	ts := joinStartTimeServer(t, x.timeserver[1:])
	_, ctlPort, _ := net.SplitHostPort(ctl)
	pairs := []string{"0.0.0.0:7070", ctl, "advertise: diperf-controller", "advertise: 127.0.0.1", "diperf-controller:7071", ts,
		"testers: 10 ", "testers: 2 ", "tester_duration: 60s", "tester_duration: 2s", "tester_start_interval: 2s", "tester_start_interval: 500ms",
		"[diperf, call, http, \"$DIPERF_TARGET\"]", "[sleep, \"0.02\"]"}
	for pod, here := range files {
		pairs = append(pairs, pod, here)
	}
	paths := strings.NewReplacer(pairs[len(pairs)-2*len(files):]...)
	local := strings.NewReplacer(pairs...).Replace(x.exp)
	if strings.Contains(local, "diperf-controller") || strings.Contains(local, ": "+x.credDir+"/") {
		t.Fatalf("the experiment changed: it still names the cluster after moving it here\n%s", local)
	}
	out := filepath.Join(d, "run")
	run := startRun(t, "run", writeExperiment(t, local), "--out", out)
	x.env["CONTROLLER"] = net.JoinHostPort("127.0.0.1", ctlPort)
	var testers []*background
	for range 3 { // the experiment's 2, and a spare (a pod that loses the race for a slot)
		args := slices.Clone(x.tester[1:])
		for i, a := range args {
			args[i] = paths.Replace(joinK8sExpand(a, x.env))
		}
		testers = append(testers, startCmd(t, nil, exec.Command(bin, args...)))
	}
	t.Cleanup(func() {
		for i, b := range testers {
			if t.Failed() {
				_ = b.cmd.Process.Kill() // its output is read once it is gone
				select {
				case <-b.done:
				case <-time.After(2 * time.Second): // already waited for
				}
				t.Logf("tester %d's output:\n%s", i, b.stderr.String())
			}
		}
	})
	if code := run.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("the example's run, moved here: exit %d\n%s", code, run.stderr.String())
	}
	spares := 0
	for i, b := range testers {
		if code := b.wait(t, 30*time.Second); code != 0 {
			t.Errorf("tester %d of the Job's command: exit %d (a spare must exit 0: the Job counts it failed)\n%s", i, code, b.stderr.String())
		}
		if strings.Contains(b.stderr.String(), "this tester is not needed") {
			spares++
		}
	}
	if spares != 1 {
		t.Errorf("%d of the 3 testers said they were not needed, want the 1 spare", spares)
	}
	checkRunDir(t, out)
	for _, r := range readTesters(t, out) {
		if r.str(t, "failed") != "false" || r.int(t, "samples_received") == 0 {
			t.Errorf("tester %d: failed %s (%s), %d samples", r.int(t, "index"), r.str(t, "failed"), r.str(t, "failure_reason"), r.int(t, "samples_received"))
		}
	}
	for _, e := range eventsOf(t, out) {
		if e["event"] == "time-server" && e["detail"] != ts {
			t.Errorf("the run's time server is %v, want the timeserver container's %s (sync.server)", e["detail"], ts)
		}
	}
}

// TestJoinExampleExperiment checks examples/join.yaml: a valid join
// experiment whose comments tell the tester command for its own listen
// address and token file.
func TestJoinExampleExperiment(t *testing.T) {
	e, err := experiment.Load("../examples/join.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if e.Testbed.Provider != experiment.ProviderJoin || e.Testbed.TokenFile == "" {
		t.Errorf("examples/join.yaml: provider %q, token_file %q", e.Testbed.Provider, e.Testbed.TokenFile)
	}
	cmd := "diperf tester --join " + e.Controller.Listen + " --token-file " + e.Testbed.TokenFile
	if !strings.Contains(joinRead(t, "../examples/join.yaml"), cmd) {
		t.Errorf("examples/join.yaml does not tell the tester command %q", cmd)
	}
}

// TestJoinTestbedsDocExamples checks that every complete experiment of
// docs/testbeds.md (a yaml block with a name) is valid, and that the doc
// names every testbed key an experiment may set.
func TestJoinTestbedsDocExamples(t *testing.T) {
	doc := joinRead(t, "../docs/testbeds.md")
	blocks := 0
	for _, part := range strings.Split(doc, "```yaml\n")[1:] {
		body, _, _ := strings.Cut(part, "```")
		if !strings.HasPrefix(body, "name:") {
			continue
		}
		blocks++
		if _, err := experiment.Parse([]byte(body), "docs/testbeds.md"); err != nil {
			t.Errorf("docs/testbeds.md example %d: %v\n%s", blocks, err, body)
		}
	}
	if blocks != 5 {
		t.Errorf("docs/testbeds.md has %d complete examples, want one per provider (4) and testbed.select's", blocks)
	}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[experiment.Testbed]()) {
		if key, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); !strings.Contains(doc, "`testbed."+key+"`") {
			t.Errorf("docs/testbeds.md does not describe testbed.%s", key)
		}
	}
}

// joinStartTimeServer starts the manifest's time server (args, its
// 0.0.0.0:7071 moved to a free loopback port) and returns its address.
// The port is free when chosen but another test's socket may take it
// before the server binds it: a server that exits at once is started
// again on another port, up to three times.
func joinStartTimeServer(t *testing.T, args []string) string {
	t.Helper()
	for range 3 {
		ts := freeUDPAddr(t)
		argv := strings.Fields(strings.NewReplacer("0.0.0.0:7071", ts).Replace(strings.Join(args, " ")))
		b := startCmd(t, nil, exec.Command(bin, argv...))
		select {
		case <-b.done:
			t.Logf("the time server on %s exited at once (its port taken meanwhile?): %s", ts, b.stderr.String())
		case <-time.After(500 * time.Millisecond):
			t.Cleanup(func() {
				if t.Failed() {
					_ = b.cmd.Process.Kill()
					<-b.done
					t.Logf("the time server's output:\n%s", b.stderr.String())
				}
			})
			return ts
		}
	}
	t.Fatal("the time server exited at once three times")
	return ""
}
