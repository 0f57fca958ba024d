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
		if to, ok := h.Lookup(id); ok {
			out[from] = append(out[from], LabeledRef{To: to, Label: label, Weak: weak})
		}
	}
	err := h.visitObjects(from, func(r hprof.Source, rec *hprof.Record) error {
		obj, ok := want[recordID(rec)]
		if !ok {
			return nil
		}
		var keep func(uint64) bool
		if targets, only := next[obj]; only && rec.Sub == hprof.SubObjArrayDump {
			keep = listedIDs(h, targets)
		}
		return h.labelRefs(r, rec, h.ClassOf(obj), keep, func(id uint64, label string, weak bool) {
			add(obj, id, label, weak)
		})
	})
	return out, err
}

// recordID is the id of the object a heap sub-record dumps, 0 for one
// that dumps none this package labels.
func recordID(rec *hprof.Record) uint64 {
	switch rec.Sub {
	case hprof.SubInstanceDump:
		return rec.Instance.ID
	case hprof.SubObjArrayDump:
		return rec.ObjArray.ID
	case hprof.SubClassDump:
		return rec.Class.ID
	}
	return 0
}

// labelRefs calls add with each non-null reference of the object that
// rec, read from r, dumps (an instance of class, an object array or a
// class), labeled as LabeledRef says, in the order the record holds
// them; of an object array only the elements whose ids keep holds, when
// it is set: labeling every element of a big array would cost a string
// each.
func (h *Heap) labelRefs(r hprof.Source, rec *hprof.Record, class ClassIndex, keep func(uint64) bool, add func(id uint64, label string, weak bool)) error {
	some := func(id uint64, label string, weak bool) {
		if id != 0 {
			add(id, label, weak)
		}
	}
	switch rec.Sub {
	case hprof.SubInstanceDump:
		// An ASCII OBJ names its references itself.
		if r.Traits().NamedReferences {
			isReference := h.isReference(class)
			for _, ref := range r.Object().Refs {
				some(ref.ID, ref.Name, isReference && ref.Name == "referent")
			}
			return nil
		}
		data, err := r.Payload()
		if err != nil {
			return err
		}
		h.eachField(class, data, func(f *Field, isReference bool, value []byte) {
			if f.Type == TypeObject {
				some(r.ID(value), f.Name, isReference && f.Name == "referent")
			}
		})
	case hprof.SubObjArrayDump:
		ids, k := r.IDSize(), 0
		return r.PayloadChunks(func(chunk []byte) error {
			for p := 0; p+ids <= len(chunk); p += ids {
				if id := r.ID(chunk[p:]); keep == nil || keep(id) {
					some(id, fmt.Sprintf("[%d]", k), false)
				}
				k++
			}
			return nil
		})
	case hprof.SubClassDump:
		cd := &rec.Class
		some(cd.SuperID, "super", false)
		some(cd.LoaderID, "loader", false)
		some(cd.SignersID, "signers", false)
		some(cd.ProtectionDomainID, "protection domain", false)
		c, _ := h.ClassByID(cd.ID)
		for k, st := range cd.Statics {
			if st.Type == hprof.TypeObject {
				name := "?"
				if k < len(h.Classes[c].Statics) {
					name = h.Classes[c].Statics[k].Name
				}
				some(st.Value, "static "+name, false)
			}
		}
		for _, k := range cd.Constants {
			if k.Type == hprof.TypeObject {
				some(k.Value, "<constant pool>", false)
			}
		}
	}
	return nil
}

// StepAt is a step of a path from a GC root, for ReadStepLabels: the
// object From, whose record lies at Offset in the dump, references the
// object To.
type StepAt struct {
	Offset   int64
	From, To uint64
}

// RecordOffsets are the offsets of the records of objs in the
// decompressed dump, where ReadStepLabels reads them; the heap must have
// its objects' offsets.
func RecordOffsets(h *Heap, objs []ObjectIndex) []int64 {
	out := make([]int64, len(objs))
	for k, i := range objs {
		out[k] = h.recordOffset(i)
	}
	return out
}

// StepLabel is how a step's reference goes, as LabeledRef says; Label is
// "" where the record of the step's From holds no reference to its To.
type StepLabel struct {
	Label string
	Weak  bool
}

// ReadStepLabels labels each of steps as ReadLabelsTo labels its From's
// first reference to its To, reading the records at the steps' offsets
// (streaming the dump where it cannot be read at offsets). h needs only
// its classes (ReadIndexClasses): the steps say where their objects are.
func ReadStepLabels(h *Heap, steps []StepAt) ([]StepLabel, error) {
	out := make([]StepLabel, len(steps))
	of := make(map[uint64][]int, len(steps))
	var at []recordAt
	for k, st := range steps {
		if _, seen := of[st.From]; !seen {
			at = append(at, recordAt{offset: st.Offset, id: st.From})
		}
		of[st.From] = append(of[st.From], k)
	}
	err := h.visitRecords(at, func(r hprof.Source, rec *hprof.Record) error {
		mine, ok := of[recordID(rec)]
		if !ok {
			return nil
		}
		class := NoClass
		if rec.Sub == hprof.SubInstanceDump {
			if class, ok = h.ClassByID(rec.Instance.ClassID); !ok {
				return nil
			}
		}
		targeted := func(id uint64) bool {
			return slices.ContainsFunc(mine, func(k int) bool { return steps[k].To == id })
		}
		return h.labelRefs(r, rec, class, targeted, func(id uint64, label string, weak bool) {
			for _, k := range mine {
				if steps[k].To == id && out[k].Label == "" {
					out[k] = StepLabel{Label: label, Weak: weak}
				}
			}
		})
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
