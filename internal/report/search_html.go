package report

// searchHTML is the page's capacity search section: the verdict in
// words, the answer's figures, the graphs (s1–s3) and the steps' table.
const searchHTML = `{{define "search"}}<h2 id="search">Capacity search</h2>
{{if .Verdict}}<p class="verdict" id="search-verdict"><strong>Verdict: {{.Verdict}}</strong>, {{.Meaning}}. {{.Why}}</p>
<table class="facts" id="search-facts">
{{range .Facts}}<tr><th class="l">{{.Label}}</th><td class="l">{{.Value}}</td></tr>
{{end}}</table>
{{end}}{{range .Notes}}<p class="note search-note">{{.}}</p>
{{end}}{{range .Figures}}{{template "figure" .}}{{end}}{{if .Steps}}<div class="wide"><table class="search-steps" id="search-steps">
<tr><th>Step</th><th>Load</th><th>Seconds</th><th>Calls</th><th>Measured</th><th>Throughput (calls/s)</th><th class="l">Decision</th><th class="l">Why</th></tr>
{{range .Steps}}<tr><td>{{.Step}}</td><td>{{.Load}}</td><td>{{.Seconds}}</td><td>{{.Calls}}</td><td>{{.Measured}}</td><td>{{.Thr}}</td><td class="l{{if .Fails}} failed{{end}}">{{.Decision}}{{if .Weak}} (weak){{end}}{{with .Binding}}: {{.}}{{end}}</td><td class="l">{{.Why}}</td></tr>
{{end}}</table></div>
{{end}}<p class="note">Every step, with each SLO's statistic, interval and decision: <a href="search.csv">search.csv</a> and <a href="search.json">search.json</a>, beside this page.</p>
{{end}}`
