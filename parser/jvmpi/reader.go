// Package jvmpi reads the dump buffers that JDK 1.2–1.4 virtual machines
// handed to profiler agents through JVMPI (docs/jvmpi.md): heap dumps
// at levels 0, 1 and 2, object dumps and monitor dumps, with pointers of
// 4 or 8 bytes and the byte orders of pointers and of scalars set apart.
// It also loads hprofctl's capture files (docs/jvmpi.md#capture-files): a
// manifest, the raw buffer and the side channel of JVMPI events that the
// buffer cannot be decoded without.
//
// A buffer has no header, no framing and no record lengths, so what it is
// must be given in Options. Usage follows bufio.Scanner:
//
//	r, err := jvmpi.NewReader(src, opt)
//	for r.Next() {
//		rec := r.Record()
//		...
//	}
//	err = r.Err() // errors.Is(err, jvmpi.ErrTruncated) for a cut-short buffer
package jvmpi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/hprofctl/hprofctl/parser/internal/window"
	"io"
)

// ErrTruncated is wrapped by the error a Reader returns when the buffer
// ends inside a record: the records before it were good.
var ErrTruncated = errors.New("buffer is truncated")

// ErrNeedClasses is wrapped by the error a Reader returns when a record
// cannot be stepped over without class layouts (the class-load events of
// a capture) it was not given, or that lack the class.
var ErrNeedClasses = errors.New("class layouts are needed")

// FormatError reports malformed input: the file, the buffer offset and
// what was expected there.
type FormatError struct {
	File   string
	Offset int64
	Msg    string
	Err    error // ErrTruncated, ErrNeedClasses, the source's read error, or nil
}

func (e *FormatError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg)
}

// Unwrap returns ErrTruncated, ErrNeedClasses or the source's read error.
func (e *FormatError) Unwrap() error { return e.Err }

// Options describe a buffer: everything it does not say itself
// (docs/jvmpi.md#what-a-reader-must-be-told).
type Options struct {
	// Name is the file name used in errors.
	Name string
	// Kind is the kind of buffer.
	Kind Kind
	// Level is the dump level of a heap dump: 0, 1 or 2. Object dumps
	// are always at level 2.
	Level int
	// IDSize is the width of every pointer-sized value: 4 or 8.
	IDSize int
	// IDOrder is the byte order of pointer-sized values, ScalarOrder
	// that of u2/u4/u8 and primitive values; nil means big-endian.
	IDOrder, ScalarOrder binary.ByteOrder
	// Classes are the class layouts from the class-load events. Without
	// them a level-1 or level-2 heap dump can be read up to its first
	// class dump, and instance fields cannot be decoded.
	Classes *ClassTable
}

// Reader reads the records of one JVMPI buffer.
type Reader struct {
	opt  Options
	ids  int
	idBO binary.ByteOrder
	scBO binary.ByteOrder

	w window.Window

	rec     Record
	err     error
	records int
}

// NewReader checks opt and returns a Reader positioned before the first
// record of the buffer src holds.
func NewReader(src io.Reader, opt Options) (*Reader, error) {
	switch opt.Kind {
	case HeapDump:
		if opt.Level < 0 || opt.Level > 2 {
			return nil, fmt.Errorf("%s: heap dump level %d: expected 0, 1 or 2", opt.Name, opt.Level)
		}
	case ObjectDump:
		opt.Level = 2
	case MonitorDump:
	default:
		return nil, fmt.Errorf("%s: unknown JVMPI buffer kind %d", opt.Name, opt.Kind)
	}
	if opt.IDSize != 4 && opt.IDSize != 8 {
		return nil, fmt.Errorf("%s: id size %d: expected 4 or 8", opt.Name, opt.IDSize)
	}
	r := &Reader{w: window.New(src), opt: opt, ids: opt.IDSize, idBO: opt.IDOrder, scBO: opt.ScalarOrder}
	if r.idBO == nil {
		r.idBO = binary.BigEndian
	}
	if r.scBO == nil {
		r.scBO = binary.BigEndian
	}
	return r, nil
}

// Options returns the description of the buffer the Reader was given.
func (r *Reader) Options() Options { return r.opt }

// Record returns the current record; it is overwritten by Next.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the error that stopped Next, nil at a clean end of the buffer.
func (r *Reader) Err() error {
	if r.err == io.EOF {
		return nil
	}
	return r.err
}

// Offset returns the buffer offset of the next unread byte.
func (r *Reader) Offset() int64 { return r.w.Offset() }

