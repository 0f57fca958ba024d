package model

import (
	"cmp"
	"slices"

	"github.com/hprofctl/hprofctl/model/bigmem"
)

// sortOrder returns the arrival numbers ordered by (id, arrival). Dumps
// arrive nearly sorted — HotSpot writes class objects, then the heap in
// address order; parallel dumps a few such runs — so the longest ascending
// run is kept as it is, the rest sorted, and the two merged. Every pass
// runs in ranges side by side (workersFor).
func sortOrder(ids *splitList[uint64]) []uint32 {
	n := ids.len()
	workers := workersFor(n)
	runStart, runLen := longestRun(ids, workers)
	order := bigmem.Make[uint32](n)
	if runLen == n {
		forRanges(n, workers, func(_, lo, hi int) {
			for a := lo; a < hi; a++ {
				order[a] = uint32(a)
			}
		})
		return order
	}
	// The rest: the arrivals before the run, then those after it.
	rest := bigmem.Make[uint32](n - runLen)
	defer bigmem.Free(rest)
	forRanges(len(rest), workers, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			a := k
			if a >= runStart {
				a += runLen
			}
			rest[k] = uint32(a)
		}
	})
	byID := arrivalOrder{ids}
	byID.sort(rest, workers)
	byID.mergeRun(order, runStart, runLen, rest, workers)
	return order
}

// runScan is what longestRun finds in one range [lo,hi) of the arrivals:
// where its first ascending run ends, its longest run, and where its last
// run starts.
type runScan struct {
	firstEnd           int
	bestStart, bestLen int
	lastStart          int
}

// longestRun returns the start and length of the longest run of arrivals
// whose ids do not descend (the first such run of that length when one
// range is scanned; one of them when several are). Ranges are scanned
// side by side and their runs joined where the ids go on ascending across
// a range's end.
func longestRun(ids *splitList[uint64], workers int) (start, length int) {
	n := ids.len()
	scans := make([]runScan, workers)
	forRanges(n, workers, func(k, lo, hi int) {
		s := runScan{firstEnd: hi, lastStart: lo}
		prev := uint64(0)
		ids.eachPart(lo, hi, func(at int, low []uint32, high uint32) {
			for j, l := range low {
				id, a := uint64(high)<<32|uint64(l), at+j
				if a > lo && id < prev {
					if s.firstEnd == hi {
						s.firstEnd = a
					}
					if a-s.lastStart > s.bestLen {
						s.bestStart, s.bestLen = s.lastStart, a-s.lastStart
					}
					s.lastStart = a
				}
				prev = id
			}
		})
		if hi-s.lastStart > s.bestLen {
			s.bestStart, s.bestLen = s.lastStart, hi-s.lastStart
		}
		scans[k] = s
	})
	consider := func(s, l int) {
		if l > length {
			start, length = s, l
		}
	}
	current := 0 // where the run going on at a range's start began
	for k, s := range scans {
		lo, hi := rangeOf(n, workers, k)
		if k > 0 && ids.at(lo) < ids.at(lo-1) {
			consider(current, lo-current)
			current = lo
		}
		if s.firstEnd < hi {
			consider(current, s.firstEnd-current)
			consider(s.bestStart, s.bestLen)
			current = s.lastStart
		}
	}
	consider(current, n-current)
	return start, length
}

// arrivalOrder orders arrival numbers by (id, arrival).
type arrivalOrder struct {
	ids *splitList[uint64]
}

func (o arrivalOrder) less(a, b uint32) bool {
	return before(a, o.ids.at(int(a)), b, o.ids.at(int(b)))
}

