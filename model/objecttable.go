package model

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/model/store"
)

// objectTable collects objects in arrival order while a dump streams;
// resolve turns it into the Heap's id-ordered tables.
type objectTable struct {
	ids      splitList[uint64]
	classOf  chunkList[ClassIndex]
	lengths  chunkList[uint32]
	refStart chunkList[uint32] // per arrival object: start in refs
	// offsets holds each object's record offset in the dump, when
	// trackOffsets is set (binary HPROF); pos is the offset of the record
	// being read.
	offsets      splitList[int64]
	trackOffsets bool
	pos          int64
	refs         refStore
	tooMany      bool // more references than a uint32 can count
	// referents are the referents of java.lang.ref.Reference objects,
	// in arrival order of their Reference.
	referents []pendingReferent
	// arrayInfo holds what setArrayInfo learnt of each array's elements
	// (its CRC and content flags), one entry per array in arrival order;
	// arrayArrivals marks the arrivals that are arrays.
	arrayInfo     chunkList[uint64]
	arrayArrivals []uint64
	// strings are the Strings' values taken as the dump was read in
	// pieces (LoadOptions.StringValues).
	strings stringTaking
}

type pendingReferent struct {
	arrival int
	id      uint64
}

// addReferent records the referent of Reference object arrival.
func (t *objectTable) addReferent(arrival int, id uint64) {
	t.referents = append(t.referents, pendingReferent{arrival, id})
}

// reset empties the table, its chunks released.
func (t *objectTable) reset() {
	t.ids.free()
	t.classOf.free()
	t.lengths.free()
	t.refStart.free()
	t.offsets.free()
	t.refs.free()
	t.arrayInfo.free()
	t.strings.free()
	*t = objectTable{refs: refStore{wide: t.refs.wide}, trackOffsets: t.trackOffsets}
}

// add appends an object and returns its arrival number.
func (t *objectTable) add(id uint64, class ClassIndex, length uint32) int {
	t.ids.append(id)
	t.classOf.append(class)
	t.lengths.append(length)
	if t.trackOffsets {
		t.offsets.append(t.pos)
	}
	n := t.refs.len()
	if n >= int(None) {
		t.tooMany = true
	}
	t.refStart.append(uint32(n))
	return t.ids.len() - 1
}

// setArrayInfo records what the elements of the most recently added
// object, an array, hold (elementDigest.info).
func (t *objectTable) setArrayInfo(info uint64) {
	t.markArray(t.ids.len() - 1)
	t.arrayInfo.append(info)
}

