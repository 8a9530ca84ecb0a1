package netlab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// writeOwner records which process owns the lab (its PID and start time,
// so that a reused PID is not taken for the owner).
func writeOwner(dir string) error {
	pid := os.Getpid()
	if err := os.WriteFile(filepath.Join(dir, "owner"), []byte(fmt.Sprintf("%d %s\n", pid, startTime(pid))), 0o600); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	return nil
}

// startTime is field 22 of /proc/PID/stat, "" when the process is gone.
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}

// ownerAlive tells whether the process that built the lab in dir still runs.
func ownerAlive(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "owner"))
	if err != nil {
		// Being built right now (owner not written yet) or broken: only
		// a directory older than a minute counts as abandoned.
		fi, err := os.Stat(dir)
		return err == nil && time.Since(fi.ModTime()) < time.Minute
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return false
	}
	pid, err := strconv.Atoi(f[0])
	return err == nil && startTime(pid) == f[1]
}

// cleanStale tears down the labs of family prefix whose owner is gone and
// returns their names.
func cleanStale(prefix string) []string {
	dirs, _ := filepath.Glob(filepath.Join(stateRoot, prefix+"*"))
	var gone []string
	for _, dir := range dirs {
		name := filepath.Base(dir)
		if len(name) != len(prefix)+4 || ownerAlive(dir) {
			continue
		}
		_ = teardown(name)
		gone = append(gone, name)
	}
	return gone
}

// teardown removes everything of lab name, from names alone: the processes
// in its namespaces, the namespaces, its bridge, its iptables chain in the
// root namespace and its state directory. It goes on after errors.
func teardown(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var errs []error
	nss, _ := filepath.Glob(filepath.Join("/run/netns", name+"-h*"))
	for _, ns := range nss {
		if err := killAll(ns); err != nil {
			errs = append(errs, err)
		}
		// The kernel frees a deleted namespace's devices later, on a work
		// queue; deleting the root-side veth first is synchronous, so no
		// "<lab>v<i>" outlives Close.
		if veth := vethOf(name, filepath.Base(ns)); run(ctx, "ip", "link", "show", veth) == nil {
			if err := run(ctx, "ip", "link", "del", veth); err != nil {
				errs = append(errs, err)
			}
		}
		if err := run(ctx, "ip", "netns", "del", filepath.Base(ns)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := run(ctx, "ip", "link", "show", name+"br"); err == nil {
		if err := run(ctx, "ip", "link", "del", name+"br"); err != nil {
			errs = append(errs, err)
		}
	}
	chain := chainName(name)
	if run(ctx, "iptables", "-w", "-S", chain) == nil {
		for run(ctx, "iptables", "-w", "-D", "INPUT", "-j", chain) == nil {
		}
		for _, argv := range [][]string{{"-F", chain}, {"-X", chain}} {
			if err := run(ctx, "iptables", append([]string{"-w"}, argv...)...); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := os.RemoveAll(filepath.Join(stateRoot, name)); err != nil {
		errs = append(errs, fmt.Errorf("state directory: %w", err))
	}
	return errors.Join(errs...)
}

// killAll kills every process in the network namespace at ns until none is
// left (processes may fork while they are being killed).
func killAll(ns string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids, err := pidsInNetns(ns)
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("netlab: processes %v in %s survive SIGKILL", pids, ns)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// vethOf is the root-side veth of the host namespace ns ("<lab>-h<i>") of
// lab name: "<lab>v<i>".
func vethOf(name, ns string) string {
	return name + "v" + strings.TrimPrefix(ns, name+"-h")
}
