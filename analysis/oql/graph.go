package oql

import (
	"slices"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
)

// buildChildren lists, for each object, the objects it immediately
// dominates, by index.
func (e *evaluator) buildChildren() {
	if e.childStart != nil {
		return
	}
	n := e.h.NumObjects()
	parent := func(i int) (model.ObjectIndex, bool) {
		o := model.ObjectIndex(i)
		if !e.r.Reachable(o) {
			return 0, false
		}
		d := e.r.ImmediateDominator(o)
		return d, d != model.NoObject
	}
	e.childStart = make([]uint32, n+1)
	for i := range n {
		if d, ok := parent(i); ok {
			e.childStart[d+1]++
		}
	}
	for i := range n {
		e.childStart[i+1] += e.childStart[i]
	}
	e.children = make([]uint32, e.childStart[n])
	fill := slices.Clone(e.childStart[:n])
	for i := range n {
		if d, ok := parent(i); ok {
			e.children[fill[d]] = uint32(i)
			fill[d]++
		}
	}
}

// buildReferrers lists, for each object, the objects that reference it,
// by index.
func (e *evaluator) buildReferrers() {
	if e.referStart != nil {
		return
	}
	h := e.h
	n := h.NumObjects()
	e.referStart = make([]uint32, n+1)
	all := model.ObjectIndex(n)
	h.EachRefs(0, all, func(_ model.ObjectIndex, refs []model.ObjectIndex) {
		for _, r := range refs {
			e.referStart[r+1]++
		}
	})
	for i := range n {
		e.referStart[i+1] += e.referStart[i]
	}
	e.referrers = make([]uint32, e.referStart[n])
	fill := slices.Clone(e.referStart[:n])
	h.EachRefs(0, all, func(i model.ObjectIndex, refs []model.ObjectIndex) {
		for _, r := range refs {
			e.referrers[fill[r]] = uint32(i)
			fill[r]++
		}
	})
}

// retainedSet is what the objects retain one by one: every object each
// of them dominates, itself included, by index.
func (e *evaluator) retainedSet(objs []model.ObjectIndex) ([]model.ObjectIndex, error) {
	e.buildChildren()
	in := make([]bool, e.h.NumObjects())
	var out []model.ObjectIndex
	stack := slices.Clone(objs)
	for n := 0; len(stack) > 0; n++ {
		if n%(1<<16) == 0 {
			if err := e.lim.ctx.Err(); err != nil {
				return nil, err
			}
		}
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if in[i] || !e.r.Reachable(i) {
			continue
		}
		in[i] = true
		out = append(out, i)
		for _, c := range e.children[e.childStart[i]:e.childStart[i+1]] {
			stack = append(stack, model.ObjectIndex(c))
		}
	}
	slices.Sort(out)
	return out, nil
}

// buildReachable marks the objects Eclipse MAT keeps
// (graph.MATKept).
func (e *evaluator) buildReachable() {
	if e.reachable == nil {
		e.reachable = graph.MATKept(e.h)
	}
}
