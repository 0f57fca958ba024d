package model

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

func TestRefStoreRoundTrip(t *testing.T) {
	wide := refStore{wide: true}
	ids := []uint64{0x7_0000_1000, 0x7_0000_1008, 0x3, 0x6_0000_0000, 0x40_0000_0000, 0x7_0000_1010, 0xFFFF_FFFF_FFFF_FFF8}
	for _, id := range ids {
		wide.add(id)
	}
	// Read forward, backward and forward again through one cursor, and
	// each with a cursor of its own.
	var c escapeCursor
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1, 0}, {0, 2, 4, 6}, {3, 6, 0, 4}} {
		for _, i := range order {
			if got := wide.get(i, &c); got != ids[i] {
				t.Errorf("wide ref %d: got 0x%x, want 0x%x", i, got, ids[i])
			}
			if got := wide.get(i, &escapeCursor{}); got != ids[i] {
				t.Errorf("wide ref %d, a cursor of its own: got 0x%x, want 0x%x", i, got, ids[i])
			}
		}
	}
	if wide.escapes() != 3 {
		t.Errorf("%d escaped ids, want 3 (unaligned, far above, far above)", wide.escapes())
	}
	narrow := refStore{}
	for _, id := range []uint64{1, 0xFFFFFFFE, 0xFFFFFFFF} {
		narrow.add(id)
	}
	for i, id := range []uint64{1, 0xFFFFFFFE, 0xFFFFFFFF} {
		if got := narrow.get(i, &escapeCursor{}); got != id {
			t.Errorf("narrow ref %d: got 0x%x, want 0x%x", i, got, id)
		}
	}
}

// TestRefStoreEscapeCursor reads a store with thousands of references
// kept aside (one in three beyond the 32 GB window, some runs of them)
// through one cursor in an order that mostly moves forward, now and then
// jumps back or far ahead: each read gives the id stored.
func TestRefStoreEscapeCursor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const base = 0x7_0000_0000
	s := refStore{wide: true}
	var ids []uint64
	for i := range 20000 {
		id := base + 8*uint64(i)
		if rng.IntN(3) == 0 || i%1000 < 20 {
			id += 1 << 40
		}
		s.add(id)
		ids = append(ids, id)
	}
	if s.escapes() < 5000 {
		t.Fatalf("%d escapes", s.escapes())
	}
	var c escapeCursor
	for i, n := 0, 0; n < 40000; n++ {
		switch r := rng.IntN(100); {
		case r < 3:
			i = rng.IntN(len(ids))
		case r < 6:
			i = max(0, i-rng.IntN(50))
		default:
			i = min(len(ids)-1, i+rng.IntN(4))
		}
		if got := s.get(i, &c); got != ids[i] {
			t.Fatalf("read %d, position %d: got 0x%x, want 0x%x", n, i, got, ids[i])
		}
	}
}

func TestIDLookup(t *testing.T) {
	ids := []uint64{8, 16, 24, 1 << 40, 1<<40 + 8, 1 << 50}
	var table splitTable
	table.low = make([]uint32, len(ids))
	for i, id := range ids {
		table.set(i, id)
	}
	if len(table.runStart) != 3 {
		t.Errorf("%d runs of high bits, want 3", len(table.runStart))
	}
	for i, id := range ids {
		if got := table.at(i); got != id {
			t.Errorf("table.at(%d) = 0x%x, want 0x%x", i, got, id)
		}
	}
	l := newIDLookup(table)
	for i, id := range ids {
		if k, ok := l.find(id); !ok || k != i {
			t.Errorf("find(0x%x) = %d, %v; want %d", id, k, ok, i)
		}
	}
	for _, id := range []uint64{0, 12, 1<<40 + 4, 1<<50 + 8, 1 << 60} {
		if _, ok := l.find(id); ok {
			t.Errorf("find(0x%x) found an absent id", id)
		}
	}
}

