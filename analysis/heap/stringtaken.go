package heap

import (
	"sync/atomic"

	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
)

// groupTakenValues is groupByValue for a heap whose load took the
// Strings' values (model.Heap.StringValues): it reads nothing from the
// dump. Each String strs[k] is counted under its array's element type
// and length, two independent hashes of its bytes (the load's 64-bit
// digest and the CRC-32C of ArrayContents: 96 bits, which two different
// values of a heap are not to be expected to share) and its coder, on
// every processor. nil when the value or the coder of some String was
// not taken (groupByValue then reads the dump).
func groupTakenValues(h *model.Heap, v *model.StringValues, strs, valueOf []model.ObjectIndex, firsts []uint64) *valueTable {
	tables := make([]*valueTable, parallel.Workers())
	for w := range tables {
		tables[w] = newValueTable()
	}
	var missing atomic.Bool
	parallel.ForChunks(len(strs), parallel.ObjectChunk, func(w, lo, hi int) {
		if missing.Load() {
			return
		}
		t := tables[w]
		for k := lo; k < hi; k++ {
			s, a := strs[k], valueOf[k]
			digest, taken := v.Digest(a)
			coder, known := v.Coder(s)
			if !taken || !known {
				missing.Store(true)
				return
			}
			crc, _, _ := h.ArrayContents(a)
			value := model.StringDigest{Coder: coder, Elem: h.Classes[h.ClassOf(a)].Elem, Length: int(h.ArrayLength(a)), Digest: [2]uint64{digest, uint64(crc)}}
			t.queue(&value, uint32(k), uint32(firsts[k>>6]>>(k&63)&1))
		}
	})
	for _, t := range tables {
		t.flush()
	}
	for _, t := range tables[1:] {
		tables[0].merge(t)
		t.free()
	}
	if missing.Load() {
		tables[0].free()
		return nil
	}
	return tables[0]
}
