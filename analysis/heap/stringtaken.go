package heap

import (
	"sync/atomic"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
)

// countTakenStrings is CountStrings for a heap whose load took the
// Strings' values (model.Heap.StringValues): each String with a
// recorded value array is counted under its array's element type and
// length, two independent hashes of its bytes (the load's 64-bit digest
// and the CRC-32C of ArrayContents: 96 bits, which two different values
// of a heap are not to be expected to share) and the String's coder, in
// a table of the values found per processor (valueTable), on every
// processor. ok is false when some String's value or coder was not taken
// (CountStrings then reads the dump).
func countTakenStrings(h *model.Heap, v *model.StringValues, heaps model.HeapSelection) (c StringCensus, ok bool) {
	class := v.Class()
	// seen marks the arrays some String counted: the first to mark one
	// counts it among the distinct arrays of its value.
	seen := bigmem.Make[uint64]((h.NumObjects() + 63) / 64)
	defer bigmem.Free(seen)
	tables := make([]*valueTable, parallel.Workers())
	counts := make([]int64, len(tables))
	for w := range tables {
		tables[w] = newValueTable()
	}
	var missing atomic.Bool
	parallel.ForChunks(h.NumObjects(), parallel.ObjectChunk, func(w, lo, hi int) {
		if missing.Load() {
			return
		}
		t := tables[w]
		for i := lo; i < hi; i++ {
			s := model.ObjectIndex(i)
			if h.ClassOf(s) != class || !heaps.Has(s) {
				continue
			}
			counts[w]++
			refs := h.Refs(s)
			if len(refs) != 1 {
				continue
			}
			a := refs[0]
			crc, _, recorded := h.ArrayContents(a)
			if !recorded {
				continue
			}
			digest, taken := v.Digest(a)
			coder, known := v.Coder(s)
			if !taken || !known {
				missing.Store(true)
				return
			}
			value := model.StringDigest{Coder: coder, Elem: h.Classes[h.ClassOf(a)].Elem, Length: int(h.ArrayLength(a)), Digest: [2]uint64{digest, uint64(crc)}}
			arrays := uint32(0)
			if bit := uint64(1) << (a & 63); atomic.OrUint64(&seen[a>>6], bit)&bit == 0 {
				arrays = 1
			}
			t.queue(&value, uint32(s), arrays)
		}
	})
	for _, t := range tables {
		t.flush()
	}
	for _, t := range tables[1:] {
		tables[0].merge(t)
		t.free()
	}
	defer tables[0].free()
	if missing.Load() {
		return c, false
	}
	for _, n := range counts {
		c.Strings += n
	}
	c.Groups = tables[0].groups(func(k uint32) (s, array model.ObjectIndex) {
		s = model.ObjectIndex(k)
		return s, h.Refs(s)[0]
	})
	sortGroups(c.Groups)
	return c, true
}