// IDSize is the width of pointer-sized values.
func (r *Reader) IDSize() int { return r.ids }

// ID decodes a pointer-sized value from the start of b.
func (r *Reader) ID(b []byte) uint64 {
	if r.ids == 8 {
		return r.idBO.Uint64(b)
	}
	return uint64(r.idBO.Uint32(b))
}

// Scalar decodes a value of type t from the start of b: raw bits for
// primitives, the id for TypeObject.
func (r *Reader) Scalar(b []byte, t Type) uint64 {
	switch t {
	case TypeObject:
		return r.ID(b)
	case TypeBoolean, TypeByte:
		return uint64(b[0])
	case TypeChar, TypeShort:
		return uint64(r.scBO.Uint16(b))
	case TypeFloat, TypeInt:
		return uint64(r.scBO.Uint32(b))
	}
	return r.scBO.Uint64(b)
}

func (r *Reader) errorf(off int64, wrapped error, format string, args ...any) error {
	return &FormatError{File: r.opt.Name, Offset: off, Msg: fmt.Sprintf(format, args...), Err: wrapped}
}

// take returns the next n bytes (at most limit 1<<40, checked by callers)
// or an error naming what they are.
func (r *Reader) take(n int64, what string) ([]byte, error) {
	if n > int64(^uint(0)>>2) {
		return nil, r.errorf(r.rec.Offset, nil, "%s at offset %d: %s would take %d bytes", r.rec.Type, r.rec.Offset, what, n)
	}
	if got := r.w.Fill(int(n)); int64(got) < n {
		if r.w.SrcErr != nil && r.w.SrcErr != io.EOF && !errors.Is(r.w.SrcErr, io.ErrUnexpectedEOF) {
			return nil, r.errorf(r.Offset()+int64(got), r.w.SrcErr, "reading %s: %v", what, r.w.SrcErr)
		}
		return nil, r.errorf(r.Offset(), ErrTruncated, "%s at offset %d: %s needs %d bytes, the buffer ends after %d", r.rec.Type, r.rec.Offset, what, n, got)
	}
	b := r.w.Buf[r.w.Pos : r.w.Pos+int(n)]
	r.w.Pos += int(n)
	return b, nil
}

// Next advances to the next record. It returns false at the end of the
// buffer or on an error (see Err).
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	r.err = r.next()
	if r.err == nil {
		r.records++
	}
	return r.err == nil
}

func (r *Reader) next() error {
	if r.w.Fill(1) == 0 {
		if r.w.SrcErr != nil && r.w.SrcErr != io.EOF {
			return r.errorf(r.Offset(), r.w.SrcErr, "reading the buffer: %v", r.w.SrcErr)
		}
		if r.opt.Kind == ObjectDump && r.records == 0 {
			return r.errorf(0, ErrTruncated, "the object dump is empty: expected one class, instance or array record")
		}
		return io.EOF
	}
	if r.opt.Kind == ObjectDump && r.records == 1 {
		return r.errorf(r.Offset(), nil, "an object dump holds one record, and %d more bytes follow it", r.w.Fill(1<<16))
	}
	rec := &r.rec
	rec.Offset = r.Offset()
	tag := r.w.Buf[r.w.Pos]
	r.w.Pos++
	switch {
	case r.opt.Kind == MonitorDump:
		rec.Type = MonitorRecord
		return r.readMonitor(MonitorKind(tag))
	case r.opt.Level == 0:
		rec.Type = LevelZeroObject
		t := Type(tag)
		if t != NormalObject && t != TypeObject && !t.IsPrimitive() {
			return r.errorf(rec.Offset, nil, "level-0 record of type %d: expected 0 (instance or class), 2 (object array) or 4-11 (primitive array)", tag)
		}
		rec.Type = LevelZeroObject
		b, err := r.take(int64(r.ids), "the object id")
		if err != nil {
			return err
		}
		rec.Object = LevelZero{Type: t, ID: r.ID(b)}
		return nil
	}
	rec.Type = RecordType(tag)
	if rec.Type.IsRoot() {
		if r.opt.Kind == ObjectDump {
			return r.errorf(rec.Offset, nil, "an object dump holds a class, instance or array record, not %s", rec.Type)
		}
		return r.readRoot()
	}
	switch rec.Type {
	case ClassDump:
		return r.readClass()
	case InstanceDump:
		b, err := r.take(int64(2*r.ids+4), "the header")
		if err != nil {
			return err
		}
		in := &rec.Instance
		in.ID, in.ClassID, in.Size = r.ID(b), r.ID(b[r.ids:]), r.scBO.Uint32(b[2*r.ids:])
		in.Data, err = r.take(int64(in.Size), fmt.Sprintf("its %d field bytes", in.Size))
		return err
	case ObjArrayDump:
		b, err := r.take(int64(2*r.ids+4), "the header")
		if err != nil {
			return err
		}
		a := &rec.ObjArray
		a.ID, a.Length, a.ElemClassID = r.ID(b), r.scBO.Uint32(b[r.ids:]), r.ID(b[r.ids+4:])
		a.Elements, err = r.ids64(a.Elements[:0], a.Length, "elements")
		return err
	case PrimArrayDump:
		b, err := r.take(int64(r.ids+5), "the header")
		if err != nil {
			return err
		}
		a := &rec.PrimArray
		a.ID, a.Length, a.ElemType = r.ID(b), r.scBO.Uint32(b[r.ids:]), Type(b[r.ids+4])
		if !a.ElemType.IsPrimitive() {
			return r.errorf(rec.Offset, nil, "GC_PRIM_ARRAY_DUMP with element type %d: expected a primitive type code 4-11", a.ElemType)
		}
		a.Data = nil
		if r.opt.Level == 1 {
			return nil
		}
		a.Data, err = r.take(int64(a.Length)*int64(a.ElemType.Size(r.ids)), fmt.Sprintf("its %d elements", a.Length))
		return err
	}
	return r.errorf(rec.Offset, nil, "unknown record type 0x%02X in a level-%d %s: the buffer has no framing to skip it by", tag, r.opt.Level, r.opt.Kind)
}

