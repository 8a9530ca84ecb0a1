package analyze

import (
	"encoding/csv"
	"fmt"
	"io"
)

// WriteQuanta writes qs as quanta.csv: a header, then one row per quantum.
func WriteQuanta(w io.Writer, qs []Quantum) error {
	return writeCSV(w, quantaHeader, quantaRows(qs))
}

// WriteClients writes cs as clients.csv: a header, then one row per tester.
func WriteClients(w io.Writer, cs []Client) error {
	return writeCSV(w, clientsHeader, clientRows(cs))
}

// writeCSV writes a header and rows as CSV.
func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(header)
	_ = cw.WriteAll(rows) // flushes; the first error is kept by cw
	if err := cw.Error(); err != nil {
		return fmt.Errorf("analyze: write csv: %w", err)
	}
	return nil
}
