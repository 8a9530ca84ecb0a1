package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
)

// keyFileUsage is the usage of the sensor's --key-file.
const keyFileUsage = "the sensor's Ed25519 key (PEM, made mode 0600 if missing): the directory binds --name to it at the first registration " +
	"and takes that name's registrations and results only signed by it (default: sensor-NAME.key beside --token-file)"

// keyFileFor is the default key file of sensor name: sensor-NAME.key in
// the token file's directory, NAME with what is not a letter, digit,
// '.', '_' or '-' made '_'.
func keyFileFor(tokenFile, name string) string {
	safe := strings.Map(func(r rune) rune {
		if r < 128 && (r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, name)
	return filepath.Join(filepath.Dir(tokenFile), "sensor-"+safe+".key")
}

// signWith reads the sensor's key (made when missing, and the user
// told) and makes dc sign with it.
func (f *sensorFlags) signWith(e *env, dc *directory.Client) error {
	path := f.keyFile
	if path == "" {
		path = keyFileFor(f.tokenFile, f.name)
	}
	key, made, err := directory.LoadOrMakeKey(path)
	if err != nil {
		return errs.Usage(fmt.Errorf("--key-file: %w", err), "give --key-file the sensor's own key file, private to its owner (chmod 600), or a path to make it at")
	}
	if made {
		fmt.Fprintf(e.stderr, "diperf sensor: made a new key in %s; the directory binds the name %s to it: keep it with this sensor\n", path, f.name)
	}
	dc.SignWith(key)
	return nil
}