// markArray marks arrival as an array's.
func (t *objectTable) markArray(arrival int) {
	for len(t.arrayArrivals) <= arrival>>6 {
		t.arrayArrivals = append(t.arrayArrivals, 0)
	}
	t.arrayArrivals[arrival>>6] |= 1 << (arrival & 63)
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
// escape mark with the full id kept aside. The ids kept aside are tables
// of the build as the packed ones are: in a heap of more than 32 GB a
// third of the references can be, 16 bytes each.
type refStore struct {
	wide    bool // 8-byte ids
	baseSet bool
	base    uint64
	packed  chunkList[uint32]
	// escapedAt are the positions of the references kept aside,
	// ascending, and escapedID their ids.
	escapedAt chunkList[uint64]
	escapedID chunkList[uint64]
}

const escapeMark = ^uint32(0)

func (s *refStore) len() int { return s.packed.len() }

func (s *refStore) add(id uint64) {
	v, ok := s.pack(id)
	if !ok {
		s.escape(uint64(s.packed.len()), id)
		v = escapeMark
	}
	s.packed.append(v)
}

// escape keeps aside id, the reference at position pos, which follows
// those kept aside so far.
func (s *refStore) escape(pos, id uint64) {
	s.escapedAt.append(pos)
	s.escapedID.append(id)
}

// escapes returns how many references are kept aside.
func (s *refStore) escapes() int { return s.escapedAt.len() }

// free releases the tables and empties the store, keeping its kind.
func (s *refStore) free() {
	s.packed.free()
	s.escapedAt.free()
	s.escapedID.free()
	*s = refStore{wide: s.wide}
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

// escapeCursor is where one goroutine reading a refStore found the last
// reference kept aside: a read further on searches forward from there,
// in steps that double, rather than through the whole list (resolve reads
// the objects in the order of their ids, mostly that of their records,
// so most of its reads move forward a little).
type escapeCursor struct{ k int }

// get returns the id stored at position i, finding a reference kept
// aside from where c found the last one.
func (s *refStore) get(i int, c *escapeCursor) uint64 {
	v := s.packed.at(i)
	if v == escapeMark {
		return s.escapedID.at(s.escapeIndex(uint64(i), c))
	}
	if !s.wide {
		return uint64(v)
	}
	return s.base + uint64(v)<<3
}

// escapeIndex returns the index in escapedAt of position pos, searching
// forward from c when pos lies at or after the escape c found last.
func (s *refStore) escapeIndex(pos uint64, c *escapeCursor) int {
	at := &s.escapedAt
	n := at.len()
	lo := 0
	hi := n
	if c.k < n && at.at(c.k) <= pos {
		lo = c.k
		step := 1
		for lo+step < n && at.at(lo+step) < pos {
			lo += step
			step *= 2
		}
		hi = min(lo+step, n)
	}
	c.k = lo + sort.Search(hi-lo, func(j int) bool { return at.at(lo+j) >= pos })
	return c.k
}

// resolveResult reports what resolve found.
type resolveResult struct {
	dangling      int64  // references to ids that are not in the dump
	firstDangling uint64 // one such id
	// danglingHolders are the objects holding those references, each
	// with how many it holds, in object order.
	danglingHolders []danglingHolder
	duplicates      int64 // objects whose id was seen before (later ones dropped)
	firstDup        uint64
}

// resolve sorts the objects by id into h and resolves references to
// object numbers (ObjectIndex). Deferred references (objects whose class
// layout came late) are given as extra per-arrival lists in late. phase
// is told as the references' resolution begins.
func (t *objectTable) resolve(h *Heap, late map[int][]uint64, phase func(string)) (resolveResult, error) {
	var res resolveResult
	n := t.ids.len()
	total := uint64(t.refs.len())
	for _, l := range late {
		total += uint64(len(l))
	}
	if n >= int(None) || t.tooMany || total >= uint64(None) {
		return res, fmt.Errorf("%d objects and %d references exceed the model's limit of %d each", n, total, None-1)
	}
	t.refStart.append(uint32(t.refs.len()))

	order := sortOrder(&t.ids)
	// The ids are gathered in order, then looked at for repeats in
	// turn: a dump seldom repeats one, and reading them in order is
	// cheaper than through order.
	h.ids = gatherSplit(&t.ids, order)
	if h.ids.hasRepeats() {
		bigmem.Free(h.ids.low)
		order, res.duplicates, res.firstDup = t.dropDuplicates(order)
		h.ids = gatherSplit(&t.ids, order)
	}
	n = len(order)

	// Each table is moved, then its old copy collected at once: the
	// tables hold no pointers, so a collection costs next to nothing, and
	// it keeps the peak near one copy of the data instead of two. Tables
	// within one chunk are too small for that to matter, and a forced
	// collection then costs more than the load.
	collect := func() {
		if n > 1<<chunkBits {
			runtime.GC()
		}
	}
	defer bigmem.Free(order)
	t.ids.free()
	collect()
	h.classOf = gather(&t.classOf, order)
	t.classOf.free()
	collect()
	h.arrays = gatherArrayLengths(&t.lengths, order, h.classOf, h.Classes)
	t.lengths.free()
	h.contents = gatherArrayContents(&h.arrays, &t.arrayInfo, t.arrayArrivals, order)
	t.arrayInfo.free()
	t.arrayArrivals = nil
	if t.strings.hook != nil {
		h.stringValues = t.strings.gather(order, h.classOf, h.Classes)
		t.strings.free()
	}
	collect()
	if t.trackOffsets {
		offsets := gatherSplit(&t.offsets, order)
		h.offsets = &offsets
		t.offsets.free()
		collect()
	}

	phase("resolving references")
	h.lookup = newIDLookup(h.ids)
	res.dangling, res.firstDangling, res.danglingHolders = t.resolveRefs(h, order, late, int(total), workersFor(n))
	h.referents = t.resolveReferents(h, order)
	t.reset()
	collect()
	return res, nil
}

// dropDuplicates drops the objects of order (sorted by id, then arrival)
// whose id an object before them has, keeping the first arrival; it
// returns how many it dropped and the first id dropped.
func (t *objectTable) dropDuplicates(order []uint32) (kept []uint32, dropped int64, firstID uint64) {
	kept = order[:0]
	for k, a := range order {
		if k > 0 && t.ids.at(int(a)) == t.ids.at(int(order[k-1])) {
			dropped++
			if firstID == 0 {
				firstID = t.ids.at(int(a))
			}
			continue
		}
		kept = append(kept, a)
	}
	return kept, dropped, firstID
}

// resolveRefs fills h.refStart and h.refs with the references of the
// objects in order (total of them, late ones included), each resolved to
// its object's number; references to ids not in h are dropped and
// counted, and the first of them (in object order) returned with the
// objects holding them.
//
// The objects are cut into workers ranges resolved side by side. A
// range's references are written from where its unresolved ones would
// start, so each range has room for all of them without a second copy of
// the table; the dropped ones leave gaps, closed by sliding the ranges
// down in order afterwards.
func (t *objectTable) resolveRefs(h *Heap, order []uint32, late map[int][]uint64, total, workers int) (dangling int64, firstDangling uint64, holders []danglingHolder) {
	n := len(order)
	h.refStart = bigmem.Make[uint32](n + 1)
	refs := bigmem.Make[ObjectIndex](total)
	type part struct {
		raw, from, kept int // references before resolving, where they start, and those kept
		dangling        int64
		firstDangling   uint64
		holders         []danglingHolder
	}
	parts := make([]part, workers)
	// Most dumps have no late references: the map is then not looked
	// up once per object.
	anyLate := len(late) > 0
	if workers > 1 {
		forRanges(n, workers, func(k, lo, hi int) {
			raw := 0
			for _, a := range order[lo:hi] {
				raw += int(t.refStart.at(int(a)+1) - t.refStart.at(int(a)))
				if anyLate {
					raw += len(late[int(a)])
				}
			}
			parts[k].raw = raw
		})
		for k := 1; k < workers; k++ {
			parts[k].from = parts[k-1].from + parts[k-1].raw
		}
	}
	forRanges(n, workers, func(k, lo, hi int) {
		p := &parts[k]
		out := p.from
		holder := ObjectIndex(0)
		resolve := func(id uint64) {
			if i, ok := h.lookup.find(id); ok {
				refs[out] = ObjectIndex(i)
				out++
				return
			}
			p.dangling++
			if p.firstDangling == 0 {
				p.firstDangling = id
			}
			if last := len(p.holders) - 1; last >= 0 && p.holders[last].object == holder {
				p.holders[last].refs++
			} else {
				p.holders = append(p.holders, danglingHolder{holder, 1, id})
			}
		}
		var pacer bigmem.Pacer
		var escapes escapeCursor
		for i := lo; i < hi; i++ {
			pacer.Step()
			holder = ObjectIndex(i)
			a := int(order[i])
			h.refStart[i] = uint32(out)
			for r := t.refStart.at(a); r < t.refStart.at(a+1); r++ {
				resolve(t.refs.get(int(r), &escapes))
			}
			if anyLate {
				for _, id := range late[a] {
					resolve(id)
				}
			}
		}
		p.kept = out - p.from
	})
	kept := 0
	for k := range parts {
		p := &parts[k]
		if gap := p.from - kept; gap > 0 {
			copy(refs[kept:], refs[p.from:p.from+p.kept])
			lo, hi := rangeOf(n, workers, k)
			for i := lo; i < hi; i++ {
				h.refStart[i] -= uint32(gap)
			}
		}
		kept += p.kept
		dangling += p.dangling
		if firstDangling == 0 {
			firstDangling = p.firstDangling
		}
		holders = append(holders, p.holders...)
	}
	h.refStart[n] = uint32(kept)
	h.refs = refs[:kept]
	return dangling, firstDangling, holders
}

// danglingHolder is an object holding references to ids that are not in
// the dump, and how many.
type danglingHolder struct {
	object ObjectIndex
	refs   int64
	first  uint64 // the first id it names that is not in the dump
}

// minRange is the fewest objects worth a goroutine of their own in
// resolve's passes; a variable so that tests can send small heaps through
// every path of the parallel passes.
var minRange = 1 << 16

// workersFor is how many goroutines resolve's passes over n objects use:
// one per processor the process may run on, fewer for a small heap.
func workersFor(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/minRange))
}

