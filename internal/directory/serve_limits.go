package directory

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/preauth"
)

// ServeConfig is how ServeWith serves.
type ServeConfig struct {
	// TLS, when not nil, serves HTTPS with it (LoadTLS makes one).
	TLS *tls.Config
	// Unproved bounds the connections that have not proved themselves
	// yet (zero: DefaultUnproved).
	Unproved preauth.Limits
}

// ownFiles is what the directory keeps of its open-file limit for itself
// (its database, WAL and shared memory, the listener, the runtime's own)
// before sharing the rest.
const ownFiles = 64

// DefaultUnproved is the pool of connections not yet proved: half of what
// the open-file limit leaves beside the directory's own files (the other
// half is for the members' connections), within preauth.MinConns and
// preauth.MaxConns, an eighth of it from one source (at least 64).
func DefaultUnproved() preauth.Limits {
	return preauth.ForFiles(preauth.FreeFiles(ownFiles) / 2)
}

// LoadTLS reads the certificate (PEM, its chain after it) and its key
// (PEM) and checks that they go together, that the certificate parses,
// and that it is valid now; the error says which file is at fault.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s with key %s: %w", certFile, keyFile, err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s: %w", certFile, err)
	}
	now := time.Now()
	if now.Before(leaf.NotBefore) || now.After(leaf.NotAfter) {
		return nil, fmt.Errorf("TLS certificate %s is valid from %s to %s, not now (%s)", certFile,
			leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}
