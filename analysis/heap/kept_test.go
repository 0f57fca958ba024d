package heap

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/internal/testload"
	"github.com/hprofctl/hprofctl/model"
)

// keptHeaps are the heaps the kept answers are compared on: a JVM's
// (JDK 17, a few thousand objects at the top of its tree) and random
// ones (a few GC roots, chains, cycles, unreachable objects).
func keptHeaps(t *testing.T) map[string]*model.Heap {
	heaps := map[string]*model.Heap{"jdk17-default": testload.Heap(t, "../../testdata/jvm/jdk17-default.hprof.gz")}
	for seed := range uint64(12) {
		heaps[fmt.Sprintf("random-%d", seed)] = analysistest.RandomHeap(t, seed)
	}
	return heaps
}

// roundTrip returns v as it reads back from its JSON, as an index keeps
// it.
func roundTrip[T any](t *testing.T, v *T) *T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// sameJSON reports whether a and b are written alike as JSON, as the
// reports write them.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(x) == string(y)
}

// TestKeptDominatorsAnswerAsComputed: the top of the dominator tree kept
// for an index, read back from its JSON, answers every page and number
// of children within what it keeps as Dominators computes them over the
// whole tree, passes its own checks against the tree's totals, and
// declines what it does not keep.
func TestKeptDominatorsAnswerAsComputed(t *testing.T) {
	for name, h := range keptHeaps(t) {
		r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeJVM})
		if err != nil {
			t.Fatal(err)
		}
		tops := len(r.TopLevel())
		totals := graph.Totals{ReachableObjects: r.ReachableObjects(), ReachableBytes: r.ReachableBytes(), Unreachable: r.Unreachable, UnreachableBytes: r.UnreachableBytes}
		for _, kept := range []struct{ rows, children int }{{keptDominatorRows, keptDominatorChildren}, {3, 2}} {
			k := roundTrip(t, keepDominators(h, r, model.SizeJVM, kept.rows, kept.children))
			if err := k.check(keptTotals(totals)); err != nil {
				t.Fatalf("%s: the kept rows fail their checks: %v", name, err)
			}
			answered := 0
			for _, top := range []int{0, 1, 2, 3, 5, 20, kept.rows, kept.rows + 1} {
				for _, off := range []int{0, 1, 2, 4, tops} {
					for _, children := range []int{0, 1, 2, 3, 10, kept.children, kept.children + 1} {
						o := DominatorOptions{Top: top, Offset: off, Children: children, Size: model.SizeJVM}
						got, ok := k.Answer(o)
						holds := children <= kept.children && (top > 0 && min(off+top, tops) <= kept.rows || tops <= kept.rows)
						if ok != holds {
							t.Fatalf("%s kept %v: top %d offset %d children %d of %d rows: answered %v, want %v", name, kept, top, off, children, tops, ok, holds)
						}
						if !ok {
							continue
						}
						answered++
						if want := Dominators(h, r, o); !sameJSON(t, got, want) || !reflect.DeepEqual(got.Rows == nil, want.Rows == nil) {
							t.Fatalf("%s kept %v: top %d offset %d children %d: the kept answer differs from the computed one", name, kept, top, off, children)
						}
					}
				}
			}
			if answered == 0 {
				t.Fatalf("%s: the kept rows answered nothing", name)
			}
			for _, o := range []DominatorOptions{{Top: 1, ByClass: true}, {Top: 1, Size: model.SizeFields}, {Top: 1, Children: -1}} {
				if _, ok := k.Answer(o); ok {
					t.Errorf("%s: the kept rows answer %+v, which they do not hold", name, o)
				}
			}
		}
	}
}

