package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrorClass is one non-OK class of a run's calls (summary.json
// errors_top): how many calls ended so, and what one of them said.
type ErrorClass struct {
	Class string `json:"class"`
	Count int    `json:"count"`
	// Message is one call's error text, made fit for one line
	// (ErrorText); "" when no call of the class said anything.
	Message string `json:"message,omitempty"`
}

// MaxErrorText bounds ErrorClass.Message, in bytes.
const MaxErrorText = 160

// SetErrorsTop fills ErrorsTop from Errors, the largest class first (then
// by name), each with msgs[class] made fit for one line (ErrorText).
func (s *Summary) SetErrorsTop(msgs map[string]string) {
	s.ErrorsTop = errorClassesOf(s.Errors, msgs)
}

// errorClassesOf lists the classes of errs, the largest first, with their
// messages from msgs (nil: none).
func errorClassesOf(errs map[string]int, msgs map[string]string) []ErrorClass {
	var out []ErrorClass
	for class, n := range errs {
		if n > 0 {
			out = append(out, ErrorClass{Class: class, Count: n, Message: ErrorText(msgs[class])})
		}
	}
	slices.SortFunc(out, func(a, b ErrorClass) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Class, b.Class))
	})
	return out
}

// topErrors is ErrorsTop, or when the pipeline did not set it (a summary
// computed without its run directory) the classes of Errors without
// messages.
func (s *Summary) topErrors() []ErrorClass {
	if len(s.ErrorsTop) > 0 {
		return s.ErrorsTop
	}
	return errorClassesOf(s.Errors, nil)
}

// ErrorText returns msg fit for one line of a terminal or a report: every
// control character (escape sequences, line breaks) and invalid byte made
// a space, runs of spaces made one, cut to at most MaxErrorText bytes on a
// character boundary, "…" marking the cut. The text comes from the run's
// clients: nothing in it is trusted.
func ErrorText(msg string) string {
	var b strings.Builder
	space := true // no leading space
	for _, r := range msg {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		if b.Len()+utf8.RuneLen(r) > MaxErrorText {
			return strings.TrimRight(cutText(b.String()), " ") + "…"
		}
		b.WriteRune(r)
		space = false
	}
	return strings.TrimRight(b.String(), " ")
}

// cutText drops the end of s that "…" needs room for within MaxErrorText.
func cutText(s string) string {
	for len(s) > MaxErrorText-len("…") {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}

// NoSuccess says why the run measured nothing, "" when a call succeeded:
// no call was kept at all, or every call failed (or was cancelled), each
// class with its count and message ("every call failed: failed_to_start
// 18 × 'exec: …'"). The run then failed (exit code 1).
func (s *Summary) NoSuccess() string {
	c := s.Samples
	switch {
	case c.OK > 0:
		return ""
	case c.Total == 0:
		msg := "the run measured nothing: no call was recorded"
		if s.Refused != nil {
			msg += " (calls were refused: see refused in summary.json)"
		}
		return msg
	}
	what := "every call failed"
	if c.Failed < c.Total {
		what = "no call succeeded"
	}
	return what + ": " + errorsText(s.topErrors(), "; ")
}

// errorsText lists classes as "class N × 'message'", joined by sep; the
// class and message made fit for one line again (a summary.json may have
// been edited since it was written).
func errorsText(classes []ErrorClass, sep string) string {
	parts := make([]string, len(classes))
	for i, e := range classes {
		parts[i] = fmt.Sprintf("%s %d", ErrorText(e.Class), e.Count)
		if m := ErrorText(e.Message); m != "" {
			parts[i] += " × '" + m + "'"
		}
	}
	return strings.Join(parts, sep)
}

// samplesLine is the summary table's samples line: the total, then the
// classes that add up to it, then the samples lost in transport, which
// are not in it.
func samplesLine(s *Summary) string {
	c := s.Samples
	line := fmt.Sprintf("%d total = %d ok + %d failed", c.Total, c.OK, c.Failed)
	var failed []string
	for _, e := range s.topErrors() {
		if e.Class != "cancelled" {
			failed = append(failed, fmt.Sprintf("%s %d", e.Class, e.Count))
		}
	}
	if len(failed) > 0 {
		line += " (" + strings.Join(failed, ", ") + ")"
	}
	if c.Cancelled > 0 {
		line += fmt.Sprintf(" + %d cancelled", c.Cancelled)
	}
	return line + fmt.Sprintf("; %d lost in transport (not in the total)", c.Lost)
}

// errorLines are the summary table's errors lines: each non-OK class
// with its count and a message, the largest first; "none" when every
// call succeeded.
func errorLines(s *Summary) [][2]string {
	top := s.topErrors()
	if len(top) == 0 {
		return [][2]string{{"errors", "none"}}
	}
	out := make([][2]string, len(top))
	for i, e := range top {
		out[i][1] = errorsText([]ErrorClass{e}, "")
	}
	out[0][0] = "errors"
	return out
}
