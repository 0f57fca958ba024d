package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/hprofctl/hprofctl/model/mmap"
)

// Index is an opened index file. Its sections are read in place from a
// read-only memory mapping: the slices and strings the readers return
// point into it, so they must not be modified and are valid only until
// Close. An Index is safe for concurrent use, Close excepted.
//
// Opening checks the header and the section table only. Each section is
// checked the first time it is read, once, with plain reads of the file
// rather than through the mapping: a query pays for the sections it
// reads and no others, and only the pages it then touches join the
// process's resident memory.
//
// The one risk left: when another process truncates or rewrites the file
// in place while it is open (hprofctl never does; it replaces index files
// by renaming), a check finds the file cut short (ErrCorrupt), but a read
// of data already handed out may find other bytes than were checked, or
// raise SIGBUS past the new end.
type Index struct {
	path     string
	data     []byte
	src      io.ReaderAt // the file's bytes, as checks read them
	release  func() error
	id       Identity
	sections []section
	byName   map[string]*section
	closed   bool
	// written says the ledger has the file as it is: this user's
	// hprofctl wrote it and no one changed it since.
	written bool
	// state is the file's as opened, when stated (for Vouch).
	state  fileState
	stated bool
	// closeMu keeps Close from unmapping the file under a release.
	closeMu sync.RWMutex
}

// mapping is an index file's bytes in memory, as mapFile gives them.
type mapping struct {
	data    []byte
	src     io.ReaderAt // what checks read: the file, or data
	release func() error
}

// section is one section of an opened index, with the result of its check.
type section struct {
	entry
	once sync.Once
	err  error
	// stringsEnd is, for a checked string table, the length of its
	// strings' bytes.
	stringsEnd uint64
	// checkedWith is what its elements were checked against with its
	// checksum (nil: nothing); extra holds the checks made later.
	checkedWith *Elements
	extra       elementChecks
}

// SectionInfo describes one section of an index.
type SectionInfo struct {
	// Name is the section's name.
	Name string
	// Kind is the type of its data.
	Kind Kind
	// Count is the number of elements of an array, of strings of a
	// string table, or of bytes of a blob.
	Count uint64
	// Offset is where the section starts in the file, Bytes its size.
	Offset, Bytes uint64
}

// Open opens the index file at path for the dump and content that want
// describes. An error from opening the file itself (fs.ErrNotExist among
// them) is returned as it is; a file that cannot serve want gives an
// *Error: ErrUntrusted (checked before any byte is read: the file belongs
// to a user other than this process's or root, or lies in a directory
// that another user could write in or replace, see docs/index-format.md),
// ErrNotIndex, ErrVersion, ErrCorrupt (the header and the section table)
// or ErrStale. Section checksums are checked later,
// as sections are read.
func Open(path string, want Identity) (*Index, error) {
	// Stat before opening: opening a named pipe would wait for a writer.
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, &Error{Path: path, Reason: ErrNotIndex, Detail: "not a regular file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	ix, err := open(f, path, want)
	if err != nil {
		f.Close()
	}
	return ix, err
}

// open does the work of Open on the opened file f. On success f belongs to
// the Index.
func open(f *os.File, path string, want Identity) (*Index, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if why := untrustedFile(path, st); why != nil {
		return nil, &Error{Path: path, Reason: ErrUntrusted, Detail: why.Error()}
	}
	state, stated := stateOf(st)
	h, entries, err := readLayout(f, path, st.Size())
	if err != nil {
		return nil, err
	}
	if h.content != want.Content {
		return nil, &Error{Path: path, Offset: hdrContent, Reason: ErrVersion,
			Detail: fmt.Sprintf("content version %d, this hprofctl reads %d", h.content, want.Content)}
	}
	if !h.dump.SameContent(want.Dump) {
		return nil, &Error{Path: path, Offset: hdrDumpSize, Reason: ErrStale, Detail: staleDetail(h.dump, want.Dump)}
	}
	m, err := mapFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: map index: %w", path, err)
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))%8 != 0 {
		m.release()
		return nil, fmt.Errorf("%s: the index was mapped at an address not aligned to 8 bytes", path)
	}
	ix := &Index{
		path:     path,
		data:     m.data,
		src:      m.src,
		release:  m.release,
		id:       Identity{Content: h.content, Dump: h.dump},
		sections: make([]section, len(entries)),
		byName:   make(map[string]*section, len(entries)),
		written:  stated && inLedger(state),
		state:    state,
		stated:   stated,
	}
	for i, e := range entries {
		ix.sections[i].entry = e
		ix.byName[e.name] = &ix.sections[i]
	}
	// No reader of the sections reads the dump's record: check it here
	// (it is small), so that no byte of the file goes unchecked.
	if _, ok := ix.byName[dumpSection]; ok {
		if _, err := ix.Blob(dumpSection); err != nil {
			ix.Close()
			return nil, err
		}
	}
	return ix, nil
}

