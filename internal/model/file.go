package model

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// FileName is the name of the model file in a run directory.
const FileName = "model.json"

// WriteFile writes m to dir/model.json through a temporary file in dir that
// is synced and renamed into place, so a crash leaves no partial file.
func WriteFile(dir string, m *Model) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("model: encode: %w", err)
	}
	return writeAtomic(filepath.Join(dir, FileName), append(data, '\n'))
}

// ReadFile reads the model that WriteFile wrote into dir.
func ReadFile(dir string) (*Model, error) {
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("model: %s: %w", FileName, err)
	}
	return &m, nil
}

// writeAtomic writes data to path by way of a synced temporary file,
// readable by all like the run directory's other files.
func writeAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}
