package graph

import (
	"errors"
	"fmt"
	"math"

	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/model/store"
)

// The sections a Retention and the strong shortest path tree are kept in,
// in an index file.
const (
	sectionRetentionMeta = "retention.meta"
	sectionIdom          = "retention.idom"
	sectionRetainedBytes = "retention.retained-bytes" // a store.Narrow of uint16
	sectionRetainedCount = "retention.retained-count" // a store.Narrow of uint8
	sectionParentDiffers = "paths.strong-parent.differs"
	sectionParentOther   = "paths.strong-parent.other"
)

// retentionMeta is what a Retention keeps besides its per-object arrays.
type retentionMeta struct {
	Size             model.SizeMode
	Unreachable      int64
	UnreachableBytes int64
	// ReachableBytes is the retained size of the virtual root.
	ReachableBytes int64
}

// WriteIndex writes the dominator tree r (built without KeepUnreachable)
// and the strong shortest path tree t into the index w. Retained sizes
// and counts are kept narrow (most objects retain little), the path tree
// as its differences from the dominator tree (keptParents).
func WriteIndex(w *store.Writer, r *Retention, t *PathTree) error {
	if r.KeptUnreachable {
		return errors.New("a dominator tree that keeps unreachable objects is not indexed")
	}
	if t.parent.kept != nil || r.retainedCount.kept != nil {
		return errors.New("trees read from an index are not indexed again")
	}
	m := retentionMeta{Size: r.size, Unreachable: r.Unreachable, UnreachableBytes: r.UnreachableBytes, ReachableBytes: r.reachedBytes}
	n := len(r.idom)
	if err := errors.Join(
		w.WriteJSON(sectionRetentionMeta, &m),
		store.WriteArray(w, sectionIdom, r.idom),
		store.WriteNarrow[uint16](w, sectionRetainedBytes, n, func(lo int, vals []uint64) {
			for k := range vals {
				vals[k] = uint64(r.retainedBytes.at(lo + k))
			}
		}),
		store.WriteNarrow[uint8](w, sectionRetainedCount, n, store.FillFrom(r.retainedCount.slice)),
	); err != nil {
		return err
	}
	differs, other := parentExceptions(t.parent.slice, r.idom)
	defer func() {
		bigmem.Free(differs)
		bigmem.Free(other)
	}()
	return errors.Join(
		store.WriteArray(w, sectionParentDiffers, differs),
		store.WriteArray(w, sectionParentOther, other),
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
	var (
		bytes   store.Narrow[uint16]
		count   store.Narrow[uint8]
		differs []uint64
		other   []uint32
		err     error
	)
	// Each object's dominator and parent is an object or a marker,
	// checked as the checksums are; that their chains end is checked by
	// CheckIndexed, when the tree is first used.
	store.LoadOf(ix, sectionIdom, store.Elements{Below: uint32(n), Marks: uint32(NotReached)}, &r.idom, &err)
	store.LoadNarrow(ix, sectionRetainedBytes, n, &bytes, &err)
	store.LoadNarrow(ix, sectionRetainedCount, n, &count, &err)
	store.Load(ix, sectionParentDiffers, &differs, &err)
	store.LoadOf(ix, sectionParentOther, store.Elements{Below: uint32(n), Marks: rootParent}, &other, &err)
	if err != nil {
		return nil, nil, err
	}
	if len(r.idom) != n {
		return nil, nil, fmt.Errorf("%w: the dominator tree's arrays do not fit %d objects", store.ErrCorrupt, n)
	}
	kept, ok := newKeptParents(r.idom, differs, other)
	if !ok {
		return nil, nil, fmt.Errorf("%w: the shortest path tree's %d parents apart from the dominators do not fit its %d bits", store.ErrCorrupt, len(other), len(differs))
	}
	r.retainedBytes = keptSizes(&bytes)
	r.retainedCount = keptCounts(&count)
	return r, &PathTree{parent: parents{kept: kept}}, nil
}

// Totals are what a dominator tree kept in an index holds, and what it
// leaves out.
type Totals struct {
	ReachableObjects, ReachableBytes int64
	Unreachable, UnreachableBytes    int64
}

// ReadTotals reads the totals of the dominator tree that WriteIndex wrote
// into ix for a heap of n objects, from its small section alone: the
// retained sizes and the tree are not read. A fault wraps
// store.ErrCorrupt.
func ReadTotals(ix *store.Index, n int) (Totals, error) {
	var m retentionMeta
	if err := ix.JSON(sectionRetentionMeta, &m); err != nil {
		return Totals{}, err
	}
	if m.Unreachable < 0 || m.Unreachable > int64(n) {
		return Totals{}, fmt.Errorf("%w: %d unreachable objects of %d", store.ErrCorrupt, m.Unreachable, n)
	}
	return Totals{ReachableObjects: int64(n) - m.Unreachable, ReachableBytes: m.ReachableBytes, Unreachable: m.Unreachable, UnreachableBytes: m.UnreachableBytes}, nil
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
	c.retainedBytes = c.ownSizes()
	_, c.reachedBytes = c.addUp(c.retainedBytes, nil, func(visit func(model.ObjectIndex)) { treeBottomUp(c.idom, visit) })
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
	n := uint32(up.len())
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
			i = up.at(model.ObjectIndex(i))
		}
		for j := start; j < n && !bit(done, j); j = up.at(model.ObjectIndex(j)) {
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
	if c := r.retainedCount; c.narrow != nil {
		return checkCounts(r, c.narrow, math.MaxUint8, c.kept.Big)
	}
	return checkCounts(r, r.retainedCount.slice, math.MaxUint32, nil)
}

// checkCounts is CheckIndexed over the retained counts as kept: each in
// counts, or given by big where counts holds mark. An object whose count
// is a mark retains more than one whose count is not, so that most
// comparisons need no look-up.
func checkCounts[C uint8 | uint32](r *Retention, counts []C, mark C, big func(int) uint64) error {
	value := func(p int) int64 {
		if v := counts[p]; v != mark {
			return int64(v)
		}
		return int64(big(p))
	}
	var unreached, top int64
	for i, d := range r.idom {
		own := counts[i]
		switch {
		case d == NotReached:
			unreached++
			if own != 0 || r.retainedBytes.at(i) != 0 {
				return fmt.Errorf("%w: unreachable object %d retains %d objects", store.ErrCorrupt, i, value(i))
			}
		case d == model.NoObject:
			top += value(i)
		case counts[d] == mark && own != mark:
		case value(int(d)) <= value(i):
			return fmt.Errorf("%w: object %d's dominator %d retains %d objects, it retains %d", store.ErrCorrupt, i, d, value(int(d)), value(i))
		}
		if d != NotReached && own == 0 {
			return fmt.Errorf("%w: reachable object %d retains no object, not even itself", store.ErrCorrupt, i)
		}
	}
	if unreached != r.Unreachable || top != r.reachedObjects {
		return fmt.Errorf("%w: %d objects unreachable and %d retained under the root, the index says %d and %d",
			store.ErrCorrupt, unreached, top, r.Unreachable, r.reachedObjects)
	}
	return nil
}
