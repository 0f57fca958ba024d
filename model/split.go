package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/model/mmap"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// A load with objects of a HotSpot dump reads the dump in pieces on every
// core (loadInPieces). The builder reads, with the ordinary reader, every
// record up to the first object of the heap dump: the strings, classes,
// traces and threads, the class dumps and the roots HotSpot writes before
// its objects. From there on the segments (or the one HEAP_DUMP record of
// a dump not written in segments) are cut into batches, at sub-record
// boundaries a skimming pass finds where a segment is larger than a
// batch, that workers parse side by side (splitWorker), each into a piece
// of its own; the pieces are added to the builder's tables in dump order
// (builder.commit), so the Heap is the one a single reader makes. A dump that strays from what the workers know (a class dump or a
// heap switch among the objects, an object of a class no class dump
// named, a record that runs past its segment, anything the reader would
// warn of) is read again the ordinary way, which says what is wrong with
// it.

// splitBatchBytes is about how much of the dump one batch holds at most:
// consecutive segments up to this size (or one larger segment). A
// variable so that tests can cut small dumps into many batches.
var splitBatchBytes int64 = 8 << 20

// minSplitBatchBytes is the least splitBatchFor makes a batch to stay
// within a memory budget.
const minSplitBatchBytes = 1 << 20

// splitBatchFor is the batch size for workers parsing at once under the
// build's memory budget (bigmem.Budget): splitBatchBytes, or less where
// the pieces in flight (piecesAhead, each holding about its batch's size
// in parsed tables) would take more than an eighth of the budget, down to
// minSplitBatchBytes. At 16 workers and a budget of 256 MiB, batches of 8
// MiB held 0.3 GB in flight.
func splitBatchFor(workers int) int64 {
	size := splitBatchBytes
	if budget := bigmem.Budget(); budget > 0 {
		size = min(size, max(minSplitBatchBytes, budget/8/int64(piecesAhead(workers))))
	}
	return size
}

// piecesAhead is how many batches workers parse at most before the
// earliest of them is added to the builder's tables.
func piecesAhead(workers int) int { return 2*workers + 2 }

// errNotSplit marks a dump loadInPieces does not read in pieces.
var errNotSplit = errors.New("not read in pieces")

// splitPlan is where the pieces of a dump lie: the segments, the first
// object record (first, in segment firstSeg), and the HEAP_DUMP_END
// record after the last segment.
type splitPlan struct {
	layout   segmentLayout
	firstSeg int
	first    int64
	end      int64 // offset of the HEAP_DUMP_END record
}

// loadInPieces loads f with its objects in pieces on every core; an error
// wrapping errNotSplit when f is not such a dump, which Load then reads
// the ordinary way.
func loadInPieces(f *input.File, opt LoadOptions) (*Heap, error) {
	file := f.Plain()
	if file == nil || !opt.Objects || opt.JVMPI != nil {
		return nil, errNotSplit
	}
	if format, err := f.Sniff(false); err != nil || format.Kind != input.KindHPROF {
		return nil, errNotSplit
	}
	plan, err := planSplit(file, f.Size)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, errNotSplit)
	}
	b, err := readPrefix(f, file, plan, opt)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, errNotSplit)
	}
	classes := b.splitClasses()
	b.objects.strings.hook = classes.strings
	// The progress counts the bytes the file's stream has not counted
	// (it has read ahead), up to the file's size.
	var read int64
	progress := func(n int64) {
		n = min(n, max(f.Size-f.StoredOffset(), 0))
		read += n
		f.Advance(n)
	}
	progress(plan.first)
	workers := runtime.GOMAXPROCS(0)
	batches, err := makeSplitBatches(file, plan, splitBatchFor(workers))
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, errNotSplit)
	}
	if err := b.readPieces(file, plan.layout.segments, batches, classes, workers, progress); err != nil {
		b.objects.reset()
		f.Advance(-read) // the ordinary reader reads them again
		return nil, fmt.Errorf("%v: %w", err, errNotSplit)
	}
	b.h.Source.Bytes = f.Size
	if err := b.finish(); err != nil {
		return nil, err
	}
	if classes.strings != nil {
		b.h.checkStringValues(classes.strings)
	}
	return b.h, nil
}

