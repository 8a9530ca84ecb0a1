package cli

import "github.com/diperf/diperf/internal/directory"

// defaultMeshToken is the mesh's token file when --token-file is not
// given (directory.DefaultTokenFile).
func defaultMeshToken() string { return directory.DefaultTokenFile() }

// tokenFileUsage is the --token-file flag's help of the mesh's commands.
const tokenFileUsage = "the mesh's token file (default $DIPERF_TOKEN_FILE, else diperf/mesh.token in the user's config directory)"