// rangeOf is the k-th of workers contiguous ranges that [0,n) is cut
// into.
func rangeOf(n, workers, k int) (lo, hi int) {
	return n * k / workers, n * (k + 1) / workers
}

// rangesPerWorker is how many ranges forSharedRanges cuts the work into
// per goroutine.
const rangesPerWorker = 8

// sharedRanges is how many ranges forSharedRanges cuts its work into for
// workers goroutines.
func sharedRanges(workers int) int {
	if workers <= 1 {
		return 1
	}
	return workers * rangesPerWorker
}

// forSharedRanges cuts [0,n) into sharedRanges(workers) ranges by rangeOf
// and runs fn on each, workers goroutines taking the next range as they
// finish one; it returns when all have returned. A range's k is its
// place in [0,n), for results kept per range and joined in order. Where
// the ranges cost unlike amounts (copied into pages of a new scratch
// file, or into pages a spare one keeps in memory) no goroutine waits
// long on another, as it does on forRanges' one range each.
func forSharedRanges(n, workers int, fn func(k, lo, hi int)) {
	ranges := sharedRanges(workers)
	if ranges == 1 {
		fn(0, 0, n)
		return
	}
	var next atomic.Int64
	forRanges(workers, workers, func(_, _, _ int) {
		for k := int(next.Add(1) - 1); k < ranges; k = int(next.Add(1) - 1) {
			lo, hi := rangeOf(n, ranges, k)
			fn(k, lo, hi)
		}
	})
}

