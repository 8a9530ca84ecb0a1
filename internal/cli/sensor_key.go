package cli

import (
	"path/filepath"
	"strings"
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
