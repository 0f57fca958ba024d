package heap

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// SectionKeptRetainers is the index section KeptRetainers are kept in
// (JSON).
const SectionKeptRetainers = "answers.retainers"

// KeptRetainerPaths is how many merged paths per class KeptRetainers
// keep: `retainers --class` shows 3 by default.
const KeptRetainerPaths = 5

// keptRetainerSteps bounds the steps of a class's kept paths, all
// together: a class whose paths run longer (the instances of a long
// linked list) is left out, and the patterns that match it are answered
// from the tree, so that what is kept stays a few steps per class.
const keptRetainerSteps = 256

// KeptRetainers are, for every class with instances, the merged paths of
// `retainers --class` (the class chains of the strong shortest path tree
// holding most of its instances, graph.ClassChains) with their steps
// described, worked out when an index is built: the paths of the classes
// a pattern matches then need neither the tree nor the dump.
type KeptRetainers struct {
	// Paths is how many paths each class keeps at most.
	Paths   int                  `json:"paths"`
	Classes []KeptClassRetainers `json:"classes"`
	// Left are the classes with instances whose paths are not kept
	// (longer than keptRetainerSteps), in class order.
	Left []int32 `json:"left"`
}

// KeptClassRetainers are one class's part of KeptRetainers.
type KeptClassRetainers struct {
	Class     int32 `json:"class"`
	Targets   int64 `json:"targets"`
	Unreached int64 `json:"unreached"`
	// First are the first instances (in object order) of the chains
	// Paths show, which order chains of equal counts.
	First []int64 `json:"first"`
	// Paths are the described paths of the chains holding most
	// instances, most first; each path's Objects counts them.
	Paths []RetainerPath `json:"paths"`
	// Offsets, when set, are for each path the offsets in the dump of
	// the records of its objects but the last, whose references the
	// question labels (model.ReadStepLabels) where the build did not: in
	// a compressed dump those objects lie all over it, and reading them
	// at the build decompressed it all a second time (a seventh of the
	// CPU time of a 4 GiB -gz dump's build). Their steps' Via then say
	// only what the heap knows without the dump ("<class>" or "?"),
	// except where the offset is -1: the build labeled that step (its
	// object is an array big enough that reading it whole, to the
	// element, would cost the question more than the paths' other steps
	// together).
	Offsets [][]int64 `json:"offsets,omitempty"`
}

// Answer is what `retainers --class` answers with paths merged paths for
// the classes match marks, from what k keeps, the labels of the steps
// the build left to the question read by label; false when k keeps fewer
// paths per class, or leaves out a class match marks.
func (k *KeptRetainers) Answer(match []bool, paths int, label func([]model.StepAt) ([]model.StepLabel, error)) (Retainers, bool, error) {
	paths = max(paths, 1)
	if k == nil || paths > k.Paths {
		return Retainers{}, false, nil
	}
	for _, c := range k.Left {
		if int(c) < len(match) && match[c] {
			return Retainers{}, false, nil
		}
	}
	out := Retainers{Paths: []RetainerPath{}, Merged: true}
	type ranked struct {
		first int64
		path  RetainerPath
		// steps are the path's steps the question labels, the object
		// of each at chain position at.
		steps []model.StepAt
		at    []int
	}
	var all []ranked
	for _, c := range k.Classes {
		if int(c.Class) >= len(match) || !match[c.Class] {
			continue
		}
		out.Targets += c.Targets
		out.Unreached += c.Unreached
		for i, p := range c.Paths {
			r := ranked{first: c.First[i], path: p}
			if c.Offsets != nil {
				r.steps, r.at = pathSteps(c.Offsets[i], p.Chain)
			}
			all = append(all, r)
		}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.path.Objects, a.path.Objects), cmp.Compare(a.first, b.first))
	})
	all = all[:min(paths, len(all))]
	var steps []model.StepAt
	for _, r := range all {
		steps = append(steps, r.steps...)
	}
	var labels []model.StepLabel
	if len(steps) > 0 {
		var err error
		if labels, err = label(steps); err != nil {
			return Retainers{}, false, err
		}
		if len(labels) != len(steps) {
			return Retainers{}, false, fmt.Errorf("%d labels for %d steps", len(labels), len(steps))
		}
	}
	for _, r := range all {
		p := r.path
		if len(r.steps) > 0 {
			p.Chain = slices.Clone(p.Chain)
			for k, l := range labels[:len(r.steps)] {
				if l.Label != "" {
					p.Chain[r.at[k]+1].Via = viaLabel(l.Label, l.Weak)
				}
			}
			labels = labels[len(r.steps):]
		}
		out.Paths = append(out.Paths, p)
	}
	return out, true, nil
}

