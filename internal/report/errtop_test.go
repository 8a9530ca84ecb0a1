package report

import (
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// TestErrorsByClassMessages checks that the report's errors by class give
// each class's message, the largest class first, when the summary has
// them, and the counts by name when it has not (a summary of before).
func TestErrorsByClassMessages(t *testing.T) {
	t.Parallel()
	s := &analyze.Summary{Errors: map[string]int{"timeout": 2, "no_reply": 5}}
	if got, want := errorClasses(s.Errors, s.ErrorsTop), "no_reply 5 · timeout 2"; got != want {
		t.Errorf("without messages: %q, want %q", got, want)
	}
	s.SetErrorsTop(map[string]string{"no_reply": "no reply within 2s", "timeout": "<b>past</b> 1s"})
	got := errorClasses(s.Errors, s.ErrorsTop)
	if want := "no_reply 5: no reply within 2s · timeout 2: <b>past</b> 1s"; got != want {
		t.Errorf("with messages: %q, want %q", got, want)
	}
	var b strings.Builder
	if err := Render(&b, &analyze.Result{Summary: *s}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "timeout 2: &lt;b&gt;past&lt;/b&gt; 1s") {
		t.Error("the report does not hold the client's error text, escaped")
	}
}
