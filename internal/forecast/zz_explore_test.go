package forecast

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestZZExplore(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.csv")
	more, _ := filepath.Glob("/tmp/i25fc/*.csv")
	files = append(files, more...)
	type tr struct {
		name string
		pts  []Measurement
	}
	var trs []tr
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadTrace(fh)
		fh.Close()
		if err != nil {
			t.Log(f, err)
			continue
		}
		for _, x := range s {
			trs = append(trs, tr{f + x.TestTime, x.Points})
		}
	}
	trs = append(trs, tr{"synthetic", Synthetic(2000, 100, 5, 42)})
	if os.Getenv("MORE") != "" {
		for _, sh := range []int{0, 10, 30, 100} {
			for seed := uint64(1); seed <= 3; seed++ {
				trs = append(trs, tr{fmt.Sprintf("synth shift %d seed %d", sh, seed), Synthetic(1000, sh, 5, seed)})
			}
		}
	}
	for _, x := range trs {
		ev := Evaluate(x.pts, Options{Seed: 1})
		best, bn := math.Inf(1), ""
		ad := 0.0
		line := ""
		for _, s := range ev.Full {
			if s.Method == "adaptive" {
				ad = s.MAE
				continue
			}
			if s.Method == RandomName {
				continue
			}
			line += fmt.Sprintf(" %s=%.4g", s.Method, s.MAE)
			if s.MAE < best {
				best, bn = s.MAE, s.Method
			}
		}
		fmt.Printf("%-45s n=%d adaptive %.5g best %s %.5g (%+.2f%%)\n   %s\n", x.name, len(x.pts), ad, bn, best, 100*(ad/best-1), line)
	}
}