// WriteKeptRetainers writes k into the index w.
func WriteKeptRetainers(w *store.Writer, k *KeptRetainers) error {
	return w.WriteJSON(SectionKeptRetainers, k)
}

// ReadKeptRetainers reads what WriteKeptRetainers wrote into ix for heap
// h, read without its objects (model.ReadIndexClasses) or with them; nil
// when the index keeps none. What the paths say is checked against the
// classes, not against the tree (which they spare reading): each class
// once and in range, no more instances than it has, each path ending at
// an instance of its class with its count of instances, most first. A
// fault wraps store.ErrCorrupt.
func ReadKeptRetainers(ix *store.Index, h *model.Heap) (*KeptRetainers, error) {
	return readKept(ix, SectionKeptRetainers, func(k *KeptRetainers) error { return k.check(h) })
}

// check reports what in k cannot be of heap h's classes.
func (k *KeptRetainers) check(h *model.Heap) error {
	if k.Paths < 1 || k.Paths > KeptRetainerPaths {
		return fmt.Errorf("%d paths per class", k.Paths)
	}
	for i, c := range k.Left {
		if c < 0 || int(c) >= len(h.Classes) || i > 0 && c <= k.Left[i-1] {
			return fmt.Errorf("class %d left out of order or range", c)
		}
	}
	for i, c := range k.Classes {
		if c.Class < 0 || int(c.Class) >= len(h.Classes) || i > 0 && c.Class <= k.Classes[i-1].Class || slices.Contains(k.Left, c.Class) {
			return fmt.Errorf("class %d out of order or range", c.Class)
		}
		if err := checkKeptClass(c, h.Classes[c.Class], k.Paths); err != nil {
			return fmt.Errorf("class %d: %v", c.Class, err)
		}
	}
	return nil
}

// checkKeptClass reports what in c cannot be the paths of class cl, with
// at most paths of them.
func checkKeptClass(c KeptClassRetainers, cl model.Class, paths int) error {
	held, steps := int64(0), 0
	if c.Unreached < 0 || c.Targets > cl.Instances || len(c.Paths) > paths || len(c.First) != len(c.Paths) || c.Offsets != nil && len(c.Offsets) != len(c.Paths) {
		return fmt.Errorf("%d instances, %d unreached, %d paths", c.Targets, c.Unreached, len(c.Paths))
	}
	for j, p := range c.Paths {
		last := len(p.Chain) - 1
		if p.Objects < 1 || last < 0 || p.Chain[last].Class != cl.Name || c.First[j] < 0 ||
			j > 0 && (p.Objects > c.Paths[j-1].Objects || p.Objects == c.Paths[j-1].Objects && c.First[j] <= c.First[j-1]) {
			return fmt.Errorf("path %d does not end at one of its %d instances", j, p.Objects)
		}
		held += p.Objects
		if steps += len(p.Chain); steps > keptRetainerSteps {
			return fmt.Errorf("its paths take more than %d steps", keptRetainerSteps)
		}
		if c.Offsets != nil && !stepsOf(c.Offsets[j], p.Chain) {
			return fmt.Errorf("path %d: its offsets are not those of its objects", j)
		}
	}
	if held > c.Targets-c.Unreached {
		return fmt.Errorf("its paths hold %d instances of %d reached", held, c.Targets-c.Unreached)
	}
	return nil
}

