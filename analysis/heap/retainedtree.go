package heap

import (
	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
)

// RetainedNode is one object of a RetainedTree: what it retains, and the
// objects it immediately dominates that the tree keeps, biggest first.
type RetainedNode struct {
	ObjectID      string
	Class         string
	RetainedBytes int64
	Children      []*RetainedNode
}

// RetainedTree is the top of the dominator tree below root, for a picture
// of where the memory is: root, the objects it immediately dominates,
// theirs, and so on for depth levels below root, keeping only the objects
// that retain at least least bytes (those a picture can show). Root
// model.NoObject is the virtual root above the GC roots: then the tree
// holds the whole reachable heap, and its top level the objects of the
// heaps selected that no other selected object dominates. root must be
// reachable. Each level costs one pass over the dominator tree.
func RetainedTree(h *model.Heap, r *graph.Retention, root model.ObjectIndex, depth int, least int64, heaps model.HeapSelection) *RetainedNode {
	top := &RetainedNode{ObjectID: RootID, Class: "all reachable objects", RetainedBytes: r.ReachableBytes()}
	if root != model.NoObject {
		top = &RetainedNode{ObjectID: ObjectID(h, root), Class: ClassName(h, root), RetainedBytes: r.RetainedBytes(root)}
	}
	least = max(least, 1)
	keep := func(objs []model.ObjectIndex) []model.ObjectIndex {
		var out []model.ObjectIndex
		for _, o := range objs {
			if r.RetainedBytes(o) >= least {
				out = append(out, o)
			}
		}
		return biggest(r, out, 0)
	}
	var level []model.ObjectIndex
	nodes := map[model.ObjectIndex]*RetainedNode{}
	if root == model.NoObject {
		level = keep(r.TopLevelIn(heaps))
		top.Children = adopt(h, r, level, nodes)
	} else {
		level = []model.ObjectIndex{root}
		nodes[root] = top
		depth++
	}
	for d := 1; d < depth && len(level) > 0; d++ {
		children := r.Dominated(level)
		var next []model.ObjectIndex
		for _, p := range level {
			kids := keep(children[p])
			nodes[p].Children = adopt(h, r, kids, nodes)
			next = append(next, kids...)
		}
		level = next
	}
	return top
}

// adopt makes the nodes of objs, in their order, and notes each in nodes.
func adopt(h *model.Heap, r *graph.Retention, objs []model.ObjectIndex, nodes map[model.ObjectIndex]*RetainedNode) []*RetainedNode {
	out := make([]*RetainedNode, len(objs))
	for k, o := range objs {
		out[k] = &RetainedNode{ObjectID: ObjectID(h, o), Class: ClassName(h, o), RetainedBytes: r.RetainedBytes(o)}
		nodes[o] = out[k]
	}
	return out
}
