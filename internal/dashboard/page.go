package dashboard

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
)

// The page and its own script and styles; uPlot comes from package webui.
var (
	//go:embed assets/index.html
	indexHTML string
	//go:embed assets/dashboard.js
	dashboardJS []byte
	//go:embed assets/dashboard.css
	dashboardCSS []byte
	//go:embed assets/search.js
	searchJS []byte
)

// pageTemplate is the page, its own URLs waiting for the token.
var pageTemplate = template.Must(template.New("index.html").Parse(indexHTML))

// renderPage is the page whose own URLs carry token: the token goes from
// the page's URL to its scripts, styles and links, and never into a
// cookie (a browser sends a host's cookies to every port of it).
func renderPage(token string) ([]byte, error) {
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, token); err != nil {
		return nil, fmt.Errorf("dashboard: the page: %w", err)
	}
	return b.Bytes(), nil
}
