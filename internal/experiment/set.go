package experiment

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// SetFile names a --set in a problem's File: the value came from the
// command line, not the experiment file.
const SetFile = "--set"

// maxSets bounds the --set overrides of one command.
const maxSets = 256

// LoadWith reads the experiment file at path with sets applied: each
// KEY=VALUE puts VALUE (YAML: a scalar, or a flow list or map) at KEY, a
// dotted path of the file's keys with [i] for a list's items
// (client.udp.address=127.0.0.1:5353, monitor[0].log.path=/tmp/a.log),
// before the file is checked, so a set value is checked like any other.
// A key the file lacks is added; a list item must exist or be the next.
func LoadWith(path string, sets []string) (*Experiment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return Parse(data, path)
	}
	root, problems := readDocument(data, path)
	if root == nil {
		return nil, newError(problems)
	}
	if len(sets) > maxSets {
		return nil, newError([]Problem{{File: SetFile, Msg: fmt.Sprintf("at most %d --set, got %d", maxSets, len(sets))}})
	}
	for _, s := range sets {
		if err := applySet(root, s); err != nil {
			problems = append(problems, Problem{File: SetFile, Msg: err.Error()})
		}
	}
	if len(problems) > 0 {
		return nil, newError(problems)
	}
	return decodeRoot(root, nil, path, false) // a set key's problem has line 0: no line of the file
}

// applySet puts one KEY=VALUE into the document root.
func applySet(root *yaml.Node, s string) error {
	key, val, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return fmt.Errorf("%q: want KEY=VALUE, e.g. client.udp.address=127.0.0.1:5353", s)
	}
	parts, err := setPath(key)
	if err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	var v yaml.Node
	if err := yaml.Unmarshal([]byte(val), &v); err != nil {
		return fmt.Errorf("%q: the value is not YAML: %w", s, err)
	}
	leaf := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""}
	if len(v.Content) == 1 {
		leaf = v.Content[0]
		unlined(leaf) // its lines are the value's, not the file's
	}
	if root.Kind != yaml.DocumentNode {
		*root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	if err := put(root.Content[0], parts, leaf); err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	return nil
}

// pathPart is one step of a --set key: a map key, or a list index.
type pathPart struct {
	key   string
	index int // -1: a key
}

// setPath splits a dotted key with [i] indexes into its parts.
func setPath(key string) ([]pathPart, error) {
	var out []pathPart
	for _, field := range strings.Split(key, ".") {
		name, rest, _ := strings.Cut(field, "[")
		if name == "" {
			return nil, fmt.Errorf("empty key in %q", key)
		}
		out = append(out, pathPart{key: name, index: -1})
		for rest != "" {
			n, after, ok := strings.Cut(rest, "]")
			i, err := strconv.Atoi(n)
			if !ok || err != nil || i < 0 || i > maxSets*64 {
				return nil, fmt.Errorf("bad index [%s in %q: want [0], [1] and so on", rest, key)
			}
			out = append(out, pathPart{index: i})
			rest = strings.TrimPrefix(after, "[")
			if after != "" && !strings.HasPrefix(after, "[") {
				return nil, fmt.Errorf("%q after an index in %q", after, key)
			}
		}
	}
	return out, nil
}

// unlined zeroes the line and column of n and every node below it.
func unlined(n *yaml.Node) {
	n.Line, n.Column = 0, 0
	for _, c := range n.Content {
		unlined(c)
	}
}
