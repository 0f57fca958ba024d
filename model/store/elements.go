package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"unsafe"
)

// Elements says what every element of a uint16 or uint32 array section
// must be, so that code may index with it: below Below, or (when Marks is
// not 0) from Marks up, the values that mark "none" and the like; with
// Ascending, never less than the element before it. The check reads the
// section as its checksum does, once, with plain reads: no page of the
// mapping is touched, and a section read for its checksum is not read
// twice.
type Elements struct {
	Below, Marks uint32
	Ascending    bool
}

// ArrayOf returns uint16 or uint32 array section name as a []T, as Array
// does, after checking that its elements are as want says. A fault is an
// *Error (ErrCorrupt) naming the element.
func ArrayOf[T ~uint16 | ~uint32](ix *Index, name string, want Elements) ([]T, error) {
	s, err := ix.sectionWith(name, kindOf[T](), &want)
	if err != nil {
		return nil, err
	}
	if err := ix.checkElements(s, want); err != nil {
		return nil, err
	}
	return view[T](ix.bytes(s)), nil
}

// LoadOf sets *dst to array section name checked by want (see ArrayOf)
// unless *err already holds an error, as Load does.
func LoadOf[T ~uint16 | ~uint32](ix *Index, name string, want Elements, dst *[]T, err *error) {
	if *err == nil {
		*dst, *err = ArrayOf[T](ix, name, want)
	}
}

// elementFault is an element that is not what Elements asks.
type elementFault struct {
	at     int64 // byte offset in the section
	detail string
}

func (e *elementFault) Error() string { return e.detail }

// inspect returns the inspector that checks the elements, of size bytes
// each (2 or 4), of a section of src starting at off against want.
func (want Elements) inspect(src io.ReaderAt, off int64, size int) inspector {
	return func(b []byte, at int64) error {
		prev := func() (uint32, error) {
			p := make([]byte, size)
			if _, err := src.ReadAt(p, off+at-int64(size)); err != nil {
				return 0, err
			}
			return littleEndian[uint32](p, size)[0], nil
		}
		if size == 2 {
			return checkElements(want, littleEndian[uint16](b, 2), at, size, prev)
		}
		return checkElements(want, littleEndian[uint32](b, 4), at, size, prev)
	}
}

// checkElements checks vals, the elements at byte at of their section,
// against want; prev reads the element before them.
func checkElements[E uint16 | uint32](want Elements, vals []E, at int64, size int, prev func() (uint32, error)) error {
	// v is a fault when v-below < span (unsigned): from Below up to
	// Marks, or to the end when there are no marks.
	below, span := want.Below, want.Marks-want.Below
	if want.Marks == 0 {
		span = -want.Below
	}
	for i, v := range vals {
		if uint32(v)-below < span {
			return &elementFault{at + int64(size*i), fmt.Sprintf("element %d is %d, not below %d", at/int64(size)+int64(i), v, want.Below)}
		}
	}
	if !want.Ascending || len(vals) == 0 {
		return nil
	}
	last := uint32(vals[0])
	if at > 0 {
		var err error
		if last, err = prev(); err != nil {
			return err
		}
	}
	for i, v := range vals {
		if uint32(v) < last {
			return &elementFault{at + int64(size*i), fmt.Sprintf("element %d is %d, less than the one before it (%d)", at/int64(size)+int64(i), v, last)}
		}
		last = uint32(v)
	}
	return nil
}

// littleEndian returns the little-endian elements of size bytes (2 or 4)
// of b as Es: b itself where this machine is little-endian and b is
// aligned, else a decoded copy.
func littleEndian[E uint16 | uint32](b []byte, size int) []E {
	if nativeLittleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(size) == 0 && int(unsafe.Sizeof(E(0))) == size {
		return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
	}
	out := make([]E, len(b)/size)
	for i := range out {
		if size == 2 {
			out[i] = E(binary.LittleEndian.Uint16(b[2*i:]))
		} else {
			out[i] = E(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	return out
}

// elementChecks remembers, per section, the Elements already checked
// beyond the one checked with the checksum.
type elementChecks struct {
	mu   sync.Mutex
	done map[Elements]error
}

// checkElements checks section s's elements against want unless that was
// done with its checksum or before: a section read with other Elements
// than at first is read again once for each.
func (ix *Index) checkElements(s *section, want Elements) error {
	if ix.written || s.checkedWith != nil && *s.checkedWith == want {
		return nil
	}
	s.extra.mu.Lock()
	defer s.extra.mu.Unlock()
	if err, ok := s.extra.done[want]; ok {
		return err
	}
	_, err := checksumAt(ix.src, int64(s.offset), int64(s.length), want.inspect(ix.src, int64(s.offset), s.kind.intSize()))
	err = ix.sectionFault(s, err)
	if s.extra.done == nil {
		s.extra.done = map[Elements]error{}
	}
	s.extra.done[want] = err
	return err
}

// sectionFault turns an error met reading section s into the *Error
// callers see: an element fault, or a file cut short after it was opened.
func (ix *Index) sectionFault(s *section, err error) error {
	if err == nil {
		return nil
	}
	var f *elementFault
	if errors.As(err, &f) {
		return &Error{Path: ix.path, Section: s.name, Offset: int64(s.offset) + f.at, Reason: ErrCorrupt, Detail: f.detail}
	}
	return &Error{Path: ix.path, Section: s.name, Offset: int64(s.offset), Reason: ErrCorrupt,
		Detail: fmt.Sprintf("%v: the file was cut short after it was opened", err)}
}
