package graph

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// TestChainOf: a tree that was not checked as a whole gives, through
// ChainOf, the path ChainTo gives where the parents lead to a root, nil
// for an object no root reaches, and an error for parents that loop,
// whether the loop is the object itself, a short cycle at the end of a
// long climb, or a cycle through nearly every object.
func TestChainOf(t *testing.T) {
	const n = 5000
	// Object 0 is a root; 1..999 climb one by one to it; 1000 is
	// unreached; 1001..3999 climb to 4000, 4001, 4002, which loop; 4003
	// is its own parent; 4004..4999 each climb to the next, the last
	// back to 4004.
	parent := make([]uint32, n)
	parent[0] = rootParent
	for i := 1; i < 1000; i++ {
		parent[i] = uint32(i - 1)
	}
	parent[1000] = noParent
	for i := 1001; i < 4000; i++ {
		parent[i] = uint32(i + 1)
	}
	parent[4000], parent[4001], parent[4002] = 4001, 4002, 4000
	parent[4003] = 4003
	for i := 4004; i < n-1; i++ {
		parent[i] = uint32(i + 1)
	}
	parent[n-1] = 4004
	tree := &PathTree{parent: plainParents(parent)}

	got, err := tree.ChainOf(999)
	if err != nil || len(got) != 1000 || got[0] != 0 || got[999] != 999 || !reflect.DeepEqual(got, tree.ChainTo(999)) {
		t.Errorf("ChainOf(999) = %d objects from %v, %v; want the 1000 from 0 up, as ChainTo", len(got), got[:min(len(got), 2)], err)
	}
	if got, err := tree.ChainOf(0); err != nil || !reflect.DeepEqual(got, []model.ObjectIndex{0}) {
		t.Errorf("ChainOf(root) = %v, %v; want [0]", got, err)
	}
	if got, err := tree.ChainOf(1000); got != nil || err != nil {
		t.Errorf("ChainOf(unreached) = %v, %v; want nil, nil", got, err)
	}
	for _, obj := range []model.ObjectIndex{1001, 4000, 4003, 4004, n - 1} {
		if got, err := tree.ChainOf(obj); got != nil || !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "cycle") {
			t.Errorf("ChainOf(%d) = %d objects, %v; want a cycle, ErrCorrupt", obj, len(got), err)
		}
	}
	if _, err := tree.ChainOf(n); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("ChainOf(%d) of %d objects: %v; want ErrCorrupt", n, n, err)
	}
}
