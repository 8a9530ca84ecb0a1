package experiment

import (
	"errors"
	"testing"
)

func FuzzParse(f *testing.F) {
	f.Add(example(f))
	f.Add([]byte(""))
	f.Add([]byte(base + "schedule:\n  testers: twenty\n  testerz: 1\n"))
	f.Add([]byte("a: &x [*x]\nclient: &c {exec: *c}\n"))
	f.Add([]byte("- 1\n---\n{}\n"))
	f.Add([]byte("sync: {interval: 1e300}\nanalysis: {quantum: -.5}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		exp, err := Parse(data, "fuzz.yaml")
		if exp == nil {
			t.Fatal("Parse returned a nil experiment")
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || len(e.Problems) == 0 {
				t.Fatalf("error %v is not an *Error with problems", err)
			}
			return
		}
		out, err := exp.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(out, "out.yaml")
		if err != nil || !sameValues(*back, *exp) {
			t.Fatalf("round trip: %v\n%s", err, out)
		}
	})
}