// TestKeptLeaksAnswerAsComputed: the leak suspects kept for an index,
// read back from their JSON, answer at their threshold with any number
// of classes up to those kept as FindLeaks finds them, pass their own
// checks, and decline other thresholds and more classes.
func TestKeptLeaksAnswerAsComputed(t *testing.T) {
	suspects := 0
	for name, h := range keptHeaps(t) {
		r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: model.SizeJVM})
		if err != nil {
			t.Fatal(err)
		}
		totals := graph.Totals{ReachableObjects: r.ReachableObjects(), ReachableBytes: r.ReachableBytes(), Unreachable: r.Unreachable, UnreachableBytes: r.UnreachableBytes}
		for _, threshold := range []float64{0.001, 0.01, 0.1} {
			l := FindLeaks(h, r, LeakOptions{Threshold: threshold, Classes: KeptLeakClasses})
			l.Describe(h, nil, nil)
			k := roundTrip(t, &KeptLeaks{Size: model.SizeJVM, Classes: KeptLeakClasses, Report: l, PathRetained: l.PathRetainedBytes(r)})
			if err := k.check(keptTotals(totals)); err != nil {
				t.Fatalf("%s at %v: the kept suspects fail their checks: %v", name, threshold, err)
			}
			suspects += len(l.Suspects)
			for _, classes := range []int{0, 1, 5, KeptLeakClasses} {
				got, retained, ok := k.Answer(threshold, classes, model.SizeJVM)
				if !ok {
					t.Fatalf("%s at %v: %d classes not answered", name, threshold, classes)
				}
				want := FindLeaks(h, r, LeakOptions{Threshold: threshold, Classes: classes})
				want.Describe(h, nil, nil)
				if !sameJSON(t, got.Suspects, want.Suspects) || !reflect.DeepEqual(retained, want.PathRetainedBytes(r)) ||
					got.TotalBytes != want.TotalBytes || got.Unreachable != want.Unreachable || got.Threshold != want.Threshold {
					t.Fatalf("%s at %v with %d classes: the kept answer differs from the computed one", name, threshold, classes)
				}
			}
			for _, declined := range []struct {
				threshold float64
				classes   int
				size      model.SizeMode
			}{{threshold * 2, 5, model.SizeJVM}, {threshold, KeptLeakClasses + 1, model.SizeJVM}, {threshold, 5, model.SizeFields}} {
				if _, _, ok := k.Answer(declined.threshold, declined.classes, declined.size); ok {
					t.Errorf("%s: the kept suspects answer %+v, which they do not hold", name, declined)
				}
			}
		}
	}
	if suspects == 0 {
		t.Fatal("no heap has a suspect: the comparison shows nothing")
	}
}

// TestKeptRetainersAnswerAsComputed: the paths of `retainers --class`
// kept for an index, read back from their JSON, answer every pattern
// (one class, several, every class, none) with up to the kept number of
// paths as the search over the whole shortest path tree finds them, pass
// their own checks against the classes, and decline more paths and the
// patterns that match a class whose paths are too long to keep (the
// random heaps' long chains). Kept with their steps, for the question to
// label (a compressed dump), the answers take each step's label from
// what reads them, in place: each step labeled with its two ids here.
func TestKeptRetainersAnswerAsComputed(t *testing.T) {
	patterns := []string{`.`, `^App1$`, `App`, `Object`, `^java\.lang\.String$`, `java\.lang\.(String|Thread)`, `nothing matches`}
	answered, declined, tampered := 0, 0, 0
	for name, h := range keptHeaps(t) {
		tree, chains := graph.StrongPathsWithChains(h)
		describe := func(p graph.RetainerPaths) (Retainers, error) { return DescribePaths(h, p, true, nil, nil), nil }
		for _, steps := range []int{keptRetainerSteps, 6} {
			for _, labeledAtBuild := range []func(model.ObjectIndex) bool{nil, func(model.ObjectIndex) bool { return false }, func(x model.ObjectIndex) bool { return x%2 == 1 }} {
				var offsets func([]model.ObjectIndex) []int64
				if labeledAtBuild != nil {
					offsets = func(objs []model.ObjectIndex) []int64 {
						at := model.RecordOffsets(h, objs)
						for k, x := range objs {
							if labeledAtBuild(x) {
								at[k] = -1
							}
						}
						return at
					}
				}
				k, err := keepRetainers(chains, tree, describe, offsets, steps)
				if err != nil {
					t.Fatal(err)
				}
				k = roundTrip(t, k)
				if err := k.check(h); err != nil {
					t.Fatalf("%s: the kept paths fail their checks: %v", name, err)
				}
				if offsets != nil && checkOffsetsChecked(t, name, h, k) {
					tampered++
				}
				answered, declined = compareKeptRetainers(t, name, h, k, tree, patterns, labeledAtBuild, answered, declined)
			}
		}
	}
	if answered == 0 || declined == 0 {
		t.Fatalf("%d answers from the kept paths, %d declined: the comparison shows less than it should", answered, declined)
	}
}

