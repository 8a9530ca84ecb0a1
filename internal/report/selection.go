package report

import (
	"math"
	"strconv"

	"github.com/diperf/diperf/internal/human"
	"github.com/diperf/diperf/internal/rundir"
)

// selectionSection is the page's "Tester selection" table
// (testbed.select): every candidate host, the chosen first in order of
// choice, with its figures and why it was chosen or left out.
type selectionSection struct {
	Rows   []selectionRow
	Chosen int
	Note   string // why the table is not drawn ("": it is)
}

// selectionRow is one candidate, as the table shows it.
type selectionRow struct {
	Order, Host, Site, Bandwidth, Latency, CPU, Basis, Reason string
	Chosen                                                    bool
}

// readSelection reads the run's selection.csv: nil when the run chose no
// hosts.
func readSelection(dir string) *selectionSection {
	rows, err := rundir.ReadSelection(dir)
	switch {
	case err != nil:
		return &selectionSection{Note: "The tester selection is not shown: " + err.Error() + "."}
	case rows == nil:
		return nil
	}
	s := &selectionSection{}
	for _, r := range rows {
		row := selectionRow{Host: r.Host, Site: r.Site, Basis: r.Basis, Reason: r.Reason, Chosen: r.Chosen,
			Bandwidth: "–", Latency: "–", CPU: "–"}
		if r.Chosen {
			s.Chosen++
			row.Order = strconv.Itoa(r.Order)
		}
		if r.BandwidthBps > 0 {
			row.Bandwidth = human.Bits(r.BandwidthBps)
		}
		if r.LatencyMs > 0 {
			row.Latency = human.Millis(r.LatencyMs)
		}
		if !math.IsNaN(r.IdleCPU) {
			row.CPU = human.Number(r.IdleCPU, 3) + "%"
		}
		s.Rows = append(s.Rows, row)
	}
	return s
}

// selectionHTML draws the section.
const selectionHTML = `{{define "selection"}}<h2 id="selection">Tester selection</h2>
{{with .Note}}<p class="note">{{.}}</p>
{{else}}<p>testbed.select chose {{.Chosen}} of {{len .Rows}} candidate hosts, by their network toward the target (the sensor mesh) and their idle CPU, checked before the run (selection.csv).</p>
<div class="wide"><table class="testers">
<tr><th>chosen</th><th class="l">host</th><th class="l">site</th><th>bandwidth</th><th>latency</th><th>idle CPU</th><th class="l">figures</th><th class="l">why</th></tr>
{{range .Rows}}<tr><td>{{if .Chosen}}{{.Order}}{{else}}no{{end}}</td><td class="l">{{.Host}}</td><td class="l">{{.Site}}</td><td>{{.Bandwidth}}</td><td>{{.Latency}}</td><td>{{.CPU}}</td><td class="l">{{.Basis}}</td><td class="l">{{.Reason}}</td></tr>
{{end}}</table></div>
{{end}}{{end}}`
