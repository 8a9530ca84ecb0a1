package cli

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
)

// defaultMeshToken is the mesh's token file when --token-file is not
// given (directory.DefaultTokenFile).
func defaultMeshToken() string { return directory.DefaultTokenFile() }

// tokenFileUsage is the --token-file flag's help of the mesh's commands.
const tokenFileUsage = "the mesh's token file (default $DIPERF_TOKEN_FILE, else diperf/mesh.token in the user's config directory)"

// readOrMakeToken reads the sensor mesh's private token in path (named
// setting in errors); when the file does not exist it makes it, mode
// 0600, with 32 random bytes in base64, and tells the user who uses it
// (use).
func readOrMakeToken(e *env, setting, path, use string) ([]byte, error) {
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return readPrivateSecret(setting, path)
	}
	raw, err := credential.NewSecret()
	if err != nil {
		return nil, err
	}
	tok := []byte(base64.StdEncoding.EncodeToString(raw))
	if err := credential.WritePrivate(path, append(tok, '\n')); err != nil {
		return nil, errs.Usage(fmt.Errorf("%s: %w", setting, err), "give a "+setting+" path diperf may create, or make one: "+secretHint)
	}
	fmt.Fprintf(e.stderr, "diperf: made a new token in %s; %s\n", path, use)
	return tok, nil
}