// forRanges runs fn on each range of [0,n) cut by rangeOf, each on a
// goroutine of its own, and returns when all have returned.
func forRanges(n, workers int, fn func(k, lo, hi int)) {
	if workers <= 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(workers)
	for k := range workers {
		go func() {
			defer wg.Done()
			lo, hi := rangeOf(n, workers, k)
			fn(k, lo, hi)
		}()
	}
	wg.Wait()
}

// resolveReferents turns the pending referents into WeakRefs ordered by
// the Reference object's number; referents not in the dump are dropped.
func (t *objectTable) resolveReferents(h *Heap, order []uint32) []WeakRef {
	if len(t.referents) == 0 {
		return nil
	}
	rank := make(map[int]ObjectIndex, len(t.referents))
	isReference := make([]uint64, (len(order)+63)/64+1)
	for _, p := range t.referents {
		rank[p.arrival] = NoObject
		isReference[p.arrival/64] |= 1 << (p.arrival % 64)
	}
	for i, a := range order {
		if isReference[a/64]&(1<<(a%64)) != 0 {
			rank[int(a)] = ObjectIndex(i)
		}
	}
	out := make([]WeakRef, 0, len(t.referents))
	for _, p := range t.referents {
		to, ok := h.Lookup(p.id)
		if from := rank[p.arrival]; ok && from != NoObject {
			out = append(out, WeakRef{From: from, To: to})
		}
	}
	slices.SortFunc(out, func(a, b WeakRef) int { return int(a.From) - int(b.From) })
	return out
}

