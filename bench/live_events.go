package bench

import (
	"bufio"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Reading the live streams' events.

// readEvents reads a live stream's server-sent events until it ends, handing each event's
// name and data (its data lines joined) to fn as the event ends.
func readEvents(body io.Reader, fn func(event, data string)) {
	sc := bufio.NewScanner(body)
	var event string
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = append(data, line[6:])
		case line == "":
			if event != "" {
				fn(event, strings.Join(data, "\n"))
			}
			event, data = "", data[:0]
		}
	}
}

// counts reports whether a notice's count ("3", "99+") includes the s-th share: a stream
// that was told of two shares at once says "4 new" and never "3 new".
func counts(count string, s int) bool { return told(count) >= s }

// told is how many shares a notice's count includes (math.MaxInt for "99+"; 0 unreadable).
func told(count string) int {
	n, err := strconv.Atoi(strings.TrimSuffix(count, "+"))
	switch {
	case err != nil:
		return 0
	case strings.HasSuffix(count, "+"):
		return math.MaxInt
	}
	return n
}

// livePillRe finds the count of a notice ("3 new", "99+ new").
var livePillRe = regexp.MustCompile(`(\d+\+?) new`)

// quantile of sorted values (0 when there are none).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
