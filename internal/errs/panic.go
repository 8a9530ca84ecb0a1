package errs

import (
	"fmt"
	"os"
	"runtime/debug"
)

// DebugEnv is the environment variable that, set to 1, makes an error made
// of a panic carry the panicking goroutine's stack (FromPanic).
const DebugEnv = "DIPERF_DEBUG"

// FromPanic turns the value v of a recovered panic into an error that
// says it is a defect of diperf and what was being done (what, e.g.
// "reading run/samples.parquet"), with exit code 2. It carries the stack
// only when DebugEnv is 1; call it in the deferred function that
// recovered, so that the stack is the panicking goroutine's.
func FromPanic(what string, v any) error {
	err := fmt.Errorf("%s: internal error (a defect of diperf, please report it): %v", what, v)
	hint := "set " + DebugEnv + "=1 to see where it happened"
	if os.Getenv(DebugEnv) == "1" {
		err = fmt.Errorf("%w\n%s", err, debug.Stack())
		hint = ""
	}
	return &Error{Code: CodeUsage, Hint: hint, Err: err}
}

// Recover, deferred, turns a panic of the function that deferred it into
// *err (FromPanic with what); it does nothing when there is none.
//
//	defer errs.Recover("analyzing "+dir, &err)
func Recover(what string, err *error) {
	if v := recover(); v != nil {
		*err = FromPanic(what, v)
	}
}
