package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// joinK8sJobPolicy checks what keeps the testers' Job going and spread:
// a failed pod fails its own index only (Indexed, backoffLimitPerIndex 0,
// maxFailedIndexes = completions, no Job-wide backoffLimit, which would
// end every running tester at the first failure); the pods spread over
// the nodes; and they run without root, reading the token through their
// fsGroup.
func joinK8sJobPolicy(t *testing.T, job joinK8sObject) {
	t.Helper()
	js, jp := job.Spec, job.Spec.Template.Spec
	if js.CompletionMode != "Indexed" || js.BackoffLimitPerIndex == nil || *js.BackoffLimitPerIndex != 0 ||
		js.MaxFailedIndexes == nil || js.Completions == nil || *js.MaxFailedIndexes != *js.Completions || js.BackoffLimit != nil {
		t.Errorf("the Job: completionMode %q, backoffLimitPerIndex %s, maxFailedIndexes %s, backoffLimit %s; want Indexed, 0, = completions, unset: one failed tester must not end the others",
			js.CompletionMode, joinK8sInt(js.BackoffLimitPerIndex), joinK8sInt(js.MaxFailedIndexes), joinK8sInt(js.BackoffLimit))
	}
	spread := slices.ContainsFunc(jp.Spread, func(c joinK8sSpread) bool {
		return c.TopologyKey == "kubernetes.io/hostname" && c.MaxSkew == 1 && c.WhenUnsatisfiable == "ScheduleAnyway" &&
			len(c.LabelSelector.MatchLabels) > 0 && joinK8sSubset(c.LabelSelector.MatchLabels, job.Spec.Template.Metadata.Labels)
	})
	if !spread {
		t.Errorf("the testers' pods do not spread over the nodes (topologySpreadConstraints %+v): want maxSkew 1 over kubernetes.io/hostname, ScheduleAnyway, selecting the pods' labels", jp.Spread)
	}
	sc := jp.SecurityContext
	if !joinK8sTrue(sc.RunAsNonRoot) || sc.RunAsUser == nil || *sc.RunAsUser == 0 || sc.FSGroup == nil {
		t.Errorf("the testers' pods: runAsNonRoot %v, runAsUser %s, fsGroup %s; want a user other than root, and an fsGroup to read the token", sc.RunAsNonRoot, joinK8sInt(sc.RunAsUser), joinK8sInt(sc.FSGroup))
	}
	joinK8sUnprivileged(t, "the tester", jp.Containers[0])
}

// joinK8sSubset reports whether every label of sel is in labels.
func joinK8sSubset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// joinK8sControllerUsers checks who the controller pod runs as: nobody but
// the init container as root, and that one with no capability but CHOWN.
func joinK8sControllerUsers(t *testing.T, x *joinK8sExample, pp joinK8sPodSpec) {
	t.Helper()
	sc := pp.SecurityContext
	if !joinK8sTrue(sc.RunAsNonRoot) || sc.RunAsUser == nil || *sc.RunAsUser == 0 || sc.FSGroup != nil {
		t.Errorf("the controller pod: runAsNonRoot %v, runAsUser %s, fsGroup %s; want a user other than root and no fsGroup (it would make the key group-readable, which diperf run refuses)",
			sc.RunAsNonRoot, joinK8sInt(sc.RunAsUser), joinK8sInt(sc.FSGroup))
	} else {
		x.uid = *sc.RunAsUser
	}
	for _, c := range pp.Containers {
		if c.SecurityContext.RunAsUser != nil || c.SecurityContext.RunAsNonRoot != nil {
			t.Errorf("the container %s sets its own user: it must run as the pod's", c.Name)
		}
		joinK8sUnprivileged(t, "the container "+c.Name, c)
	}
	for _, c := range pp.InitContainers {
		if caps := c.SecurityContext.Capabilities; !slices.Equal(caps.Drop, []string{"ALL"}) || !slices.Equal(caps.Add, []string{"CHOWN"}) ||
			joinK8sTrue(c.SecurityContext.AllowPrivilegeEscalation) || c.SecurityContext.AllowPrivilegeEscalation == nil {
			t.Errorf("the init container %s: capabilities %+v; want every one dropped but CHOWN, no privilege escalation", c.Name, caps)
		}
	}
}

// joinK8sUnprivileged checks that container c drops every capability and
// cannot gain privileges.
func joinK8sUnprivileged(t *testing.T, who string, c joinK8sContainer) {
	t.Helper()
	s := c.SecurityContext
	if s.AllowPrivilegeEscalation == nil || *s.AllowPrivilegeEscalation || !slices.Equal(s.Capabilities.Drop, []string{"ALL"}) || len(s.Capabilities.Add) > 0 {
		t.Errorf("%s: allowPrivilegeEscalation %v, capabilities %+v; want false and every one dropped", who, s.AllowPrivilegeEscalation, s.Capabilities)
	}
}

// joinK8sTrue reports whether an optional boolean is set and true.
func joinK8sTrue(b *bool) bool { return b != nil && *b }

// joinK8sVolumeMount returns the volume container c mounts at dir (nil:
// none).
func joinK8sVolumeMount(p joinK8sPodSpec, c joinK8sContainer, dir string) *joinK8sVolume {
	for _, m := range c.VolumeMounts {
		if m.MountPath != dir {
			continue
		}
		for i := range p.Volumes {
			if p.Volumes[i].Name == m.Name {
				return &p.Volumes[i]
			}
		}
	}
	return nil
}

// joinK8sCopy copies file from to to (mode 0400, its directory made), as a
// Secret volume holds it.
func joinK8sCopy(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, b, 0o400)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// joinK8sRunInit runs the controller pod's init container's script here,
// its pod directories replaced by pairs (pod, here, ...), and checks what
// it made: each file the experiment reads (local: pod path → here) private
// to the controller pod's user, as diperf run asks.
func joinK8sRunInit(t *testing.T, x joinK8sExample, pairs []string, local map[string]string) {
	t.Helper()
	if err := os.MkdirAll(pairs[len(pairs)-1], 0o777); err != nil {
		t.Fatal(err)
	}
	script := strings.NewReplacer(pairs...).Replace(strings.TrimPrefix(x.initScript, "sh -c "))
	if out, err := exec.Command("sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("the init container's script, here (%s): %v\n%s", script, err, out)
	}
	for pod, here := range local {
		st, err := os.Stat(here)
		if err != nil {
			t.Fatalf("the init container made no %s: %v", pod, err)
		}
		if uid := st.Sys().(*syscall.Stat_t).Uid; st.Mode().Perm()&0o077 != 0 || int(uid) != x.uid {
			t.Errorf("the init container made %s mode %o, owner %d; want private to the controller's user %d", pod, st.Mode().Perm(), uid, x.uid)
		}
	}
}
