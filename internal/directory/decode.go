package directory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// validator is a request body that checks itself.
type validator interface{ Validate() error }

// Decode reads one JSON object of at most MaxBody bytes from r into v,
// refusing unknown fields and trailing data, then validates it. A bad
// request is a *FieldError that names the field when there is one; a body
// too large is an *http.MaxBytesError.
func Decode(r io.Reader, v validator) error {
	body, err := io.ReadAll(io.LimitReader(r, MaxBody+1))
	if err != nil {
		return readError(err)
	}
	if len(body) > MaxBody {
		return fmt.Errorf("reading the body: %w", &http.MaxBytesError{Limit: MaxBody})
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var pe *time.ParseError
		if errors.As(err, &pe) {
			return fieldErr(timeField(v), "is not an RFC 3339 time: %q", clip(pe.Value))
		}
		return jsonError(err)
	}
	if err := trailing(body, dec.InputOffset()); err != nil {
		return err
	}
	if err := strictBody(body, v); err != nil {
		return err
	}
	return v.Validate()
}

// timeField names the one time field of a request body.
func timeField(v validator) string {
	switch v.(type) {
	case *Result:
		return "measured_at"
	case *Forecast:
		return "made_at"
	}
	return ""
}

// jsonError words a decoding error, naming the field when it can.
func jsonError(err error) *FieldError {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return fieldErr(te.Field, "is a JSON %s; want %s", te.Value, te.Type)
	case errors.As(err, &se):
		return &FieldError{Msg: fmt.Sprintf("bad JSON at byte %d: %v", se.Offset, se)}
	case errors.Is(err, io.EOF):
		return &FieldError{Msg: "empty body; want a JSON object"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &FieldError{Msg: "truncated JSON"}
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fieldErr(strings.Trim(f, `"`), "is not a known field")
	}
	return &FieldError{Msg: strings.TrimPrefix(msg, "json: ")}
}
