package hprof

import (
	"encoding/binary"
	"fmt"
)

// Skimmed is one heap sub-record as a Skimmer finds it: where it lies in
// the body skimmed and, for the three kinds of object record, what a
// class histogram needs of it.
type Skimmed struct {
	Sub SubTag
	// Start and End delimit the whole sub-record, tag included, as
	// offsets in the window (End may lie past its end).
	Start, End int
	// ID is the object's id (object records only).
	ID uint64
	// ClassID is the class of an instance or an object array.
	ClassID uint64
	// Elem is the element type of a primitive array.
	Elem Type
	// Length is the element count of an array, the field bytes of an
	// instance.
	Length uint32
}

// Skimmer walks the heap sub-records of one HEAP_DUMP or
// HEAP_DUMP_SEGMENT body, reading only what locates each record and, for
// objects, their id, class and length: the skimming pass that lets the
// segments of a dump be counted side by side. It reads a window of the
// body held in memory; an object's elements or fields need not be in it,
// only its fixed fields (a class dump must be whole). It knows the
// records of HotSpot's binary HPROF (roots, class dumps, instances and
// arrays); any other sub-record, or one that runs past the body, ends the
// walk with an error, and the caller reads the dump the ordinary way.
type Skimmer struct {
	window []byte
	left   int64 // the body's bytes from the window's start on
	idSize int
	pos    int64
	more   bool
	rec    Skimmed
	err    error
}

// NewSkimmer returns a Skimmer for a dump of idSize-byte (4 or 8)
// identifiers; Reset gives it a body to walk.
func NewSkimmer(idSize int) *Skimmer {
	return &Skimmer{idSize: idSize}
}

// Reset makes s walk window, the start of the left bytes of a heap
// record's body that remain (left >= len(window)).
func (s *Skimmer) Reset(window []byte, left int64) {
	s.window, s.left, s.pos, s.more, s.err = window, left, 0, false, nil
}

// Record is the sub-record Next found.
func (s *Skimmer) Record() *Skimmed { return &s.rec }

// Err is why the walk stopped before the body's end; nil at its end, or
// when the window ended first (More).
func (s *Skimmer) Err() error { return s.err }

// More reports whether the walk stopped at the window's end, before the
// body's: the caller resets s to a window that starts at Pos.
func (s *Skimmer) More() bool { return s.more }

// Pos is the offset in the window (past its end when a record's
// elements run past it) where the next record starts.
func (s *Skimmer) Pos() int64 { return s.pos }

// Next finds the next sub-record; false at the body's end, at the
// window's (More) or on an error.
func (s *Skimmer) Next() bool {
	if s.pos >= s.left || s.err != nil || s.more {
		return false
	}
	if s.pos >= int64(len(s.window)) {
		s.more = true
		return false
	}
	b := s.window[s.pos:]
	ids := s.idSize
	r := &s.rec
	*r = Skimmed{Sub: SubTag(b[0]), Start: int(s.pos)}
	var fixed int // the bytes that must be in the window
	switch r.Sub {
	case SubInstanceDump, SubObjArrayDump:
		fixed = 1 + 2*ids + 8
	case SubPrimArrayDump:
		fixed = 1 + ids + 9
	case SubClassDump:
		fixed = 1 + 7*ids + 8
	default:
		if fixed = rootLength(r.Sub, ids); fixed < 0 {
			s.err = fmt.Errorf("heap sub-record tag 0x%02X at offset %d is not skimmed", uint8(r.Sub), s.pos)
			return false
		}
		fixed++
	}
	if len(b) < fixed {
		return s.short(fixed, "its fixed fields")
	}
	n := int64(fixed) // the record's length in bytes
	switch r.Sub {
	case SubInstanceDump:
		r.ID, r.ClassID = s.id(b[1:]), s.id(b[1+ids+4:])
		r.Length = binary.BigEndian.Uint32(b[1+2*ids+4:])
		n += int64(r.Length)
	case SubObjArrayDump:
		r.ID, r.Length, r.ClassID = s.id(b[1:]), binary.BigEndian.Uint32(b[1+ids+4:]), s.id(b[1+ids+8:])
		n += int64(r.Length) * int64(ids)
	case SubPrimArrayDump:
		r.ID, r.Length, r.Elem = s.id(b[1:]), binary.BigEndian.Uint32(b[1+ids+4:]), Type(b[1+ids+8])
		if !r.Elem.IsPrimitive() {
			s.err = fmt.Errorf("%s at offset %d has element type %d: expected a primitive type code 4-11", r.Sub, s.pos, r.Elem)
			return false
		}
		n += int64(r.Length) * int64(r.Elem.Size(ids))
	case SubClassDump:
		length, ok := s.classDumpLength(b)
		if length < 0 {
			s.err = fmt.Errorf("%s at offset %d holds a value of no known type", r.Sub, s.pos)
			return false
		}
		if !ok {
			return s.short(len(b)+1, "its fields")
		}
		n = int64(length)
	}
	if s.pos+n > s.left {
		s.err = fmt.Errorf("%s at offset %d runs past its heap record's end", r.Sub, s.pos)
		return false
	}
	s.pos += n
	r.End = int(s.pos)
	return true
}

