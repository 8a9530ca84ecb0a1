package directory

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkRunes refuses in a name-like string what a host name, group or
// version never holds and what would show as something else: a space, a
// control or format character (U+200B zero-width space, U+202E
// right-to-left override), an unassigned or private-use code point, and
// U+FFFD, which encoding/json puts in place of invalid UTF-8 and of a lone
// surrogate escape (\ud800). What is left is printable: letters, marks,
// numbers, punctuation and symbols.
func checkRunes(field, s string) error {
	for _, r := range s {
		if r == ' ' || r == utf8.RuneError || !unicode.IsPrint(r) {
			return fieldErr(field, "holds %U, a space, control, format or unassigned character", r)
		}
	}
	return nil
}

// strictBody refuses what encoding/json would take silently in a body
// decoded into v: invalid UTF-8 (it becomes U+FFFD), and in the top-level
// object a key that is not exactly one of v's field names (it matches
// "Src" to "src") or that comes twice (the last one wins). It runs after
// a successful decoding, so the body is one well-formed JSON value.
func strictBody(body []byte, v any) error {
	if !utf8.Valid(body) {
		return &FieldError{Msg: "the body is not valid UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil // not an object: the decoder said so already
	}
	names := fieldNames(v)
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		if !names[key] {
			return fieldErr(clip(key), "is not a known field (names are lower case, as documented)")
		}
		if seen[key] {
			return fieldErr(key, "comes twice")
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}

// fieldNames are the JSON names of the fields of the struct v points to.
func fieldNames(v any) map[string]bool {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	names := map[string]bool{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names[name] = true
	}
	return names
}

// trailing refuses anything but white space after the JSON value, which
// ended at byte off of body (json.Decoder.More takes a "]" or "}" there
// for the end of the input).
func trailing(body []byte, off int64) error {
	if len(bytes.TrimLeft(body[off:], " \t\r\n")) > 0 {
		return &FieldError{Msg: "data after the JSON object"}
	}
	return nil
}