// checkOffsetsChecked fails t when the checks of k pass with the
// offsets of a path of one step or more cut short, or one of them below
// -1 (the mark of a step the build labeled); false when no path has a
// step.
func checkOffsetsChecked(t *testing.T, name string, h *model.Heap, k *KeptRetainers) bool {
	t.Helper()
	for c := range k.Classes {
		for p, offsets := range k.Classes[c].Offsets {
			if len(offsets) == 0 {
				continue
			}
			short, negative := roundTrip(t, k), roundTrip(t, k)
			short.Classes[c].Offsets[p] = offsets[1:]
			negative.Classes[c].Offsets[p][len(offsets)-1] = -2
			if short.check(h) == nil || negative.check(h) == nil {
				t.Fatalf("%s: offsets cut short or below -1 pass the checks", name)
			}
			return true
		}
	}
	return false
}

// stepLabel is the label TestKeptRetainersAnswerAsComputed gives the
// step from the object of id from to that of id to.
func stepLabel(from, to uint64) string { return fmt.Sprintf("%x>%x", from, to) }

// stepLabels labels steps with stepLabel, as model.ReadStepLabels would
// read them.
func stepLabels(steps []model.StepAt) ([]model.StepLabel, error) {
	out := make([]model.StepLabel, len(steps))
	for k, st := range steps {
		out[k] = model.StepLabel{Label: stepLabel(st.From, st.To)}
	}
	return out, nil
}

// pathStepLabels labels the steps of p's chains with stepLabel, as
// model.ReadLabelsTo labels references, but those from the objects
// labeled at build.
func pathStepLabels(h *model.Heap, p graph.RetainerPaths, labeledAtBuild func(model.ObjectIndex) bool) map[model.ObjectIndex][]model.LabeledRef {
	labels := map[model.ObjectIndex][]model.LabeledRef{}
	for _, c := range p.Chains {
		for s := 1; s < len(c); s++ {
			if labeledAtBuild(c[s-1]) {
				continue
			}
			labels[c[s-1]] = append(labels[c[s-1]], model.LabeledRef{To: c[s], Label: stepLabel(h.ObjectID(c[s-1]), h.ObjectID(c[s]))})
		}
	}
	return labels
}

// compareKeptRetainers compares the answers of k for patterns with
// those the search over the shortest path tree gives (with the steps
// labeled by stepLabel where k keeps steps to label, but those from the
// objects labeledAtBuild), adding to the counts of answers and of
// patterns declined.
func compareKeptRetainers(t *testing.T, name string, h *model.Heap, k *KeptRetainers, tree *graph.PathTree, patterns []string, labeledAtBuild func(model.ObjectIndex) bool, answered, declined int) (int, int) {
	t.Helper()
	for _, pattern := range patterns {
		re := regexp.MustCompile(pattern)
		match := graph.MatchingClasses(h, re)
		left := slices.ContainsFunc(k.Left, func(c int32) bool { return match[c] })
		for _, paths := range []int{0, 1, 3, KeptRetainerPaths} {
			got, ok, err := k.Answer(match, paths, stepLabels)
			if err != nil {
				t.Fatal(err)
			}
			if ok == left {
				t.Fatalf("%s: %s with %d paths answered: %v, matching a class left out: %v", name, pattern, paths, ok, left)
			}
			if !ok {
				declined++
				continue
			}
			answered++
			p := graph.ShortestPaths(h, graph.RetainerOptions{Class: re, Paths: paths, Strong: tree})
			var labels map[model.ObjectIndex][]model.LabeledRef
			if labeledAtBuild != nil {
				labels = pathStepLabels(h, p, labeledAtBuild)
			}
			if want := DescribePaths(h, p, true, labels, nil); !sameJSON(t, got, want) {
				t.Fatalf("%s: %s with %d paths (steps labeled by the question: %v): the kept answer differs from the computed one", name, pattern, paths, labeledAtBuild != nil)
			}
		}
		if _, ok, _ := k.Answer(match, KeptRetainerPaths+1, stepLabels); ok {
			t.Errorf("%s: %d paths answered, more than kept", name, KeptRetainerPaths+1)
		}
	}
	return answered, declined
}
