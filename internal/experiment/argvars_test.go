package experiment

import (
	"slices"
	"testing"
)

// TestArgvUnknownVariableRefused: a $NAME diperf does not set, in an exec
// or persistent argv, is refused on its element's line, naming it, the
// names diperf sets, and $$NAME for a shell variable.
func TestArgvUnknownVariableRefused(t *testing.T) {
	t.Parallel()
	known := []string{"$DIPERF_TARGET, $DIPERF_TESTER_ID, $DIPERF_TESTER_INDEX, $DIPERF_EXTRAS_FD", "write $$x"}
	tests := []struct {
		name, in string
		line     int
		key      string
		msgs     []string
	}{
		{"shell variable", "name: t\nclient:\n  exec:\n    - sh\n    - -c\n    - x=1; echo $x\n", 6, "client.exec[2]",
			append([]string{"unknown variable $x"}, known...)},
		{"braces", "name: t\nclient:\n  exec: [curl, \"${URL}/a\"]\n", 3, "client.exec[1]", []string{"unknown variable $URL", "write $$URL"}},
		{"persistent", "name: t\nclient:\n  persistent:\n    - ./c\n    - $HOME/x\n", 5, "client.persistent[1]",
			[]string{"unknown variable $HOME", "write $$HOME"}},
		{"misspelt", "name: t\nclient:\n  exec: [curl, $DIPERF_TAGRET]\n", 3, "client.exec[1]", []string{"unknown variable $DIPERF_TAGRET"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantProblem(t, tt.in, tt.line, tt.key, tt.msgs...)
		})
	}
}

// TestArgvKnownVariablesAndEscapes: the names diperf sets, $$ escapes and
// the shell's own $1, $!, $(...), ${x%y} and a lone $ pass validation.
func TestArgvKnownVariablesAndEscapes(t *testing.T) {
	t.Parallel()
	in := "name: t\nclient:\n  exec: [sh, -c, 'x=1; echo $$x $${x} $$$$ $1 $! $(date) ${x%y} $ $DIPERF_TESTER_ID ${DIPERF_TARGET} >&$DIPERF_EXTRAS_FD', " +
		"sh, $DIPERF_TESTER_INDEX]\n"
	if _, err := Parse([]byte(in), "exp.yaml"); err != nil {
		t.Fatal(err)
	}
}

// TestExpandArg: $$ is a literal $, names expand, unknown ones are
// reported once each, everything else after a $ is kept.
func TestExpandArg(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"A": "x", "B_1": "y"}
	lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	tests := []struct {
		in, want string
		unknown  []string
	}{
		{"$$", "$", nil},
		{"$$x", "$x", nil},
		{"$${A}", "${A}", nil},
		{"$$$$", "$$", nil},
		{"$$$A", "$x", nil},
		{"${A}b$B_1", "xby", nil},
		{"$1 $! $(ls) ${A%b} ${ $", "$1 $! $(ls) ${A%b} ${ $", nil},
		{"$U-${U}-$V", "--", []string{"U", "V"}},
	}
	for _, tt := range tests {
		got, unknown := ExpandArg(tt.in, lookup)
		if got != tt.want || !slices.Equal(unknown, tt.unknown) {
			t.Errorf("ExpandArg(%q) = %q, %q; want %q, %q", tt.in, got, unknown, tt.want, tt.unknown)
		}
	}
}
