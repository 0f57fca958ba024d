package graph

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
)

// The sections a Retention and the strong shortest path tree are kept in,
// in an index file.
const (
	sectionRetentionMeta = "retention.meta"
	sectionIdom          = "retention.idom"
	sectionRetainedBytes = "retention.retained-bytes"
	sectionRetainedCount = "retention.retained-count"
	sectionStrongParent  = "paths.strong-parent"
)

// retentionMeta is what a Retention keeps besides its per-object arrays.
type retentionMeta struct {
	Size             model.SizeMode
	Unreachable      int64
	UnreachableBytes int64
	// ReachableBytes is the retained size of the virtual root.
	ReachableBytes int64
	// Large lists the retained sizes from 4 GiB up as pairs of an object
	// and a size.
	Large [][2]int64
}

// WriteIndex writes the dominator tree r (built without KeepUnreachable)
// and the strong shortest path tree t into the index w.
func WriteIndex(w *store.Writer, r *Retention, t *PathTree) error {
	if r.KeptUnreachable {
		return errors.New("a dominator tree that keeps unreachable objects is not indexed")
	}
	m := retentionMeta{Size: r.size, Unreachable: r.Unreachable, UnreachableBytes: r.UnreachableBytes, ReachableBytes: r.reachedBytes}
	for i, v := range r.retainedBytes.large {
		m.Large = append(m.Large, [2]int64{int64(i), v})
	}
	slices.SortFunc(m.Large, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	return errors.Join(
		w.WriteJSON(sectionRetentionMeta, &m),
		store.WriteArray(w, sectionIdom, r.idom),
		store.WriteArray(w, sectionRetainedBytes, r.retainedBytes.small),
		store.WriteArray(w, sectionRetainedCount, r.retainedCount),
		store.WriteArray(w, sectionStrongParent, t.parent),
	)
}

// ReadIndex returns the dominator tree and the strong shortest path tree
// that WriteIndex wrote into ix for heap h (read from the same index). The
// arrays are ix's mapping: ix must stay open while they are used.
func ReadIndex(ix *store.Index, h *model.Heap) (*Retention, *PathTree, error) {
	var m retentionMeta
	if err := ix.JSON(sectionRetentionMeta, &m); err != nil {
		return nil, nil, err
	}
	n := h.NumObjects()
	if m.Unreachable < 0 || m.Unreachable > int64(n) {
		return nil, nil, fmt.Errorf("%w: %d unreachable objects of %d", store.ErrCorrupt, m.Unreachable, n)
	}
	r := &Retention{heap: h, size: m.Size, Unreachable: m.Unreachable, UnreachableBytes: m.UnreachableBytes,
		reachedObjects: int64(n) - m.Unreachable, reachedBytes: m.ReachableBytes}
	t := &PathTree{}
	var err error
	// Each object's dominator and parent is an object or a marker,
	// checked as the checksums are; that their chains end is checked by
	// CheckIndexed, when the tree is first used.
	store.LoadOf(ix, sectionIdom, store.Elements{Below: uint32(n), Marks: uint32(NotReached)}, &r.idom, &err)
	store.Load(ix, sectionRetainedBytes, &r.retainedBytes.small, &err)
	store.Load(ix, sectionRetainedCount, &r.retainedCount, &err)
	store.LoadOf(ix, sectionStrongParent, store.Elements{Below: uint32(n), Marks: rootParent}, &t.parent, &err)
	if err != nil {
		return nil, nil, err
	}
	if len(r.idom) != n || len(t.parent) != n || len(r.retainedBytes.small) != n || len(r.retainedCount) != n {
		return nil, nil, fmt.Errorf("%w: the dominator tree's arrays do not fit %d objects", store.ErrCorrupt, n)
	}
	r.retainedBytes.large = make(map[int]int64, len(m.Large))
	for _, l := range m.Large {
		if l[0] < 0 || l[0] >= int64(n) {
			return nil, nil, fmt.Errorf("%w: retained sizes from 4 GiB up name object %d of %d", store.ErrCorrupt, l[0], n)
		}
		r.retainedBytes.large[int(l[0])] = l[1]
	}
	return r, t, nil
}

// InSize returns r with retained sizes in size mode: r itself when they
// are, else a copy whose sizes are added up again over the same tree
// (the tree does not depend on sizes). r must not keep its unreachable
// objects: the tree no longer tells them apart.
func (r *Retention) InSize(size model.SizeMode) *Retention {
	if size == r.size {
		return r
	}
	c := *r
	c.size = size
	c.retainedBytes, c.reachedBytes = c.addUpRetained(size, func(visit func(model.ObjectIndex)) { treeBottomUp(c.idom, visit) })
	c.UnreachableBytes = unreachableBytes(c.heap, c.idom, NotReached, size)
	return &c
}

// CheckIndexed checks a shortest path tree read from an index (ReadIndex)
// before it is walked: every chain of parents ends at a root or at an
// object no root reaches, so that no walk up the tree goes on forever.
// It takes one pass and two bits per object. A fault wraps
// store.ErrCorrupt.
func (t *PathTree) CheckIndexed() error {
	up := t.parent
	n := uint32(len(up))
	done := make([]uint64, (n+63)/64)   // known to end
	onWalk := make([]uint64, (n+63)/64) // on the walk now climbing
	bit := func(b []uint64, i uint32) bool { return b[i/64]&(1<<(i%64)) != 0 }
	set := func(b []uint64, i uint32) { b[i/64] |= 1 << (i % 64) }
	for start := range n {
		i := start
		for i < n && !bit(done, i) {
			if bit(onWalk, i) {
				return fmt.Errorf("%w: the shortest path tree has a cycle through object %d", store.ErrCorrupt, i)
			}
			set(onWalk, i)
			i = up[i]
		}
		for j := start; j < n && !bit(done, j); j = up[j] {
			set(done, j)
		}
	}
	return nil
}

// CheckIndexed checks a dominator tree read from an index (ReadIndex)
// before it is used, in one pass over the objects: the retained object
// counts add up (the objects the tree leaves out number Unreachable and
// retain nothing; those the virtual root dominates directly retain all
// the others), and each object's dominator retains more objects than it
// does, which also proves that every chain of dominators ends. A fault
// wraps store.ErrCorrupt.
func (r *Retention) CheckIndexed() error {
	var unreached, top int64
	for i, d := range r.idom {
		count := r.retainedCount[i]
		switch {
		case d == NotReached:
			unreached++
			if count != 0 || r.retainedBytes.small[i] != 0 {
				return fmt.Errorf("%w: unreachable object %d retains %d objects", store.ErrCorrupt, i, count)
			}
		case d == model.NoObject:
			top += int64(count)
		case r.retainedCount[d] <= count:
			return fmt.Errorf("%w: object %d's dominator %d retains %d objects, it retains %d", store.ErrCorrupt, i, d, r.retainedCount[d], count)
		}
		if d != NotReached && count == 0 {
			return fmt.Errorf("%w: reachable object %d retains no object, not even itself", store.ErrCorrupt, i)
		}
	}
	if unreached != r.Unreachable || top != r.reachedObjects {
		return fmt.Errorf("%w: %d objects unreachable and %d retained under the root, the index says %d and %d",
			store.ErrCorrupt, unreached, top, r.Unreachable, r.reachedObjects)
	}
	return nil
}
