package report

import (
	"html/template"

	"github.com/diperf/diperf/internal/webui"
)

// pageTemplate is the report page: inline CSS, inline SVG, the interactive
// charts' data and scripts (uPlot and webui's charts.js) inline, nothing
// fetched from elsewhere.
var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"uplotJS":   uplotJS,
	"uplotCSS":  func() template.CSS { return template.CSS(webui.UPlotCSS()) },
	"chartsJS":  func() template.JS { return template.JS(webui.ChartsJS()) },
	"chartsCSS": func() template.CSS { return template.CSS(webui.ChartsCSS()) },
}).Parse(pageHTML + figureHTML + searchHTML + hostsHTML + selectionHTML))

// figureHTML draws one figure: its SVG, its interactive chart when it has
// one, its caption and note.
const figureHTML = `{{define "figure"}}<figure id="fig-{{.ID}}">
{{.SVG}}
{{if .Spec}}<div class="dp-chart" data-chart="{{.ID}}"></div>
<script type="application/json" id="data-{{.ID}}">{{.Spec}}</script>
<p class="dp-hint">Interactive: hover for values, drag across to zoom in time or load, double-click to zoom out, click a legend entry to hide or show its series. The caption describes the figure drawn in the linked SVG file, which this page also shows when scripts are off.</p>
{{end}}<figcaption>{{.Caption}} <a href="{{.File}}">{{.File}}</a></figcaption>
</figure>
{{with .Note}}<p class="note">{{.}}</p>
{{end}}{{end}}`

// pageHTML is the text of pageTemplate.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>diperf report{{with .Name}}: {{.}}{{end}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif;
color:#222;background:#fff;max-width:960px;margin:24px auto;padding:0 12px;line-height:1.4}
h1{font-size:24px;margin:0 0 16px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;font-size:14px;font-variant-numeric:tabular-nums}
th,td{padding:3px 10px;border-bottom:1px solid #eee;text-align:right;vertical-align:top}
th{background:#f6f6f6;font-weight:600}
th.l,td.l{text-align:left}
table.facts{margin-top:12px}
.note{color:#666;font-size:13px}
.failed{color:#d62728;font-weight:600}
figure{margin:20px 0}
figcaption{color:#555;font-size:13px;margin-top:4px}
svg.chart{display:block;max-width:100%;height:auto}
figure.dp-live svg.chart{display:none}
figure:not(.dp-live) .dp-hint{display:none}
.wide{overflow-x:auto}
</style>
<style>{{uplotCSS}}</style>
<style>{{chartsCSS}}</style>
</head>
<body>
<h1>diperf report{{with .Name}}: {{.}}{{end}}</h1>

<h2>Summary</h2>
<table class="stats">
<tr><th class="l"></th><th>Min</th><th>Med</th><th>Aver</th><th>Max</th><th>Std. Dev.</th></tr>
{{range .Stats}}<tr><td class="l">{{.Label}}</td><td>{{.Min}}</td><td>{{.Med}}</td><td>{{.Aver}}</td><td>{{.Max}}</td><td>{{.Dev}}</td></tr>
{{end}}</table>
<table class="facts">
{{range .Facts}}<tr><th class="l">{{.Label}}</th><td class="l">{{.Value}}</td></tr>
{{end}}</table>
{{range .Footnotes}}<p class="note">{{.}}</p>
{{end}}
{{with .Search}}{{template "search" .}}{{end}}<h2>Charts</h2>
{{range .Figures}}{{template "figure" .}}{{end}}
{{with .Selection}}{{template "selection" .}}{{end}}{{with .Hosts}}{{template "hosts" .}}{{end}}<h2>Testers</h2>
{{if .Testers}}<div class="wide"><table class="testers">
<tr><th>#</th><th class="l">ID</th><th class="l">Host</th><th>Start (s)</th><th>End (s)</th><th>OK</th><th>Failed</th><th>Utilization (%)</th><th>Mean RT (ms)</th><th>max |offset| (ms)</th><th>RTT (ms)</th><th>max bound (ms)</th><th>start skew (ms)</th><th class="l"></th></tr>
{{range .Testers}}<tr><td>{{.Index}}</td><td class="l">{{.ID}}</td><td class="l">{{.Host}}</td><td>{{.Start}}</td><td>{{.End}}</td><td>{{.OK}}</td><td>{{.Failed}}</td><td>{{.Util}}</td><td>{{.MeanRT}}</td><td>{{.Offset}}</td><td>{{.RTT}}</td><td>{{.Bound}}</td><td>{{.Skew}}</td><td class="l">{{if .Dead}}<span class="failed">FAILED</span>{{end}}</td></tr>
{{end}}</table></div>
{{if .Omitted}}<p class="note">{{.Omitted}} more testers are not listed; the table shows the first {{len .Testers}} by start order.</p>
{{end}}{{else}}<p class="note">No testers.</p>
{{end}}{{if .Interactive}}<script>{{uplotJS}}</script>
<script>{{chartsJS}}</script>
<script>window.diperfReport = diperfCharts.renderAll(document);</script>
{{end}}</body>
</html>
`

// uplotJS is uPlot's script, its MIT licence first as a comment, as the
// licence asks of a copy.
func uplotJS() template.JS {
	return template.JS("/*! uPlot " + webui.UPlotVersion + " is under this licence:\n" + string(webui.UPlotLicense()) +
		"*/\n" + string(webui.UPlotJS()))
}
