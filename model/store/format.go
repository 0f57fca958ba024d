// Package store reads and writes hprofctl's persistent index files: one
// file of named, typed sections (integer arrays, string tables and small
// blobs) that describes one dump, identified by the dump's fingerprint.
//
// A Writer streams sections into a temporary file beside the final one and
// renames it into place, so a reader never sees a half-written index and
// concurrent writers leave one whole index. Open maps the file read-only
// and checks its header and section table; a section's checksum is checked
// the first time the section is read, and its data is handed out without a
// copy. The package knows nothing of heaps: callers choose section names
// and what the arrays mean. docs/index-format.md describes the bytes.
package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"unsafe"
)

// FormatVersion is the version of the container format: the header, the
// section table and the layout of each section kind. It changes whenever
// those bytes change; an index of another version is refused with
// ErrVersion.
const FormatVersion = 1

// Suffix ends the name of an index file kept beside its dump.
const Suffix = ".hprofctl-index"

// MaxNameLen is the longest section name, in bytes.
const MaxNameLen = 32

// maxSections bounds the section table so that a lying header cannot make
// Open read or allocate much.
const maxSections = 1 << 16

// magic opens every index file: readable by `head -1`, ended by a NUL so
// that no text file starts the same way.
const magic = "hprofctl-index\n\x00"

// Sizes and alignment of the file's parts.
const (
	headerSize = 128
	entrySize  = 64
	alignment  = 64
)

// Header field offsets (see docs/index-format.md).
const (
	hdrFormat      = 16
	hdrContent     = 20
	hdrFileSize    = 24
	hdrTableOffset = 32
	hdrSections    = 40
	hdrTableCRC    = 44
	hdrDumpSize    = 48
	hdrDumpModTime = 56
	hdrDumpSample  = 64
	hdrReserved    = 96
	hdrCRC         = 124
)

// Section table entry field offsets.
const (
	entName     = 0
	entOffset   = 32
	entLength   = 40
	entCount    = 48
	entCRC      = 56
	entKind     = 60
	entElemSize = 61
	entReserved = 62
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Kind is the type of a section's data.
type Kind uint8

// The section kinds. The integer kinds hold little-endian arrays of one
// integer type; Strings holds a table of byte strings; Blob holds bytes
// whose meaning the caller defines (often JSON).
const (
	KindUint8 Kind = 1 + iota
	KindUint16
	KindUint32
	KindUint64
	KindInt8
	KindInt16
	KindInt32
	KindInt64
	KindStrings
	KindBlob
)

var kindNames = [...]string{
	KindUint8:   "uint8",
	KindUint16:  "uint16",
	KindUint32:  "uint32",
	KindUint64:  "uint64",
	KindInt8:    "int8",
	KindInt16:   "int16",
	KindInt32:   "int32",
	KindInt64:   "int64",
	KindStrings: "strings",
	KindBlob:    "blob",
}

// String names the kind as docs/index-format.md does.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// intSize returns the element size of an integer kind, or 0 for any other.
func (k Kind) intSize() int {
	switch k {
	case KindUint8, KindInt8:
		return 1
	case KindUint16, KindInt16:
		return 2
	case KindUint32, KindInt32:
		return 4
	case KindUint64, KindInt64:
		return 8
	}
	return 0
}

// Integer is the set of element types an array section can hold: the
// fixed-size integers and types defined on them.
type Integer interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~int8 | ~int16 | ~int32 | ~int64
}

// kindOf returns the kind of an array of T.
func kindOf[T Integer]() Kind {
	var zero T
	signed := ^zero < 0
	switch unsafe.Sizeof(zero) {
	case 1:
		if signed {
			return KindInt8
		}
		return KindUint8
	case 2:
		if signed {
			return KindInt16
		}
		return KindUint16
	case 4:
		if signed {
			return KindInt32
		}
		return KindUint32
	}
	if signed {
		return KindInt64
	}
	return KindUint64
}

// nativeLittleEndian says whether this machine stores integers
// little-endian, as the file does: then arrays are written and read
// without conversion. Tests turn it off to run the converting path.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// alignUp rounds n up to the next multiple of alignment.
func alignUp(n uint64) uint64 { return (n + alignment - 1) &^ (alignment - 1) }

// validName reports whether name may name a section: 1 to MaxNameLen
// bytes of ASCII letters, digits and ". _ - /".
func validName(name string) bool {
	if name == "" || len(name) > MaxNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == '-', c == '/':
		default:
			return false
		}
	}
	return true
}

// entry is one row of the section table.
type entry struct {
	name     string
	offset   uint64
	length   uint64
	count    uint64
	crc      uint32
	kind     Kind
	elemSize uint8
}

func (e *entry) encode(b []byte) {
	clear(b[:entrySize])
	copy(b[entName:entName+MaxNameLen], e.name)
	binary.LittleEndian.PutUint64(b[entOffset:], e.offset)
	binary.LittleEndian.PutUint64(b[entLength:], e.length)
	binary.LittleEndian.PutUint64(b[entCount:], e.count)
	binary.LittleEndian.PutUint32(b[entCRC:], e.crc)
	b[entKind] = byte(e.kind)
	b[entElemSize] = e.elemSize
}

// header is the decoded file header.
type header struct {
	format      uint32
	content     uint32
	fileSize    uint64
	tableOffset uint64
	sections    uint32
	tableCRC    uint32
	dump        Fingerprint
}

func (h *header) encode(b []byte) {
	clear(b[:headerSize])
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[hdrFormat:], h.format)
	binary.LittleEndian.PutUint32(b[hdrContent:], h.content)
	binary.LittleEndian.PutUint64(b[hdrFileSize:], h.fileSize)
	binary.LittleEndian.PutUint64(b[hdrTableOffset:], h.tableOffset)
	binary.LittleEndian.PutUint32(b[hdrSections:], h.sections)
	binary.LittleEndian.PutUint32(b[hdrTableCRC:], h.tableCRC)
	binary.LittleEndian.PutUint64(b[hdrDumpSize:], uint64(h.dump.Size))
	binary.LittleEndian.PutUint64(b[hdrDumpModTime:], uint64(h.dump.ModTime))
	copy(b[hdrDumpSample:hdrReserved], h.dump.Sample[:])
	binary.LittleEndian.PutUint32(b[hdrCRC:], crc32.Checksum(b[:hdrCRC], castagnoli))
}
