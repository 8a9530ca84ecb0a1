package forecast

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// What WriteTrace writes, ReadTrace reads back as the same series, to the
// nanosecond and the last bit of each value.
func TestWriteTraceRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 1, 2, 3, 456789012, time.UTC)
	in := []Series{
		{TestTime: "1", Points: []Measurement{{t0, 94.1e6}, {t0.Add(2 * time.Minute), 1e-7}, {t0.Add(4 * time.Minute), MaxValue}}},
		{TestTime: "10", Points: []Measurement{{t0.Add(time.Minute), -0.1}, {t0.Add(3 * time.Minute), 1.0 / 3}}},
	}
	var b bytes.Buffer
	if err := WriteTrace(&b, in); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "e+") || strings.Contains(b.String(), "e-") {
		t.Errorf("an exponent in the trace:\n%s", b.String())
	}
	out, err := ReadTrace(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("read back %+v\nwant %+v", out, in)
	}
	one := []Series{{Points: []Measurement{{t0, 1}, {t0.Add(time.Second), 2}}}}
	b.Reset()
	if err := WriteTrace(&b, one); err != nil || !strings.HasPrefix(b.String(), "time,value\n") {
		t.Errorf("one series without a test time: %v\n%s", err, b.String())
	}
}

// A value or a time ReadTrace would refuse is refused, and nothing is
// written.
func TestWriteTraceRefuses(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, s := range map[string][]Series{
		"NaN":          {{Points: []Measurement{{t0, math.NaN()}}}},
		"huge":         {{Points: []Measurement{{t0, 2 * MaxValue}}}},
		"out of order": {{Points: []Measurement{{t0, 1}, {t0.Add(-time.Second), 1}}}},
		"year 3000":    {{Points: []Measurement{{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), 1}}}},
		"empty":        {{TestTime: "1"}},
	} {
		var b bytes.Buffer
		if err := WriteTrace(&b, s); err == nil || b.Len() != 0 {
			t.Errorf("%s: error %v, wrote %q", name, err, b.String())
		}
	}
}
