package graph

import (
	"path/filepath"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/internal/analysistest"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// TestIndexRoundTrip writes the dominator tree and the shortest path tree
// of random graphs into an index and reads them back: every object's
// dominator, retained objects and bytes, and parent (kept as its
// differences from the dominators) are those computed, and both trees
// pass their checks. The parents that differ are few but present.
func TestIndexRoundTrip(t *testing.T) {
	differing := 0
	for seed := range uint64(20) {
		g := analysistest.NewRandomGraph(seed)
		h, _, _ := g.Load(t)
		r, err := ComputeRetention(h, RetentionOptions{Size: model.SizeJVM})
		if err != nil {
			t.Fatal(err)
		}
		paths := StrongPaths(h)
		ix := writeTrees(t, r, paths)
		kr, kp, err := ReadIndex(ix, h)
		if err != nil {
			t.Fatal(err)
		}
		if err := kr.CheckIndexed(); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		if err := kp.CheckIndexed(); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		for i := range h.NumObjects() {
			o := model.ObjectIndex(i)
			if kp.parent.at(o) != paths.parent.at(o) {
				t.Errorf("seed %d: object %d: parent %d read back, %d computed", seed, i, kp.parent.at(o), paths.parent.at(o))
			}
			if kp.parent.at(o) != parentOfDominator(r.ImmediateDominator(o)) {
				differing++
			}
			if kr.ImmediateDominator(o) != r.ImmediateDominator(o) || kr.RetainedObjects(o) != r.RetainedObjects(o) || kr.RetainedBytes(o) != r.RetainedBytes(o) {
				t.Errorf("seed %d: object %d: dominator, objects, bytes %d %d %d read back, %d %d %d computed", seed, i,
					kr.ImmediateDominator(o), kr.RetainedObjects(o), kr.RetainedBytes(o), r.ImmediateDominator(o), r.RetainedObjects(o), r.RetainedBytes(o))
			}
		}
	}
	if differing == 0 {
		t.Error("no object's parent differs from its dominator: the exceptions went untested")
	}
}

// writeTrees writes r and paths into a new index and opens it.
func writeTrees(t *testing.T, r *Retention, paths *PathTree) *store.Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x"+store.Suffix)
	id := store.Identity{Content: 1}
	w, err := store.Create(path, id, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := WriteIndex(w, r, paths); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	ix, err := store.Open(path, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// TestKeptParentsMisfit: exception bits that do not match the parents
// after them, or lie past the last object, are refused; sound ones read.
func TestKeptParentsMisfit(t *testing.T) {
	idom := []model.ObjectIndex{VirtualRoot, 0, NotReached, 1, 0}
	for name, c := range map[string]struct {
		differs []uint64
		other   []uint32
	}{
		"a parent too many":    {[]uint64{0b10}, []uint32{3, 4}},
		"a parent missing":     {[]uint64{0b110}, []uint32{3}},
		"a bit past the last":  {[]uint64{1 << 5}, []uint32{3}},
		"a word too many":      {[]uint64{0, 0}, nil},
		"no words for objects": {nil, nil},
	} {
		if _, ok := newKeptParents(idom, c.differs, c.other); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	k, ok := newKeptParents(idom, []uint64{0b10010}, []uint32{0, 3})
	if !ok {
		t.Fatal("sound exceptions refused")
	}
	want := []uint32{rootParent, 0, noParent, 1, 3}
	for i, p := range want {
		if got := k.at(model.ObjectIndex(i)); got != p {
			t.Errorf("object %d: parent %d, want %d", i, got, p)
		}
	}
}
