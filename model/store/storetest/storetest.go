// Package storetest changes index files as someone who knows their format
// would, for tests: it finds a section's bytes and seals a changed file
// again, every checksum recomputed (docs/index-format.md describes the
// bytes), so that a test can hand hprofctl an index whose checksums are
// all valid and whose content is not what hprofctl wrote.
package storetest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// Where the format keeps what Reseal and Section read and write.
const (
	headerSize     = 128
	entrySize      = 64
	hdrTableOffset = 32
	hdrSections    = 40
	hdrTableCRC    = 44
	hdrCRC         = 124
	entName        = 0
	nameLen        = 32
	entOffset      = 32
	entLength      = 40
	entCRC         = 56
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// entries returns the section table of the index file data, or nil when
// the header does not place it within data.
func entries(data []byte) [][]byte {
	if len(data) < headerSize {
		return nil
	}
	off := binary.LittleEndian.Uint64(data[hdrTableOffset:])
	n := uint64(binary.LittleEndian.Uint32(data[hdrSections:]))
	if off > uint64(len(data)) || n > (uint64(len(data))-off)/entrySize {
		return nil
	}
	out := make([][]byte, n)
	for i := range out {
		start := off + uint64(i)*entrySize
		out[i] = data[start : start+entrySize]
	}
	return out
}

// span returns the bytes of the section an entry describes, or nil when
// they do not lie within data.
func span(data, entry []byte) []byte {
	off := binary.LittleEndian.Uint64(entry[entOffset:])
	n := binary.LittleEndian.Uint64(entry[entLength:])
	if off > uint64(len(data)) || n > uint64(len(data))-off {
		return nil
	}
	return data[off : off+n]
}

// Names returns the names of the sections of the index file data, in
// table order.
func Names(data []byte) []string {
	var out []string
	for _, e := range entries(data) {
		name := e[entName : entName+nameLen]
		out = append(out, string(bytes.TrimRight(name, "\x00")))
	}
	return out
}

// Section returns the bytes of section name in the index file data (a
// part of data: changing it changes data), or nil when there is none.
func Section(data []byte, name string) []byte {
	for i, n := range Names(data) {
		if n == name {
			return span(data, entries(data)[i])
		}
	}
	return nil
}

// Reseal recomputes, in the index file data, the checksum of every
// section, of the section table and of the header.
func Reseal(data []byte) {
	table := entries(data)
	for _, e := range table {
		if b := span(data, e); b != nil {
			binary.LittleEndian.PutUint32(e[entCRC:], crc32.Checksum(b, castagnoli))
		}
	}
	if len(table) > 0 {
		start := binary.LittleEndian.Uint64(data[hdrTableOffset:])
		whole := data[start : start+uint64(len(table))*entrySize]
		binary.LittleEndian.PutUint32(data[hdrTableCRC:], crc32.Checksum(whole, castagnoli))
	}
	if len(data) >= headerSize {
		binary.LittleEndian.PutUint32(data[hdrCRC:], crc32.Checksum(data[:hdrCRC], castagnoli))
	}
}
