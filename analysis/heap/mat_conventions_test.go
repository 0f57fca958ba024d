package heap_test

import (
	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
)

// matReachable is the set of objects MAT keeps of a dump: those the
// dominator tree r reaches, and what a Reference's referent reaches from
// them, as MAT follows referent like any field (docs/mat-conventions.md).
func matReachable(h *model.Heap, r *graph.Retention) graph.ObjectBits {
	reach := graph.NewObjectBits(h.NumObjects())
	var queue []model.ObjectIndex
	for i := range h.NumObjects() {
		if obj := model.ObjectIndex(i); r.Reachable(obj) {
			reach.Add(obj)
			queue = append(queue, obj)
		}
	}
	referents := map[model.ObjectIndex][]model.ObjectIndex{}
	for _, w := range h.Referents() {
		referents[w.From] = append(referents[w.From], w.To)
	}
	for len(queue) > 0 {
		obj := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		visit := func(to model.ObjectIndex) {
			if to != model.NoObject && !reach.Has(to) {
				reach.Add(to)
				queue = append(queue, to)
			}
		}
		for _, to := range h.Refs(obj) {
			visit(to)
		}
		for _, to := range referents[obj] {
			visit(to)
		}
	}
	return reach
}
