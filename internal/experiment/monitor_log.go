package experiment

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Log stats and stamp layouts (docs/monitor.md).
const (
	LogStatSum         = "sum"         // <name>_sum: the values added up
	LogStatPercentiles = "percentiles" // <name>{quantile="0.5|0.9|0.99"} per interval and <name>_count
	LogLayoutUnix      = "unix"        // seconds since 1970 with a fraction (nginx $msec)
	LogLayoutXferlog   = "xferlog"     // vsftpd's xferlog: Mon Jan  2 15:04:05 2006, local time
)

// logFieldName is what a field's name must look like: it names series.
var logFieldName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// monitorLog checks a log endpoint: a file to follow and what to read
// from its lines.
func (v *validator) monitorLog(key string, m MonitorEndpoint) {
	if m.URL != "" {
		v.item(key, key+".url", "is not used by format log: the file is log.path")
	}
	v.monitorHost(key, m.Host)
	if m.Command != nil {
		v.item(key, key+".command", "is for format command, not log")
	}
	src := m.Log
	if src == nil || src.Path == "" {
		v.item(key, key+".log.path", "is required for format log: the log file to follow")
		return
	}
	key += ".log"
	if !filepath.IsAbs(src.Path) || strings.ContainsRune(src.Path, 0) {
		v.item(key, key+".path", fmt.Sprintf("must be an absolute path, got %q", src.Path))
	}
	groups := 0
	if src.Match != "" {
		re, err := regexp.Compile(src.Match)
		if err != nil {
			v.item(key, key+".match", fmt.Sprintf("not a valid RE2 pattern: %v", err))
			return
		}
		groups = re.NumSubexp()
	}
	v.logTime(key, src.Time, groups)
	v.logFields(key, src.Fields, groups)
}

// logTime checks where a line's stamp is and its layout.
func (v *validator) logTime(key string, t *LogTime, groups int) {
	if t == nil {
		return
	}
	v.logGroup(key+".time", key+".time.group", t.Group, groups)
	switch {
	case t.Layout == "":
		v.item(key+".time", key+".time.layout", fmt.Sprintf("is required: %s, %s or a Go time layout (e.g. 02/Jan/2006:15:04:05 -0700)", LogLayoutUnix, LogLayoutXferlog))
	case t.Layout == LogLayoutUnix, t.Layout == LogLayoutXferlog:
	case !goLayout(t.Layout):
		v.item(key+".time", key+".time.layout", fmt.Sprintf("want %s, %s or a Go time layout (e.g. 02/Jan/2006:15:04:05 -0700), got %q", LogLayoutUnix, LogLayoutXferlog, t.Layout))
	}
}

// goLayout reports whether layout is a Go time layout that names at least
// a day and a time of day, and reads back what it writes.
func goLayout(layout string) bool {
	at := time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC)
	s := at.Format(layout)
	back, err := time.Parse(layout, s)
	return err == nil && s != layout && back.Day() == at.Day() && back.Hour() == at.Hour() && back.Minute() == at.Minute()
}

// logFields checks the numbers captured from matching lines.
func (v *validator) logFields(key string, fields []LogField, groups int) {
	seen := map[string]int{}
	for j, f := range fields {
		fk := fmt.Sprintf("%s.fields[%d]", key, j)
		switch first, dup := seen[f.Name]; {
		case !logFieldName.MatchString(f.Name):
			v.item(fk, fk+".name", fmt.Sprintf("want a name of a-z, 0-9 and _ starting with a letter (it names series), got %q", f.Name))
		case dup:
			v.item(fk, fk+".name", fmt.Sprintf("duplicate field name %q (first in fields[%d])", f.Name, first))
		default:
			seen[f.Name] = j
		}
		v.logGroup(fk, fk+".group", f.Group, groups)
		if f.Stat != "" && f.Stat != LogStatSum && f.Stat != LogStatPercentiles {
			v.item(fk, fk+".stat", fmt.Sprintf("want %s (the default) or %s, got %q", LogStatSum, LogStatPercentiles, f.Stat))
		}
	}
}

// logGroup checks a capture group number against match's groups.
func (v *validator) logGroup(itemKey, key string, g, groups int) {
	switch {
	case groups == 0:
		v.item(itemKey, key, "needs a match pattern with capture groups, e.g. match: '^(\\S+) '")
	case g < 1 || g > groups:
		v.item(itemKey, key, fmt.Sprintf("want a capture group of match, 1 to %d, got %d", groups, g))
	}
}
