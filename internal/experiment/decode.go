package experiment

import (
	"fmt"
	"reflect"
	"strconv"

	"gopkg.in/yaml.v3"
)

// decoder walks a YAML node tree into an Experiment, collecting problems
// instead of stopping at the first one.
type decoder struct {
	file     string
	lines    map[string]int // key path -> line, filled in as keys are seen
	problems []Problem
}

// add records a problem at line for key.
func (d *decoder) add(line int, key, format string, args ...any) {
	d.problems = append(d.problems, Problem{File: d.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// document decodes the top of the tree into exp.
func (d *decoder) document(root *yaml.Node, exp *Experiment) {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind == 0 || isNull(n) {
		return
	}
	if resolve(n).Kind != yaml.MappingNode {
		d.add(n.Line, "", "want a mapping of keys at the top level, got %s", describe(resolve(n)))
		return
	}
	d.value(n, reflect.ValueOf(exp).Elem(), "")
}

var (
	durationType = reflect.TypeFor[Duration]()
	percentType  = reflect.TypeFor[Percent]()
	rateType     = reflect.TypeFor[Rate]()
	thresholdTyp = reflect.TypeFor[Threshold]()
)

// value decodes n into v, the field at key path.
func (d *decoder) value(n *yaml.Node, v reflect.Value, path string) {
	line := n.Line
	n = resolve(n)
	switch {
	case v.Type() == durationType:
		dur, err := parseDuration(n)
		if err != nil {
			d.add(line, path, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(dur))
	case v.Type() == percentType:
		pc, err := parsePercent(n)
		if err != nil {
			d.add(line, path, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(pc))
	case v.Type() == rateType && n.Kind == yaml.ScalarNode:
		d.lines[path+".target"] = line // "rate: 500" is rate.target
		d.float(n, line, v.FieldByName("Target"), path+".target")
	case v.Type() == thresholdTyp && n.Kind == yaml.ScalarNode:
		d.lines[path+".check"] = line // "- p99_ms < 250" is its check
		d.str(n, line, v.FieldByName("Check"), path+".check")
	case v.Kind() == reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(n, v.Elem(), path)
	case v.Kind() == reflect.String:
		d.str(n, line, v, path)
	case v.Kind() == reflect.Int:
		d.integer(n, line, v, path)
	case v.Kind() == reflect.Float64:
		d.float(n, line, v, path)
	case v.Kind() == reflect.Bool:
		d.boolean(n, line, v, path)
	case v.Kind() == reflect.Slice:
		d.list(n, line, v, path)
	case v.Kind() == reflect.Struct:
		d.mapping(n, line, v, path)
	case v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String:
		d.stringMap(n, line, v, path)
	default:
		panic("experiment: no decoder for " + v.Type().String())
	}
}

// str decodes any non-null scalar as a string.
func (d *decoder) str(n *yaml.Node, line int, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.add(line, path, "want a string, got %s", describe(n))
		return
	}
	v.SetString(n.Value)
}

// integer decodes an !!int scalar that fits in an int.
func (d *decoder) integer(n *yaml.Node, line int, v reflect.Value, path string) {
	var i int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
		d.add(line, path, "want an integer, got %s", describe(n))
		return
	}
	v.SetInt(int64(i))
}

// float decodes an !!int or !!float scalar.
func (d *decoder) float(n *yaml.Node, line int, v reflect.Value, path string) {
	var f float64
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || n.Decode(&f) != nil {
		d.add(line, path, "want a number, got %s", describe(n))
		return
	}
	v.SetFloat(f)
}

// boolean decodes a !!bool scalar (true or false).
func (d *decoder) boolean(n *yaml.Node, line int, v reflect.Value, path string) {
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		d.add(line, path, "want true or false, got %s", describe(n))
		return
	}
	v.SetBool(b)
}

// list decodes a sequence; an empty sequence gives a nil slice.
func (d *decoder) list(n *yaml.Node, line int, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.add(line, path, "want a list, got %s", describe(n))
		return
	}
	s := reflect.Zero(v.Type())
	for i, item := range n.Content {
		key := path + "[" + strconv.Itoa(i) + "]"
		d.lines[key] = item.Line
		elem := reflect.New(v.Type().Elem()).Elem()
		d.value(item, elem, key)
		s = reflect.Append(s, elem)
	}
	v.Set(s)
}

// stringMap decodes a mapping of free-form string keys (e.g.
// testbed.tester_binaries); an empty mapping gives a nil map.
func (d *decoder) stringMap(n *yaml.Node, line int, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.add(line, path, "want a mapping, got %s", describe(n))
		return
	}
	m := reflect.MakeMap(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k.Kind != yaml.ScalarNode || isNull(k) {
			d.add(n.Content[i].Line, path, "keys must be plain names, got %s", describe(k))
			continue
		}
		key := path + "." + k.Value
		if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
			d.add(n.Content[i].Line, key, "duplicate key (first set on line %d)", d.lines[key])
			continue
		}
		d.lines[key] = n.Content[i].Line
		elem := reflect.New(v.Type().Elem()).Elem()
		d.value(n.Content[i+1], elem, key)
		m.SetMapIndex(reflect.ValueOf(k.Value), elem)
	}
	if m.Len() > 0 {
		v.Set(m)
	}
}

// isNull reports whether n is a YAML null such as "~", "null" or nothing.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// describe names what n is, for "want X, got Y" messages.
func describe(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case isNull(n):
		return "null"
	case n.Kind == yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "nothing"
}
