package client

import (
	"errors"
	"io"
)

// isEOF reports whether a read error is the server's close.
func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// eofErr is the error of a close: before any byte, or mid-response.
func eofErr(got bool, err error) error {
	if !got {
		return errors.New("http: the server closed the connection before answering")
	}
	return err
}
