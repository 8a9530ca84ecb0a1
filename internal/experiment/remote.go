package experiment

import (
	"fmt"
	"slices"
	"strings"
)

// providerKeys names the testbed keys that only some providers read: a
// key set for another provider is a mistake worth naming.
var providerKeys = []struct {
	key       string
	providers []string
	set       func(t *Testbed) bool
}{
	{"hosts_file", []string{ProviderSSH}, func(t *Testbed) bool { return t.HostsFile != "" }},
	{"user", []string{ProviderSSH}, func(t *Testbed) bool { return t.User != "" }},
	{"identity_file", []string{ProviderSSH}, func(t *Testbed) bool { return t.IdentityFile != "" }},
	{"known_hosts", []string{ProviderSSH}, func(t *Testbed) bool { return t.KnownHosts != "" }},
	{"trust_new_hosts", []string{ProviderSSH}, func(t *Testbed) bool { return t.TrustNewHosts }},
	{"min_hosts", []string{ProviderSSH}, func(t *Testbed) bool { return t.MinHosts != 0 }},
	{"keep_files", []string{ProviderSSH}, func(t *Testbed) bool { return t.KeepFiles }},
	{"work_dir", []string{ProviderSSH}, func(t *Testbed) bool { return t.WorkDir != "" }},
	{"tester_binaries", []string{ProviderSSH}, func(t *Testbed) bool { return len(t.TesterBinaries) > 0 }},
	{"partition", []string{ProviderSlurm}, func(t *Testbed) bool { return t.Partition != "" }},
	{"account", []string{ProviderSlurm}, func(t *Testbed) bool { return t.Account != "" }},
	{"time_limit", []string{ProviderSlurm}, func(t *Testbed) bool { return t.TimeLimit != 0 }},
	{"sbatch_args", []string{ProviderSlurm}, func(t *Testbed) bool { return len(t.SbatchArgs) > 0 }},
	{"listen", []string{ProviderJoin}, func(t *Testbed) bool { return t.Listen != "" }},
	// token_file: a slurm run writes its own token, with a key made for
	// that run alone, into the run directory (docs/design/017).
	{"token_file", []string{ProviderJoin}, func(t *Testbed) bool { return t.TokenFile != "" }},
	{"wait", []string{ProviderJoin, ProviderSlurm}, func(t *Testbed) bool { return t.Wait != 0 }},
}

// remote checks the settings of the ssh, slurm and join providers.
func (v *validator) remote() {
	tb := &v.e.Testbed
	for _, k := range providerKeys {
		if k.set(tb) && !slices.Contains(k.providers, tb.Provider) {
			v.add("testbed."+k.key, fmt.Sprintf("applies to testbed.provider %s only, and this experiment's is %q",
				strings.Join(k.providers, " or "), tb.Provider))
		}
	}
	if v.e.Controller.KeyFile != "" && tb.Provider != ProviderJoin {
		v.add("controller.key_file", fmt.Sprintf("applies to testbed.provider join only (the key of its token_file; other runs make a key of their own), and this experiment's is %q", tb.Provider))
	}
	v.positive("testbed.connect_timeout", tb.ConnectTimeout)
	v.notNegative("testbed.wait", tb.Wait)
	v.notNegative("testbed.time_limit", tb.TimeLimit)
	if tb.Provider == ProviderSSH {
		v.sshHosts()
	}
	for k := range tb.TesterBinaries {
		if os, arch, ok := strings.Cut(k, "/"); !ok || os == "" || arch == "" || strings.Contains(arch, "/") {
			v.add("testbed.tester_binaries."+k, fmt.Sprintf("keys are OS/ARCH as Go names them (e.g. linux/arm64), got %q", k))
		}
	}
}

// sshHosts checks that an ssh testbed has hosts and a reachable min_hosts.
func (v *validator) sshHosts() {
	tb := v.e.Testbed
	if len(tb.Hosts) == 0 && tb.HostsFile == "" {
		v.problems = append(v.problems, Problem{File: v.e.file, Line: v.e.lines["testbed.provider"], Key: "testbed.hosts",
			Msg: "the ssh provider needs hosts: list them ([user@]host[:port]) or give testbed.hosts_file"})
	}
	for i, h := range tb.Hosts {
		if strings.TrimSpace(h) == "" || strings.ContainsAny(h, " \t/") {
			v.add(fmt.Sprintf("testbed.hosts[%d]", i), fmt.Sprintf("want [user@]host[:port], got %q", h))
		}
	}
	switch {
	case tb.MinHosts < 0:
		v.add("testbed.min_hosts", fmt.Sprintf("must not be negative, got %d", tb.MinHosts))
	case tb.HostsFile == "" && len(tb.Hosts) > 0 && tb.MinHosts > len(tb.Hosts):
		v.add("testbed.min_hosts", fmt.Sprintf("is %d, more than the %d hosts listed", tb.MinHosts, len(tb.Hosts)))
	}
}

// failurePolicy checks failure_policy and tolerate_lost.
func (v *validator) failurePolicy() {
	e := v.e
	switch e.FailurePolicy {
	case PolicyAbort, PolicyContinue, PolicyTolerate:
	default:
		v.add("failure_policy", fmt.Sprintf("must be %s, %s or %s, got %q", PolicyAbort, PolicyContinue, PolicyTolerate, e.FailurePolicy))
	}
	switch p := e.TolerateLost; {
	case p < 0 || p > 100:
		v.add("tolerate_lost", fmt.Sprintf("must be 0%% to 100%%, got %v%%", float64(p)))
	case p != 0 && e.FailurePolicy != PolicyTolerate:
		v.add("tolerate_lost", fmt.Sprintf("applies to failure_policy: %s only, and this experiment's is %q", PolicyTolerate, e.FailurePolicy))
	}
}