// KeepRetainers works out the KeptRetainers of the class chains of a
// heap's strong shortest path tree t, whose paths describe describes.
// Where offsets is set, describe leaves the paths' labels to the
// questions, and offsets gives the offsets of the records of objects
// (model.RecordOffsets): those of each path's objects but its last are
// kept beside it.
func KeepRetainers(chains *graph.ClassChains, t *graph.PathTree, describe func(graph.RetainerPaths) (Retainers, error), offsets func([]model.ObjectIndex) []int64) (*KeptRetainers, error) {
	return keepRetainers(chains, t, describe, offsets, keptRetainerSteps)
}

// keepRetainers is KeepRetainers leaving out the classes whose paths
// take more than most steps together.
func keepRetainers(chains *graph.ClassChains, t *graph.PathTree, describe func(graph.RetainerPaths) (Retainers, error), offsets func([]model.ObjectIndex) []int64, most int) (*KeptRetainers, error) {
	k := &KeptRetainers{Paths: KeptRetainerPaths, Classes: []KeptClassRetainers{}, Left: []int32{}}
	var p graph.RetainerPaths
	chains.EachClass(func(c model.ClassIndex, targets, unreached int64, groups [][2]int64) {
		kc := KeptClassRetainers{Class: int32(c), Targets: targets, Unreached: unreached, First: []int64{}}
		var found [][]model.ObjectIndex
		steps := 0
		for _, g := range groups[:min(KeptRetainerPaths, len(groups))] {
			ch := t.ChainWithin(model.ObjectIndex(g[0]), most-steps)
			if ch == nil {
				k.Left = append(k.Left, int32(c))
				return
			}
			steps += len(ch)
			found = append(found, ch)
			kc.First = append(kc.First, g[0])
		}
		for i, ch := range found {
			p.Chains = append(p.Chains, ch)
			p.Objects = append(p.Objects, groups[i][1])
			if offsets != nil {
				kc.Offsets = append(kc.Offsets, offsets(ch[:len(ch)-1]))
			}
		}
		k.Classes = append(k.Classes, kc)
	})
	described, err := describe(p)
	if err != nil {
		return nil, err
	}
	next := 0
	for i := range k.Classes {
		n := len(k.Classes[i].First)
		k.Classes[i].Paths = described.Paths[next : next+n : next+n]
		next += n
	}
	return k, nil
}

// stepsOf reports whether offsets can be those of the objects of chain
// but its last: one each, in a file or -1, the objects' ids written as
// ObjectID writes them.
func stepsOf(offsets []int64, chain []PathStep) bool {
	if len(offsets) != len(chain)-1 {
		return false
	}
	for s, step := range chain {
		if _, ok := parseObjectID(step.ObjectID); !ok || s < len(offsets) && offsets[s] < -1 {
			return false
		}
	}
	return true
}

// pathSteps are the steps of chain, whose objects but the last have
// their records at offsets (checked by stepsOf), that the question
// labels, and the position in chain of the object of each: those of the
// offsets not -1.
func pathSteps(offsets []int64, chain []PathStep) (steps []model.StepAt, at []int) {
	for s, off := range offsets {
		if off < 0 {
			continue
		}
		from, _ := parseObjectID(chain[s].ObjectID)
		to, _ := parseObjectID(chain[s+1].ObjectID)
		steps = append(steps, model.StepAt{Offset: off, From: from, To: to})
		at = append(at, s)
	}
	return steps, at
}

// parseObjectID reads an id as ObjectID writes it.
func parseObjectID(s string) (uint64, bool) {
	hex, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseUint(hex, 16, 64)
	return id, err == nil
}
