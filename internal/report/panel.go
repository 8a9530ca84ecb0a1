package report

import "strings"

// Layout of a chart's upper panel.
const (
	panelGap   = 18 // px between the upper panel and the main one
	upperTicks = 5  // about how many tick intervals its y axis gets
)

// upperClip returns the id of the upper panel's clip path.
func (f *frame) upperClip() string { return f.clip + "-upper" }

// upperAxes writes the upper panel's frame, the tick labels of its y axis
// on the left and the axis title beside them. The panel has no x tick
// labels of its own: it shares those under the main panel.
func (f *frame) upperAxes(b *strings.Builder, a axis) {
	f.axisLines(b, f.uTop, f.uBottom)
	b.WriteString(`<g text-anchor="end">`)
	for i, t := range f.ut {
		text(b, f.left-6, f.u.at(t)+4, a.label(i, t, f.ut))
	}
	b.WriteString("</g>")
	vtitle(b, 16, (f.uTop+f.uBottom)/2, a)
}