// staleDetail says how the dump an index describes differs from the dump.
func staleDetail(had, want Fingerprint) string {
	switch {
	case had.Size != want.Size:
		return fmt.Sprintf("it describes a dump of %d bytes, the dump has %d", had.Size, want.Size)
	}
	return fmt.Sprintf("the dump's sampled blocks have other contents than when it was indexed (then modified at %s, now at %s)", stamp(had.ModTime), stamp(want.ModTime))
}

// stamp writes a modification time in nanoseconds since 1970 as a UTC
// date and time to the nanosecond.
func stamp(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.000000000 UTC")
}

// readLayout reads and checks the header and section table of a file of
// size bytes, without mapping it.
func readLayout(r io.ReaderAt, path string, size int64) (header, []entry, error) {
	var h header
	bad := func(reason error, off int64, format string, args ...any) (header, []entry, error) {
		return header{}, nil, &Error{Path: path, Offset: off, Reason: reason, Detail: fmt.Sprintf(format, args...)}
	}
	hb := make([]byte, headerSize)
	n, err := r.ReadAt(hb[:min(size, headerSize)], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return header{}, nil, fmt.Errorf("%s: read index header: %w", path, err)
	}
	hb = hb[:n]
	switch {
	case n == 0:
		return bad(ErrCorrupt, 0, "empty file")
	case !bytes.HasPrefix(hb, []byte(magic)[:min(n, len(magic))]):
		return bad(ErrNotIndex, 0, "the file does not start with %q", magic)
	case n < headerSize:
		return bad(ErrCorrupt, int64(n), "cut short: %d bytes, the header alone takes %d", n, headerSize)
	}
	h.format = binary.LittleEndian.Uint32(hb[hdrFormat:])
	if h.format != FormatVersion {
		return bad(ErrVersion, hdrFormat, "index format version %d, this hprofctl reads version %d", h.format, FormatVersion)
	}
	if got, want := crc32.Checksum(hb[:hdrCRC], castagnoli), binary.LittleEndian.Uint32(hb[hdrCRC:]); got != want {
		return bad(ErrCorrupt, hdrCRC, "header checksum %#08x, the header's bytes give %#08x", want, got)
	}
	h.content = binary.LittleEndian.Uint32(hb[hdrContent:])
	h.fileSize = binary.LittleEndian.Uint64(hb[hdrFileSize:])
	h.tableOffset = binary.LittleEndian.Uint64(hb[hdrTableOffset:])
	h.sections = binary.LittleEndian.Uint32(hb[hdrSections:])
	h.tableCRC = binary.LittleEndian.Uint32(hb[hdrTableCRC:])
	h.dump.Size = int64(binary.LittleEndian.Uint64(hb[hdrDumpSize:]))
	h.dump.ModTime = int64(binary.LittleEndian.Uint64(hb[hdrDumpModTime:]))
	copy(h.dump.Sample[:], hb[hdrDumpSample:hdrReserved])
	if !allZero(hb[hdrReserved:hdrCRC]) {
		return bad(ErrCorrupt, hdrReserved, "reserved header bytes are not zero")
	}
	if h.fileSize != uint64(size) {
		return bad(ErrCorrupt, int64(min(uint64(size), h.fileSize)), "the file is %d bytes, its header says %d (cut short or extended)", size, h.fileSize)
	}
	if h.sections > maxSections {
		return bad(ErrCorrupt, hdrSections, "%d sections, at most %d are allowed", h.sections, maxSections)
	}
	tableLen := uint64(h.sections) * entrySize
	if h.tableOffset < headerSize || h.tableOffset%alignment != 0 || h.tableOffset > h.fileSize || h.fileSize-h.tableOffset != tableLen {
		return bad(ErrCorrupt, hdrTableOffset, "a table of %d sections cannot start at offset %d of a file of %d bytes", h.sections, h.tableOffset, h.fileSize)
	}
	table := make([]byte, tableLen)
	if _, err := r.ReadAt(table, int64(h.tableOffset)); err != nil {
		return header{}, nil, fmt.Errorf("%s: read section table: %w", path, err)
	}
	if got := crc32.Checksum(table, castagnoli); got != h.tableCRC {
		return bad(ErrCorrupt, int64(h.tableOffset), "section table checksum %#08x, its bytes give %#08x", h.tableCRC, got)
	}
	entries := make([]entry, h.sections)
	names := make(map[string]bool, h.sections)
	next := uint64(headerSize)
	for i := range entries {
		eb := table[i*entrySize : (i+1)*entrySize]
		at := int64(h.tableOffset) + int64(i*entrySize)
		e, detail := decodeEntry(eb)
		if detail == "" && names[e.name] {
			detail = fmt.Sprintf("section %q appears twice", e.name)
		}
		if detail == "" && e.offset != next {
			detail = fmt.Sprintf("section %q starts at offset %d, the one before it ends (aligned) at %d", e.name, e.offset, next)
		}
		if detail == "" && e.length > h.tableOffset-e.offset {
			detail = fmt.Sprintf("section %q of %d bytes at offset %d overruns the section table at %d", e.name, e.length, e.offset, h.tableOffset)
		}
		if detail != "" {
			return bad(ErrCorrupt, at, "section table entry %d: %s", i, detail)
		}
		names[e.name] = true
		entries[i] = e
		next = alignUp(e.offset + e.length)
	}
	if next != h.tableOffset {
		return bad(ErrCorrupt, hdrTableOffset, "the sections end (aligned) at offset %d, the table starts at %d", next, h.tableOffset)
	}
	return h, entries, nil
}

