package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"strconv"
	"strings"
)

// binaryField is a length, count or identifier field of a binary input:
// the stress test sets lengths and counts to huge values, identifiers to
// other identifiers.
type binaryField struct {
	offset int
	width  int // 2 or 4 bytes, an identifier's 4 or 8
	order  binary.ByteOrder
	what   string
}

// fieldSet gathers the length fields of one input, and for HPROF its
// identifier fields.
type fieldSet struct {
	fields []binaryField
	ids    []binaryField
}

func (s *fieldSet) add(offset, width int, order binary.ByteOrder, what string) {
	s.fields = append(s.fields, binaryField{offset, width, order, what})
}

func (s *fieldSet) addID(offset, width int, what string) {
	s.ids = append(s.ids, binaryField{offset, width, binary.BigEndian, what})
}

// hprofTypeSize is the size of a value of HPROF basic type ty in a dump of
// identifier size id (docs/hprof.md#byte-order-and-identifiers); 0 for no type.
func hprofTypeSize(ty byte, id int) int {
	switch ty {
	case 1, 2:
		return id
	case 4, 8:
		return 1
	case 5, 9:
		return 2
	case 6, 10:
		return 4
	case 7, 11:
		return 8
	}
	return 0
}

// hprofFields walks the record framing of an HPROF binary dump
// (docs/hprof.md, file header to CLASS_DUMP), written here from the format description and not
// with hprofctl's reader, and returns its length and count fields: the
// header's identifier size, every record length (a UTF8 record's is its
// string's length), TRACE frame counts, ALLOC_SITES and CPU_SAMPLES
// counts, and in heap dumps INSTANCE_DUMP byte counts, array lengths and
// CLASS_DUMP sizes and counts; and its identifier fields: LOAD_CLASS
// class and name, the objects of roots, the object and class of each
// instance, array and class dump, a class dump's superclass and an object
// array's first element. It stops where the framing stops making sense.
func hprofFields(b []byte) fieldSet {
	be := binary.BigEndian
	var s fieldSet
	nul := bytes.IndexByte(b[:min(len(b), 64)], 0)
	if nul < 0 || !bytes.HasPrefix(b, []byte("JAVA PROFILE 1.0")) || nul+13 > len(b) {
		return s
	}
	off := nul + 1
	s.add(off, 4, be, "header id_size")
	id := int(be.Uint32(b[off:]))
	if id != 4 && id != 8 {
		return s
	}
	off += 12
	for off+9 <= len(b) {
		tag, length := b[off], int(be.Uint32(b[off+5:]))
		body, end := off+9, off+9+length
		if end > len(b) {
			break
		}
		what := "record length"
		switch tag {
		case 0x01:
			what = "UTF8 record length (its string's length)"
		case 0x02:
			if length >= 8+2*id {
				s.addID(body+4, id, "LOAD_CLASS class id")
				s.addID(body+8+id, id, "LOAD_CLASS name id")
			}
		case 0x05:
			if length >= 12 {
				s.add(body+8, 4, be, "TRACE frame count")
			}
		case 0x06:
			if length >= 34 {
				s.add(body+30, 4, be, "ALLOC_SITES site count")
			}
		case 0x0D:
			if length >= 8 {
				s.add(body+4, 4, be, "CPU_SAMPLES trace count")
			}
		case 0x0C, 0x1C:
			hprofHeapFields(b[:end], body, id, &s)
		}
		s.add(off+5, 4, be, what)
		off = end
	}
	return s
}

