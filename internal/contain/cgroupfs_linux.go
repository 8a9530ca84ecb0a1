package contain

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// cgroupDir returns the folder, in the cgroup2 file system, of the cgroup
// v2 group of process pid ("self" for this one).
func cgroupDir(pid string) (string, error) {
	mnt, root, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile("/proc/" + pid + "/cgroup")
	if err != nil {
		return "", fmt.Errorf("reading its cgroup: %w", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		path, ok := strings.CutPrefix(line, "0::")
		if !ok {
			continue
		}
		rel, ok := strings.CutPrefix(path, root)
		if !ok || strings.HasSuffix(path, " (deleted)") || strings.Contains(rel, "..") {
			return "", fmt.Errorf("its cgroup %q is outside the cgroup2 file system mounted at %s", path, mnt)
		}
		return filepath.Join(mnt, rel), nil
	}
	return "", errors.New("it is in no cgroup v2 group (a cgroup v1 host)")
}

// cgroup2Mount returns where the cgroup2 file system is mounted, and the
// path of the group the mount shows as its root (/ but in a container).
func cgroup2Mount() (mnt, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", fmt.Errorf("finding the cgroup2 file system: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent dev root mountpoint options [tags] - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields := strings.Fields(pre)
		if ok && strings.HasPrefix(post, "cgroup2 ") && len(fields) >= 5 {
			root = strings.TrimSuffix(fields[3], "/")
			return unescapeMount(fields[4]), root, nil
		}
	}
	return "", "", errors.New("no cgroup2 file system is mounted")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	return strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace(s)
}

// SweepTester kills whatever is left in the client jail of the tester
// with process id pid, if it made a cgroup that it could not remove (it
// was killed with SIGKILL), and removes it. The group is looked for under
// this process's cgroup (where the local testbed's testers run) and under
// the tester's own while it is there to read. It returns how many
// processes it killed.
func SweepTester(pid int) int {
	var dirs []string
	for _, who := range []string{"self", fmt.Sprint(pid)} {
		if d, err := cgroupDir(who); err == nil {
			dirs = append(dirs, filepath.Join(d, JailName(pid)))
		}
	}
	killed := 0
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
			continue
		}
		c := &cgroup{dir: dir, fd: -1}
		n, _ := c.stop(0)
		killed += n
		_ = c.remove()
	}
	return killed
}
