package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// ErrNotCountable is wrapped by CountClasses's error for a file it does
// not count on every core: compressed or not a plain HotSpot binary HPROF
// file, a heap dump not written in segments, several heap dumps, a record
// cut short or one it does not know. Load reads such a file.
var ErrNotCountable = errors.New("not counted on every core")

// maxCountedSegment bounds the window a record must fit in (a class
// dump: an object's elements are skipped unread).
const maxCountedSegment = 64 << 20

// CountClasses reads the dump at path as Load without Objects does (the
// classes, with their instance counts and sizes; enough for a class
// histogram) but counts the objects of its heap dump segments on up to
// workers cores at once: the segments are skimmed side by side
// (hprof.Skimmer) and their counts summed, while the builder reads every
// record but the objects, as Load would. It serves a HotSpot dump written
// in segments (every JDK since 6 writes them); any other file, or one
// whose records it cannot follow, gets an error wrapping ErrNotCountable.
func CountClasses(path string, workers int) (*Heap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is no regular file: %w", path, ErrNotCountable)
	}
	layout, err := scanSegments(f, st.Size(), false)
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", path, err, ErrNotCountable)
	}
	tally, err := countSegments(f, layout, workers)
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", path, err, ErrNotCountable)
	}
	in, err := input.NewFile(path, io.NopCloser(layout.withoutObjects(f, tally.kept)), -1)
	if err != nil {
		return nil, err
	}
	src, err := openSource(in, nil)
	if err != nil {
		return nil, err
	}
	b := newBuilder(src, LoadOptions{Dump: -1})
	b.h.Source.File = path
	if err := b.run(); err != nil {
		return nil, err
	}
	if err := b.addCounts(tally); err != nil {
		return nil, fmt.Errorf("%s: %v: %w", path, err, ErrNotCountable)
	}
	b.h.Source.Bytes = st.Size()
	return b.h, nil
}

// segmentLayout is where a dump's heap dump segments lie.
type segmentLayout struct {
	idSize   int
	size     int64 // the file's
	segments []segment
	// whole is set when the one segment is a HEAP_DUMP record, a dump
	// not written in segments (scanSegments with whole).
	whole bool
}

// segment is one HEAP_DUMP_SEGMENT record: its header at off, its body of
// length bytes after it.
type segment struct {
	off, length int64
	time        uint32
}

// body is where the segment's body starts.
func (s segment) body() int64 { return s.off + 9 }

// end is where the record after the segment starts.
func (s segment) end() int64 { return s.body() + s.length }

// scanSegments reads the header and the top-level record headers of a
// binary HPROF file and returns where its heap dump segments are; an error
// for a file CountClasses does not count. With whole, a dump in one
// HEAP_DUMP record is taken too, as one segment.
func scanSegments(f io.ReaderAt, size int64, whole bool) (segmentLayout, error) {
	l := segmentLayout{size: size}
	head := make([]byte, 64)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return l, err
	}
	head = head[:n]
	nul := bytes.IndexByte(head, 0)
	if nul < 0 || nul+13 > len(head) {
		return l, errors.New("no binary HPROF header")
	}
	if v := string(head[:nul]); v != "JAVA PROFILE 1.0.1" && v != "JAVA PROFILE 1.0.2" {
		return l, fmt.Errorf("version %q", v)
	}
	l.idSize = int(binary.BigEndian.Uint32(head[nul+1:]))
	if l.idSize != 4 && l.idSize != 8 {
		return l, fmt.Errorf("identifier size %d", l.idSize)
	}
	var (
		block      = make([]byte, 4096)
		blockStart int64
		blockLen   int
		dumps      int
		open       bool
	)
	for off := int64(nul + 13); off < size; {
		if off+9 > size {
			return l, fmt.Errorf("the record at offset %d is cut short", off)
		}
		if off < blockStart || off+9 > blockStart+int64(blockLen) {
			blockStart = off
			if blockLen, err = f.ReadAt(block[:min(int64(len(block)), size-off)], off); err != nil {
				return l, err
			}
		}
		h := block[off-blockStart:]
		tag, length := hprof.Tag(h[0]), int64(binary.BigEndian.Uint32(h[5:]))
		if off+9+length > size {
			return l, fmt.Errorf("the %s record at offset %d is cut short", tag, off)
		}
		switch tag {
		case hprof.TagHeapDump:
			if !whole {
				return l, errors.New("a HEAP_DUMP record (not in segments)")
			}
			if length == 0 || len(l.segments) > 0 {
				return l, errors.New("a HEAP_DUMP record of length 0, or after another heap record")
			}
			dumps++
			l.whole = true
			l.segments = append(l.segments, segment{off: off, length: length, time: binary.BigEndian.Uint32(h[1:])})
		case hprof.TagHeapDumpSegment:
			if l.whole {
				return l, errors.New("a heap dump segment after a HEAP_DUMP record")
			}
			if length == 0 {
				return l, errors.New("a heap dump segment of length 0")
			}
			if !open {
				dumps++
			}
			open = true
			l.segments = append(l.segments, segment{off: off, length: length, time: binary.BigEndian.Uint32(h[1:])})
		case hprof.TagHeapDumpEnd:
			open = false
		}
		off += 9 + length
	}
	if dumps != 1 || open {
		return l, fmt.Errorf("%d heap dumps (the last one ended: %v)", dumps, !open)
	}
	return l, nil
}

