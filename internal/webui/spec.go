package webui

import (
	"encoding/json"
	"math"
	"strconv"
)

// ChartSpec is a chart as charts.js draws it (window.diperfCharts.build):
// one x column shared by every series, each series a column of values on
// the y axis its unit and side name. Its JSON is what charts.js reads; the
// format is documented at the top of charts.js.
type ChartSpec struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	XLabel string   `json:"xLabel"`
	XUnit  string   `json:"xUnit,omitempty"`
	X      Values   `json:"x"`    // ascending
	Kind   string   `json:"kind"` // KindLine, KindPoints or KindBand: how series draw unless they say
	Series []Series `json:"series"`
	Bands  []Band   `json:"bands,omitempty"`
	XTicks *Ticks   `json:"xTicks,omitempty"`
	// XNames, when given, name the x values in the legend (one per value
	// of X) instead of the number.
	XNames []string `json:"xNames,omitempty"`
	Height int      `json:"height,omitempty"` // px; 380 when 0
	Window int      `json:"window,omitempty"` // points a live chart's push keeps; 600 when 0
}

// How a series is drawn.
const (
	KindLine   = "line"
	KindPoints = "points"
	KindBand   = "band" // a thin line shaded down to the next series of its unit
)

// Sides of the y axes.
const (
	AxisLeft  = "left"
	AxisRight = "right"
)

// Series is one quantity of a ChartSpec: a value per x (NaN is a gap).
// Series of the same unit and side share a y scale and its axis.
type Series struct {
	Label    string  `json:"label"`
	Unit     string  `json:"unit"`
	Axis     string  `json:"axis"` // AxisLeft or AxisRight
	Color    string  `json:"color,omitempty"`
	Values   Values  `json:"values"`
	Kind     string  `json:"kind,omitempty"`
	Dash     bool    `json:"dash,omitempty"`
	Width    float64 `json:"width,omitempty"`
	SpanGaps bool    `json:"spanGaps,omitempty"` // a line joins its points across gaps
	Hidden   bool    `json:"hidden,omitempty"`   // off until its legend entry is clicked
	// AxisLabel names the series' y axis (the first series of a scale
	// that has one names it); empty: the axis lists its series' labels.
	AxisLabel string `json:"axisLabel,omitempty"`
}

// Band shades the area between two series, by index into ChartSpec.Series.
type Band struct {
	Upper int `json:"upper"`
	Lower int `json:"lower"`
}

// Ticks are fixed ticks of the x axis with their labels.
type Ticks struct {
	Values []float64 `json:"values"`
	Labels []string  `json:"labels"`
}

// Values is a column of numbers whose JSON writes NaN and ±Inf as null (a
// gap) and every number with at most 6 significant digits, which keeps a
// page's data small.
type Values []float64

// MarshalJSON writes v as a JSON array.
func (v Values) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+8*len(v))
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, x, 'g', 6, 64)
	}
	return append(b, ']'), nil
}

// JSON returns the spec as JSON in which '<', '>' and '&' are escaped
// (\u003c ...), so that it can sit inside a <script> element: no text of
// a label can close it.
func (s *ChartSpec) JSON() ([]byte, error) {
	return json.Marshal(s)
}
