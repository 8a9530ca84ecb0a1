package tester

import (
	"errors"
	"fmt"
	"strings"
)

// notYet says why an attempt to join the controller at addr failed, to
// be tried again: the address once, and the cause without the prefixes
// that would say "tester" or the address again.
func notYet(addr string, err error) string {
	var de *dialError
	if errors.As(err, &de) {
		cause := de.err
		if inner := errors.Unwrap(cause); inner != nil {
			cause = inner // the dial's own error, under "tester: connect to controller ADDR"
		}
		return fmt.Sprintf("the controller at %s does not answer yet (%v)", addr, cause)
	}
	return fmt.Sprintf("could not join the controller at %s yet (%s)", addr, strings.TrimPrefix(err.Error(), "tester: "))
}
