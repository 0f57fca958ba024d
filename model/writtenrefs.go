package model

import (
	"fmt"
	"slices"

	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/model/store"
)

// WrittenRefs is the reference table of a heap being indexed as the
// index file holds it, mapped from that file: once the build's other
// readers of the table are done, UseWrittenRefs puts it in the place of
// the heap's own table, which was a table of the build (a scratch file
// past the budget) as large as the index's section, so that the disk holds
// the references once, not twice, while the rest of the index is worked
// out.
type WrittenRefs struct {
	refs  []ObjectIndex
	unmap func() error
}

// MapWrittenRefs maps the references h.WriteIndex wrote into w, once w
// has written them out (store.Writer.StartWriteback). It is called on the
// goroutine that writes w; nil (and no error) where they cannot be mapped
// (store.MappedArray says when).
func (h *Heap) MapWrittenRefs(w *store.Writer) (*WrittenRefs, error) {
	refs, unmap, ok, err := store.MappedArray[ObjectIndex](w, sectionRefs)
	if err != nil || !ok {
		return nil, err
	}
	return &WrittenRefs{refs: refs, unmap: unmap}, nil
}

// UseWrittenRefs puts r's references in place of h's own table and frees
// that table; no other goroutine may read h meanwhile. Their numbers and
// the first and last 64 Ki references are compared first, so that a section read from the
// wrong place is an error, not wrong answers. release unmaps r: h must not
// be used after it.
func (h *Heap) UseWrittenRefs(r *WrittenRefs) (release func() error, err error) {
	const probe = 1 << 16
	n := len(h.refs)
	if len(r.refs) != n || !slices.Equal(r.refs[:min(n, probe)], h.refs[:min(n, probe)]) ||
		!slices.Equal(r.refs[max(0, n-probe):], h.refs[max(0, n-probe):]) {
		r.unmap()
		return nil, fmt.Errorf("the index's references differ from the heap's")
	}
	bigmem.Free(h.refs)
	h.refs = r.refs
	return r.unmap, nil
}

// Drop unmaps r unused.
func (r *WrittenRefs) Drop() error {
	if r == nil {
		return nil
	}
	return r.unmap()
}
