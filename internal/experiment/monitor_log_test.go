package experiment

import (
	"strings"
	"testing"
)

// A log endpoint as docs/monitor.md shows it is accepted whole.
func TestMonitorLogAccepted(t *testing.T) {
	t.Parallel()
	in := base + "monitor:\n  - name: nginx\n    format: log\n    log:\n      path: /var/log/nginx/access.log\n" +
		"      match: '^(\\d+\\.\\d+) \\S+ \"GET [^\"]*\" 200 (\\d+) (\\S+)$'\n" +
		"      time: {group: 1, layout: unix}\n" +
		"      fields:\n        - {name: bytes, group: 2}\n        - {name: request_seconds, group: 3, stat: percentiles}\n" +
		"  - name: ftp\n    format: log\n    host: me@127.0.0.1:2222\n    log:\n      path: /var/log/xferlog\n" +
		"      match: '^(\\w{3} \\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4}) \\d+ \\S+ (\\d+) '\n" +
		"      time: {group: 1, layout: xferlog}\n      fields: [{name: bytes, group: 2, stat: sum}]\n" +
		"  - name: apache\n    format: log\n    log:\n      path: /tmp/a.log\n      match: '\\[([^]]+)\\]'\n" +
		"      time: {group: 1, layout: '02/Jan/2006:15:04:05 -0700'}\n"
	exp, err := Parse([]byte(in), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if l := exp.Monitor[0].Log; l.Time.Layout != LogLayoutUnix || l.Fields[1].Stat != LogStatPercentiles || exp.Monitor[1].Host != "me@127.0.0.1:2222" {
		t.Errorf("read %+v %+v", exp.Monitor[0].Log, exp.Monitor[1])
	}
}

// Every problem of a log endpoint is refused on its own line.
func TestMonitorLogProblems(t *testing.T) {
	t.Parallel()
	const head = "monitor:\n  - name: a\n    format: log\n"
	const logm = head + "    log:\n      path: /v/a.log\n      match: '^(\\S+) (\\d+)'\n"
	tests := []struct {
		name, in string
		line     int
		key, msg string
	}{
		{"no path", head, 4, "monitor[0].log.path", "is required"},
		{"relative path", head + "    log: {path: a.log}\n", 6, "monitor[0].log.path", "absolute"},
		{"url", head + "    url: http://h/m\n    log: {path: /a}\n", 6, "monitor[0].url", "not used by format log"},
		{"bad host", head + "    host: 'a b'\n    log: {path: /a}\n", 6, "monitor[0].host", "ssh destination"},
		{"option host", head + "    host: -oProxyCommand=x\n    log: {path: /a}\n", 6, "monitor[0].host", "ssh destination"},
		{"bad match", head + "    log:\n      path: /a\n      match: '(a'\n", 8, "monitor[0].log.match", "not a valid RE2"},
		{"backreference", head + "    log:\n      path: /a\n      match: '(a)\\1'\n", 8, "monitor[0].log.match", "not a valid RE2"},
		{"time group past", logm + "      time: {group: 3, layout: unix}\n", 9, "monitor[0].log.time.group", "1 to 2, got 3"},
		{"time no groups", head + "    log:\n      path: /a\n      time: {group: 1, layout: unix}\n", 8, "monitor[0].log.time.group", "needs a match pattern"},
		{"no layout", logm + "      time: {group: 1}\n", 9, "monitor[0].log.time.layout", "is required"},
		{"bad layout", logm + "      time:\n        group: 1\n        layout: strftime\n", 11, "monitor[0].log.time.layout", `got "strftime"`},
		{"date only layout", logm + "      time: {group: 1, layout: '2006-01-02'}\n", 9, "monitor[0].log.time.layout", "Go time layout"},
		{"field group 0", logm + "      fields:\n        - name: bytes\n          group: 0\n", 11, "monitor[0].log.fields[0].group", "1 to 2, got 0"},
		{"field name", logm + "      fields:\n        - name: Bytes\n          group: 2\n", 10, "monitor[0].log.fields[0].name", `got "Bytes"`},
		{"field name empty", logm + "      fields:\n        - group: 2\n", 10, "monitor[0].log.fields[0].name", `got ""`},
		{"field dup", logm + "      fields:\n        - {name: b, group: 2}\n        - name: b\n          group: 1\n", 11, "monitor[0].log.fields[1].name", "duplicate field name"},
		{"field stat", logm + "      fields:\n        - name: b\n          group: 2\n          stat: mean\n", 12, "monitor[0].log.fields[0].stat", `got "mean"`},
		{"unknown key", logm + "      every: 1s\n", 9, "monitor[0].log.every", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(base+tt.in), "e.yaml")
			if err == nil {
				t.Fatalf("accepted; want %s at line %d: %q", tt.key, tt.line, tt.msg)
			}
			ps := problems(t, err)
			for _, p := range ps {
				if p.Key == tt.key && p.Line == tt.line && strings.Contains(p.Msg, tt.msg) {
					return
				}
			}
			t.Errorf("problems %v; want %s at line %d: %q", ps, tt.key, tt.line, tt.msg)
		})
	}
}