// decodeEntry decodes a section table entry and checks it on its own: it
// returns a description of what is wrong, or "".
func decodeEntry(b []byte) (entry, string) {
	name := b[entName : entName+MaxNameLen]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		if !allZero(name[i:]) {
			return entry{}, "name has bytes after its end"
		}
		name = name[:i]
	}
	e := entry{
		name:     string(name),
		offset:   binary.LittleEndian.Uint64(b[entOffset:]),
		length:   binary.LittleEndian.Uint64(b[entLength:]),
		count:    binary.LittleEndian.Uint64(b[entCount:]),
		crc:      binary.LittleEndian.Uint32(b[entCRC:]),
		kind:     Kind(b[entKind]),
		elemSize: b[entElemSize],
	}
	if !validName(e.name) {
		return e, fmt.Sprintf("invalid name %q", e.name)
	}
	if !allZero(b[entReserved:entrySize]) {
		return e, fmt.Sprintf("section %q: reserved bytes are not zero", e.name)
	}
	size := uint64(e.elemSize)
	switch {
	case e.kind.intSize() != 0:
		if int(e.elemSize) != e.kind.intSize() || e.length%size != 0 || e.count != e.length/size {
			return e, fmt.Sprintf("section %q: %d bytes are not %d elements of %s", e.name, e.length, e.count, e.kind)
		}
	case e.kind == KindStrings:
		if (size != 4 && size != 8) || e.count >= e.length/size {
			return e, fmt.Sprintf("section %q: %d bytes cannot hold %d strings with %d-byte offsets", e.name, e.length, e.count, e.elemSize)
		}
	case e.kind == KindBlob:
		if e.elemSize != 1 || e.count != e.length {
			return e, fmt.Sprintf("section %q: a blob of %d bytes says it has %d", e.name, e.length, e.count)
		}
	default:
		return e, fmt.Sprintf("section %q: unknown kind %d", e.name, e.kind)
	}
	return e, ""
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Path returns the index file's path.
func (ix *Index) Path() string { return ix.path }

// Identity returns the identity the index was written for.
func (ix *Index) Identity() Identity { return ix.id }

// Sections describes the index's sections in file order.
func (ix *Index) Sections() []SectionInfo {
	out := make([]SectionInfo, len(ix.sections))
	for i := range ix.sections {
		e := &ix.sections[i].entry
		out[i] = SectionInfo{Name: e.name, Kind: e.kind, Count: e.count, Offset: e.offset, Bytes: e.length}
	}
	return out
}

// Section describes section name, and reports whether the index has it.
func (ix *Index) Section(name string) (SectionInfo, bool) {
	s := ix.byName[name]
	if s == nil {
		return SectionInfo{}, false
	}
	return SectionInfo{Name: s.name, Kind: s.kind, Count: s.count, Offset: s.offset, Bytes: s.length}, true
}

// errIndexClosed is returned for reads from a closed Index.
var errIndexClosed = errors.New("index is closed")

