package model

import (
	"errors"
	"fmt"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// visitObjects calls fn with the heap sub-records of the objects objs, as
// rereadDump does, but reads only those records where it can: at their
// offsets in a plain file, or from the gzip member before them in a file
// of many members (the JVM's -gz). Otherwise (a single-member gzip or a
// bzip2 file, no recorded offsets) it streams the whole dump again.
func (h *Heap) visitObjects(objs []ObjectIndex, fn func(hprof.Source, *hprof.Record) error) error {
	if h.offsets == nil {
		return rereadDump(h, fn)
	}
	err := h.dumpReader().Objects(h.ObjectReaderOptions(), func(r *hprof.ObjectReader) error {
		for _, obj := range objs {
			if err := r.ReadObject(h.recordOffset(obj), h.ObjectID(obj), fn); err != nil {
				return fmt.Errorf("%s: %w", h.Source.File, err)
			}
		}
		return nil
	})
	if errors.Is(err, hprof.ErrNoRandomAccess) {
		return rereadDump(h, fn)
	}
	return err
}
