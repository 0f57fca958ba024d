package model

import "testing"

func TestRefStoreRoundTrip(t *testing.T) {
	wide := refStore{wide: true}
	ids := []uint64{0x7_0000_1000, 0x7_0000_1008, 0x3, 0x6_0000_0000, 0x40_0000_0000, 0x7_0000_1010, 0xFFFF_FFFF_FFFF_FFF8}
	for _, id := range ids {
		wide.add(id)
	}
	for i, id := range ids {
		if got := wide.get(i); got != id {
			t.Errorf("wide ref %d: got 0x%x, want 0x%x", i, got, id)
		}
	}
	if len(wide.escaped) != 3 {
		t.Errorf("%d escaped ids, want 3 (unaligned, far above, far above)", len(wide.escaped))
	}
	narrow := refStore{}
	for _, id := range []uint64{1, 0xFFFFFFFE, 0xFFFFFFFF} {
		narrow.add(id)
	}
	for i, id := range []uint64{1, 0xFFFFFFFE, 0xFFFFFFFF} {
		if got := narrow.get(i); got != id {
			t.Errorf("narrow ref %d: got 0x%x, want 0x%x", i, got, id)
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
	l := newIDLookup(table.len(), table.at)
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
		var c chunkList[uint64]
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