// hprofHeapFields adds the length fields of the heap dump sub-records in
// b[off:], up to the first sub-record it cannot step over.
func hprofHeapFields(b []byte, off, id int, s *fieldSet) {
	be := binary.BigEndian
	u4 := func(o int) int { return int(be.Uint32(b[o:])) }
	for off < len(b) {
		tag := b[off]
		off++
		n, root := 0, true
		switch tag {
		case 0xFF, 0x05, 0x07, 0x89, 0x8A, 0x8B, 0x8C, 0x8D, 0x90:
			n = id
		case 0x01:
			n = 2 * id
		case 0x02, 0x03, 0x08, 0x8E:
			n = id + 8
		case 0x04, 0x06:
			n = id + 4
		case 0xFE:
			n, root = id+4, false
		case 0x21:
			root = false
			if off+2*id+8 > len(b) {
				return
			}
			s.addID(off, id, "INSTANCE_DUMP object id")
			s.addID(off+id+4, id, "INSTANCE_DUMP class id")
			s.add(off+2*id+4, 4, be, "INSTANCE_DUMP byte count")
			n = 2*id + 8 + u4(off+2*id+4)
		case 0x22:
			root = false
			if off+2*id+8 > len(b) {
				return
			}
			s.addID(off, id, "OBJ_ARRAY_DUMP array id")
			s.addID(off+id+8, id, "OBJ_ARRAY_DUMP class id")
			s.add(off+id+4, 4, be, "OBJ_ARRAY_DUMP length")
			n = 2*id + 8 + u4(off+id+4)*id
			if n > 2*id+8 && off+n <= len(b) {
				s.addID(off+2*id+8, id, "OBJ_ARRAY_DUMP element")
			}
		case 0x23, 0xC3:
			root = false
			if off+id+9 > len(b) {
				return
			}
			size := hprofTypeSize(b[off+id+8], id)
			if size == 0 {
				return
			}
			s.addID(off, id, "PRIM_ARRAY_DUMP array id")
			s.add(off+id+4, 4, be, "PRIM_ARRAY_DUMP length")
			n = id + 9
			if tag == 0x23 {
				n += u4(off+id+4) * size
			}
		case 0x20:
			root = false
			if n = hprofClassDumpFields(b, off, id, s); n < 0 {
				return
			}
		default:
			return
		}
		if root && off+id <= len(b) {
			s.addID(off, id, "root object id")
		}
		off += n
	}
}

// hprofClassDumpFields adds the size and counts of the CLASS_DUMP whose
// body starts at b[off] and returns the body's length, -1 when it runs
// past b.
func hprofClassDumpFields(b []byte, off, id int, s *fieldSet) int {
	be := binary.BigEndian
	p := off + 7*id + 4
	if p+6 > len(b) {
		return -1
	}
	s.addID(off, id, "CLASS_DUMP class id")
	s.addID(off+id+4, id, "CLASS_DUMP super id")
	s.add(p, 4, be, "CLASS_DUMP instance size")
	p += 4
	s.add(p, 2, be, "CLASS_DUMP constant pool count")
	n := int(be.Uint16(b[p:]))
	p += 2
	for range n {
		if p+3 > len(b) {
			return -1
		}
		size := hprofTypeSize(b[p+2], id)
		if size == 0 {
			return -1
		}
		p += 3 + size
	}
	for k, entry := range []string{"static field", "instance field"} {
		if p+2 > len(b) {
			return -1
		}
		s.add(p, 2, be, "CLASS_DUMP "+entry+" count")
		n = int(be.Uint16(b[p:]))
		p += 2
		for range n {
			if p+id+1 > len(b) {
				return -1
			}
			p += id + 1
			if k == 0 {
				size := hprofTypeSize(b[p-1], id)
				if size == 0 {
					return -1
				}
				p += size
			}
		}
	}
	if p > len(b) {
		return -1
	}
	return p - off
}

// jvmpiBuffer describes a JVMPI buffer for jvmpiLengthFields: its kind
// ("heap", "object" or "monitor"), level, pointer width and byte orders,
// and for class dumps the interface counts and static signatures of the
// class-load side channel.
type jvmpiBuffer struct {
	kind    string
	level   int
	id      int
	ids     binary.ByteOrder
	scalars binary.ByteOrder
	classes map[uint64]jvmpiClassLayout
}

// jvmpiClassLayout is what stepping over a JVMPI CLASS_DUMP needs.
type jvmpiClassLayout struct {
	interfaces int
	statics    []string // JVM signatures, in buffer order
}

// readJVMPIClassLayouts reads the class layouts of a class-load side
// channel (docs/jvmpi.md#capture-files).
func readJVMPIClassLayouts(path string) (map[uint64]jvmpiClassLayout, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var side struct {
		Classes []struct {
			ID         string `json:"class_id"`
			Interfaces int    `json:"num_interfaces"`
			Statics    []struct {
				Signature string `json:"field_signature"`
			} `json:"statics"`
		} `json:"class_load"`
	}
	if err := json.Unmarshal(raw, &side); err != nil {
		return nil, err
	}
	m := map[uint64]jvmpiClassLayout{}
	for _, c := range side.Classes {
		id, err := strconv.ParseUint(strings.TrimPrefix(c.ID, "0x"), 16, 64)
		if err != nil {
			return nil, err
		}
		l := jvmpiClassLayout{interfaces: c.Interfaces}
		for _, f := range c.Statics {
			l.statics = append(l.statics, f.Signature)
		}
		m[id] = l
	}
	return m, nil
}

