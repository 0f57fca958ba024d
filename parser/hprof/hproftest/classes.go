package hproftest

import "encoding/binary"

// Field is an instance field declaration by name.
type Field struct {
	Name string
	Type Type
}

// Static is a static field by name, with its value.
type Static struct {
	Name  string
	Value Value
}

// ClassSpec describes a class for DeclareClass and DefineClass.
type ClassSpec struct {
	Name      string // as the dump spells it: "java/lang/String", "[B", "com.example.Foo"
	Super     *Class // nil for java.lang.Object
	Fields    []Field
	Statics   []Static
	Constants []ConstantEntry
	LoaderID  ID // 0 = boot loader
}

// Class is a class the Writer declared: its identifiers, and what the
// helpers need to write its instances.
type Class struct {
	Name          string
	ID            ID // the class object's address
	Serial        uint32
	NameID        ID
	Super         *Class
	Fields        []Field
	FieldNameIDs  []ID
	Statics       []Static
	StaticNameIDs []ID
	Constants     []ConstantEntry
	LoaderID      ID

	types []Type // field types of an instance in dump order: own, then the superclasses'
	bytes int    // encoded field bytes of an instance
}

// FieldBytes is the size of an instance's field values in the dump, the
// CLASS_DUMP instance size (references counted as the identifier size).
func (c *Class) FieldBytes() int { return c.bytes }

// InstanceTypes returns the types of an instance's field values in the
// order INSTANCE_DUMP holds them: this class's fields, then the
// superclass's, up to java.lang.Object.
func (c *Class) InstanceTypes() []Type { return c.types }

// classMirrorSize is the memory the helpers give a java.lang.Class object
// with statics static fields.
func classMirrorSize(statics int) int64 { return 96 + 8*int64(statics) }

// DeclareClass writes the UTF8 records of the class's name and field
// names (once per text) and its LOAD_CLASS record, with a fresh serial and
// a fresh class-object address. DumpClass writes its CLASS_DUMP.
func (w *Writer) DeclareClass(spec ClassSpec) *Class {
	c := &Class{Name: spec.Name, Super: spec.Super, Fields: spec.Fields, Statics: spec.Statics,
		Constants: spec.Constants, LoaderID: spec.LoaderID}
	c.NameID = w.Name(spec.Name)
	for _, f := range spec.Fields {
		if f.Type.Size(w.idSize) == 0 {
			w.fail("class %s: field %s has invalid type %d", spec.Name, f.Name, f.Type)
		}
		c.FieldNameIDs = append(c.FieldNameIDs, w.Name(f.Name))
		c.types = append(c.types, f.Type)
		c.bytes += f.Type.Size(w.idSize)
	}
	for _, s := range spec.Statics {
		c.StaticNameIDs = append(c.StaticNameIDs, w.Name(s.Name))
	}
	if spec.Super != nil {
		c.types = append(c.types, spec.Super.types...)
		c.bytes += spec.Super.bytes
	}
	c.ID = w.Alloc(classMirrorSize(len(spec.Statics)))
	w.classSerial++
	c.Serial = w.classSerial
	w.LoadClass(LoadClass{Serial: c.Serial, ClassID: c.ID, TraceSerial: w.trace, NameID: c.NameID})
	return c
}

// DumpClass writes the CLASS_DUMP of a declared class.
func (w *Writer) DumpClass(c *Class) {
	d := ClassDump{ID: c.ID, TraceSerial: w.trace, LoaderID: c.LoaderID,
		InstanceSize: uint32(c.bytes), Constants: c.Constants}
	if c.Super != nil {
		d.SuperID = c.Super.ID
	}
	for i, s := range c.Statics {
		d.Statics = append(d.Statics, StaticEntry{NameID: c.StaticNameIDs[i], Value: s.Value})
	}
	for i, f := range c.Fields {
		d.Fields = append(d.Fields, FieldEntry{NameID: c.FieldNameIDs[i], Type: f.Type})
	}
	w.ClassDump(d)
}

// DefineClass declares a class and writes its CLASS_DUMP. Inside a
// segmented heap dump the UTF8 and LOAD_CLASS records go between segments;
// inside a single HEAP_DUMP record they go before it.
func (w *Writer) DefineClass(spec ClassSpec) *Class {
	c := w.DeclareClass(spec)
	w.DumpClass(c)
	return c
}

// Class defines a class with instance fields and nothing else.
func (w *Writer) Class(name string, super *Class, fields ...Field) *Class {
	return w.DefineClass(ClassSpec{Name: name, Super: super, Fields: fields})
}

// Instance writes an instance of c at a fresh address sized by the
// Writer's Sizer and returns the address. vals are the field values in
// InstanceTypes order.
func (w *Writer) Instance(c *Class, vals ...Value) ID {
	id := w.Alloc(w.sizes.InstanceSize(c))
	w.InstanceWithID(id, c, vals...)
	return id
}

// InstanceWithID writes an instance of c with the given address, checking
// vals against the class's fields.
func (w *Writer) InstanceWithID(id ID, c *Class, vals ...Value) {
	if len(vals) != len(c.types) {
		w.fail("instance of %s: %d values for %d fields", c.Name, len(vals), len(c.types))
		return
	}
	b := w.appendID(append(w.sub[:0], byte(SubInstanceDump)), id)
	b = binary.BigEndian.AppendUint32(b, w.trace)
	b = w.appendID(b, c.ID)
	b = binary.BigEndian.AppendUint32(b, uint32(c.bytes))
	for i, v := range vals {
		if v.Type != c.types[i] {
			w.fail("instance of %s: value %d is of type %d, the field of type %d", c.Name, i, v.Type, c.types[i])
			return
		}
		b = w.appendValue(b, v)
	}
	w.sub = b
	w.subRecord(b, nil)
}

// ObjectArray writes an array of class arrayClass holding elems at a fresh
// address and returns the address.
func (w *Writer) ObjectArray(arrayClass *Class, elems ...ID) ID {
	id := w.Alloc(w.sizes.ArraySize(TypeObject, len(elems)))
	w.ObjArrayDump(ObjArrayDump{ID: id, TraceSerial: w.trace, ClassID: arrayClass.ID, Elements: elems})
	return id
}

// PrimArray writes a primitive array of type t whose packed elements are
// data at a fresh address and returns the address.
func (w *Writer) PrimArray(t Type, data []byte) ID {
	n, ok := w.elements(t, len(data))
	if !ok {
		return 0
	}
	id := w.Alloc(w.sizes.ArraySize(t, int(n)))
	w.PrimArrayDump(PrimArrayDump{ID: id, TraceSerial: w.trace, Type: t, Data: data})
	return id
}
