package client

import (
	"fmt"
	"strings"

	"github.com/diperf/diperf/internal/sample"
)

// The words of the persistent line protocol (docs/clients.md).
const (
	lineReady = "ready" // the client's first line: it can take calls
	lineCall  = "call"  // the tester's line per call: "call <n>"
	lineOK    = "ok"    // a reply: the call succeeded
	lineFail  = "fail"  // a reply: the call failed
)

// parseReplyLine reads one reply line (without its newline):
//
//	ok [| ] [key=value ...]
//	fail [error text] [ | key=value ...]
//
// A fail line's extras follow its last " |" that ends the line or is
// followed by a space; an ok line has no text, so its "|" is optional.
// Anything else is an error: the client broke the protocol. Extras that
// do not parse are dropped and noted in Err; the status stands.
func parseReplyLine(line string) (Reply, error) {
	line = strings.TrimSuffix(line, "\r")
	word, rest, _ := strings.Cut(line, " ")
	var r Reply
	var extras string
	switch word {
	case lineOK:
		r.Status = sample.OK
		extras = strings.TrimPrefix(strings.TrimLeft(rest, " \t"), "|")
	case lineFail:
		r.Status = sample.Failed
		r.Err, extras = splitFail(rest)
		if r.Err == "" {
			r.Err = "the client reported a failure"
		}
	default:
		return Reply{}, fmt.Errorf("bad reply line %q (want \"ok [key=value ...]\" or \"fail [error] [| key=value ...]\")", clip(line))
	}
	x := parseExtras(extras)
	r.Bytes, r.Extras = x.bytes, x.extras
	r.Err = withNote(r.Err, x.dropped)
	return r, nil
}

// splitFail splits a fail line's rest into its error text and extras.
func splitFail(rest string) (string, string) {
	for end := len(rest); end > 0; {
		i := strings.LastIndex(rest[:end], " |")
		if i < 0 {
			break
		}
		if i+2 == len(rest) || rest[i+2] == ' ' {
			return strings.TrimSpace(rest[:i]), rest[i+2:]
		}
		end = i
	}
	if rest == "|" || strings.HasPrefix(rest, "| ") {
		return "", rest[1:]
	}
	return strings.TrimSpace(rest), ""
}
