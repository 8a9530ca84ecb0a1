package analyze

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// WriteQuanta writes qs as quanta.csv: a header, then one row per quantum.
// An open-model run's file has four more columns: offered_per_s,
// achieved_per_s, late and dropped; a run whose calls measured HTTP
// phases one more, first_byte_ms_mean; a run whose clients reported
// extras two per key (sorted): x_<key>_per_s and x_<key>_mean; a
// capacity search's one more, step (stepColumn).
func WriteQuanta(w io.Writer, qs []Quantum) error {
	rows := quantaRows(qs)
	header := quantaHeader[:len(quantaHeader):len(quantaHeader)]
	if len(qs) == 0 {
		return writeCSV(w, header, rows)
	}
	if qs[0].Open != nil {
		header = append(header, openHeader...)
		for i, q := range qs {
			o := q.Open
			rows[i] = append(rows[i], ff(o.OfferedPS), ff(o.AchievedPS), strconv.Itoa(o.Late), strconv.Itoa(o.Dropped))
		}
	}
	if qs[0].Phases != nil {
		header = append(header, "first_byte_ms_mean")
		for i, q := range qs {
			rows[i] = append(rows[i], ff(q.Phases.FirstByteMs))
		}
	}
	for _, k := range ExtraKeys(qs) {
		header = append(header, "x_"+k+"_per_s", "x_"+k+"_mean")
		for i, q := range qs {
			x := q.Extras[k]
			rows[i] = append(rows[i], ff(x.PerS), ff(x.Mean))
		}
	}
	header, rows = stepColumn(qs, header, rows)
	return writeCSV(w, header, rows)
}

// openHeader is the open model's part of quanta.csv's header.
var openHeader = []string{"offered_per_s", "achieved_per_s", "late", "dropped"}

// WriteClients writes cs as clients.csv: a header, then one row per
// tester, or per client (Result.ClientRows). When any row is of a client
// other than 0, a client column follows the index; when any row reported
// bytes, the bytes columns (bytesHeader) follow; when any row carries a
// network link (Result.SetNetwork), the net_* columns; when any row has
// a site, the site column last.
func WriteClients(w io.Writer, cs []Client) error {
	header, rows := clientsHeader, clientRows(cs)
	if manyClients(cs) {
		for i, r := range rows {
			rows[i] = append(append(r[:1:1], strconv.Itoa(cs[i].Client)), r[1:]...)
		}
		header = append(append(clientsHeader[:1:1], "client"), clientsHeader[1:]...)
	}
	if hasBytes(cs) {
		header = append(header[:len(header):len(header)], bytesHeader...)
		for i, r := range rows {
			rows[i] = append(r, bytesCells(cs[i])...)
		}
	}
	if hasNet(cs) {
		header = append(header[:len(header):len(header)], netHeader...)
		for i, r := range rows {
			rows[i] = append(r, netCells(cs[i])...)
		}
	}
	header, rows = siteColumn(cs, header, rows)
	return writeCSV(w, header, rows)
}

// manyClients reports whether any row of cs is of a client other than 0.
func manyClients(cs []Client) bool {
	for _, c := range cs {
		if c.Client != 0 {
			return true
		}
	}
	return false
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
