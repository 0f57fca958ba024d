package report

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// minTextWidth is the fewest cells fit shortens a text column to, or its
// title's width when wider.
const minTextWidth = 12

// fit shortens the text cells of a table (head, rows and footer, already
// printed as strings) so that the table fits in width terminal cells:
// the widest text columns give up cells first, down to minTextWidth or
// their title, each of their cells cut in the middle with "…". Numbers
// are never cut. A width of 0 or less leaves the table as it is.
func fit(columns []column, head []string, rows [][]string, footer []string, width int) {
	if width <= 0 || len(columns) == 0 {
		return
	}
	widths := make([]int, len(columns))
	for _, r := range append(append([][]string{head}, rows...), footer) {
		for i, c := range r {
			widths[i] = max(widths[i], cellWidth(c))
		}
	}
	// Each column takes its cells' width, a space either side and a
	// border; the table one border more.
	total := 1
	for _, w := range widths {
		total += w + 3
	}
	limit := make([]int, len(columns))
	for i, c := range columns {
		limit[i] = widths[i]
		if c.kind == text {
			limit[i] = min(widths[i], max(minTextWidth, cellWidth(head[i])))
		}
	}
	for total > width {
		widest := -1
		for i := range columns {
			if widths[i] > limit[i] && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
		total--
	}
	for _, r := range append(rows, footer) {
		for i := range r {
			if columns[i].kind == text {
				r[i] = shortenMiddle(r[i], widths[i])
			}
		}
	}
}

// cellWidth is the terminal cells of a cell's widest line.
func cellWidth(s string) int {
	w := 0
	for line := range strings.SplitSeq(s, "\n") {
		w = max(w, runewidth.StringWidth(line))
	}
	return w
}

// shortenMiddle cuts s to at most w terminal cells by replacing its middle
// with "…", keeping a little more of its end (a class name's simple name,
// an array's brackets) than of its start.
func shortenMiddle(s string, w int) string {
	if cellWidth(s) <= w || w < 3 {
		return s
	}
	s = strings.ReplaceAll(s, "\n", " ")
	keep := w - 1
	tailWidth := (keep + 1) / 2
	headWidth := keep - tailWidth
	runes := []rune(s)
	var head, tail int
	for n := 0; head < len(runes); head++ {
		if n += runewidth.RuneWidth(runes[head]); n > headWidth {
			break
		}
	}
	tail = len(runes)
	for n := 0; tail > head; tail-- {
		if n += runewidth.RuneWidth(runes[tail-1]); n > tailWidth {
			break
		}
	}
	return string(runes[:head]) + "…" + string(runes[tail:])
}
