// Package errs carries an exit code and a hint with an error, so that the
// CLI prints every error once, in one place (README, exit codes).
package errs

import (
	"errors"
	"fmt"
)

// Exit codes of the diperf binary.
const (
	CodeOK      = 0 // success
	CodeFailed  = 1 // the run or command failed
	CodeUsage   = 2 // bad usage or a bad experiment file
	CodeRefused = 3 // the run finished but a threshold or SLO failed
)

// Error is an error with an exit code and an optional hint for the user.
type Error struct {
	Code int    // process exit code
	Hint string // what the user may do about it, or ""
	Err  error  // the cause
}

// Error returns the cause's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Usage wraps err as a bad-usage error (exit code 2).
func Usage(err error, hint string) error {
	return &Error{Code: CodeUsage, Hint: hint, Err: err}
}

// Usagef formats a bad-usage error (exit code 2).
func Usagef(format string, args ...any) error {
	return &Error{Code: CodeUsage, Err: fmt.Errorf(format, args...)}
}

// Code returns the exit code err carries: 0 for nil, 1 unless it says otherwise.
func Code(err error) int {
	if err == nil {
		return CodeOK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeFailed
}

// Hint returns the hint err carries, or "".
func Hint(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Hint
	}
	return ""
}