// withoutObjects is the file as the builder is to read it: every record
// as it is, but each heap dump segment holding only the sub-records kept
// (its roots and class dumps), and its length set to theirs.
func (l segmentLayout) withoutObjects(f io.ReaderAt, kept [][]span) io.Reader {
	var parts []io.Reader
	var pos int64
	for i, s := range l.segments {
		if s.off > pos {
			parts = append(parts, io.NewSectionReader(f, pos, s.off-pos))
		}
		var length int64
		for _, k := range kept[i] {
			length += k.end - k.start
		}
		hdr := make([]byte, 9)
		hdr[0] = byte(hprof.TagHeapDumpSegment)
		binary.BigEndian.PutUint32(hdr[1:], s.time)
		binary.BigEndian.PutUint32(hdr[5:], uint32(length))
		parts = append(parts, bytes.NewReader(hdr))
		for _, k := range kept[i] {
			parts = append(parts, io.NewSectionReader(f, k.start, k.end-k.start))
		}
		pos = s.end()
	}
	if l.size > pos {
		parts = append(parts, io.NewSectionReader(f, pos, l.size-pos))
	}
	return io.MultiReader(parts...)
}

// addCounts adds the objects the segments were found to hold to the
// classes the builder read, as its own pass over them would have: their
// instance counts, array lengths, the address gaps the layout is inferred
// from, and the sub-record counts; then infers the layout again. It fails
// where the dump is not what the counting assumes: not HotSpot's, or
// objects of a class the dump never declared.
func (b *builder) addCounts(t *segmentTally) error {
	h := b.h
	switch {
	case h.Truncated || h.Source.Dumps != 1:
		return errors.New("the dump without its objects reads as cut short or as several dumps")
	case b.agentFile() || h.Source.Producer != "hotspot":
		return fmt.Errorf("a dump of %s", h.Source.Producer)
	}
	classOf := make(map[classKey]ClassIndex, len(t.classes))
	roles := make(map[ClassIndex]objectRole, len(t.classes))
	for key, c := range t.classes {
		class, err := b.countedClass(key, c.first, t)
		if err != nil {
			return err
		}
		if r, ok := roles[class]; ok && r != key.role {
			return fmt.Errorf("class %d has objects of two kinds", class)
		}
		roles[class], classOf[key] = key.role, class
		cl := &h.Classes[class]
		cl.Instances += c.instances
		h.SubRecordCounts[key.role.subTag().String()] += c.instances
		if key.role == instanceRole {
			continue
		}
		cl.Elem = key.elem()
		cl.ArrayElements += c.elements
		if cl.lengthResidues == nil {
			cl.lengthResidues = new([256]int64)
		}
		for r, n := range c.residues {
			cl.lengthResidues[r] += n
		}
	}
	b.layoutObservations = layoutObservations{minGap: make([]int64, len(h.Classes)), arraySeen: make([]int, len(h.Classes))}
	for key, c := range t.classes {
		b.minGap[classOf[key]] = c.minGap
	}
	for _, o := range t.arrayObs {
		b.arrayObs = append(b.arrayObs, layoutObservation(classOf[o.key], o))
	}
	b.chooseLayout()
	b.applySizes(b.r.Sizes())
	return nil
}

// countedClass is the class of the objects counted under key (the first
// at offset first), as the builder resolves it; an error for a class no
// class dump declared before (the builder would have made one up, or
// numbered it otherwise).
func (b *builder) countedClass(key classKey, first int64, t *segmentTally) (ClassIndex, error) {
	if key.role == primArrayRole {
		elem := Type(key.id)
		if c := b.primClass[elem]; c != NoClass {
			return c, nil
		}
		id := b.primClassID[elem]
		c, ok := b.h.classByID[id]
		if id == 0 || !ok || !t.declaredBefore(id, first) {
			return NoClass, fmt.Errorf("primitive arrays of type %d before their class is declared", elem)
		}
		b.primClass[elem] = c
		return c, nil
	}
	c, ok := b.h.classByID[key.id]
	if !ok {
		return NoClass, fmt.Errorf("objects of the undeclared class 0x%x", key.id)
	}
	return c, nil
}
