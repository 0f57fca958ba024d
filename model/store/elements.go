package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"unsafe"
)

// Elements says what every element of a uint32 array section must be, so
// that code may index with it: below Below, or (when Marks is not 0) from
// Marks up, the values that mark "none" and the like; with Ascending,
// never less than the element before it. The check reads the section as
// its checksum does, once, with plain reads: no page of the mapping is
// touched, and a section read for its checksum is not read twice.
type Elements struct {
	Below, Marks uint32
	Ascending    bool
}

// ArrayOf returns uint32 array section name as a []T, as Array does, after
// checking that its elements are as want says. A fault is an *Error
// (ErrCorrupt) naming the element.
func ArrayOf[T ~uint32](ix *Index, name string, want Elements) ([]T, error) {
	s, err := ix.sectionWith(name, KindUint32, &want)
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
func LoadOf[T ~uint32](ix *Index, name string, want Elements, dst *[]T, err *error) {
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

// inspect returns the inspector that checks the elements of a section of
// src starting at off against want.
func (want Elements) inspect(src io.ReaderAt, off int64) inspector {
	// v is a fault when v-below < span (unsigned): from Below up to
	// Marks, or to the end when there are no marks.
	below, span := want.Below, want.Marks-want.Below
	if want.Marks == 0 {
		span = -want.Below
	}
	return func(b []byte, at int64) error {
		vals := uint32s(b)
		for i, v := range vals {
			if v-below < span {
				return &elementFault{at + int64(4*i), fmt.Sprintf("element %d is %d, not below %d", at/4+int64(i), v, want.Below)}
			}
		}
		if !want.Ascending || len(vals) == 0 {
			return nil
		}
		prev := vals[0]
		if at > 0 {
			var p [4]byte
			if _, err := src.ReadAt(p[:], off+at-4); err != nil {
				return err
			}
			prev = binary.LittleEndian.Uint32(p[:])
		}
		for i, v := range vals {
			if v < prev {
				return &elementFault{at + int64(4*i), fmt.Sprintf("element %d is %d, less than the one before it (%d)", at/4+int64(i), v, prev)}
			}
			prev = v
		}
		return nil
	}
}

// uint32s returns the little-endian uint32s of b: b itself where this
// machine is little-endian and b is aligned, else a decoded copy.
func uint32s(b []byte) []uint32 {
	if nativeLittleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
	}
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
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
	if s.checkedWith != nil && *s.checkedWith == want {
		return nil
	}
	s.extra.mu.Lock()
	defer s.extra.mu.Unlock()
	if err, ok := s.extra.done[want]; ok {
		return err
	}
	_, err := checksumAt(ix.src, int64(s.offset), int64(s.length), want.inspect(ix.src, int64(s.offset)))
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