// compare orders a and b, reading each one's id once.
func (o arrivalOrder) compare(a, b uint32) int {
	if c := cmp.Compare(o.ids.at(int(a)), o.ids.at(int(b))); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// before reports whether arrival a, of id x, goes before arrival b, of
// id y.
func before(a uint32, x uint64, b uint32, y uint64) bool {
	return x < y || (x == y && a < b)
}

// mergeCursor walks a sorted list of arrivals for a merge, holding the
// arrival it is at and its id, so that a merge reads each id once.
type mergeCursor struct {
	o       arrivalOrder
	list    []uint32 // the list; nil for the arrivals from, from+1, ...
	from    uint32
	n, i    int    // the list's length and the position the cursor is at
	arrival uint32 // the arrival at i, when i < n
	id      uint64 // its id
}

// listCursor is a cursor at position i of list.
func listCursor(o arrivalOrder, list []uint32, i int) mergeCursor {
	c := mergeCursor{o: o, list: list, n: len(list), i: i}
	c.load()
	return c
}

// runCursor is a cursor at position i of the n arrivals from, from+1, ...
func runCursor(o arrivalOrder, from uint32, n, i int) mergeCursor {
	c := mergeCursor{o: o, from: from, n: n, i: i}
	c.load()
	return c
}

func (c *mergeCursor) load() {
	if c.i >= c.n {
		return
	}
	if c.list != nil {
		c.arrival = c.list[c.i]
	} else {
		c.arrival = c.from + uint32(c.i)
	}
	c.id = c.o.ids.at(int(c.arrival))
}

// takeFirst reports whether the next element of the merge of c and d
// comes from c.
func (c *mergeCursor) takeFirst(d *mergeCursor) bool {
	return c.i < c.n && (d.i == d.n || before(c.arrival, c.id, d.arrival, d.id))
}

// arrivalAt is the arrival at position j of c's list.
func (c *mergeCursor) arrivalAt(j int) uint32 {
	if c.list != nil {
		return c.list[j]
	}
	return c.from + uint32(j)
}

// takeRun writes into dst, up to its length, the arrivals of c from where
// it is that go before the one d is at (all of them when d is done), and
// returns how many it wrote. It gallops: it finds how many there are in
// a number of steps that grows with the logarithm of that count, then
// copies them without comparing each; a merge of long stretches, which
// most dumps make, takes a few steps a stretch.
func (c *mergeCursor) takeRun(dst []uint32, d *mergeCursor) int {
	limit := min(len(dst), c.n-c.i)
	goesFirst := func(m int) bool { // whether the m-th arrival from c.i goes before d's
		a := c.arrivalAt(c.i + m)
		return d.i == d.n || before(a, c.o.ids.at(int(a)), d.arrival, d.id)
	}
	// The arrival at c.i goes first (the caller's takeFirst); find the
	// least m where one does not, doubling, then halving.
	lo, hi := 1, 1
	for hi < limit && goesFirst(hi) {
		lo, hi = hi+1, min(2*hi, limit)
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if goesFirst(m) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if c.list != nil {
		copy(dst[:lo], c.list[c.i:])
	} else {
		for j := range lo {
			dst[j] = c.from + uint32(c.i+j)
		}
	}
	c.i += lo
	c.load()
	return lo
}

// minNaturalRun is the least average length of the ascending runs of
// arrivals that sort merges as they are; shorter runs are sorted first.
const minNaturalRun = 256

// sort sorts arrivals, then merges them pairwise, each merge in ranges
// side by side. The arrivals not in a dump's longest run mostly come in a
// few long ascending runs too (HotSpot's class objects, the other
// segments of a parallel dump): when the runs are that long they are
// merged as they are, else workers ranges are sorted side by side first.
func (o arrivalOrder) sort(arrivals []uint32, workers int) {
	bounds, ok := o.ascendingRuns(arrivals, workers)
	if !ok {
		parts := max(1, min(workers, len(arrivals)/minRange))
		bounds = make([]int, parts+1)
		for k := range parts {
			bounds[k], bounds[k+1] = rangeOf(len(arrivals), parts, k)
		}
		forRanges(len(arrivals), parts, func(_, lo, hi int) {
			slices.SortFunc(arrivals[lo:hi], o.compare)
		})
	}
	if len(bounds) <= 2 {
		return
	}
	merged := bigmem.Make[uint32](len(arrivals))
	defer bigmem.Free(merged)
	src, dst := arrivals, merged
	for len(bounds) > 2 {
		var next []int
		for k := 0; k+1 < len(bounds); k += 2 {
			lo := bounds[k]
			if k+2 >= len(bounds) {
				copy(dst[lo:], src[lo:])
				next = append(next, lo)
				continue
			}
			mid, hi := bounds[k+1], bounds[k+2]
			o.merge(dst[lo:hi], src[lo:mid], src[mid:hi], workers)
			next = append(next, lo)
		}
		bounds = append(next, len(arrivals))
		src, dst = dst, src
	}
	if &src[0] != &arrivals[0] {
		copy(arrivals, src)
	}
}

// ascendingRuns returns where the ascending runs of arrivals start,
// then len(arrivals), when they are on average minNaturalRun arrivals
// long or longer; ok is false when they are shorter. The arrivals are
// scanned in workers ranges side by side.
func (o arrivalOrder) ascendingRuns(arrivals []uint32, workers int) (bounds []int, ok bool) {
	n := len(arrivals)
	workers = max(1, min(workers, n/minRange))
	starts := make([][]int, workers)
	short := make([]bool, workers)
	forRanges(n, workers, func(k, lo, hi int) {
		most := (hi-lo)/minNaturalRun + 1
		prev := uint64(0)
		if lo > 0 {
			prev = o.ids.at(int(arrivals[lo-1]))
		}
		for i := lo; i < hi; i++ {
			id := o.ids.at(int(arrivals[i]))
			if i > 0 && id < prev {
				if len(starts[k]) == most {
					short[k] = true
					return
				}
				starts[k] = append(starts[k], i)
			}
			prev = id
		}
	})
	if slices.Contains(short, true) {
		return nil, false
	}
	bounds = []int{0}
	for _, s := range starts {
		bounds = append(bounds, s...)
	}
	return append(bounds, n), true
}

// merge merges the sorted lists a and b into dst, in workers ranges of
// dst side by side: each range starts where as many elements of a and b
// precede it as its start (mergeSplit).
func (o arrivalOrder) merge(dst, a, b []uint32, workers int) {
	forRanges(len(dst), workers, func(_, lo, hi int) {
		i := mergeSplit(lo, len(a), len(b), func(i, j int) bool { return o.less(b[j], a[i]) })
		fromA, fromB := listCursor(o, a, i), listCursor(o, b, lo-i)
		for k := lo; k < hi; {
			if fromB.takeFirst(&fromA) {
				k += fromB.takeRun(dst[k:hi], &fromA)
			} else {
				k += fromA.takeRun(dst[k:hi], &fromB)
			}
		}
	})
}

// mergeRun merges the arrivals runStart, runStart+1, ... runStart+runLen-1
// (ascending by id) with the sorted list rest into dst, in workers ranges
// of dst side by side.
func (o arrivalOrder) mergeRun(dst []uint32, runStart, runLen int, rest []uint32, workers int) {
	forRanges(len(dst), workers, func(_, lo, hi int) {
		i := mergeSplit(lo, runLen, len(rest), func(i, j int) bool { return o.less(rest[j], uint32(runStart+i)) })
		fromRun, fromRest := runCursor(o, uint32(runStart), runLen, i), listCursor(o, rest, lo-i)
		for k := lo; k < hi; {
			if fromRest.takeFirst(&fromRun) {
				k += fromRest.takeRun(dst[k:hi], &fromRun)
			} else {
				k += fromRun.takeRun(dst[k:hi], &fromRest)
			}
		}
	})
}

// mergeSplit returns how many of the first k elements of the merge of two
// sorted lists of lengths la and lb come from the first, where bFirst(i,
// j) reports whether element j of the second goes before element i of
// the first (no two elements are equal).
func mergeSplit(k, la, lb int, bFirst func(i, j int) bool) int {
	// The answer is the least i (or min(k, la)) whose element i of the
	// first goes after element k-i-1 of the second: fewer take too few
	// from the first, as it would then go before an element taken.
	lo, hi := max(0, k-lb), min(k, la)
	for lo < hi {
		i := int(uint(lo+hi) >> 1)
		if !bFirst(i, k-i-1) {
			lo = i + 1
		} else {
			hi = i
		}
	}
	return lo
}
