package directory

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"time"
)

// HTTPClient is the http.Client of a directory Client, each request
// bounded by timeout. With caFile (PEM certificates: a private CA, or the
// directory's own self-signed certificate) an https:// directory must
// present a certificate signed by one of them, and only by them (as
// curl's --cacert); without, by the system's roots (which Go reads from
// $SSL_CERT_FILE and $SSL_CERT_DIR when they are set).
func HTTPClient(caFile string, timeout time.Duration) (*http.Client, error) {
	if caFile == "" {
		return &http.Client{Timeout: timeout}, nil
	}
	b, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("CA file %s: no PEM certificate in it", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Timeout: timeout, Transport: tr}, nil
}
