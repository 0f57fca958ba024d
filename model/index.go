package model

import (
	"fmt"
	"slices"
)

// objectTable collects objects in arrival order while a dump streams; index
// turns it into the Heap's id-ordered tables.
type objectTable struct {
	ids      []uint64
	classOf  []ClassIndex
	lengths  []uint32
	refStart []uint64 // per arrival object: start in rawRefs (len = objects+1 at the end)
	rawRefs  []uint64 // referenced ids, zeros dropped
}

func (t *objectTable) reset() { *t = objectTable{} }

// add appends an object and returns its arrival index.
func (t *objectTable) add(id uint64, class ClassIndex, length uint32) int {
	t.ids = append(t.ids, id)
	t.classOf = append(t.classOf, class)
	t.lengths = append(t.lengths, length)
	t.refStart = append(t.refStart, uint64(len(t.rawRefs)))
	return len(t.ids) - 1
}

// addRef appends a reference of the most recently added object.
func (t *objectTable) addRef(id uint64) {
	if id != 0 {
		t.rawRefs = append(t.rawRefs, id)
	}
}

// indexResult reports what indexing found.
type indexResult struct {
	dangling      int64  // references to ids that are not in the dump
	firstDangling uint64 // one such id
	duplicates    int64  // objects whose id was seen before (later ones dropped)
	firstDup      uint64
}

// index sorts the objects by id into h and resolves references to indices.
// Deferred references (objects whose class layout came late) are given as
// extra per-arrival lists in late.
func (t *objectTable) index(h *Heap, late map[int][]uint64) (indexResult, error) {
	var res indexResult
	n := len(t.ids)
	if n >= int(None) {
		return res, fmt.Errorf("%d objects exceed the model's limit of %d", n, None-1)
	}
	t.refStart = append(t.refStart, uint64(len(t.rawRefs)))

	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	if !slices.IsSorted(t.ids) {
		ids := t.ids
		slices.SortStableFunc(order, func(a, b uint32) int {
			switch {
			case ids[a] < ids[b]:
				return -1
			case ids[a] > ids[b]:
				return 1
			}
			return 0
		})
	}
	// Drop duplicate ids, keeping the first arrival.
	keep := order[:0]
	for k, a := range order {
		if k > 0 && t.ids[a] == t.ids[order[k-1]] {
			res.duplicates++
			if res.firstDup == 0 {
				res.firstDup = t.ids[a]
			}
			continue
		}
		keep = append(keep, a)
	}
	order = keep
	n = len(order)

	h.ids = make([]uint64, n)
	h.classOf = make([]ClassIndex, n)
	h.lengths = make([]uint32, n)
	for i, a := range order {
		h.ids[i] = t.ids[a]
		h.classOf[i] = t.classOf[a]
		h.lengths[i] = t.lengths[a]
	}
	t.ids, t.classOf, t.lengths = nil, nil, nil

	total := uint64(len(t.rawRefs))
	for _, l := range late {
		total += uint64(len(l))
	}
	if total >= uint64(None) {
		return res, fmt.Errorf("%d references exceed the model's limit of %d", total, None-1)
	}
	h.refStart = make([]uint32, n+1)
	h.refs = make([]ObjectIndex, 0, total)
	lookup := newIDLookup(h.ids)
	resolve := func(id uint64) {
		if i, ok := lookup.find(id); ok {
			h.refs = append(h.refs, ObjectIndex(i))
			return
		}
		res.dangling++
		if res.firstDangling == 0 {
			res.firstDangling = id
		}
	}
	for i, a := range order {
		h.refStart[i] = uint32(len(h.refs))
		for _, id := range t.rawRefs[t.refStart[a]:t.refStart[a+1]] {
			resolve(id)
		}
		for _, id := range late[int(a)] {
			resolve(id)
		}
	}
	h.refStart[n] = uint32(len(h.refs))
	t.reset()
	return res, nil
}

// idLookup finds ids in a sorted slice: a bucket table over the high bits
// narrows each binary search to a few entries.
type idLookup struct {
	ids    []uint64
	min    uint64
	shift  uint
	bucket []uint32 // bucket b covers ids[bucket[b]:bucket[b+1]]
}

func newIDLookup(ids []uint64) *idLookup {
	l := &idLookup{ids: ids}
	if len(ids) == 0 {
		return l
	}
	l.min = ids[0]
	span := ids[len(ids)-1] - l.min
	buckets := uint64(1)
	for buckets < uint64(len(ids))/4 && buckets < 1<<24 {
		buckets <<= 1
	}
	for span>>l.shift >= buckets {
		l.shift++
	}
	nb := (span >> l.shift) + 1
	l.bucket = make([]uint32, nb+1)
	k := 0
	for b := uint64(0); b <= nb; b++ {
		for k < len(ids) && (ids[k]-l.min)>>l.shift < b {
			k++
		}
		l.bucket[b] = uint32(k)
	}
	return l
}

func (l *idLookup) find(id uint64) (int, bool) {
	if len(l.ids) == 0 || id < l.min {
		return 0, false
	}
	b := (id - l.min) >> l.shift
	if b+1 >= uint64(len(l.bucket)) {
		return 0, false
	}
	lo, hi := int(l.bucket[b]), int(l.bucket[b+1])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.ids[m] < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(l.ids) && l.ids[lo] == id {
		return lo, true
	}
	return 0, false
}