// section returns section name, checked, after making sure it has kind.
func (ix *Index) section(name string, kind Kind) (*section, error) {
	return ix.sectionWith(name, kind, nil)
}

// sectionWith is section, checking the elements against want (when not
// nil) with the checksum if the section was not checked before.
func (ix *Index) sectionWith(name string, kind Kind, want *Elements) (*section, error) {
	if ix.closed {
		return nil, fmt.Errorf("%s: section %q: %w", ix.path, name, errIndexClosed)
	}
	s := ix.byName[name]
	if s == nil {
		return nil, &Error{Path: ix.path, Section: name, Reason: ErrCorrupt, Detail: "the index has no such section"}
	}
	if s.kind != kind {
		return nil, &Error{Path: ix.path, Section: name, Offset: int64(s.offset), Reason: ErrCorrupt,
			Detail: fmt.Sprintf("it holds %s, it was read as %s", s.kind, kind)}
	}
	s.once.Do(func() {
		if ix.written {
			s.err = ix.adopt(s)
			return
		}
		s.err = ix.check(s, want)
		if s.err == nil {
			s.checkedWith = want
		}
	})
	return s, s.err
}

// bytes returns the bytes of section s.
func (ix *Index) bytes(s *section) []byte {
	return ix.data[s.offset : s.offset+s.length : s.offset+s.length]
}

// check verifies section s, reading it from the file: its checksum (on
// several cores when it is large), its elements against want (when not
// nil), the zero padding after it and, for a string table, its offsets.
func (ix *Index) check(s *section, want *Elements) error {
	bad := func(off uint64, format string, args ...any) error {
		return &Error{Path: ix.path, Section: s.name, Offset: int64(off), Reason: ErrCorrupt, Detail: fmt.Sprintf(format, args...)}
	}
	var inspect inspector
	if want != nil {
		inspect = want.inspect(ix.src, int64(s.offset), s.kind.intSize())
	}
	got, err := checksumAt(ix.src, int64(s.offset), int64(s.length), inspect)
	if err != nil {
		return ix.sectionFault(s, err)
	}
	if got != s.crc {
		return bad(s.offset, "checksum %#08x, its %d bytes give %#08x", s.crc, s.length, got)
	}
	end := s.offset + s.length
	if err := ix.zeroAt(end, alignUp(end)-end); err != nil {
		return bad(end, "the padding after it: %v", err)
	}
	if s.kind == KindStrings {
		stringsEnd, off, detail := ix.checkStrings(s)
		if detail != "" {
			return bad(s.offset+off, "%s", detail)
		}
		s.stringsEnd = stringsEnd
	}
	return nil
}

// adopt takes section s of a written index (Index.Written) unchecked,
// reading only where a string table's strings end: from its last offset,
// which must lie within the section, else the table is checked.
func (ix *Index) adopt(s *section) error {
	if s.kind != KindStrings {
		return nil
	}
	width, offStart := uint64(s.elemSize), s.offsetsStart()
	b := make([]byte, width)
	if _, err := ix.src.ReadAt(b, int64(s.offset+s.length-width)); err != nil {
		return ix.check(s, nil)
	}
	end := binary.LittleEndian.Uint64(append(b, make([]byte, 8-width)...))
	if end > offStart {
		return ix.check(s, nil)
	}
	s.stringsEnd = end
	return nil
}

// offsetsStart is where the offsets of string table s start in it: its
// count and one more, each of its element size, end the section.
func (s *section) offsetsStart() uint64 {
	return s.length - (s.count+1)*uint64(s.elemSize)
}

// Written reports whether the index is, as it opened, a file this user's
// hprofctl wrote and no process changed since, by its entry in the ledger
// kept in the user's cache directory (see docs/index-format.md). Its
// sections are then taken without their checks, and readers may skip
// checks of their own over what the build wrote.
func (ix *Index) Written() bool { return ix.written }

// Vouch checks every section not checked yet (Verify) and, when all are
// sound, enters the file as it was opened into the ledger, as the build
// does for the indexes it writes: a later Open of it unchanged is
// Written. The caller vouches that it has checked, and found sound, what
// its readers check beyond the sections (the trees' chains and the
// like). Where the ledger is not kept, or cannot be written, it only
// verifies.
func (ix *Index) Vouch() error {
	if err := ix.Verify(); err != nil {
		return err
	}
	if ix.stated && !ix.written {
		recordWritten(ix.path, ix.state)
	}
	return nil
}

// errNotZero is the fault of padding that is not zero.
var errNotZero = errors.New("not zero")

