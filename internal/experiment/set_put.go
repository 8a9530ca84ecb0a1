package experiment

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// put sets the node at parts below n to leaf, making the maps and list
// items on the way that the file lacks (an empty or null node becomes the
// map or list the next part needs).
func put(n *yaml.Node, parts []pathPart, leaf *yaml.Node) error {
	if len(parts) == 0 {
		*n = *leaf
		return nil
	}
	p := parts[0]
	if p.index < 0 {
		return putKey(n, p.key, parts[1:], leaf)
	}
	if isEmpty(n) {
		*n = yaml.Node{Kind: yaml.SequenceNode}
	}
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("[%d]: not a list", p.index)
	}
	switch {
	case p.index < len(n.Content):
	case p.index == len(n.Content):
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"})
	default:
		return fmt.Errorf("[%d]: the list has %d items (a new one is [%d])", p.index, len(n.Content), len(n.Content))
	}
	return put(n.Content[p.index], parts[1:], leaf)
}

// putKey is put for a map key.
func putKey(n *yaml.Node, key string, rest []pathPart, leaf *yaml.Node) error {
	if isEmpty(n) {
		*n = yaml.Node{Kind: yaml.MappingNode}
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: its parent is not a map", key)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return put(n.Content[i+1], rest, leaf)
		}
	}
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	return put(v, rest, leaf)
}

// isEmpty: a null scalar or a node of no kind.
func isEmpty(n *yaml.Node) bool {
	return n.Kind == 0 || (n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "" && n.Tag == ""))
}