func TestSortOrder(t *testing.T) {
	cases := [][]uint64{
		{},
		{5},
		{1, 2, 3},
		{900, 100, 300, 10, 20, 30, 40, 50, 60, 35, 5},
		{10, 20, 30, 5, 15, 25, 35, 20, 1},
		{7, 7, 3, 3, 9},
	}
	for _, ids := range cases {
		var c splitList[uint64]
		for _, id := range ids {
			c.append(id)
		}
		order := sortOrder(&c)
		if len(order) != len(ids) {
			t.Fatalf("%v: order has %d entries", ids, len(order))
		}
		seen := map[uint32]bool{}
		for k, a := range order {
			seen[a] = true
			if k > 0 {
				p := order[k-1]
				if ids[p] > ids[a] || (ids[p] == ids[a] && p > a) {
					t.Errorf("%v: order %v not sorted by (id, arrival)", ids, order)
					break
				}
			}
		}
		if len(seen) != len(ids) {
			t.Errorf("%v: order %v is no permutation", ids, order)
		}
	}
}

// TestIDLookupStaysInRun looks up ids whose low bits equal those of an
// object with other high bits, next to the run the search is narrowed to.
func TestIDLookupStaysInRun(t *testing.T) {
	ids := []uint64{8, 16, 1<<32 | 24, 1<<32 | 32}
	table := splitTable{low: make([]uint32, len(ids))}
	for i, id := range ids {
		table.set(i, id)
	}
	l := newIDLookup(table)
	for _, id := range []uint64{24, 32, 1<<32 | 8, 1<<32 | 16, 2<<32 | 8} {
		if k, ok := l.find(id); ok {
			t.Errorf("find(0x%x) = %d, an object with other high bits", id, k)
		}
	}
}

// TestResolveRefs resolves the references of a table with duplicate ids,
// dangling references, 8-byte ids that need escaping and late references
// in ranges of several sizes, and compares each result with a plain
// serial resolution written out here.
func TestResolveRefs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const objects = 3000
	base := uint64(0x7_0000_0000)
	var ids []uint64
	for range objects {
		var id uint64
		switch rng.IntN(20) {
		case 0:
			id = base + 8*uint64(rng.IntN(objects))*5 + 3 // unaligned: escaped
		case 1:
			id = base + 1<<40 + 8*uint64(rng.IntN(objects)) // beyond the 32 GB window: escaped
		default:
			id = base + 8*uint64(rng.IntN(5*objects))
		}
		ids = append(ids, id)
	}
	// Some ids arrive twice; the second arrival and its references are dropped.
	for range 100 {
		ids[rng.IntN(objects)] = ids[rng.IntN(objects)]
	}
	var tab objectTable
	tab.refs.wide = true
	refs := make([][]uint64, objects)
	late := map[int][]uint64{}
	total := 0
	for a, id := range ids {
		tab.add(id, 0, 0)
		for range rng.IntN(6) {
			r := ids[rng.IntN(objects)]
			if rng.IntN(5) == 0 {
				r = base + 8*uint64(rng.IntN(objects)) + 4 // dangling, escaped
			} else if rng.IntN(5) == 0 {
				r = base + 8*uint64(5*objects+rng.IntN(objects)) // dangling
			}
			tab.addRef(r)
			refs[a] = append(refs[a], r)
			total++
		}
		if rng.IntN(10) == 0 {
			for range 1 + rng.IntN(3) {
				r := ids[rng.IntN(objects)] + uint64(8*rng.IntN(2))
				late[a] = append(late[a], r)
				refs[a] = append(refs[a], r)
				total++
			}
		}
	}
	tab.refStart.append(uint32(tab.refs.len()))

	// The serial resolution: objects sorted by id, the first arrival of
	// an id kept, each reference looked up in a map.
	var order []uint32
	objectOf := map[uint64]ObjectIndex{}
	sorted := make([]uint32, objects)
	for a := range sorted {
		sorted[a] = uint32(a)
	}
	slices.SortStableFunc(sorted, func(a, b uint32) int { return cmp.Compare(ids[a], ids[b]) })
	for _, a := range sorted {
		if _, dup := objectOf[ids[a]]; !dup {
			objectOf[ids[a]] = ObjectIndex(len(order))
			order = append(order, a)
		}
	}
	wantStart := []uint32{}
	wantRefs := []ObjectIndex{}
	var wantDangling int64
	var wantFirst uint64
	for _, a := range order {
		wantStart = append(wantStart, uint32(len(wantRefs)))
		for _, r := range refs[a] {
			if i, ok := objectOf[r]; ok {
				wantRefs = append(wantRefs, i)
			} else {
				wantDangling++
				if wantFirst == 0 {
					wantFirst = r
				}
			}
		}
	}
	wantStart = append(wantStart, uint32(len(wantRefs)))
	if wantDangling == 0 || tab.refs.escapes() == 0 || len(order) == objects {
		t.Fatalf("the table lacks a case: %d dangling, %d escaped, %d duplicates", wantDangling, tab.refs.escapes(), objects-len(order))
	}

	h := &Heap{ids: gatherSplit(&tab.ids, order)}
	h.lookup = newIDLookup(h.ids)
	for _, workers := range []int{1, 2, 3, 4, 7, 16, len(order) + 5} {
		h.refStart, h.refs = nil, nil
		dangling, first, holders := tab.resolveRefs(h, order, late, total, workers)
		if !slices.Equal(h.refStart, wantStart) || !slices.Equal(h.refs, wantRefs) {
			t.Errorf("%d workers: references differ from the serial resolution", workers)
		}
		if dangling != wantDangling || first != wantFirst {
			t.Errorf("%d workers: %d dangling, first 0x%x; want %d, 0x%x", workers, dangling, first, wantDangling, wantFirst)
		}
		var held int64
		for k, d := range holders {
			held += d.refs
			if d.first == 0 || (k > 0 && holders[k-1].object >= d.object) {
				t.Errorf("%d workers: holder %d %+v out of order or without an id", workers, k, d)
			}
		}
		if held != wantDangling || len(holders) == 0 || holders[0].first != wantFirst {
			t.Errorf("%d workers: holders %+v hold %d dangling references; want %d, the first 0x%x", workers, holders, held, wantDangling, wantFirst)
		}
	}
}