// planSplit finds the pieces of the dump in file: its segments
// (scanSegments, a HEAP_DUMP record taken as one), the first object
// record, and what follows the last segment: the HEAP_DUMP_END record of
// a dump in segments, which must follow one another from the first object
// on, or nothing after a HEAP_DUMP record.
func planSplit(file *os.File, size int64) (splitPlan, error) {
	l, err := scanSegments(file, size, true)
	if err != nil {
		return splitPlan{}, err
	}
	p := splitPlan{layout: l, firstSeg: -1}
	for i, s := range l.segments {
		first := int64(-1)
		err := skimRecords(file, s, s.body(), l.idSize, func(r *hprof.Skimmed, off int64) bool {
			switch r.Sub {
			case hprof.SubInstanceDump, hprof.SubObjArrayDump, hprof.SubPrimArrayDump:
				first = off
				return false
			}
			return true
		})
		if err != nil {
			return p, err
		}
		if first >= 0 {
			p.firstSeg, p.first = i, first
			break
		}
	}
	if p.firstSeg < 0 {
		return p, errors.New("no object records")
	}
	for i := p.firstSeg + 1; i < len(l.segments); i++ {
		if l.segments[i].off != l.segments[i-1].end() {
			return p, fmt.Errorf("a record between the segments at offsets %d and %d", l.segments[i-1].off, l.segments[i].off)
		}
	}
	p.end = l.segments[len(l.segments)-1].end()
	if l.whole {
		if size != p.end {
			return p, errors.New("records after the HEAP_DUMP record")
		}
		return p, nil
	}
	tail := make([]byte, 9)
	if size-p.end != 9 {
		return p, errors.New("the segments are not followed by a HEAP_DUMP_END record alone")
	}
	if _, err := file.ReadAt(tail, p.end); err != nil {
		return p, err
	}
	if hprof.Tag(tail[0]) != hprof.TagHeapDumpEnd || binary.BigEndian.Uint32(tail[5:]) != 0 {
		return p, errors.New("the segments are not followed by a HEAP_DUMP_END record alone")
	}
	return p, nil
}

// skimWindow is how much of a segment skimRecords maps at a time.
const skimWindow = 16 << 20

// skimRecords walks the sub-records of segment s from offset from (where
// one starts) with a Skimmer, a window of the file mapped at a time, and
// calls fn with each and its offset until fn returns false.
func skimRecords(file *os.File, s segment, from int64, idSize int, fn func(r *hprof.Skimmed, off int64) bool) error {
	sk := hprof.NewSkimmer(idSize)
	size := int64(skimWindow)
	for cursor := from; cursor < s.end(); {
		window, unmap, err := mmap.MapRange(file, cursor, min(size, s.end()-cursor))
		if err != nil {
			return err
		}
		sk.Reset(window, s.end()-cursor)
		for sk.Next() {
			if r := sk.Record(); !fn(r, cursor+int64(r.Start)) {
				return unmap()
			}
		}
		if err := unmap(); err != nil {
			return err
		}
		if err := sk.Err(); err != nil {
			return fmt.Errorf("segment at offset %d: %v", s.off, err)
		}
		if !sk.More() {
			return nil
		}
		if sk.Pos() == 0 {
			// A class dump larger than the window.
			if size *= 2; size > maxCountedSegment {
				return fmt.Errorf("segment at offset %d: a record at offset %d larger than %d bytes", s.off, cursor, maxCountedSegment)
			}
		}
		cursor += sk.Pos()
	}
	return nil
}

// readPrefix has a builder read the records of the dump before its first
// object, as a stream that ends with the segment (or HEAP_DUMP record)
// holding it cut there and what follows the last segment (the dump's
// HEAP_DUMP_END record): every offset it sees is the file's. The builder is returned ready for the pieces.
func readPrefix(f *input.File, file *os.File, p splitPlan, opt LoadOptions) (*builder, error) {
	s := p.layout.segments[p.firstSeg]
	hdr := make([]byte, 9)
	hdr[0] = byte(hprof.TagHeapDumpSegment)
	if p.layout.whole {
		hdr[0] = byte(hprof.TagHeapDump)
	}
	binary.BigEndian.PutUint32(hdr[1:], s.time)
	binary.BigEndian.PutUint32(hdr[5:], uint32(p.first-s.body()))
	stream := io.MultiReader(
		io.NewSectionReader(file, 0, s.off),
		bytes.NewReader(hdr),
		io.NewSectionReader(file, s.body(), p.first-s.body()),
		io.NewSectionReader(file, p.end, p.layout.size-p.end))
	b, err := prefixBuilder(f, stream, opt)
	if err != nil {
		return nil, err
	}
	// The segments after the one cut are no records of the prefix.
	if later := len(p.layout.segments) - 1 - p.firstSeg; later > 0 {
		b.h.RecordCounts[hprof.TagHeapDumpSegment.String()] += int64(later)
	}
	return b, nil
}

// prefixBuilder has a builder read stream, the records of f's dump before
// its first object (see readPrefix), and returns it ready for the pieces;
// an error when what it read is not such a prefix.
func prefixBuilder(f *input.File, stream io.Reader, opt LoadOptions) (*builder, error) {
	r, err := hprof.NewReader(stream, hprof.Options{Name: f.Name})
	if err != nil {
		return nil, err
	}
	b := newBuilder(r, opt)
	b.h.Source.File = f.Name
	b.h.Source.Compression = string(f.Compression)
	if err := b.scan(); err != nil {
		return nil, err
	}
	switch {
	case b.h.Truncated || r.Dumps() != 1 || r.WarningCount() > 0:
		return nil, errors.New("the records before the first object read as cut short, several dumps or with warnings")
	case b.agentFile():
		return nil, errors.New("a dump of the hprof agent")
	case b.objects.refs.wide && !b.objects.refs.baseSet:
		return nil, errors.New("no reference before the first object")
	}
	return b, nil
}
