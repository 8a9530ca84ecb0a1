package arch

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// testInfra are the module's trees of test infrastructure: harnesses,
// labs and peer benchmarks that tests use and the product never links.
var testInfra = []string{"test/", "e2e/"}

// TestProductImportsNoTest checks that no product package (internal/,
// cmd/) imports test infrastructure in its non-test files, so that the
// diperf binary links none of it, whatever layer the map gives it.
func TestProductImportsNoTest(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, pkg := range packages(t, root) {
		if isTestInfra(pkg) {
			continue
		}
		bp, err := build.Default.ImportDir(filepath.Join(root, pkg), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range bp.Imports {
			if dep, ours := strings.CutPrefix(imp, module); ours && isTestInfra(dep) {
				t.Errorf("%s imports %s: test infrastructure is for tests (_test.go files) only", pkg, dep)
			}
		}
	}
}

// isTestInfra reports whether pkg, relative to the module root, is test
// infrastructure.
func isTestInfra(pkg string) bool {
	for _, p := range testInfra {
		if strings.HasPrefix(pkg, p) {
			return true
		}
	}
	return false
}
