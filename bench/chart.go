package bench

import (
	"fmt"
	"math"
	"strings"
)

// latencySVG draws p50, p95 and p99 of every scenario as overlaid horizontal bars on a
// logarithmic axis: ours in blue, the baselines in orange.
func latencySVG(results []Result) string {
	const (
		labelW = 230
		plotW  = 620
		rowH   = 20
		top    = 54
		right  = 30
	)
	lo, hi := 0.1, 10.0
	for _, r := range results {
		for hi < r.P99 {
			hi *= 10
		}
	}
	decades := math.Log10(hi / lo)
	x := func(v float64) float64 {
		v = math.Max(v, lo)
		return labelW + plotW*math.Log10(v/lo)/decades
	}
	h := top + rowH*len(results) + 30
	w := labelW + plotW + right
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	p(`<rect width="100%%" height="100%%" fill="#fff"/>` + "\n")
	p(`<text x="10" y="18" font-size="14" font-weight="bold">Latency per scenario (client-side, log scale)</text>` + "\n")
	legend := []struct{ label, color string }{{"p50", "#1f5fa8"}, {"p95", "#6f9fd8"}, {"p99", "#c4d8f0"}, {"baseline p50 / p95 / p99", "#d9822b"}}
	lx := 10
	for _, l := range legend {
		p(`<rect x="%d" y="28" width="12" height="12" fill="%s"/><text x="%d" y="38">%s</text>`+"\n", lx, l.color, lx+16, l.label)
		lx += 30 + 7*len(l.label)
	}
	for e := -1; e <= int(math.Round(math.Log10(hi))); e++ {
		gx := x(math.Pow10(e))
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", gx, top-4, gx, top+rowH*len(results))
		p(`<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", gx, top+rowH*len(results)+16, axisLabel(e))
	}
	for i, r := range results {
		y := top + i*rowH
		p(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-8, y+14, r.Name)
		colors := []string{"#c4d8f0", "#6f9fd8", "#1f5fa8"}
		if r.Kind == "sql" {
			colors = []string{"#f6d5b3", "#eba867", "#d9822b"}
		}
		for j, v := range []float64{r.P99, r.P95, r.P50} {
			if v <= 0 {
				continue
			}
			p(`<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				labelW, y+3, math.Max(1, x(v)-labelW), rowH-6, colors[j], r.Name, []string{"p99", "p95", "p50"}[j], fmtMs(v))
		}
		p(`<text x="%.1f" y="%d" fill="#333" font-size="10">%s</text>`+"\n", x(r.P99)+4, y+14, fmtMs(r.P50))
	}
	p("</svg>\n")
	return b.String()
}

// axisLabel names the gridline at 10^e ms.
func axisLabel(e int) string {
	switch {
	case e < 0:
		return "0.1 ms"
	case e < 3:
		return fmt.Sprintf("%d ms", int(math.Pow10(e)))
	default:
		return fmt.Sprintf("%d s", int(math.Pow10(e-3)))
	}
}
