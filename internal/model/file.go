package model

import (
	"fmt"

	"github.com/diperf/diperf/internal/rundir"
)

// FileName is the name of the model file in a run directory.
const FileName = rundir.Model

// WriteFile writes m to dir's model.json through the run directory's
// atomic writer.
func WriteFile(dir string, m *Model) error {
	if err := rundir.WriteJSON(dir, FileName, m); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

// ReadFile reads the model that WriteFile wrote into dir. A missing file
// is an error for which errors.Is(err, fs.ErrNotExist) holds.
func ReadFile(dir string) (*Model, error) {
	var m Model
	if err := rundir.ReadJSON(dir, FileName, &m); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return &m, nil
}
