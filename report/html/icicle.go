package html

import (
	"cmp"
	"slices"
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

// callNode is a frame of the call tree, with its samples and its callees.
type callNode struct {
	name     string
	count    int64
	children []*callNode
}

func (n *callNode) child(name string) *callNode {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	c := &callNode{name: name}
	n.children = append(n.children, c)
	return c
}

// newIcicle lays out the call tree of the traces of r, outermost frame
// first.
func newIcicle(r profile.CPUReport) icicle {
	root := &callNode{name: "all"}
	for _, t := range r.Rows {
		root.count += t.Count
		n := root
		for i := len(t.Frames) - 1; i >= 0; i-- {
			n = n.child(report.FrameString(t.Frames[i]))
			n.count += t.Count
		}
	}
	ic := icicle{Width: icicleWidth}
	if root.count == 0 {
		return ic
	}
	depth := 0
	var place func(n *callNode, x float64, level int)
	place = func(n *callNode, x float64, level int) {
		w := float64(icicleWidth) * float64(n.count) / float64(root.count)
		if w < minBox {
			return
		}
		depth = max(depth, level+1)
		label := n.name
		if fit := int(w/charWidth) - 1; len([]rune(label)) > fit {
			label = ""
			if fit > 2 {
				label = string([]rune(n.name)[:fit-1]) + "…"
			}
		}
		ic.Boxes = append(ic.Boxes, box{X: units(x), Y: strconv.Itoa(level * levelHeight), W: units(w),
			TextX: units(x + 3), TextY: strconv.Itoa(level*levelHeight + 13), Name: n.name, Label: label,
			Count: n.count, Percent: 100 * float64(n.count) / float64(root.count)})
		// Callees from the biggest, so the same profile draws the same.
		slices.SortStableFunc(n.children, func(a, b *callNode) int {
			return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.name, b.name))
		})
		for _, c := range n.children {
			place(c, x, level+1)
			x += float64(icicleWidth) * float64(c.count) / float64(root.count)
		}
	}
	place(root, 0, 0)
	ic.Height = depth * levelHeight
	return ic
}

// units formats a length in SVG user units.
func units(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
