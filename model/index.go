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
	refStart []uint32 // per arrival object: start in refs
	refs     refStore
	tooMany  bool // more references than a uint32 can count
}

func (t *objectTable) reset() { *t = objectTable{refs: refStore{wide: t.refs.wide}} }

// add appends an object and returns its arrival index.
func (t *objectTable) add(id uint64, class ClassIndex, length uint32) int {
	t.ids = append(t.ids, id)
	t.classOf = append(t.classOf, class)
	t.lengths = append(t.lengths, length)
	n := t.refs.len()
	if n >= int(None) {
		t.tooMany = true
	}
	t.refStart = append(t.refStart, uint32(n))
	return len(t.ids) - 1
}

// addRef appends a reference of the most recently added object.
func (t *objectTable) addRef(id uint64) {
	if id != 0 {
		t.refs.add(id)
	}
}

// refStore keeps the referenced ids of a streaming dump in 4 bytes each,
// half of what 8-byte ids take: 4-byte ids as they are; 8-byte ids, which
// HotSpot writes as 8-aligned addresses, as their distance in 8-byte units
// from a base near the first one (a 32 GB window); any other id as an
// escape mark with the full id kept aside.
type refStore struct {
	wide    bool // 8-byte ids
	baseSet bool
	base    uint64
	packed  []uint32
	escaped []escapedRef
}

type escapedRef struct {
	pos uint64
	id  uint64
}

const escapeMark = ^uint32(0)

func (s *refStore) len() int { return len(s.packed) }

func (s *refStore) add(id uint64) {
	v, ok := s.pack(id)
	if !ok {
		s.escaped = append(s.escaped, escapedRef{pos: uint64(len(s.packed)), id: id})
		v = escapeMark
	}
	s.packed = append(s.packed, v)
}

func (s *refStore) pack(id uint64) (uint32, bool) {
	if !s.wide {
		return uint32(id), id < uint64(escapeMark)
	}
	if !s.baseSet {
		s.baseSet = true
		const half = 16 << 30
		if id > half {
			s.base = (id - half) &^ 7
		}
	}
	if id < s.base || id&7 != s.base&7 {
		return 0, false
	}
	d := (id - s.base) >> 3
	return uint32(d), d < uint64(escapeMark)
}

// get returns the id stored at position i.
func (s *refStore) get(i int) uint64 {
	v := s.packed[i]
	if v == escapeMark {
		k, _ := slices.BinarySearchFunc(s.escaped, uint64(i), func(e escapedRef, pos uint64) int {
			switch {
			case e.pos < pos:
				return -1
			case e.pos > pos:
				return 1
			}
			return 0
		})
		return s.escaped[k].id
	}
	if !s.wide {
		return uint64(v)
	}
	return s.base + uint64(v)<<3
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
// extra per-arrival lists in late. Each table is moved over and dropped in
// turn, so that peak memory stays near one copy of the tables.
func (t *objectTable) index(h *Heap, late map[int][]uint64) (indexResult, error) {
	var res indexResult
	n := len(t.ids)
	total := uint64(t.refs.len())
	for _, l := range late {
		total += uint64(len(l))
	}
	if n >= int(None) || t.tooMany || total >= uint64(None) {
		return res, fmt.Errorf("%d objects and %d references exceed the model's limit of %d each", n, total, None-1)
	}
	t.refStart = append(t.refStart, uint32(t.refs.len()))

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

	h.ids = gather(t.ids, order)
	t.ids = nil
	h.classOf = gather(t.classOf, order)
	t.classOf = nil
	h.lengths = gather(t.lengths, order)
	t.lengths = nil

	h.refStart = make([]uint32, n+1)
	h.refs = make([]ObjectIndex, 0, total)
	h.lookup = newIDLookup(h.ids)
	resolve := func(id uint64) {
		if i, ok := h.lookup.find(id); ok {
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
		for k := t.refStart[a]; k < t.refStart[a+1]; k++ {
			resolve(t.refs.get(int(k)))
		}
		for _, id := range late[int(a)] {
			resolve(id)
		}
	}
	h.refStart[n] = uint32(len(h.refs))
	t.reset()
	return res, nil
}

// gather returns src reordered: out[i] = src[order[i]].
func gather[T any](src []T, order []uint32) []T {
	out := make([]T, len(order))
	for i, a := range order {
		out[i] = src[a]
	}
	return out
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
