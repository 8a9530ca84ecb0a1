package cli

import (
	"os"
	"path/filepath"
)

// defaultMeshToken is the mesh's token file when --token-file is not
// given: $DIPERF_TOKEN_FILE, else diperf/mesh.token in the user's
// configuration directory ("" if there is none). The directory makes it on
// its first start, so on the directory's host every command finds it.
func defaultMeshToken() string {
	if p := os.Getenv("DIPERF_TOKEN_FILE"); p != "" {
		return p
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "diperf", "mesh.token")
}

// tokenFileUsage is the --token-file flag's help of the mesh's commands.
const tokenFileUsage = "the mesh's token file (default $DIPERF_TOKEN_FILE, else diperf/mesh.token in the user's config directory)"