// ids64 reads n pointer-sized values into dst.
func (r *Reader) ids64(dst []uint64, n uint32, what string) ([]uint64, error) {
	b, err := r.take(int64(n)*int64(r.ids), fmt.Sprintf("its %d %s", n, what))
	if err != nil {
		return dst, err
	}
	for p := 0; p < len(b); p += r.ids {
		dst = append(dst, r.ID(b[p:]))
	}
	return dst, nil
}

func (r *Reader) readRoot() error {
	rec := &r.rec
	n := r.ids
	switch rec.Type {
	case RootJNIGlobal, RootNativeStack, RootThreadBlock:
		n = 2 * r.ids
	case RootJNILocal, RootJavaFrame:
		n = 2*r.ids + 4
	}
	b, err := r.take(int64(n), "the body")
	if err != nil {
		return err
	}
	rt := Root{ID: r.ID(b), Frame: -1}
	switch rec.Type {
	case RootJNIGlobal:
		rt.GlobalRef = r.ID(b[r.ids:])
	case RootNativeStack, RootThreadBlock:
		rt.Thread = r.ID(b[r.ids:])
	case RootJNILocal, RootJavaFrame:
		rt.Thread, rt.Frame = r.ID(b[r.ids:]), int32(r.scBO.Uint32(b[2*r.ids:]))
	}
	rec.Root = rt
	return nil
}

func (r *Reader) readClass() error {
	rec := &r.rec
	ids := r.ids
	b, err := r.take(int64(7*ids+4), "the header")
	if err != nil {
		return err
	}
	c := &rec.Class
	c.ID, c.SuperID, c.LoaderID, c.SignersID = r.ID(b), r.ID(b[ids:]), r.ID(b[2*ids:]), r.ID(b[3*ids:])
	c.ProtectionDomainID, c.NameStringID, c.Reserved = r.ID(b[4*ids:]), r.ID(b[5*ids:]), r.ID(b[6*ids:])
	c.InstanceSize = r.scBO.Uint32(b[7*ids:])
	if r.opt.Classes == nil {
		return r.errorf(rec.Offset, ErrNeedClasses, "GC_CLASS_DUMP of class 0x%x: class layouts are needed to step over its interfaces and statics, which the buffer does not count: describe the buffer with a capture manifest and its class-load side channel (docs/jvmpi.md#capture-files)", c.ID)
	}
	info, ok := r.opt.Classes.Lookup(c.ID)
	if !ok {
		return r.errorf(rec.Offset, ErrNeedClasses, "GC_CLASS_DUMP of class 0x%x: the class is missing from the class-load side channel, so its interfaces and statics cannot be stepped over", c.ID)
	}
	c.Layout = info
	c.Interfaces, err = r.ids64(c.Interfaces[:0], uint32(info.NumInterfaces), "interfaces")
	if err != nil {
		return err
	}
	b, err = r.take(2, "the constant-pool count")
	if err != nil {
		return err
	}
	n := int(r.scBO.Uint16(b))
	c.Constants = c.Constants[:0]
	for i := 0; i < n; i++ {
		b, err := r.take(3, "a constant-pool entry")
		if err != nil {
			return err
		}
		k := Constant{Index: r.scBO.Uint16(b), Type: Type(b[2])}
		size := k.Type.Size(ids)
		if size == 0 {
			return r.errorf(r.Offset()-1, nil, "GC_CLASS_DUMP at offset %d: constant-pool entry %d has the invalid type %d", rec.Offset, i, k.Type)
		}
		if b, err = r.take(int64(size), "a constant-pool value"); err != nil {
			return err
		}
		k.Value = r.Scalar(b, k.Type)
		c.Constants = append(c.Constants, k)
	}
	c.Statics = c.Statics[:0]
	for _, f := range info.Statics {
		t := f.Type()
		if r.opt.Level == 1 && t != TypeObject {
			c.Statics = append(c.Statics, 0)
			continue
		}
		b, err := r.take(int64(t.Size(ids)), "the value of static "+f.Name)
		if err != nil {
			return err
		}
		c.Statics = append(c.Statics, r.Scalar(b, t))
	}
	return nil
}

