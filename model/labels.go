package model

import (
	"fmt"
	"slices"

	"github.com/hprofctl/hprofctl/parser/hprof"
)

// LabeledRef is one reference of an object with how it goes: an instance
// field's name, "[i]" for an object array element, "static NAME" for a
// class's static field, and for a class object "super", "loader",
// "signers", "protection domain" or "<constant pool>".
type LabeledRef struct {
	To    ObjectIndex
	Label string
	// Weak marks the referent of a java.lang.ref.Reference.
	Weak bool
}

// ReadLabels reads the objects from again in the dump h was loaded from,
// through its DumpReader (at their offsets where the file allows, else by
// streaming it; see visitObjects), and returns the non-null references of
// the objects in from, labeled, in the order the dump holds them;
// references to objects not in the dump are left out.
func ReadLabels(h *Heap, from []ObjectIndex) (map[ObjectIndex][]LabeledRef, error) {
	return ReadLabelsTo(h, from, nil)
}

// ReadLabelsTo is ReadLabels, except that of an object array that next
// lists it keeps only the elements that reference one of the objects
// listed for it: a path names one element of an array that may hold
// millions, and labeling them all would cost a string each.
func ReadLabelsTo(h *Heap, from []ObjectIndex, next map[ObjectIndex][]ObjectIndex) (map[ObjectIndex][]LabeledRef, error) {
	want := make(map[uint64]ObjectIndex, len(from))
	for _, i := range from {
		want[h.ObjectID(i)] = i
	}
	out := make(map[ObjectIndex][]LabeledRef, len(from))
	add := func(from ObjectIndex, id uint64, label string, weak bool) {
		if id == 0 {
			return
		}
		if to, ok := h.Lookup(id); ok {
			out[from] = append(out[from], LabeledRef{To: to, Label: label, Weak: weak})
		}
	}
	err := h.visitObjects(from, func(r hprof.Source, rec *hprof.Record) error {
		switch rec.Sub {
		case hprof.SubInstanceDump:
			obj, ok := want[rec.Instance.ID]
			if !ok {
				return nil
			}
			// An ASCII OBJ names its references itself.
			if r.Traits().NamedReferences {
				isReference := h.isReference(h.ClassOf(obj))
				for _, ref := range r.Object().Refs {
					add(obj, ref.ID, ref.Name, isReference && ref.Name == "referent")
				}
				return nil
			}
			data, err := r.Payload()
			if err != nil {
				return err
			}
			h.eachField(h.ClassOf(obj), data, func(f *Field, isReference bool, value []byte) {
				if f.Type == TypeObject {
					add(obj, r.ID(value), f.Name, isReference && f.Name == "referent")
				}
			})
		case hprof.SubObjArrayDump:
			obj, ok := want[rec.ObjArray.ID]
			if !ok {
				return nil
			}
			ids, k := r.IDSize(), 0
			targets, only := next[obj]
			listed := listedIDs(h, targets)
			return r.PayloadChunks(func(chunk []byte) error {
				for p := 0; p+ids <= len(chunk); p += ids {
					if id := r.ID(chunk[p:]); !only || listed(id) {
						add(obj, id, fmt.Sprintf("[%d]", k), false)
					}
					k++
				}
				return nil
			})
		case hprof.SubClassDump:
			cd := &rec.Class
			obj, ok := want[cd.ID]
			if !ok {
				return nil
			}
			add(obj, cd.SuperID, "super", false)
			add(obj, cd.LoaderID, "loader", false)
			add(obj, cd.SignersID, "signers", false)
			add(obj, cd.ProtectionDomainID, "protection domain", false)
			c, _ := h.ClassByID(cd.ID)
			for k, s := range cd.Statics {
				if s.Type == hprof.TypeObject {
					name := "?"
					if k < len(h.Classes[c].Statics) {
						name = h.Classes[c].Statics[k].Name
					}
					add(obj, s.Value, "static "+name, false)
				}
			}
			for _, k := range cd.Constants {
				if k.Type == hprof.TypeObject {
					add(obj, k.Value, "<constant pool>", false)
				}
			}
		}
		return nil
	})
	return out, err
}

// ReadStrings reads the dump h was loaded from again, as ReadLabels does,
// and decodes the given java.lang.String objects with StringText: the
// value array (the String's only reference), char[] before JDK 9, byte[]
// after it with the coder field saying LATIN1 (0) or UTF-16 (1). Strings it cannot decode are left out.
func ReadStrings(h *Heap, strs []ObjectIndex) (map[ObjectIndex]string, error) {
	return ReadNames(h, strs)
}

// ReadNames is ReadStrings for the values of name fields: each of refs
// is a java.lang.String or a char[] (a JDK 5–8 Thread.name), decoded
// with NameText. Values it cannot decode are left out.
func ReadNames(h *Heap, refs []ObjectIndex) (map[ObjectIndex]string, error) {
	var visit []ObjectIndex
	for _, s := range refs {
		c := h.ClassOf(s)
		if c == NoClass {
			continue
		}
		visit = append(visit, s)
		if refs := h.Refs(s); len(refs) == 1 && !h.Classes[c].IsArray() {
			visit = append(visit, refs[0])
		}
	}
	vals, err := ReadValues(h, visit, ValueOptions{Elements: -1})
	out := make(map[ObjectIndex]string, len(refs))
	for _, s := range refs {
		if text, ok := NameText(vals, s); ok {
			out[s] = text
		}
	}
	return out, err
}

// eachField calls fn with every instance field of class c and its value
// bytes in data, in the order INSTANCE_DUMP holds them (the class's own
// fields, then its superclass's); isReference is set for the fields
// java.lang.ref.Reference declares.
func (h *Heap) eachField(c ClassIndex, data []byte, fn func(f *Field, isReference bool, value []byte)) {
	ids := h.Source.IDSize
	off := 0
	for k := range h.Supers(c) {
		isReference := h.Classes[k].Name == "java.lang.ref.Reference"
		for i := range h.Classes[k].Fields {
			f := &h.Classes[k].Fields[i]
			size := f.Type.Size(ids)
			if off+size > len(data) {
				return
			}
			fn(f, isReference, data[off:off+size])
			off += size
		}
	}
}

// listedSearch is how many objects listedIDs looks through one by one;
// past it, it keys them in a set: many paths may run through one array
// of millions of elements (the table of a big map), each to another.
const listedSearch = 16

// listedIDs returns whether an id is that of one of objs.
func listedIDs(h *Heap, objs []ObjectIndex) func(uint64) bool {
	if len(objs) <= listedSearch {
		ids := make([]uint64, len(objs))
		for t, o := range objs {
			ids[t] = h.ObjectID(o)
		}
		return func(id uint64) bool { return slices.Contains(ids, id) }
	}
	set := make(map[uint64]bool, len(objs))
	for _, o := range objs {
		set[h.ObjectID(o)] = true
	}
	return func(id uint64) bool { return set[id] }
}
