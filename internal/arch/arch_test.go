package arch

import (
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/diperf/diperf/"

// layers is the package map, lowest first: a package may import packages
// of lower layers only, never of its own layer or above. A new package
// must be placed here (docs/design/005-package-map.md says why each is
// where it is).
var layers = [][]string{
	{"internal/jsonnum", "internal/human"}, // base, below the leaves: imports only the standard library, any package may use it
	{"internal/errs", "internal/credential", "internal/sample", "internal/clock", "internal/stats", "internal/experiment", "internal/forecast",
		"internal/webui", "internal/preauth", "internal/contain", "test/slurmlab", "test/netlab", "e2e/browser"}, // leaves; test infrastructure imports none of the module
	{"test/peers"}, // test infrastructure above the leaves: peer load generators against nginx (clock, stats); no product package imports test/ (TestProductImportsNoTest)
	{"internal/protocol", "internal/transport", "internal/relay", "internal/timeserver", "internal/sensor",
		"internal/netsim", "internal/target", "internal/directory", "internal/netprobe", "internal/monitor",
		"internal/search", "internal/placement"}, // formats, wires and standalone services; the search's and the tester selection's decision engines (pure)
	{"internal/spool"}, // the spool's frames: below the run directory, so that a tester links none of it
	{"internal/clocksync", "internal/rundir", "internal/testbed", "internal/client", "internal/netmap",
		"internal/directory/directorytest", "internal/live"}, // storage, clock sync, testbeds, clients, the mesh's map, an in-process directory for tests
	{"internal/analyze", "internal/verify", "internal/tester", // analysis of calls, checks, the agent
		"internal/sensord"}, // the sensor daemon: the sensor loop and the directory client composed (005)
	{"internal/model", "internal/bench/tree", "internal/threshold"}, // models of performance against load; the controller tree's load model; thresholds checked
	{"internal/report"},   // the report
	{"internal/pipeline"}, // load → analyze → write → draw
	{"internal/controller", "internal/compare", "internal/bench", "internal/dashboard"}, // engines; the live dashboard
	{"internal/cli"}, // the command line
	{"cmd/diperf"},   // the binary
}

// TestImportsPointDown checks every package's imports against layers.
func TestImportsPointDown(t *testing.T) {
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			layerOf[p] = i
		}
	}
	root := filepath.Join("..", "..")
	for _, pkg := range packages(t, root) {
		li, ok := layerOf[pkg]
		if !ok {
			t.Errorf("package %s is not in the package map (internal/arch/arch_test.go, docs/design/005-package-map.md)", pkg)
			continue
		}
		bp, err := build.Default.ImportDir(filepath.Join(root, pkg), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range bp.Imports {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			if lj, ok := layerOf[dep]; !ok || lj >= li {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point to lower layers", pkg, li, dep, lj)
			}
		}
	}
}

// packages lists the module's packages with non-test Go files, as paths
// relative to the module root (the e2e tests and this package excepted).
func packages(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if rel == "e2e" || rel == "internal/arch" {
			return nil
		}
		if hasGo(path) {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// hasGo reports whether dir holds a non-test Go file.
func hasGo(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			return true
		}
	}
	return false
}
