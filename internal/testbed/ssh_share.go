package testbed

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/diperf/diperf/internal/errs"
)

// shareTesters checks that the run's testers fit on the hosts ready at
// testbed.testers_per_host each (a host never runs more: a skipped host's
// testers are never piled onto the others beyond it), and says how they
// are shared when a host was skipped or is not needed ("" otherwise).
// setupOnly says every skipped host's reason is the user's to fix (an
// unknown key, a bad user): the refusal is then a usage error.
func shareTesters(testers, perHost int, hosts []string, skipped map[string]string, setupOnly bool) (string, error) {
	perHost = max(perHost, 1)
	if testers > len(hosts)*perHost {
		need := (testers + perHost - 1) / perHost
		err := fmt.Errorf("ssh testbed: %d testers at testbed.testers_per_host %d need %d hosts, and %d usable remain%s: "+
			"no host runs more than testers_per_host testers", testers, perHost, need, len(hosts), skippedText(skipped))
		hint := fmt.Sprintf("raise testbed.testers_per_host to %d, or lower schedule.testers to %d",
			(testers+len(hosts)-1)/max(len(hosts), 1), len(hosts)*perHost)
		if len(skipped) > 0 {
			hint += ", or fix the skipped hosts"
		}
		if len(skipped) == 0 || setupOnly {
			return "", errs.Usage(err, hint)
		}
		return "", fmt.Errorf("%w (%s)", err, hint)
	}
	r := Ready{Hosts: hosts, PerHost: perHost}
	share := r.Share(testers)
	if len(skipped) == 0 && !slices.Contains(share, 0) {
		return "", nil
	}
	return fmt.Sprintf("%d testers over %d usable hosts, at most %d each (testbed.testers_per_host)%s: %s",
		testers, len(hosts), perHost, skippedText(skipped), r.ShareText(share)), nil
}

// skippedText names the skipped hosts, sorted, or is "".
func skippedText(skipped map[string]string) string {
	if len(skipped) == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(skipped))
	return fmt.Sprintf(" (%d skipped: %s)", len(names), strings.Join(names, ", "))
}

// Share is how many of a run's testers each of r's hosts runs, in the
// order of r.Hosts, as HostFor hands them out.
func (r Ready) Share(testers int) []int {
	counts := make([]int, len(r.Hosts))
	for i := range testers {
		if len(r.Hosts) > 0 {
			counts[r.hostIndex(i)]++
		}
	}
	return counts
}

// ShareText says a share of Share, host by host: "a 2, b 2, c 1".
func (r Ready) ShareText(counts []int) string {
	parts := make([]string, len(r.Hosts))
	for i, h := range r.Hosts {
		parts[i] = fmt.Sprintf("%s %d", h, counts[i])
	}
	return strings.Join(parts, ", ")
}
