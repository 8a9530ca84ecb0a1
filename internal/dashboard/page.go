package dashboard

import _ "embed"

// The page and its own script and styles; uPlot comes from package webui.
var (
	//go:embed assets/index.html
	indexHTML []byte
	//go:embed assets/dashboard.js
	dashboardJS []byte
	//go:embed assets/dashboard.css
	dashboardCSS []byte
)
