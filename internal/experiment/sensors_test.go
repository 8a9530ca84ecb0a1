package experiment

import (
	"strings"
	"testing"
)

// The sensors key: its keys, defaults and every problem on its line.
func TestSensorsKey(t *testing.T) {
	t.Parallel()
	const http = "name: t\nclient:\n  http: {url: \"http://svc.example:8080/x\"}\n"
	exp, err := Parse([]byte(http+"sensors:\n  directory: http://dir:7000\n  token_file: tok\n  names: {h1: s1}\n"), "/exp/e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := exp.SensorsTarget(); got != "svc.example" {
		t.Errorf("target = %q, want the URL's host", got)
	}
	if got := exp.Sensors.TokenFile; got != "tok" {
		t.Errorf("token file = %q, want it as written (relative to the working directory, as every path of the file)", got)
	}
	if a, b := exp.Sensors.SensorName("h1"), exp.Sensors.SensorName("h2"); a != "s1" || b != "h2" {
		t.Errorf("names = %q, %q; want s1 and the host's own", a, b)
	}
	tcp := "name: t\nclient:\n  tcp: {address: \"$DIPERF_TARGET\"}\ntarget: 10.0.0.9:7\n"
	exp, err = Parse([]byte(tcp+"sensors: {directory: \"https://d:1\"}\n"), "e.yaml")
	if err != nil || exp.SensorsTarget() != "10.0.0.9" || exp.Sensors.TokenFile != "" {
		t.Errorf("tcp target %q, token %q, %v; want 10.0.0.9 and no token file (the default one)", exp.SensorsTarget(), exp.Sensors.TokenFile, err)
	}
	if exp, _ := Parse([]byte(base), "e.yaml"); exp.SensorsTarget() != "" || exp.Sensors != nil {
		t.Error("no sensors key, yet a target or sensors")
	}
	tests := []struct {
		name, in string
		line     int
		key, msg string
	}{
		{"unknown key", base + "sensors:\n  directory: http://d:1\n  token_file: t\n  target: s\n  tokn: x\n", 7, "sensors.tokn", "unknown key"},
		{"bad url", base + "sensors:\n  directory: dir:7000\n  token_file: t\n  target: s\n", 4, "sensors.directory", `want http://HOST:PORT or https://HOST:PORT, got "dir:7000"`},
		{"no directory", base + "\nsensors:\n  token_file: t\n  target: s\n", 4, "sensors.directory", "is required"},
		{"no target", base + "sensors:\n  directory: http://d:1\n  token_file: t\n", 3, "sensors.target", "the client names no host"},
		{"empty name", base + "sensors:\n  directory: http://d:1\n  token_file: t\n  target: s\n  names:\n    h1: \"\"\n", 8, "sensors.names.h1", "must not be empty"},
		{"not a mapping", base + "sensors: [a]\n", 3, "sensors", "want a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), "e.yaml")
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

// The sensors key survives the run directory's copy of the experiment.
func TestSensorsMarshal(t *testing.T) {
	t.Parallel()
	in := base + "sensors: {directory: \"http://d:1\", token_file: t, target: s, names: {h: n}}\n"
	exp, err := Parse([]byte(in), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := exp.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b, "copy.yaml")
	if err != nil || back.Sensors == nil || back.Sensors.Target != "s" || back.Sensors.SensorName("h") != "n" {
		t.Fatalf("read back %+v, %v\n%s", back.Sensors, err, b)
	}
}
