package model

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// visitObjects calls fn with the heap sub-records of the objects objs, as
// rereadDump does, but reads only those records where it can: at their
// offsets in a plain file, or from the gzip member before them in a file
// of many members (the JVM's -gz). Otherwise (a single-member gzip or a
// bzip2 file, no recorded offsets) it streams the whole dump again. The
// objects are read in the order of their offsets, so that a gzip member
// holding several of them is decompressed once; those of a gzip file on
// every processor, each taking a stretch of the dump, with fn called by
// one of them at a time.
func (h *Heap) visitObjects(objs []ObjectIndex, fn func(hprof.Source, *hprof.Record) error) error {
	if h.offsets == nil {
		return rereadDump(h, fn)
	}
	at := make([]recordAt, len(objs))
	for k, obj := range objs {
		at[k] = recordAt{offset: h.recordOffset(obj), id: h.ObjectID(obj)}
	}
	return h.visitRecords(at, fn)
}

// recordAt is where visitRecords reads an object: the offset of its
// record in the dump and its id.
type recordAt struct {
	offset int64
	id     uint64
}

// visitRecords is visitObjects for the records at, which it sorts: the
// heap's own object tables are not used, so that a heap read without them
// (ReadIndexClasses) reads the objects an index names by offset.
func (h *Heap) visitRecords(at []recordAt, fn func(hprof.Source, *hprof.Record) error) error {
	slices.SortFunc(at, func(a, b recordAt) int { return cmp.Compare(a.offset, b.offset) })
	err := h.dumpReader().Objects(h.ObjectReaderOptions(), func(r *hprof.ObjectReader) error {
		workers := 1
		if !r.Plain() {
			workers = max(1, min(runtime.GOMAXPROCS(0), len(at)/minObjectsRead))
		}
		var one sync.Mutex
		var failed atomic.Bool
		errs := make([]error, workers)
		forRanges(len(at), workers, func(w, lo, hi int) {
			c := r.Cursor()
			for _, a := range at[lo:hi] {
				err := c.ReadObject(a.offset, a.id, func(src hprof.Source, rec *hprof.Record) error {
					one.Lock()
					defer one.Unlock()
					return fn(src, rec)
				})
				if err != nil {
					errs[w] = fmt.Errorf("%s: %w", h.Source.File, err)
					failed.Store(true)
				}
				if failed.Load() {
					return
				}
			}
		})
		return errors.Join(errs...)
	})
	if errors.Is(err, hprof.ErrNoRandomAccess) {
		return rereadDump(h, fn)
	}
	return err
}

// minObjectsRead is the fewest objects of a gzip file visitObjects reads
// on a goroutine of its own: below, starting one costs more than it
// saves.
const minObjectsRead = 16
