package model

import (
	"encoding/binary"
	"unicode/utf16"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// Value is one decoded instance field, static field or array element.
type Value struct {
	// Name is the field's name, "" for an array element.
	Name string
	Type Type
	// Bits holds a primitive's bits as the dump records them,
	// zero-extended (a byte -7 is 0xF9, a float its IEEE bits), or a
	// reference's object id (0 for null).
	Bits uint64
	// Ref is the object a reference names; NoObject for null, for a
	// primitive and for an id that is not in the dump (dangling).
	Ref ObjectIndex
}

// ObjectValues is what ReadValues decodes of one object.
type ObjectValues struct {
	// Fields are an instance's fields in the order its record holds them
	// (the class's own fields, then its superclass's, up the chain), or a
	// class object's static fields. From a dump that records references
	// only by name (the agent's ASCII output), an instance's non-null
	// references.
	Fields []Value
	// Length is an array's length, -1 for an instance or a class object.
	Length int64
	// Elem is an array's element type (TypeObject for an object array).
	Elem Type
	// Elements are an array's first elements, as many as asked for.
	Elements []Value
	// Data holds the same first elements of a primitive array as the dump
	// records them: big-endian, each of its type's size.
	Data []byte
}

// ValueOptions say how much of each object ReadValues keeps.
type ValueOptions struct {
	// Elements is how many elements of each array to keep; negative
	// keeps them all.
	Elements int
}

// ReadValues decodes the objects objs from the dump h was loaded from,
// read again through its DumpReader as ReadLabels does (at their offsets
// where the file allows, else by streaming it once for all of them): each
// instance's field values over its class chain, each array's length and
// first elements. A class object's values are its static fields, which
// the heap already holds.
// Objects whose record cannot be decoded are left out.
func ReadValues(h *Heap, objs []ObjectIndex, o ValueOptions) (map[ObjectIndex]*ObjectValues, error) {
	out := make(map[ObjectIndex]*ObjectValues, len(objs))
	want := make(map[uint64]ObjectIndex, len(objs))
	var visit []ObjectIndex
	for _, i := range objs {
		if _, dup := out[i]; dup {
			continue
		}
		if c, ok := h.ClassObjectOf(i); ok && h.Classes[c].Object == i {
			out[i] = h.staticValues(c)
			continue
		}
		if _, dup := want[h.ObjectID(i)]; !dup {
			want[h.ObjectID(i)] = i
			visit = append(visit, i)
		}
	}
	if len(visit) == 0 {
		return out, nil
	}
	keep := func(n int64) int64 {
		if o.Elements < 0 || int64(o.Elements) > n {
			return n
		}
		return int64(o.Elements)
	}
	err := h.visitObjects(visit, func(r hprof.Source, rec *hprof.Record) error {
		switch rec.Sub {
		case hprof.SubInstanceDump:
			obj, ok := want[rec.Instance.ID]
			if !ok {
				return nil
			}
			v := &ObjectValues{Length: -1}
			out[obj] = v
			if r.Traits().NamedReferences {
				for _, nr := range r.Object().Refs {
					v.Fields = append(v.Fields, Value{Name: nr.Name, Type: TypeObject, Bits: nr.ID, Ref: h.refTo(nr.ID)})
				}
				return nil
			}
			data, err := r.Payload()
			if err != nil {
				return err
			}
			v.Fields = h.appendFields(v.Fields, obj, data, r.ID)
		case hprof.SubObjArrayDump:
			obj, ok := want[rec.ObjArray.ID]
			if !ok {
				return nil
			}
			v, err := h.objArrayValues(r, rec, keep(int64(rec.ObjArray.Length)))
			out[obj] = v
			return err
		case hprof.SubPrimArrayDump, hprof.SubPrimArrayNoData:
			obj, ok := want[rec.PrimArray.ID]
			if !ok {
				return nil
			}
			v, err := h.primArrayValues(r, rec, keep(int64(rec.PrimArray.Length)))
			out[obj] = v
			return err
		}
		return nil
	})
	return out, err
}

// objArrayValues decodes the object array record rec with its first n
// elements.
func (h *Heap) objArrayValues(r hprof.Source, rec *hprof.Record, n int64) (*ObjectValues, error) {
	v := &ObjectValues{Length: int64(rec.ObjArray.Length), Elem: TypeObject, Elements: make([]Value, 0, n)}
	ids := r.IDSize()
	return v, r.PayloadChunks(func(chunk []byte) error {
		for p := 0; p+ids <= len(chunk) && int64(len(v.Elements)) < n; p += ids {
			id := r.ID(chunk[p:])
			v.Elements = append(v.Elements, Value{Type: TypeObject, Bits: id, Ref: h.refTo(id)})
		}
		return nil
	})
}

// primArrayValues decodes the primitive array record rec with its first
// n elements (none when the record holds none).
func (h *Heap) primArrayValues(r hprof.Source, rec *hprof.Record, n int64) (*ObjectValues, error) {
	elem := Type(rec.PrimArray.ElemType)
	size := h.typeSize(elem)
	v := &ObjectValues{Length: int64(rec.PrimArray.Length), Elem: elem}
	if rec.Sub == hprof.SubPrimArrayNoData || size == 0 {
		return v, nil
	}
	v.Data = make([]byte, 0, n*int64(size))
	err := r.PayloadChunks(func(chunk []byte) error {
		if room := int(n)*size - len(v.Data); room > 0 {
			v.Data = append(v.Data, chunk[:min(room, len(chunk))]...)
		}
		return nil
	})
	for p := 0; p+size <= len(v.Data); p += size {
		v.Elements = append(v.Elements, Value{Type: elem, Bits: bigEndianBits(v.Data[p : p+size]), Ref: NoObject})
	}
	return v, err
}

// staticValues are the static fields of class c as values.
func (h *Heap) staticValues(c ClassIndex) *ObjectValues {
	v := &ObjectValues{Length: -1}
	for _, s := range h.Classes[c].Statics {
		val := Value{Name: s.Name, Type: s.Type, Bits: s.Value, Ref: NoObject}
		if s.Type == TypeObject && s.Value != 0 {
			if i, ok := h.Lookup(s.Value); ok {
				val.Ref = i
			}
		}
		v.Fields = append(v.Fields, val)
	}
	return v
}

// InheritedStatic is the static field name of class c as Java resolves
// C.name: c's own, else that of its nearest superclass declaring one (a
// class inherits its superclasses' statics), and whether there is one.
// A reference's Ref is the object it names, NoObject for null or an id
// the dump does not hold.
func (h *Heap) InheritedStatic(c ClassIndex, name string) (Value, bool) {
	for k := range h.Supers(c) {
		for _, s := range h.Classes[k].Statics {
			if s.Name != name {
				continue
			}
			val := Value{Name: s.Name, Type: s.Type, Bits: s.Value, Ref: NoObject}
			if s.Type == TypeObject && s.Value != 0 {
				if i, ok := h.Lookup(s.Value); ok {
					val.Ref = i
				}
			}
			return val, true
		}
	}
	return Value{}, false
}

// bigEndianBits is the unsigned big-endian number in b (1 to 8 bytes).
func bigEndianBits(b []byte) uint64 {
	var x uint64
	for _, c := range b {
		x = x<<8 | uint64(c)
	}
	return x
}

// HasElements reports whether v is a primitive array whose Data holds
// every element: a dump that records references only (a JVMPI heap dump
// below level 2) gives its arrays a length but no values.
func (v *ObjectValues) HasElements() bool {
	return v.Length >= 0 && v.Elem != TypeObject && len(v.Data) == int(v.Length)*v.Elem.Size(8)
}

// Element is element k of a primitive array whose values EachValues or
// ReadValues decoded, from its Data; k must lie within it.
func (v *ObjectValues) Element(k int) Value {
	size := v.Elem.Size(8)
	return Value{Type: v.Elem, Bits: bigEndianBits(v.Data[k*size : (k+1)*size]), Ref: NoObject}
}

// Field returns the value of the field named name, the first one in
// record order (a subclass's field hides its superclass's of the same
// name), and whether there is one.
func (v *ObjectValues) Field(name string) (Value, bool) {
	for _, f := range v.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Value{}, false
}

// StringText decodes the java.lang.String s from the values of s and of
// its value array as ReadValues read them (the text of the elements it
// kept: all of them when it kept all): a
// char[] before JDK 9, a byte[] from JDK 9 on with the coder field saying
// LATIN1 (0) or UTF-16 (1). ok is false when they are not there or do not
// make a String.
func StringText(vals map[ObjectIndex]*ObjectValues, s ObjectIndex) (text string, ok bool) {
	sv := vals[s]
	if sv == nil {
		return "", false
	}
	value, ok := sv.Field("value")
	if !ok || value.Type != TypeObject || value.Ref == NoObject {
		return "", false
	}
	return StringValue(sv, vals[value.Ref])
}

// NameText decodes the value a name field (Thread.name, Enum.name)
// references, from the values ReadValues read: a java.lang.String (JDK
// 9 on for Thread.name; as StringText decodes it) or a char[] (Thread.name
// up to JDK 8 holds the characters themselves). ok is false when the
// values are not there or are neither.
func NameText(vals map[ObjectIndex]*ObjectValues, ref ObjectIndex) (text string, ok bool) {
	v := vals[ref]
	if v == nil {
		return "", false
	}
	if v.Length >= 0 {
		if v.Elem != TypeChar {
			return "", false
		}
		return CharsText(v.Data, binary.BigEndian), true
	}
	return StringText(vals, ref)
}

// StringValue decodes a java.lang.String from the values sv of the
// String and av of its value array (the text of the elements av holds in
// Data), as StringText does.
func StringValue(sv, av *ObjectValues) (text string, ok bool) {
	if sv == nil || av == nil || av.Length < 0 {
		return "", false
	}
	switch av.Elem {
	case TypeChar:
		return CharsText(av.Data, binary.BigEndian), true
	case TypeByte:
		if StringCoder(sv) == 1 {
			// JDK 9+ UTF-16 strings hold chars in the JVM's byte order;
			// HotSpot on x86 and ARM is little-endian.
			return CharsText(av.Data, binary.LittleEndian), true
		}
		return Latin1Text(av.Data), true
	}
	return "", false
}

// StringCoder is the coder field of the String whose values are sv:
// LATIN1 (0) or UTF-16 (1) from JDK 9 on; 0 before, where a String has
// none.
func StringCoder(sv *ObjectValues) int {
	if c, ok := sv.Field("coder"); ok && c.Type == TypeByte {
		return int(c.Bits)
	}
	return 0
}

// CharsText decodes UTF-16 code units of the given byte order.
func CharsText(b []byte, order binary.ByteOrder) string {
	units := make([]uint16, len(b)/2)
	for k := range units {
		units[k] = order.Uint16(b[2*k:])
	}
	return string(utf16.Decode(units))
}

// Latin1Text decodes ISO 8859-1 bytes.
func Latin1Text(b []byte) string {
	runes := make([]rune, len(b))
	for k, c := range b {
		runes[k] = rune(c)
	}
	return string(runes)
}

// TypeName is the Java name of a field or element type ("int",
// "object" for a reference).
func TypeName(t Type) string { return hprof.Type(t).String() }