// zeroAt checks that the n bytes at off in the file are zero.
func (ix *Index) zeroAt(off, n uint64) error {
	buf := make([]byte, n)
	if _, err := ix.src.ReadAt(buf, int64(off)); err != nil {
		return err
	}
	if !allZero(buf) {
		return errNotZero
	}
	return nil
}

// checkStrings checks the offsets of string table s, reading them from the
// file: they start at 0, never decrease, and end where the strings' bytes
// and their zero padding to the offsets' width end. It returns where the
// strings' bytes end, or the offset in the section of a fault and a
// description.
func (ix *Index) checkStrings(s *section) (end, at uint64, detail string) {
	width, offStart := uint64(s.elemSize), s.offsetsStart()
	if offStart%width != 0 {
		return 0, offStart, fmt.Sprintf("the offsets start at %d, not a multiple of their width %d", offStart, width)
	}
	buf := make([]byte, min(readBuffer, s.length-offStart))
	for pos := offStart; pos < s.length; {
		b := buf[:min(uint64(len(buf)), s.length-pos)]
		if _, err := ix.src.ReadAt(b, int64(s.offset+pos)); err != nil {
			return 0, pos, fmt.Sprintf("reading the offsets: %v", err)
		}
		for j := uint64(0); j < uint64(len(b)); j += width {
			var o uint64
			if width == 4 {
				o = uint64(binary.LittleEndian.Uint32(b[j:]))
			} else {
				o = binary.LittleEndian.Uint64(b[j:])
			}
			i := (pos + j - offStart) / width
			switch {
			case i == 0 && o != 0:
				return 0, pos + j, fmt.Sprintf("the first string starts at %d, not 0", o)
			case o < end:
				return 0, pos + j, fmt.Sprintf("string %d starts at %d, before the end of the one before it (%d)", i, o, end)
			}
			end = o
		}
		pos += uint64(len(b))
	}
	if end > offStart || offStart-end >= width {
		return 0, end, fmt.Sprintf("the strings end at %d, their offsets start at %d: that is not %d-byte alignment", end, offStart, width)
	}
	if err := ix.zeroAt(s.offset+end, offStart-end); err != nil {
		return 0, end, fmt.Sprintf("the strings end at %d, their offsets start at %d: the padding between: %v", end, offStart, err)
	}
	return end, 0, ""
}

// Verify checks every section not checked yet and returns the first fault.
func (ix *Index) Verify() error {
	for i := range ix.sections {
		if _, err := ix.section(ix.sections[i].name, ix.sections[i].kind); err != nil {
			return err
		}
	}
	return nil
}

// Array returns array section name as a []T, checked on first use. T must
// be the section's element type (an integer type defined on it will do).
// The slice is the mapping itself: read it, never write it.
func Array[T Integer](ix *Index, name string) ([]T, error) {
	s, err := ix.section(name, kindOf[T]())
	if err != nil {
		return nil, err
	}
	return view[T](ix.bytes(s)), nil
}

// Load sets *dst to array section name (see Array) unless *err already
// holds an error, and keeps the error of reading it in *err: a run of
// sections is read one after the other and checked once at the end.
func Load[T Integer](ix *Index, name string, dst *[]T, err *error) {
	if *err == nil {
		*dst, *err = Array[T](ix, name)
	}
}