// gather returns src reordered: out[i] = src[order[i]], in ranges side
// by side.
func gather[T bigmem.Number](src *chunkList[T], order []uint32) []T {
	out := bigmem.Make[T](len(order))
	forSharedRanges(len(order), workersFor(len(order)), func(_, lo, hi int) {
		var pacer bigmem.Pacer
		eachStretch(order, lo, hi, func(at, from, n int) {
			pacer.Advance(n)
			src.copyOut(out[at:at+n], from)
		})
	})
	return out
}

// eachStretch calls fn with each stretch of positions [lo, hi) of order
// that holds consecutive arrivals, the longest it can: positions at to
// at+n-1 of order hold from, from+1, ..., from+n-1. A dump written in
// address order but for a few stretches (HotSpot's class objects, a
// region dumped apart) sorts into a few hundred stretches for tens of
// millions of objects, which are then copied whole rather than an
// object at a time.
func eachStretch(order []uint32, lo, hi int, fn func(at, from, n int)) {
	for at := lo; at < hi; {
		from, n := order[at], 1
		for at+n < hi && order[at+n] == from+uint32(n) {
			n++
		}
		fn(at, int(from), n)
		at += n
	}
}

// splitTable holds uint64 values in 4 bytes each: the low 32 bits per
// entry, the high 32 bits once per run of consecutive entries that share
// them. Any sequence is kept exactly; the nearly ascending ones it holds
// (the sorted object ids, the objects' record offsets) make a handful of
// runs, and a sequence whose high bits change at every entry makes one run
// per entry (12 bytes each).
type splitTable struct {
	low      []uint32
	runStart []uint32 // the first entry of each run: 0, then ascending
	runHigh  []uint32 // the high 32 bits of each run's entries
	// packed, when set, holds the values instead (a table read from an
	// index).
	packed *store.Packed
}

// gatherSplit returns the values of src in the given order as a table.
// Ranges are gathered side by side, each with runs of its own, which are
// joined where a run goes on across ranges.
func gatherSplit[T uint64 | int64](src *splitList[T], order []uint32) splitTable {
	t := splitTable{low: bigmem.Make[uint32](len(order))}
	workers := workersFor(len(order))
	parts := make([]splitTable, sharedRanges(workers))
	forSharedRanges(len(order), workers, func(k, lo, hi int) {
		part := splitTable{low: t.low}
		var pacer bigmem.Pacer
		eachStretch(order, lo, hi, func(at, from, n int) {
			pacer.Advance(n)
			src.copyOut(&part, at, from, n)
		})
		parts[k] = part
	})
	for _, part := range parts {
		for r, high := range part.runHigh {
			if k := len(t.runHigh); k == 0 || t.runHigh[k-1] != high {
				t.runStart = append(t.runStart, part.runStart[r])
				t.runHigh = append(t.runHigh, high)
			}
		}
	}
	return t
}

// hasRepeats reports whether two entries side by side are equal, as
// those of a sorted table with an id twice are; ranges are looked at
// side by side.
func (t *splitTable) hasRepeats() bool {
	n := t.len()
	workers := workersFor(n)
	found := make([]bool, workers)
	forRanges(n, workers, func(k, lo, hi int) {
		for i := max(lo, 1); i < hi; i++ {
			if t.low[i] == t.low[i-1] && t.at(i) == t.at(i-1) {
				found[k] = true
				return
			}
		}
	})
	return slices.Contains(found, true)
}

