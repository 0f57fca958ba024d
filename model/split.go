package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/hprofctl/hprofctl/model/mmap"
	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// A load with objects of a HotSpot dump written in segments reads the
// dump in pieces on every core (loadInPieces). The builder reads, with the
// ordinary reader, every record up to the first object of the heap dump:
// the strings, classes, traces and threads, the class dumps and the roots
// HotSpot writes before its objects. From there on the segments are cut
// into batches that workers parse side by side (splitWorker), each into a
// piece of its own, and the pieces are added to the builder's tables in
// dump order (splitPiece.commit), so the Heap is the one a single reader
// makes. A dump that strays from what the workers know (a class dump or a
// heap switch among the objects, an object of a class no class dump
// named, a record that runs past its segment, anything the reader would
// warn of) is read again the ordinary way, which says what is wrong with
// it.

// splitBatchBytes is about how much of the dump one batch holds:
// consecutive segments up to this size (or one larger segment). A
// variable so that tests can cut small dumps into many batches.
var splitBatchBytes int64 = 8 << 20

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
	classes, err := b.splitClasses()
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, errNotSplit)
	}
	// The progress counts the bytes the file's stream has not counted
	// (it has read ahead), up to the file's size.
	var read int64
	progress := func(n int64) {
		n = min(n, max(f.Size-f.StoredOffset(), 0))
		read += n
		f.Advance(n)
	}
	progress(plan.first)
	if err := b.readPieces(file, plan, classes, runtime.GOMAXPROCS(0), progress); err != nil {
		b.objects.reset()
		f.Advance(-read) // the ordinary reader reads them again
		return nil, fmt.Errorf("%v: %w", err, errNotSplit)
	}
	b.h.Source.Bytes = f.Size
	if err := b.finish(); err != nil {
		return nil, err
	}
	return b.h, nil
}

// planSplit finds the pieces of the dump in file: its segments
// (scanSegments), the first object record, and the HEAP_DUMP_END after
// the segments, which must follow one another from the first object on.
func planSplit(file *os.File, size int64) (splitPlan, error) {
	l, err := scanSegments(file, size)
	if err != nil {
		return splitPlan{}, err
	}
	p := splitPlan{layout: l, firstSeg: -1}
	for i, s := range l.segments {
		first, err := firstObject(file, s, l.idSize)
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

// firstObject is the offset of the first object record in segment s; -1
// when it holds none.
func firstObject(file *os.File, s segment, idSize int) (int64, error) {
	body, unmap, err := mmap.MapRange(file, s.body(), s.length)
	if err != nil {
		return 0, err
	}
	defer unmap()
	sk := hprof.NewSkimmer(idSize)
	sk.Reset(body, s.length)
	for sk.Next() {
		switch r := sk.Record(); r.Sub {
		case hprof.SubInstanceDump, hprof.SubObjArrayDump, hprof.SubPrimArrayDump:
			return s.body() + int64(r.Start), nil
		}
	}
	if err := sk.Err(); err != nil {
		return 0, fmt.Errorf("segment at offset %d: %v", s.off, err)
	}
	return -1, nil
}

// readPrefix has a builder read the records of the dump before its first
// object, as a stream that ends with the segment holding it cut there
// and the dump's HEAP_DUMP_END record: every offset it sees is the
// file's. The builder is returned ready for the pieces.
func readPrefix(f *input.File, file *os.File, p splitPlan, opt LoadOptions) (*builder, error) {
	s := p.layout.segments[p.firstSeg]
	hdr := make([]byte, 9)
	hdr[0] = byte(hprof.TagHeapDumpSegment)
	binary.BigEndian.PutUint32(hdr[1:], s.time)
	binary.BigEndian.PutUint32(hdr[5:], uint32(p.first-s.body()))
	stream := io.MultiReader(
		io.NewSectionReader(file, 0, s.off),
		bytes.NewReader(hdr),
		io.NewSectionReader(file, s.body(), p.first-s.body()),
		io.NewSectionReader(file, p.end, 9))
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
	// The segments after the one cut are no records of the prefix.
	b.h.RecordCounts[hprof.TagHeapDumpSegment.String()] += int64(len(p.layout.segments) - 1 - p.firstSeg)
	return b, nil
}