// TestParallelResolveEqualsSerial loads JVM dumps with resolve's passes cut
// into ranges of one object upwards, on several processors, and finds
// every table equal to that of a load in one range.
func TestParallelResolveEqualsSerial(t *testing.T) {
	defer func(m, procs int) { minRange, _ = m, runtime.GOMAXPROCS(procs) }(minRange, runtime.GOMAXPROCS(0))
	for _, name := range []string{"jdk17-default.hprof.gz", "jdk17-jmap-live.hprof.gz", "jdk25-coh.hprof.gz"} {
		minRange = 1 << 40
		want := loadFixture(t, name)
		for _, procs := range []int{2, 3, 8} {
			minRange = 1
			runtime.GOMAXPROCS(procs)
			got := loadFixture(t, name)
			for _, c := range []struct {
				what      string
				got, want any
			}{
				{"ids", got.ids, want.ids}, {"classes of objects", got.classOf, want.classOf},
				{"array lengths", got.arrays, want.arrays}, {"array contents", got.contents, want.contents},
				{"offsets", got.offsets, want.offsets},
				{"reference starts", got.refStart, want.refStart}, {"references", got.refs, want.refs},
				{"referents", got.referents, want.referents}, {"id lookup", got.lookup, want.lookup},
				{"anomalies", got.Anomalies, want.Anomalies},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s on %d processors: %s differ", name, procs, c.what)
				}
			}
		}
	}
}