func (r *Reader) readMonitor(kind MonitorKind) error {
	rec := &r.rec
	m := &rec.Monitor
	m.Kind = kind
	m.Object, m.NamePtr, m.RawID = 0, 0, 0
	var ptrs int
	switch kind {
	case MonitorJava:
		ptrs = 2
	case MonitorRaw:
		ptrs = 3
	default:
		return r.errorf(rec.Offset, nil, "unknown monitor record type 0x%02X: expected 0x01 (JVMPI_MONITOR_JAVA) or 0x02 (JVMPI_MONITOR_RAW)", uint8(kind))
	}
	b, err := r.take(int64(ptrs*r.ids+8), "the header")
	if err != nil {
		return err
	}
	if kind == MonitorJava {
		m.Object = r.ID(b)
	} else {
		m.NamePtr, m.RawID = r.ID(b), r.ID(b[r.ids:])
	}
	p := (ptrs - 1) * r.ids
	m.Owner, m.EntryCount = r.ID(b[p:]), r.scBO.Uint32(b[p+r.ids:])
	n := r.scBO.Uint32(b[p+r.ids+4:])
	if m.Entering, err = r.ids64(m.Entering[:0], n, "threads waiting to enter"); err != nil {
		return err
	}
	if b, err = r.take(4, "the count of threads waiting to be notified"); err != nil {
		return err
	}
	m.Notified, err = r.ids64(m.Notified[:0], r.scBO.Uint32(b), "threads waiting to be notified")
	return err
}

// InstanceFields decodes the field values of the current GC_INSTANCE_DUMP
// with the class layouts: fn gets each field in buffer order (the class's
// own fields, then its superclass's, and so on), with its class, its index
// in that class's Fields and its value (raw bits, the id for references).
// At level 1 only reference fields are in the buffer, and only they are
// passed. The byte count must match the layouts.
func (r *Reader) InstanceFields(fn func(c *ClassInfo, field int, t Type, value uint64)) error {
	rec := &r.rec
	if rec.Type != InstanceDump {
		return fmt.Errorf("InstanceFields on a %s record", rec.Type)
	}
	in := &rec.Instance
	data := in.Data
	for id := in.ClassID; id != 0; {
		c, ok := r.opt.Classes.Lookup(id)
		if !ok {
			what := "the class"
			if id != in.ClassID {
				what = "its superclass"
			}
			return r.errorf(rec.Offset, ErrNeedClasses, "GC_INSTANCE_DUMP of object 0x%x: %s 0x%x is missing from the class-load side channel", in.ID, what, id)
		}
		for i, f := range c.Fields {
			t := f.Type()
			if r.opt.Level == 1 && t != TypeObject {
				continue
			}
			size := t.Size(r.ids)
			if len(data) < size {
				return r.errorf(rec.Offset, nil, "GC_INSTANCE_DUMP of object 0x%x: its %d field bytes end before field %s.%s", in.ID, in.Size, c.Name, f.Name)
			}
			fn(c, i, t, r.Scalar(data, t))
			data = data[size:]
		}
		id = uint64(c.SuperID)
	}
	if len(data) > 0 {
		return r.errorf(rec.Offset, nil, "GC_INSTANCE_DUMP of object 0x%x: %d of its %d field bytes are left over after the fields its class layouts declare", in.ID, len(data), in.Size)
	}
	return nil
}
