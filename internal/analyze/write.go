package analyze

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// File names written by WriteFiles.
const (
	QuantaFile  = "quanta.csv"
	ClientsFile = "clients.csv"
	SummaryFile = "summary.json"
)

// WriteFiles writes quanta.csv, clients.csv and summary.json of r into dir.
// Each file is written under a temporary name and renamed into place, so a
// crash never leaves a partial file behind.
func WriteFiles(dir string, r *Result) error {
	quanta, err := encodeCSV(quantaHeader, quantaRows(r.Quanta))
	if err != nil {
		return err
	}
	clients, err := encodeCSV(clientsHeader, clientRows(r.Clients))
	if err != nil {
		return err
	}
	summary, err := json.MarshalIndent(&r.Summary, "", "  ")
	if err != nil {
		return fmt.Errorf("analyze: encode summary: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{QuantaFile, quanta}, {ClientsFile, clients}, {SummaryFile, append(summary, '\n')}} {
		if err := writeAtomic(dir, f.name, f.data); err != nil {
			return err
		}
	}
	return nil
}

// ReadSummary reads the summary.json that WriteFiles wrote into dir.
func ReadSummary(dir string) (*Summary, error) {
	data, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("analyze: %s: %w", SummaryFile, err)
	}
	return &s, nil
}

// encodeCSV renders a header and rows as CSV.
func encodeCSV(header []string, rows [][]string) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(header)
	w.WriteAll(rows) // flushes
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("analyze: encode csv: %w", err)
	}
	return buf.Bytes(), nil
}

// writeAtomic writes data to dir/name through a temporary file in dir that
// is synced, then renamed over the target.
func writeAtomic(dir, name string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("analyze: write %s: %w", name, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("analyze: sync %s: %w", name, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("analyze: close %s: %w", name, err)
	}
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("analyze: chmod %s: %w", name, err)
	}
	if err = os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}
