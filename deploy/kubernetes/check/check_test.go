// Package check decodes the manifests of deploy/kubernetes strictly
// against the Kubernetes API's own Go types (k8s.io/api): a field that is
// misspelt, misplaced or of the wrong type fails, as `kubectl apply
// --validate=strict` would refuse it. It is a module of its own so that
// diperf itself does not depend on k8s.io/api; scripts/test.sh runs it.
package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	yamlv3 "gopkg.in/yaml.v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// kinds maps each apiVersion/kind the manifests use to a new object of
// its type.
var kinds = map[string]func() any{
	"v1/ConfigMap": func() any { return &corev1.ConfigMap{} },
	"v1/Pod":       func() any { return &corev1.Pod{} },
	"v1/Service":   func() any { return &corev1.Service{} },
	"batch/v1/Job": func() any { return &batchv1.Job{} },
}

// TestManifestsDecodeStrictly decodes every document of every manifest
// into its Kubernetes type, refusing unknown and duplicate fields.
func TestManifestsDecodeStrictly(t *testing.T) {
	files, _ := filepath.Glob("../*.yaml")
	if len(files) < 4 {
		t.Fatalf("%d manifests in deploy/kubernetes, want the 4 of the example", len(files))
	}
	for _, f := range files {
		docs, err := documents(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range docs {
			if err := strict(d); err != nil {
				t.Errorf("%s, document %d: %v", f, i+1, err)
			}
		}
	}
}

// TestStrictRefusesAMisspeltField checks the check: a Job whose
// backoffLimitPerIndex is misspelt is refused.
func TestStrictRefusesAMisspeltField(t *testing.T) {
	bad := []byte("apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  backofLimitPerIndex: 0\n  template: {spec: {containers: [{name: a, image: b}]}}\n")
	if err := strict(bad); err == nil {
		t.Fatal("a misspelt field was accepted")
	}
	wrongType := []byte("apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  maxFailedIndexes: ten\n")
	if err := strict(wrongType); err == nil {
		t.Fatal("a field of the wrong type was accepted")
	}
}

// documents splits a YAML file into its documents.
func documents(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	dec := yamlv3.NewDecoder(bytes.NewReader(b))
	for {
		var n yamlv3.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		d, err := yamlv3.Marshal(&n)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
}

// strict decodes one document into the type its apiVersion and kind name,
// refusing fields the type does not have.
func strict(doc []byte) error {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return err
	}
	mk, ok := kinds[head.APIVersion+"/"+head.Kind]
	if !ok {
		return fmt.Errorf("apiVersion %q kind %q: not a type this check knows", head.APIVersion, head.Kind)
	}
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	return dec.Decode(mk())
}