// short stops the walk at a record of which the window holds less than
// need bytes: an error when the body ends first, else at the window's
// end (More).
func (s *Skimmer) short(need int, what string) bool {
	if s.pos+int64(need) > s.left {
		return s.fail(what)
	}
	s.more = true
	return false
}

// fail ends the walk at a record that runs past the body.
func (s *Skimmer) fail(what string) bool {
	s.err = fmt.Errorf("%s at offset %d runs past its heap record's end (%s)", s.rec.Sub, s.pos, what)
	return false
}

func (s *Skimmer) id(b []byte) uint64 {
	if s.idSize == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}

// rootLength is the length of a GC root sub-record after its tag; -1 for
// a tag that is no root the Skimmer knows.
func rootLength(sub SubTag, ids int) int {
	switch sub {
	case RootUnknown, RootStickyClass, RootMonitorUsed:
		return ids
	case RootJNIGlobal:
		return 2 * ids
	case RootJNILocal, RootJavaFrame, RootThreadObj:
		return ids + 8
	case RootNativeStack, RootThreadBlock:
		return ids + 4
	}
	return -1
}

// classDumpLength is the length of the CLASS_DUMP at the start of b;
// false when b ends inside it, -1 when it holds a value of no known
// type.
func (s *Skimmer) classDumpLength(b []byte) (int, bool) {
	ids := s.idSize
	p := 1 + 7*ids + 8 // tag, ids, serial, instance size
	u2 := func() (int, bool) {
		if p+2 > len(b) {
			return 0, false
		}
		v := int(binary.BigEndian.Uint16(b[p:]))
		p += 2
		return v, true
	}
	bad := false
	value := func(skipBefore int) bool {
		p += skipBefore
		if p+1 > len(b) {
			return false
		}
		size := Type(b[p]).Size(ids)
		bad = size == 0
		p += 1 + size
		return !bad && p <= len(b)
	}
	pool, ok := u2()
	if !ok {
		return 0, false
	}
	for range pool {
		if !value(2) {
			return badLength(bad), false
		}
	}
	statics, ok := u2()
	if !ok {
		return 0, false
	}
	for range statics {
		if !value(ids) {
			return badLength(bad), false
		}
	}
	fields, ok := u2()
	if !ok {
		return 0, false
	}
	p += fields * (ids + 1)
	return p, p <= len(b)
}

// badLength is classDumpLength's length when it stops early: -1 for a
// value of no known type, else 0 (the window ends first).
func badLength(bad bool) int {
	if bad {
		return -1
	}
	return 0
}
