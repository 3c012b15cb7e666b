package dashboard

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Charts are inline SVG written here, not by a library: a handful of
// lines and marks, with role="img", a title and a description for screen
// readers, and presentation attributes only (the Content-Security-Policy
// allows no inline style). Every chart's figures are also in a table on
// the same page; series differ by dash pattern and marker shape as well as
// colour, so no meaning rests on colour alone.

// sparkline draws a row's recent scores (issues when no score is known) as
// a small line, its text equivalent in the SVG's title.
func sparkline(id string, points []ScorePoint) template.HTML {
	if len(points) == 0 {
		return ""
	}
	values := make([]float64, len(points))
	var words []string
	useScore := true
	for _, p := range points {
		if p.Score == nil {
			useScore = false
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, p := range points {
		if useScore {
			values[i] = *p.Score
			words = append(words, FormatScore(p.Score))
		} else {
			values[i] = float64(p.Issues)
			words = append(words, strconv.FormatInt(p.Issues, 10))
		}
		lo, hi = math.Min(lo, values[i]), math.Max(hi, values[i])
	}
	what := "Score"
	if !useScore {
		what = "Issues"
	}
	text := fmt.Sprintf("%s over the last %d scans, oldest first: %s", what, len(points), strings.Join(words, ", "))
	const w, h, pad = 120.0, 28.0, 3.0
	span := hi - lo
	var pts []string
	for i, v := range values {
		x := pad
		if len(values) > 1 {
			x = pad + float64(i)*(w-2*pad)/float64(len(values)-1)
		}
		y := h / 2
		if span > 0 {
			y = h - pad - (v-lo)/span*(h-2*pad)
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
	}
	last := strings.Split(pts[len(pts)-1], ",")
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="spark" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-labelledby="%s" focusable="false">`, w, h, w, h, id)
	fmt.Fprintf(&b, `<title id="%s">%s</title>`, id, html.EscapeString(text))
	fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#1d4e89" stroke-width="2"/>`, strings.Join(pts, " "))
	fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2.5" fill="#1d4e89"/>`, last[0], last[1])
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // #nosec G203 -- built here from numbers and escaped text
}

// series is one line of a chart: its name, and a value per x label (NaN
// where it has none).
type series struct {
	Name   string
	Values []float64
}

// seriesStyle is how the nth series is drawn: colour, dash and marker
// all differ.
var seriesStyle = []struct{ colour, dash, marker string }{
	{"#1d4e89", "", "circle"},
	{"#a4262c", "6 3", "square"},
	{"#6a4a00", "2 3", "triangle"},
	{"#2e6b30", "10 3 2 3", "diamond"},
	{"#3d3d3d", "1 2", "cross"},
}

// lineChart draws series over x labels (the scans' dates) on a 0..yMax
// scale, with a legend, axes and a title and description.
func lineChart(id, title, desc string, labels []string, ss []series) template.HTML {
	const w, h = 720.0, 300.0
	const left, right, top, bottom = 64.0, 16.0, 16.0, 104.0
	yMax := 0.0
	for _, s := range ss {
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				yMax = math.Max(yMax, v)
			}
		}
	}
	yMax = niceMax(yMax)
	plotW, plotH := w-left-right, h-top-bottom
	x := func(i int) float64 {
		if len(labels) <= 1 {
			return left + plotW/2
		}
		return left + float64(i)*plotW/float64(len(labels)-1)
	}
	y := func(v float64) float64 { return top + plotH - v/yMax*plotH }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %g %g" role="img" aria-labelledby="%s-title %s-desc" focusable="false">`, w, h, id, id)
	fmt.Fprintf(&b, `<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, id, html.EscapeString(title), id, html.EscapeString(desc))
	// Axes and the y scale: 0, half and the top.
	fmt.Fprintf(&b, `<g stroke="#595959" stroke-width="1"><line x1="%g" y1="%g" x2="%g" y2="%g"/><line x1="%g" y1="%g" x2="%g" y2="%g"/></g>`,
		left, top, left, top+plotH, left, top+plotH, left+plotW, top+plotH)
	for _, v := range []float64{0, yMax / 2, yMax} {
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#d0d0d0" stroke-width="1"/>`, left, y(v), left+plotW, y(v))
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end" font-size="12" fill="#1a1a1a">%s</text>`, left-6, y(v)+4, trimFloat(v))
	}
	for _, i := range xTicks(len(labels)) {
		anchor, class := "middle", ` class="mid"` // the middle ones give way on a narrow screen (dashboard.css)
		switch i {
		case 0:
			anchor, class = "start", ""
		case len(labels) - 1:
			anchor, class = "end", ""
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#595959" stroke-width="1"/>`, x(i), top+plotH, x(i), top+plotH+5)
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="%s" font-size="12" fill="#1a1a1a"%s>%s</text>`,
			x(i), top+plotH+20, anchor, class, html.EscapeString(labels[i]))
	}
	for si, s := range ss {
		st := seriesStyle[si%len(seriesStyle)]
		var pts []string
		for i, v := range s.Values {
			if !math.IsNaN(v) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
			}
		}
		dash := ""
		if st.dash != "" {
			dash = ` stroke-dasharray="` + st.dash + `"`
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`, strings.Join(pts, " "), st.colour, dash)
		}
		for i, v := range s.Values {
			if !math.IsNaN(v) {
				b.WriteString(marker(st.marker, x(i), y(v), st.colour))
			}
		}
		// The legend, under the x axis: a sample of the line and its name.
		lx := left + float64(si%3)*plotW/3
		ly := top + plotH + 46 + float64(si/3)*28
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"%s/>`, lx, ly, lx+28, ly, st.colour, dash)
		b.WriteString(marker(st.marker, lx+14, ly, st.colour))
		fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="12" fill="#1a1a1a">%s</text>`, lx+34, ly+4, html.EscapeString(s.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // #nosec G203 -- built here from numbers and escaped text
}

func marker(shape string, x, y float64, colour string) string {
	switch shape {
	case "square":
		return fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="7" height="7" fill="%s"/>`, x-3.5, y-3.5, colour)
	case "triangle":
		return fmt.Sprintf(`<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="%s"/>`, x, y-4.5, x-4.5, y+3.5, x+4.5, y+3.5, colour)
	case "diamond":
		return fmt.Sprintf(`<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="%s"/>`, x, y-5, x+5, y, x, y+5, x-5, y, colour)
	case "cross":
		return fmt.Sprintf(`<path d="M%.1f %.1fl8 8m0 -8l-8 8" stroke="%s" stroke-width="2"/>`, x-4, y-4, colour)
	}
	return fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>`, x, y, colour)
}

// maxXTicks is the most x labels a chart shows: six dates fit its width.
const maxXTicks = 6

// xTicks picks the points whose labels a chart shows: every one up to
// maxXTicks, else that many evenly spread, the first and last always.
func xTicks(n int) []int {
	if n <= maxXTicks {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, maxXTicks)
	for k := range out {
		out[k] = int(math.Round(float64(k) * float64(n-1) / float64(maxXTicks-1)))
	}
	return out
}

// niceMax rounds a chart's top up to 1, 2 or 5 times a power of ten (10
// at least), so the scale's labels are round.
func niceMax(v float64) float64 {
	if v <= 10 {
		return 10
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