// TestSplitList appends values past 4 GiB to a splitList, with runs of
// high bits that start at the edges of its chunks (the first chunk's
// growth and the whole chunks after it), one-value runs, and int64
// values below zero, through append and appendSlice; each reads back as
// appended, and the runs are as many as the changes of the high bits.
func TestSplitList(t *testing.T) {
	const chunk = 1 << chunkBits
	const n = 2*chunk + 5
	// Where the high bits change: at chunk edges, just before and after
	// them, at the first chunk's growth steps, and at two neighbours (a
	// run of one value).
	changes := []int{1, firstChunk, 2 * firstChunk, chunk - 1, chunk, chunk + 1, 2 * chunk, 2*chunk + 3, 2*chunk + 4}
	high := make([]uint64, n)
	h := uint64(5)
	for i, next := 0, 0; i < n; i++ {
		if next < len(changes) && changes[next] == i {
			h = h*3 + 1
			next++
		}
		high[i] = h
	}
	value := func(i int) uint64 { return high[i]<<32 | uint64(i)*2654435761&0xffffffff }

	var one splitList[uint64]
	for i := range n {
		one.append(value(i))
	}
	var batched splitList[uint64]
	for lo := 0; lo < n; lo += 1000 {
		batch := make([]uint64, 0, 1000)
		for i := lo; i < min(lo+1000, n); i++ {
			batch = append(batch, value(i))
		}
		batched.appendSlice(batch)
	}
	for _, l := range []*splitList[uint64]{&one, &batched} {
		if l.len() != n {
			t.Fatalf("%d values, want %d", l.len(), n)
		}
		if len(l.runStart) != len(changes)+1 {
			t.Errorf("%d runs, want %d", len(l.runStart), len(changes)+1)
		}
		for i := range n {
			if got := l.at(i); got != value(i) {
				t.Fatalf("value %d reads 0x%x, want 0x%x", i, got, value(i))
			}
		}
	}
	one.free()
	if one.len() != 0 || len(one.runStart) != 0 {
		t.Errorf("a freed list holds %d values in %d runs", one.len(), len(one.runStart))
	}

	want := []int64{-1, 0, 1 << 32, 5<<32 + 7, -(3 << 40), 4<<32 - 1}
	var offsets, offsetsBatched splitList[int64]
	for _, v := range want {
		offsets.append(v)
	}
	offsetsBatched.appendSlice(want)
	for i, v := range want {
		if got, batched := offsets.at(i), offsetsBatched.at(i); got != v || batched != v {
			t.Errorf("offset %d reads %d (appended one by one) and %d (as a slice), want %d", i, got, batched, v)
		}
	}
}

// TestResolveKeepsFirstOfRepeatedIDs resolves a table shaped as a dump's
// (a few arrivals at random places, then the heap in ascending order)
// whose ids now and then arrive twice, before and within the ascending
// run: each id is kept once, with the references of its first arrival,
// and the others are counted, the least of their ids named.
func TestResolveKeepsFirstOfRepeatedIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base := uint64(0x7_0000_0000)
	var ids []uint64
	for range 50 {
		ids = append(ids, base+8*uint64(rng.IntN(20000)))
	}
	next := base
	for range 5000 {
		next += 8 * uint64(1+rng.IntN(3))
		ids = append(ids, next)
	}
	for range 40 {
		a := rng.IntN(len(ids))
		ids[a+rng.IntN(len(ids)-a)] = ids[a]
	}
	var tab objectTable
	tab.refs.wide = true
	refsOf := map[uint64][]uint64{} // the first arrival's references, by id
	dropped := 0
	leastDropped := uint64(0)
	for a, id := range ids {
		tab.add(id, 1, 0)
		var refs []uint64
		for k := range a % 4 {
			r := ids[(a*7+k)%len(ids)]
			tab.addRef(r)
			refs = append(refs, r)
		}
		if _, seen := refsOf[id]; seen {
			dropped++
			if leastDropped == 0 || id < leastDropped {
				leastDropped = id
			}
			continue
		}
		refsOf[id] = refs
	}
	if dropped == 0 {
		t.Fatal("no id arrives twice")
	}
	h := Heap{Classes: benchClasses()}
	res, err := tab.resolve(&h, map[int][]uint64{}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if res.duplicates != int64(dropped) || res.firstDup != leastDropped {
		t.Errorf("%d duplicates, first 0x%x; want %d, 0x%x", res.duplicates, res.firstDup, dropped, leastDropped)
	}
	if h.NumObjects() != len(refsOf) {
		t.Fatalf("%d objects, want %d distinct ids", h.NumObjects(), len(refsOf))
	}
	for i := range h.NumObjects() {
		id := h.ids.at(i)
		if i > 0 && id <= h.ids.at(i-1) {
			t.Fatalf("object %d has id 0x%x after 0x%x", i, id, h.ids.at(i-1))
		}
		var got []uint64
		for _, r := range h.Refs(ObjectIndex(i)) {
			got = append(got, h.ids.at(int(r)))
		}
		if want := refsOf[id]; !slices.Equal(got, want) {
			t.Fatalf("object 0x%x references %x, want %x (its first arrival's)", id, got, want)
		}
	}
}

