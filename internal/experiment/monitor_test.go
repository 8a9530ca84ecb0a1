package experiment

import (
	"strings"
	"testing"
	"time"
)

// The monitor key: its entries, defaults and every problem on its line.
func TestMonitorKey(t *testing.T) {
	t.Parallel()
	in := base + "analysis: {quantum: 2s}\nmonitor:\n  - name: node\n    url: http://127.0.0.1:9100/metrics\n" +
		"  - name: nginx\n    url: http://127.0.0.1:8080/status\n    format: stub_status\n    interval: 500ms\n" +
		"    metrics: [\"nginx_*\"]\n"
	exp, err := Parse([]byte(in), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Monitor) != 2 {
		t.Fatalf("monitor = %+v, want two endpoints", exp.Monitor)
	}
	node, ngx := exp.Monitor[0], exp.Monitor[1]
	if node.FormatOrDefault() != FormatPrometheus || exp.MonitorInterval(node) != 2*time.Second {
		t.Errorf("node: format %q, interval %v; want prometheus and the quantum", node.FormatOrDefault(), exp.MonitorInterval(node))
	}
	if ngx.FormatOrDefault() != FormatStubStatus || exp.MonitorInterval(ngx) != 500*time.Millisecond || ngx.Metrics[0] != "nginx_*" {
		t.Errorf("nginx: %+v; want stub_status every 500ms keeping nginx_*", ngx)
	}
	b, err := exp.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if back, err := Parse(b, "copy.yaml"); err != nil || len(back.Monitor) != 2 || back.Monitor[1].Interval != ngx.Interval {
		t.Errorf("read back %+v, %v\n%s", back.Monitor, err, b)
	}
	tests := []struct {
		name, in string
		line     int
		key, msg string
	}{
		{"no name", "monitor:\n  - url: http://h:1/m\n", 4, "monitor[0].name", "is required"},
		{"no url", "monitor:\n  - name: a\n", 4, "monitor[0].url", "is required"},
		{"bad url", "monitor:\n  - name: a\n    url: h:1/m\n", 5, "monitor[0].url", `want http://HOST:PORT/PATH`},
		{"bad format", "monitor:\n  - name: a\n    url: http://h/m\n    format: json\n", 6, "monitor[0].format", `got "json"`},
		{"short interval", "monitor:\n  - name: a\n    url: http://h/m\n    interval: 10ms\n", 6, "monitor[0].interval", "at least 100ms"},
		{"bad glob", "monitor:\n  - name: a\n    url: http://h/m\n    metrics: [\"node_[\"]\n", 6, "monitor[0].metrics[0]", "not a valid glob"},
		{"duplicate", "monitor:\n  - {name: a, url: \"http://h/m\"}\n  - name: a\n    url: http://h/n\n", 5, "monitor[1].name", "duplicate endpoint name"},
		{"unknown key", "monitor:\n  - name: a\n    url: http://h/m\n    every: 1s\n", 6, "monitor[0].every", "unknown key"},
		{"not a list", "monitor: {name: a}\n", 3, "monitor", "want a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(base+tt.in), "e.yaml")
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