// view returns b, little-endian Ts, as a []T: the same memory where this
// machine is little-endian, a converted copy elsewhere. b's address is
// aligned for T: Open checks that the mapping is 8-byte aligned, and
// sections start at multiples of 64 bytes.
func view[T Integer](b []byte) []T {
	size := kindOf[T]().intSize()
	n := len(b) / size
	if n == 0 {
		return []T{}
	}
	if nativeLittleEndian {
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	out := make([]T, n)
	switch size {
	case 1:
		for i := range out {
			out[i] = T(b[i])
		}
	case 2:
		for i := range out {
			out[i] = T(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case 4:
		for i := range out {
			out[i] = T(binary.LittleEndian.Uint32(b[4*i:]))
		}
	default:
		for i := range out {
			out[i] = T(binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
	return out
}

// Strings is a string table section: its strings in the order they were
// added, read in place.
type Strings struct {
	data  []byte
	off32 []uint32
	off64 []uint64
}

// Len returns the number of strings.
func (s Strings) Len() int {
	if s.off64 != nil {
		return len(s.off64) - 1
	}
	return max(len(s.off32)-1, 0)
}

func (s Strings) bounds(i int) (uint64, uint64) {
	if s.off64 != nil {
		return s.off64[i], s.off64[i+1]
	}
	return uint64(s.off32[i]), uint64(s.off32[i+1])
}

// Bytes returns string i as bytes in the mapping: read them, never write
// them. It panics when i is out of range, as indexing a slice does.
func (s Strings) Bytes(i int) []byte {
	if i < 0 || i >= s.Len() {
		panic(fmt.Sprintf("store: string %d of a table of %d", i, s.Len()))
	}
	start, end := s.bounds(i)
	return s.data[start:end:end]
}

// At returns string i without copying it: the string lives in the mapping
// and is valid until the Index is closed (copy it with strings.Clone to
// keep it longer). It panics when i is out of range.
func (s Strings) At(i int) string {
	b := s.Bytes(i)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Strings returns string table section name, checked on first use.
func (ix *Index) Strings(name string) (Strings, error) {
	s, err := ix.section(name, KindStrings)
	if err != nil {
		return Strings{}, err
	}
	data := ix.bytes(s)
	offStart := s.offsetsStart()
	st := Strings{data: data[:s.stringsEnd:s.stringsEnd]}
	if s.elemSize == 4 {
		st.off32 = view[uint32](data[offStart:])
	} else {
		st.off64 = view[uint64](data[offStart:])
	}
	return st, nil
}

// Blob returns blob section name, checked on first use. The bytes are the
// mapping itself: read them, never write them.
func (ix *Index) Blob(name string) ([]byte, error) {
	s, err := ix.section(name, KindBlob)
	if err != nil {
		return nil, err
	}
	return ix.bytes(s), nil
}

// OptionalJSON decodes blob section name of ix, written by
// Writer.WriteJSON, into a new T: nil when ix has no such section (an
// index whose build kept none), an error wrapping ErrCorrupt when the
// section does not decode.
func OptionalJSON[T any](ix *Index, name string) (*T, error) {
	if _, ok := ix.Section(name); !ok {
		return nil, nil
	}
	v := new(T)
	if err := ix.JSON(name, v); err != nil {
		return nil, err
	}
	return v, nil
}

// JSON decodes blob section name, written by Writer.WriteJSON, into v.
func (ix *Index) JSON(name string, v any) error {
	b, err := ix.Blob(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		s := ix.byName[name]
		return &Error{Path: ix.path, Section: name, Offset: int64(s.offset), Reason: ErrCorrupt, Detail: err.Error()}
	}
	return nil
}

// Release drops the index's pages from the process's resident memory
// (see mmap.Release); the slices read from it stay valid, and a later
// read maps their pages again from the page cache.
func (ix *Index) Release() error {
	if !mmap.Supported {
		return nil
	}
	return ix.releaseOpen()
}

// residentCheck is how often CapResident looks at the resident memory.
const residentCheck = 10 * time.Millisecond

// CapResident keeps the pages of mapped files in the process's resident
// memory under about limit bytes while the index is open, releasing the
// index's pages (Release) whenever they are more: a question that scans
// the whole index then holds a window of it, not all of it, and the page
// cache keeps the rest at hand. It looks every 10 ms, so the pages mapped
// in between can pass the limit. It does nothing where the resident
// memory cannot be told (outside Linux). stop ends it; Close does too.
func (ix *Index) CapResident(limit int64) (stop func()) {
	if _, ok := mmap.FileResident(); !ok || !mmap.Supported {
		return func() {}
	}
	done := make(chan struct{})
	var once sync.Once
	go func() {
		tick := time.NewTicker(residentCheck)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if n, _ := mmap.FileResident(); n > limit {
				ix.releaseOpen()
			}
			if ix.isClosed() {
				return
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}

// isClosed reports whether Close was called.
func (ix *Index) isClosed() bool {
	ix.closeMu.RLock()
	defer ix.closeMu.RUnlock()
	return ix.closed
}

// releaseOpen releases the index's pages unless it was closed meanwhile.
func (ix *Index) releaseOpen() error {
	ix.closeMu.RLock()
	defer ix.closeMu.RUnlock()
	if ix.closed {
		return nil
	}
	return mmap.Release(ix.data)
}

// Close unmaps and closes the file. Every slice and string read from the
// index dies with it.
func (ix *Index) Close() error {
	ix.closeMu.Lock()
	defer ix.closeMu.Unlock()
	if ix.closed {
		return nil
	}
	ix.closed = true
	ix.data = nil
	return ix.release()
}
