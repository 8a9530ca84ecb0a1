package experiment

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads and parses the experiment file at path; see Parse.
func Load(path string) (*Experiment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// LoadRecorded reads the experiment.yaml of a run directory: as Load, but
// a rule that only refuses new runs (an unknown $NAME in an exec argv,
// which older versions expanded to "") does not make a recorded run
// unreadable.
func LoadRecorded(path string) (*Experiment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(data, path, true)
}

// Parse decodes an experiment file over Default() and validates the result.
// filename is used only in error messages. An empty file sets nothing.
//
// Every problem found is reported in one *Error. Parse returns a non-nil
// *Experiment even then, holding whatever could be decoded over the
// defaults, so that callers may inspect it; they must still check the error.
func Parse(data []byte, filename string) (*Experiment, error) {
	return parse(data, filename, false)
}

// parse is Parse; recorded: the file is a run directory's.
func parse(data []byte, filename string, recorded bool) (*Experiment, error) {
	root, problems := readDocument(data, filename)
	return decodeRoot(root, problems, filename, recorded)
}

// decodeRoot decodes and validates a file's node tree (nil: it was not
// YAML; problems are those found reading it).
func decodeRoot(root *yaml.Node, problems []Problem, filename string, recorded bool) (*Experiment, error) {
	exp := Default()
	exp.file = filename
	exp.recorded = recorded
	exp.lines = map[string]int{}
	if root != nil {
		d := &decoder{file: filename, lines: exp.lines}
		d.document(root, &exp)
		problems = append(problems, d.problems...)
		problems = append(problems, exp.Validate()...)
	}
	return &exp, newError(problems)
}

// readDocument parses data into a node tree. It returns a nil node if data
// is not valid YAML, and an empty node if data holds no document at all.
func readDocument(data []byte, file string) (*yaml.Node, []Problem) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); errors.Is(err, io.EOF) {
		return &yaml.Node{}, nil
	} else if err != nil {
		return nil, []Problem{syntaxProblem(err, file)}
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return &root, nil
	case err != nil:
		return nil, []Problem{syntaxProblem(err, file)}
	}
	return &root, []Problem{{File: file, Line: next.Line, Msg: "want a single YAML document, found another"}}
}

// yamlLine matches the location yaml.v3 puts in its syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxProblem turns a yaml.v3 syntax error into a Problem.
func syntaxProblem(err error, file string) Problem {
	msg := err.Error()
	p := Problem{File: file}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	p.Msg = "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")
	return p
}
