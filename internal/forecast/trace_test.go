package forecast

import (
	"strings"
	"testing"
	"time"
)

func TestReadTrace(t *testing.T) {
	in := "value,host,time,test_time\n1.5,a,100,1\n2,a,2023-11-14T22:13:21Z,10\n3,a,101.25,1\n"
	got, err := ReadTrace(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].TestTime != "1" || got[1].TestTime != "10" {
		t.Fatalf("series %+v, want test times 1 and 10", got)
	}
	one := got[0].Points
	if len(one) != 2 || one[0].Value != 1.5 || one[1].At != time.Unix(101, 250e6).UTC() {
		t.Errorf("test time 1: %+v", one)
	}
	if got[1].Points[0].At != time.Date(2023, 11, 14, 22, 13, 21, 0, time.UTC) {
		t.Errorf("RFC 3339 time read as %v", got[1].Points[0].At)
	}
}

// TestReadTraceErrors: each bad input is refused with the line to blame.
func TestReadTraceErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"t,v\n1,2\n", "must name columns time and value"},
		{"time,value\n", "no measurements"},
		{"time,value\n1,2\n2,fast\n", `trace line 3: value "fast" is not a number`},
		{"time,value\n1,NaN\n", "trace line 2: value \"NaN\" is not a finite number"},
		{"time,value\nyesterday,2\n", `trace line 2: time "yesterday" is neither`},
		{"time,value\n5,2\n4,2\n", "trace line 3: time 4 is before the previous"},
		{"time,value\n1,2,3\n", "trace: record on line 2: wrong number of fields"},
	}
	for _, tt := range tests {
		_, err := ReadTrace(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), strings.TrimSuffix(tt.want, " a number")) {
			t.Errorf("%q: error %v, want %q", tt.in, err, tt.want)
		}
	}
}
