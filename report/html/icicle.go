package html

import (
	"strconv"

	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/report"
)

// icicle is a CPU report's call stacks drawn top down in SVG user units:
// the whole at the top, each frame below its caller, as wide as its share
// of the samples (or times).
type icicle struct {
	Width, Height int
	Boxes         []box
}

// box is one frame of one call path: its place, its full name and the
// part of the name that fits.
type box struct {
	X, Y, W, TextX, TextY string
	Name, Label           string
	Count                 int64
	Percent               float64
}

// The icicle's geometry: levelHeight units a level, about charWidth units
// a character of its labels, and boxes narrower than minBox left out.
const (
	icicleWidth = 1200
	levelHeight = 18
	charWidth   = 7
	minBox      = 0.5
)

// newIcicle lays out the call tree of the traces of r
// (profile.CPUReport.CallTree), outermost frame first.
func newIcicle(r profile.CPUReport) icicle {
	root := r.CallTree(report.FrameString)
	ic := icicle{Width: icicleWidth}
	if root.Count == 0 {
		return ic
	}
	depth := 0
	var place func(n *profile.CallNode, name string, x float64, level int)
	place = func(n *profile.CallNode, name string, x float64, level int) {
		w := float64(icicleWidth) * float64(n.Count) / float64(root.Count)
		if w < minBox {
			return
		}
		depth = max(depth, level+1)
		label := name
		if fit := int(w/charWidth) - 1; len([]rune(label)) > fit {
			label = ""
			if fit > 2 {
				label = string([]rune(name)[:fit-1]) + "…"
			}
		}
		ic.Boxes = append(ic.Boxes, box{X: units(x), Y: strconv.Itoa(level * levelHeight), W: units(w),
			TextX: units(x + 3), TextY: strconv.Itoa(level*levelHeight + 13), Name: name, Label: label,
			Count: n.Count, Percent: n.Percent})
		for _, c := range n.Callees {
			place(c, c.Name, x, level+1)
			x += float64(icicleWidth) * float64(c.Count) / float64(root.Count)
		}
	}
	place(root, "all", 0, 0)
	ic.Height = depth * levelHeight
	return ic
}

// units formats a length in SVG user units.
func units(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