// startRun starts a run of high bits high at entry i, unless the last run
// has them.
func (t *splitTable) startRun(i int, high uint32) {
	if k := len(t.runHigh); k == 0 || t.runHigh[k-1] != high {
		t.runStart = append(t.runStart, uint32(i))
		t.runHigh = append(t.runHigh, high)
	}
}

func (t *splitTable) len() int {
	if t.packed != nil {
		return t.packed.Len()
	}
	return len(t.low)
}

// at returns entry i. Its run is found by binary search: the tables of a
// heap have a handful of runs, but a corrupt or odd dump may start one per
// entry.
func (t *splitTable) at(i int) uint64 {
	if t.packed != nil {
		return t.packed.At(i)
	}
	lo, hi := 0, len(t.runStart)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if int(t.runStart[m]) <= i {
			lo = m
		} else {
			hi = m
		}
	}
	return uint64(t.runHigh[lo])<<32 | uint64(t.low[i])
}

// idLookup finds ids in a table of sorted ones: a bucket table over the
// high bits narrows each binary search to a few entries.
type idLookup struct {
	ids    splitTable
	min    uint64
	shift  uint
	bucket []uint32 // bucket b covers the ids at bucket[b] to bucket[b+1]-1
}

// maxLookupBuckets bounds the buckets of an idLookup: 256 MiB of them,
// which a heap of more than 2^28 objects fills, at four objects a bucket
// or more. (At 2^24, the 644 M objects of a 32 GiB heap had 38 a bucket:
// each lookup a binary search of five or six steps over 152 bytes.)
const maxLookupBuckets = 1 << 26

func newIDLookup(ids splitTable) *idLookup {
	l := &idLookup{ids: ids}
	n := ids.len()
	if n == 0 {
		return l
	}
	l.min = ids.at(0)
	span := ids.at(n-1) - l.min
	buckets := uint64(1)
	for buckets < uint64(n)/4 && buckets < maxLookupBuckets {
		buckets <<= 1
	}
	for span>>l.shift >= buckets {
		l.shift++
	}
	nb := (span >> l.shift) + 1
	l.bucket = bigmem.Make[uint32](int(nb + 1))
	// bucket[b] is the first object whose id falls in bucket b or later.
	next := uint64(0)
	for r, high := range ids.runHigh {
		end := n
		if r+1 < len(ids.runStart) {
			end = int(ids.runStart[r+1])
		}
		for k := int(ids.runStart[r]); k < end; k++ {
			b := (uint64(high)<<32 | uint64(ids.low[k]) - l.min) >> l.shift
			for ; next <= b; next++ {
				l.bucket[next] = uint32(k)
			}
		}
	}
	for ; next <= nb; next++ {
		l.bucket[next] = uint32(n)
	}
	return l
}

// find returns the position of id in the table, its object's number.
// The search compares the low 32 bits only, within the part of id's
// bucket that has id's high bits.
func (l *idLookup) find(id uint64) (int, bool) {
	if len(l.bucket) == 0 || id < l.min {
		return 0, false
	}
	b := (id - l.min) >> l.shift
	if b+1 >= uint64(len(l.bucket)) {
		return 0, false
	}
	lo, hi := int(l.bucket[b]), int(l.bucket[b+1])
	if l.ids.packed != nil {
		return l.ids.search(id, lo, hi)
	}
	starts, highs, high := l.ids.runStart, l.ids.runHigh, uint32(id>>32)
	if len(highs) == 1 {
		if highs[0] != high {
			return 0, false
		}
	} else {
		r, ok := slices.BinarySearch(highs, high)
		if !ok {
			return 0, false
		}
		lo = max(lo, int(starts[r]))
		if r+1 < len(starts) {
			hi = min(hi, int(starts[r+1]))
		}
	}
	low, end := uint32(id), hi
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.ids.low[m] < low {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < end && l.ids.low[lo] == low {
		return lo, true
	}
	return 0, false
}
