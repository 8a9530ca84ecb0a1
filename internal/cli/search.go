package cli

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"strconv"
	"strings"

	"github.com/diperf/diperf/internal/errs"
)

// searchUsage is diperf search's synopsis.
const searchUsage = `EXPERIMENT.yaml --slo "p99_ms < 200" [--slo "error_rate < 1%" ...] [--precision 5%] [--max-rate R] [--start R] ` +
	"[--time-budget 10m] [--min-capacity C] [--set KEY=VALUE ...] [--out DIR] [--listen ADDR] [--advertise HOST[:PORT]] [--secret-file FILE] [--junit FILE]"

// searchCmd runs a capacity search (docs/search.md): the experiment with
// its search key, the flags put over it.
func searchCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "search", searchUsage)
	rf := addRunFlags(fs)
	sf := addSearchFlags(fs)
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	sets, err := sf.sets(fs)
	if err != nil {
		return err
	}
	exp, o, err := rf.setup(e, fs, pos[0], sets)
	if err != nil {
		return err
	}
	if exp.Search == nil {
		return errs.Usagef("give the objectives: --slo \"p99_ms < 200\" (repeatable), or a search: key in %s (docs/search.md)", pos[0])
	}
	return runExperiment(ctx, e, exp, o, rf.uif, *rf.junit)
}

// searchFlags are diperf search's own flags: each puts its value over
// the experiment file's search key.
type searchFlags struct {
	slos                                           []string
	precision, maxRate, start, budget, minCapacity *string
}

// addSearchFlags adds diperf search's flags to fs.
func addSearchFlags(fs *flag.FlagSet) *searchFlags {
	f := &searchFlags{}
	fs.Func("slo", `an objective every step is held to, an upper bound: "p99_ms < 200", "error_rate < 1%", "mean_ms < 50" (repeatable; replaces search.slo)`, func(v string) error {
		f.slos = append(f.slos, v)
		return nil
	})
	f.precision = fs.String("precision", "", "stop when the capacity is bracketed within this share, e.g. 5% (search.precision; default 5%)")
	f.maxRate = fs.String("max-rate", "", "the highest load tried: calls/s (open model), or active clients (closed) (search.max_rate)")
	f.start = fs.String("start", "", "the first load (search.start; default max-rate/16)")
	f.budget = fs.String("time-budget", "", "the seconds of load the search may use, e.g. 10m (search.time_budget; default and at most schedule.tester_duration)")
	f.minCapacity = fs.String("min-capacity", "", "exit 3 when the capacity found is below this, or none is: for CI (search.min_capacity)")
	return f
}

// sets are the flags given, as --set values of the search key, so that
// a flag's value is checked like the file's; an error when a number flag
// is no number.
func (f *searchFlags) sets(fs *flag.FlagSet) ([]string, error) {
	var out []string
	if len(f.slos) > 0 {
		quoted := make([]string, len(f.slos))
		for i, s := range f.slos {
			quoted[i] = yamlString(s)
		}
		out = append(out, "search.slo=["+strings.Join(quoted, ", ")+"]")
	}
	given := givenFlags(fs)
	for _, kv := range []struct {
		flag, key string
		v         *string
		number    bool
	}{{"precision", "precision", f.precision, false}, {"max-rate", "max_rate", f.maxRate, true}, {"start", "start", f.start, true},
		{"time-budget", "time_budget", f.budget, false}, {"min-capacity", "min_capacity", f.minCapacity, true}} {
		if !given[kv.flag] {
			continue
		}
		v := yamlString(*kv.v)
		if kv.number {
			x, err := strconv.ParseFloat(strings.TrimSpace(*kv.v), 64)
			if err != nil {
				return nil, errs.Usagef("--%s: want a number, got %q", kv.flag, *kv.v)
			}
			v = yamlFloat(x)
		}
		out = append(out, "search."+kv.key+"="+v)
	}
	return out, nil
}

// yamlString is s as a YAML scalar: a JSON string is one.
func yamlString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// yamlFloat is x as a YAML number, NaN and the infinities included (the
// experiment's checks then refuse them, with the key's name).
func yamlFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return ".nan"
	case math.IsInf(x, 1):
		return ".inf"
	case math.IsInf(x, -1):
		return "-.inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
