package testbed

import (
	"fmt"
	"strings"
)

// slurmScript is the batch script of the slurm testbed's job array:
// sbatch ... testers.sbatch BIN ADDR TOKEN TASKS. Task i reads line i+1 of
// TASKS (its log file and extra tester flags, shell-quoted), checks that
// the binary and the token file are there (a shared file system is
// assumed; a task that cannot find them says so in its Slurm output and
// exits 2), and becomes the tester of slot i.
const slurmScript = `#!/bin/sh
# diperf: one tester per task of this job array (made by 'diperf run').
# Arguments: BIN ADDR TOKEN TASKS.
bin=$1 addr=$2 token=$3 tasks=$4
node=${SLURMD_NODENAME:-$(hostname)}
i=${SLURM_ARRAY_TASK_ID:?}
fail() {
	echo "diperf slurm task $i on $node: $*" >&2
	exit 2
}
[ -x "$bin" ] || fail "the diperf binary $bin is not there; the slurm provider needs it on a file system shared with this node, at the same path"
[ -r "$token" ] || fail "the token file $token is not readable; the run directory must be on a file system shared with this node"
[ -r "$tasks" ] || fail "the task list $tasks is not readable; the run directory must be on a file system shared with this node"
line=$(sed -n "$((i + 1))p" "$tasks")
[ -n "$line" ] || fail "task $i has no line in $tasks"
eval "set -- $line"
log=$1
shift
if [ -n "$log" ]; then
	exec >>"$log" 2>&1 || fail "cannot write the tester log $log"
fi
exec "$bin" tester --join "$addr" --token-file "$token" --slot "$i" "$@"
`

// taskList is the file the batch script reads its task's line from: per
// slot, its log path and its extra tester flags, each shell-quoted. A
// newline would split a line: no path or flag may hold one.
func taskList(specs []Spec) (string, error) {
	var b strings.Builder
	for _, s := range specs {
		for j, a := range append([]string{s.LogPath}, s.ExtraArgs...) {
			if strings.ContainsAny(a, "\n\r") {
				return "", fmt.Errorf("tester %d: %q holds a line break", s.Slot, a)
			}
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(shellQuote(a))
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// shellQuote quotes s for a POSIX shell: in single quotes, each single
// quote in s closing the quotes, escaped, and opening them again.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
