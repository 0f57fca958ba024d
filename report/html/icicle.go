package html

import (
	"strconv"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/report"
)

// icicle is a tree drawn top down in SVG user units: the whole at the top,
// each node below its parent, as wide as its share of the whole. The CPU
// page draws call stacks so, the icicle page the dominator tree.
type icicle struct {
	Width, Height int
	// Title describes the picture for assistive technology.
	Title string
	Boxes []box
}

// box is one node: its place, its full name, the part of the name that
// fits, its value as text and share of the whole, and the page it links
// to ("" for none).
type box struct {
	X, Y, W, TextX, TextY string
	Name, Label, Value    string
	Percent               float64
	Href                  string
}

// The icicle's geometry: levelHeight units a level, about charWidth units
// a character of its labels, and boxes narrower than minBox left out.
const (
	icicleWidth = 1200
	levelHeight = 18
	charWidth   = 7
	minBox      = 0.5
)

// icicleNode is a node of a tree to draw: its name, its size (its
// children's together at most), the text of that size, the page it links
// to and its children in the order drawn.
type icicleNode struct {
	Name, Value, Href string
	Size              int64
	Children          []icicleNode
}

// layoutIcicle lays out the tree below root, each node as wide as its
// share of root's size, leaving out the nodes narrower than minBox.
func layoutIcicle(root icicleNode, title string) icicle {
	ic := icicle{Width: icicleWidth, Title: title}
	if root.Size <= 0 {
		return ic
	}
	depth := 0
	var place func(n icicleNode, x float64, level int)
	place = func(n icicleNode, x float64, level int) {
		w := float64(icicleWidth) * float64(n.Size) / float64(root.Size)
		if w < minBox {
			return
		}
		depth = max(depth, level+1)
		label := n.Name
		if fit := int(w/charWidth) - 1; len([]rune(label)) > fit {
			label = ""
			if fit > 2 {
				label = string([]rune(n.Name)[:fit-1]) + "…"
			}
		}
		ic.Boxes = append(ic.Boxes, box{X: units(x), Y: strconv.Itoa(level * levelHeight), W: units(w),
			TextX: units(x + 3), TextY: strconv.Itoa(level*levelHeight + 13), Name: n.Name, Label: label,
			Value: n.Value, Percent: 100 * float64(n.Size) / float64(root.Size), Href: n.Href})
		for _, c := range n.Children {
			place(c, x, level+1)
			x += float64(icicleWidth) * float64(c.Size) / float64(root.Size)
		}
	}
	place(root, 0, 0)
	ic.Height = depth * levelHeight
	return ic
}

// newIcicle lays out the call tree of the traces of r
// (profile.CPUReport.CallTree), outermost frame first.
func newIcicle(r profile.CPUReport) icicle {
	var node func(n *profile.CallNode, name string) icicleNode
	node = func(n *profile.CallNode, name string) icicleNode {
		out := icicleNode{Name: name, Value: humanize.Comma(n.Count), Size: n.Count}
		for _, c := range n.Callees {
			out.Children = append(out.Children, node(c, c.Name))
		}
		return out
	}
	return layoutIcicle(node(r.CallTree(report.FrameString), "all"), "Call stacks of the CPU "+r.Kind)
}

// dominatorIcicle lays out a part of the dominator tree by retained size,
// each object's box linking to the icicle below it.
func dominatorIcicle(root *heap.RetainedNode) icicle {
	var node func(n *heap.RetainedNode) icicleNode
	node = func(n *heap.RetainedNode) icicleNode {
		out := icicleNode{Name: n.Class, Value: humanize.IBytes(uint64(max(n.RetainedBytes, 0))), Size: n.RetainedBytes}
		if n.ObjectID != heap.RootID {
			out.Name += " " + n.ObjectID
			out.Href = "/icicle?root=" + n.ObjectID
		}
		for _, c := range n.Children {
			out.Children = append(out.Children, node(c))
		}
		return out
	}
	return layoutIcicle(node(root), "The dominator tree by retained size")
}

// units formats a length in SVG user units.
func units(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