// jvmpiSignatureSize is the size of a value of JVM signature sig in a
// JVMPI buffer; a reference is a pointer.
func jvmpiSignatureSize(sig string, id int) int {
	if sig == "" {
		return 0
	}
	switch sig[0] {
	case 'L', '[':
		return id
	case 'Z', 'B':
		return 1
	case 'C', 'S':
		return 2
	case 'I', 'F':
		return 4
	case 'J', 'D':
		return 8
	}
	return 0
}

// jvmpiLengthFields walks a JVMPI buffer (docs/jvmpi.md, heap, object and monitor dump buffers), written here
// from the format reference, and returns its counts: INSTANCE_DUMP byte
// counts, array lengths, CLASS_DUMP instance sizes and constant-pool
// counts, and a monitor dump's entry counts and waiter counts. A level-0
// heap dump has none. It stops where the framing stops making sense.
func jvmpiLengthFields(b []byte, buf jvmpiBuffer) []binaryField {
	var s fieldSet
	id, sc := buf.id, buf.scalars
	u4 := func(o int) int { return int(sc.Uint32(b[o:])) }
	readID := func(o int) uint64 {
		if id == 4 {
			return uint64(buf.ids.Uint32(b[o:]))
		}
		return buf.ids.Uint64(b[o:])
	}
	if buf.kind == "monitor" {
		for off := 0; off < len(b); {
			tag := b[off]
			off++
			switch tag {
			case 0x01:
				off += 2 * id
			case 0x02:
				off += 3 * id
			default:
				return s.fields
			}
			if off+4 > len(b) {
				return s.fields
			}
			s.add(off, 4, sc, "monitor entry count")
			off += 4
			for _, list := range []string{"waiting to enter", "waiting to be notified"} {
				if off+4 > len(b) {
					return s.fields
				}
				s.add(off, 4, sc, "monitor count of threads "+list)
				off += 4 + u4(off)*id
			}
		}
		return s.fields
	}
	if buf.kind == "heap" && buf.level == 0 {
		return nil
	}
	for off := 0; off < len(b); {
		tag := b[off]
		off++
		n := 0
		switch tag {
		case 0xFF, 0x05, 0x07:
			n = id
		case 0x01, 0x04, 0x06:
			n = 2 * id
		case 0x02, 0x03:
			n = 2*id + 4
		case 0x21:
			if off+2*id+4 > len(b) {
				return s.fields
			}
			s.add(off+2*id, 4, sc, "INSTANCE_DUMP byte count")
			n = 2*id + 4 + u4(off+2*id)
		case 0x22:
			if off+id+4 > len(b) {
				return s.fields
			}
			s.add(off+id, 4, sc, "OBJ_ARRAY_DUMP length")
			n = 2*id + 4 + u4(off+id)*id
		case 0x23:
			if off+id+5 > len(b) {
				return s.fields
			}
			size := hprofTypeSize(b[off+id+4], id)
			if size == 0 {
				return s.fields
			}
			s.add(off+id, 4, sc, "PRIM_ARRAY_DUMP length")
			n = id + 5
			if buf.level == 2 {
				n += u4(off+id) * size
			}
		case 0x20:
			if off+7*id+4 > len(b) {
				return s.fields
			}
			layout, ok := buf.classes[readID(off)]
			if !ok {
				return s.fields
			}
			p := off + 7*id
			s.add(p, 4, sc, "CLASS_DUMP instance size")
			p += 4 + layout.interfaces*id
			if p+2 > len(b) {
				return s.fields
			}
			s.add(p, 2, sc, "CLASS_DUMP constant pool count")
			cp := int(sc.Uint16(b[p:]))
			p += 2
			for range cp {
				if p+3 > len(b) {
					return s.fields
				}
				size := hprofTypeSize(b[p+2], id)
				if size == 0 {
					return s.fields
				}
				p += 3 + size
			}
			for _, sig := range layout.statics {
				if buf.level == 2 || strings.HasPrefix(sig, "L") || strings.HasPrefix(sig, "[") {
					p += jvmpiSignatureSize(sig, id)
				}
			}
			n = p - off
		default:
			return s.fields
		}
		off += n
	}
	return s.fields
}