// set stores entry i; entries must be set in the order of i, from 0.
func (t *splitTable) set(i int, v uint64) {
	t.startRun(i, uint32(v>>32))
	t.low[i] = uint32(v)
}

// TestGatherStretches reads a list of values whose high bits change at
// and around chunk edges in parts (splitList.eachPart), then gathers it
// in orders of every shape: as they are, in
// stretches of consecutive positions shuffled (stretches of one
// included), and shuffled whole. Each gathered entry must be the value
// at its position of the order, and the gathered table must start a run
// of high bits exactly where they change.
func TestGatherStretches(t *testing.T) {
	const chunk = 1 << chunkBits
	const n = 2*chunk + 5
	changes := []int{1, 2, chunk - 1, chunk, chunk + 1, 2*chunk + 3}
	high := make([]uint64, n)
	for i, h, next := 0, uint64(5), 0; i < n; i++ {
		if next < len(changes) && changes[next] == i {
			h, next = h*3+1, next+1
		}
		high[i] = h
	}
	value := func(i uint32) uint64 { return high[i]<<32 | uint64(i)*2654435761&0xffffffff }
	var values splitList[uint64]
	var lows chunkList[uint32]
	for i := range uint32(n) {
		values.append(value(i))
		lows.append(uint32(value(i)))
	}
	for _, r := range [][2]int{{0, n}, {chunk - 3, chunk + 5}, {1, 2}, {2, 3}, {n - 1, n}, {5, 5}} {
		next := r[0]
		values.eachPart(r[0], r[1], func(at int, low []uint32, high uint32) {
			if at != next || len(low) == 0 {
				t.Fatalf("[%d, %d): a part of %d values at %d, after the parts up to %d", r[0], r[1], len(low), at, next)
			}
			for j, l := range low {
				if got := uint64(high)<<32 | uint64(l); got != value(uint32(at+j)) {
					t.Fatalf("[%d, %d): value %d reads 0x%x, want 0x%x", r[0], r[1], at+j, got, value(uint32(at+j)))
				}
			}
			next += len(low)
		})
		if next != r[1] {
			t.Errorf("[%d, %d): the parts end at %d", r[0], r[1], next)
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	identity := make([]uint32, n)
	for i := range identity {
		identity[i] = uint32(i)
	}
	var stretches [][]uint32
	for at := 0; at < n; {
		k := min(n-at, 1+rng.IntN(3)*rng.IntN(chunk/2))
		stretches = append(stretches, identity[at:at+k])
		at += k
	}
	rng.Shuffle(len(stretches), func(i, j int) { stretches[i], stretches[j] = stretches[j], stretches[i] })
	shuffled := slices.Clone(identity)
	rng.Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	orders := map[string][]uint32{"identity": identity, "stretches": slices.Concat(stretches...), "shuffled": shuffled}
	for name, order := range orders {
		table := gatherSplit(&values, order)
		low := gather(&lows, order)
		runs := 0
		for i, a := range order {
			if got := table.at(i); got != value(a) {
				t.Fatalf("%s: entry %d reads 0x%x, want 0x%x (position %d)", name, i, got, value(a), a)
			}
			if low[i] != uint32(value(a)) {
				t.Fatalf("%s: gathered low bits %d read 0x%x, want 0x%x", name, i, low[i], uint32(value(a)))
			}
			if i == 0 || high[a] != high[order[i-1]] {
				runs++
			}
		}
		if len(table.runStart) != runs {
			t.Errorf("%s: %d runs of high bits, the order has %d", name, len(table.runStart), runs)
		}
	}
}
