package experiment

import (
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// mapping decodes a YAML mapping into struct v, field by yaml tag.
func (d *decoder) mapping(n *yaml.Node, line int, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.add(line, path, "want a mapping, got %s", describe(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		d.pair(n.Content[i], n.Content[i+1], v, path, seen)
	}
}

// pair decodes one key and its value into struct v. Unknown and duplicate
// keys are problems; a null value keeps the default. seen maps the keys met
// so far in this mapping to their lines.
func (d *decoder) pair(kn, val *yaml.Node, v reflect.Value, path string, seen map[string]int) {
	k, line := resolve(kn), kn.Line
	if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
		d.add(line, path, "keys must be plain names, got %s", describe(k))
		return
	}
	key := joinKey(path, k.Value)
	field, known := fieldByTag(v, k.Value)
	first, dup := seen[k.Value]
	switch {
	case !known:
		d.add(line, key, "unknown key%s", suggest(k.Value, tags(v.Type())))
		return
	case dup:
		d.add(line, key, "duplicate key (first set on line %d)", first)
		// Still check what it holds, but keep neither values nor lines.
		field = reflect.New(field.Type()).Elem()
		saved := d.lines
		d.lines = map[string]int{}
		defer func() { d.lines = saved }()
	default:
		seen[k.Value] = line
		d.lines[key] = line
	}
	if !isNull(resolve(val)) {
		d.value(val, field, key)
	}
}

// joinKey appends name to a dotted key path.
func joinKey(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// fieldByTag returns the exported field of struct v whose yaml tag is name.
func fieldByTag(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && tagName(f) == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// tags lists the yaml key names of struct type t, in field order.
func tags(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && tagName(f) != "" {
			names = append(names, tagName(f))
		}
	}
	return names
}

// tagName returns the key name in f's yaml tag.
func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}
