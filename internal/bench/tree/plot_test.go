package tree

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/figures/controller-scaling.svg from its CSV")

var figure = filepath.Join("..", "..", "..", "docs", "figures", "controller-scaling")

// TestControllerScalingFigure checks that docs/figures/controller-scaling.svg
// is what its CSV draws; with -update it redraws it:
//
//	go test ./internal/bench/tree -run ControllerScalingFigure -update
func TestControllerScalingFigure(t *testing.T) {
	in, err := os.ReadFile(figure + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	points, err := ReadScaling(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	svg := ScalingSVG(points)
	if *update {
		if err := os.WriteFile(figure+".svg", svg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(figure + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, svg) {
		t.Fatal("docs/figures/controller-scaling.svg is not what its CSV draws: run go test ./internal/bench/tree -run ControllerScalingFigure -update")
	}
}

func TestScalingSVGDrawsEachSeries(t *testing.T) {
	points, err := ReadScaling(strings.NewReader("transport,testers,samples_per_s,source\ntcp,10,1000,measured\ntcp,1000,100000,measured\nssh,4000,1000,thesis\n"))
	if err != nil {
		t.Fatal(err)
	}
	svg := string(ScalingSVG(points))
	if n := strings.Count(svg, "<polyline"); n != 2 {
		t.Fatalf("%d lines, want 2 (tcp measured, ssh thesis)", n)
	}
	// 10 testers: one decade of six across 420 px past x=70; 1000/s: three
	// decades of seven up 350 px from y=390.
	if !strings.Contains(svg, `points="140.0,240.0 280.0,140.0"`) || !strings.Contains(svg, `stroke-dasharray="6 4"`) {
		t.Fatalf("unexpected geometry:\n%s", svg)
	}
	for _, bad := range []string{"transport,testers\n", "transport,testers,samples_per_s,source\ntcp,0,5,measured\n", "transport,testers,samples_per_s,source\ntcp,x,5,measured\n"} {
		if _, err := ReadScaling(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
