package cli

import "strings"

// errorText is err's message as Main prints it after "diperf CMD: ",
// without the prefixes that would say the command again ("diperf
// tester: tester: ...", "diperf sensor: sensor: ...", "diperf run:
// diperf: ..."): engines name themselves in their errors, and Main names
// the command.
func errorText(cmd string, err error) string {
	msg := err.Error()
	for again := true; again; {
		again = false
		for _, p := range []string{"diperf " + cmd + ": ", cmd + ": ", "diperf: "} {
			if rest, ok := strings.CutPrefix(msg, p); ok && rest != "" {
				msg, again = rest, true
			}
		}
	}
	return msg
}
