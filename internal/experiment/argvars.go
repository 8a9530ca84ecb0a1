package experiment

import (
	"fmt"
	"slices"
	"strings"
)

// ClientVars are the variables diperf sets for every exec and persistent
// client, the only names $NAME and ${NAME} may use in their argv.
var ClientVars = []string{"DIPERF_TARGET", "DIPERF_TESTER_ID", "DIPERF_TESTER_INDEX", "DIPERF_EXTRAS_FD"}

// ExpandArg expands one exec or persistent argv element: $$ becomes a
// literal $, $NAME and ${NAME} (NAME a shell identifier) become
// lookup(NAME), and anything else after a '$' ($1, $!, $(...), ${x%y}, a
// lone $) is kept as it is. It also returns the names lookup did not know
// (they expand to ""), in order, each once.
func ExpandArg(s string, lookup func(name string) (string, bool)) (string, []string) {
	var b strings.Builder
	var unknown []string
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			b.WriteString(s)
			return b.String(), unknown
		}
		b.WriteString(s[:i])
		s = s[i+1:]
		if strings.HasPrefix(s, "$") {
			b.WriteByte('$')
			s = s[1:]
			continue
		}
		name, n := varName(s)
		if n == 0 {
			b.WriteByte('$')
			continue
		}
		val, ok := lookup(name)
		if !ok && !slices.Contains(unknown, name) {
			unknown = append(unknown, name)
		}
		b.WriteString(val)
		s = s[n:]
	}
}

// varName reads an identifier or a {identifier} at the start of s and
// returns it with the number of bytes it took (0: none).
func varName(s string) (string, int) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end > 1 && identLen(s[1:end]) == end-1 {
			return s[1:end], end + 1
		}
		return "", 0
	}
	n := identLen(s)
	return s[:n], n
}

// identLen is the length of the shell identifier at the start of s.
func identLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return i
		}
	}
	return len(s)
}

// argvVars refuses, in an exec or persistent argv (key is client.exec or
// client.persistent), any $NAME diperf does not set.
func (v *validator) argvVars(key string, argv []string) {
	known := func(name string) (string, bool) { return "", slices.Contains(ClientVars, name) }
	for i, a := range argv {
		_, unknown := ExpandArg(a, known)
		for _, name := range unknown {
			v.add(fmt.Sprintf("%s[%d]", key, i), fmt.Sprintf("unknown variable $%s: diperf sets only $%s; "+
				"write $$%s to pass a literal $%s on (e.g. a shell variable in sh -c '...')",
				name, strings.Join(ClientVars, ", $"), name, name))
		}
	}
}
