package cli

import (
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
)

// caFileUsage is the usage of --ca-file, the mesh commands' trust of an
// https:// directory.
const caFileUsage = "PEM certificates to trust for an https:// directory (a private CA, or its self-signed certificate) instead of the system's ($SSL_CERT_FILE)"

// directoryClient opens the client of the directory at url with token,
// trusting caFile's certificates when given; a bad URL or CA file is a
// usage error.
func directoryClient(url string, token []byte, caFile string) (*directory.Client, error) {
	hc, err := directory.HTTPClient(caFile, 30*time.Second)
	if err != nil {
		return nil, errs.Usage(err, "give --ca-file a file of PEM certificates")
	}
	c, err := directory.NewClient(url, token, hc)
	if err != nil {
		return nil, errs.Usage(err, "give --directory the directory's URL")
	}
	return c, nil
}
