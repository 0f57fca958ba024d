package heap

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/internal/parallel"
	"github.com/hprofctl/hprofctl/model"
)

// ShowOptions choose what Show tells of each object.
type ShowOptions struct {
	// Elements is how many of an array's first elements to list.
	Elements int
	// Referrers lists the objects that reference each one, at most
	// MaxReferrers references (0: all).
	Referrers    bool
	MaxReferrers int
	// Path adds a shortest path from a GC root.
	Path bool
	// Size chooses the shallow sizes.
	Size model.SizeMode
	// Heaps selects the Android heaps whose referrers are listed and
	// counted.
	Heaps model.HeapSelection
}

// textElements is how many elements of a String's value array, a char[]
// or a byte[] a short text is made of; longer ones end in "…".
const textElements = 200

// ShowReadElements is how many elements of each array the reads for Show
// keep: the listed elements, and enough for short texts.
func ShowReadElements(o ShowOptions) int { return max(o.Elements, textElements) }

// ShowReads lists the objects whose values Show needs for objs, to be read
// in one batch (model.ReadValues with ShowReadElements): the objects
// themselves, what their fields and first elements reference, and what the
// short texts of those need (a String's value array, an enum's name String
// and its value array, a JDK 5–8 Thread's name char[]), and the Thread
// objects of their GC roots with their names.
func ShowReads(h *model.Heap, objs []model.ObjectIndex, o ShowOptions) []model.ObjectIndex {
	seen := map[model.ObjectIndex]bool{}
	var out []model.ObjectIndex
	add := func(i model.ObjectIndex) {
		if i != model.NoObject && !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	// withText adds i and what its short text (or its name) is made of.
	withText := func(i model.ObjectIndex) {
		add(i)
		switch textKind(h, i) {
		case textString:
			for _, r := range h.Refs(i) {
				add(r)
			}
		case textEnum, textThread:
			for _, r := range h.Refs(i) {
				switch textKind(h, r) {
				case textString:
					add(r)
					for _, v := range h.Refs(r) {
						add(v)
					}
				case textChars:
					add(r)
				}
			}
		}
	}
	for _, obj := range objs {
		withText(obj)
		refs := h.Refs(obj)
		if h.Classes[h.ClassOf(obj)].IsArray() {
			refs = refs[:min(len(refs), o.Elements)]
		}
		for _, r := range refs {
			withText(r)
		}
		for _, rt := range h.Roots {
			if rt.Object == obj && rt.Thread >= 0 {
				withText(h.Threads[rt.Thread].Object)
			}
		}
	}
	return out
}

// Referrers finds, for each of the targets, the objects that reference
// it: one entry per reference, in object order (an object referencing a
// target through two fields is there twice), the first limit of them (0:
// all), and how many there are in all. It makes one pass over every
// object's references, in parallel chunks whose finds are put together
// in chunk order, so the answer does not depend on the scheduling. Only
// referrers that from selects count.
func Referrers(h *model.Heap, targets []model.ObjectIndex, limit int, from model.HeapSelection) (map[model.ObjectIndex][]model.ObjectIndex, map[model.ObjectIndex]int64) {
	first := make(map[model.ObjectIndex][]model.ObjectIndex, len(targets))
	total := make(map[model.ObjectIndex]int64, len(targets))
	// slot numbers the distinct targets; isTarget spares the map lookup
	// for nearly every reference.
	slot := map[model.ObjectIndex]int{}
	isTarget := graph.NewObjectBits(h.NumObjects())
	for _, t := range targets {
		if _, ok := slot[t]; !ok {
			slot[t] = len(slot)
			isTarget.Add(t)
			first[t] = []model.ObjectIndex{}
			total[t] = 0
		}
	}
	// chunkReferrers are one chunk's finds per slot: the first limit
	// referrers (all that can be among the first limit of every chunk
	// together) and the count.
	type chunkReferrers struct {
		first [][]model.ObjectIndex
		total []int64
	}
	n := h.NumObjects()
	found := make([]*chunkReferrers, (n+parallel.ObjectChunk-1)/parallel.ObjectChunk)
	parallel.ForChunks(n, parallel.ObjectChunk, func(_, lo, hi int) {
		var f *chunkReferrers
		h.EachRefs(model.ObjectIndex(lo), model.ObjectIndex(hi), func(u model.ObjectIndex, refs []model.ObjectIndex) {
			for _, r := range refs {
				if !isTarget.Has(r) || !from.Has(u) {
					continue
				}
				if f == nil {
					f = &chunkReferrers{first: make([][]model.ObjectIndex, len(slot)), total: make([]int64, len(slot))}
				}
				s := slot[r]
				f.total[s]++
				if limit == 0 || len(f.first[s]) < limit {
					f.first[s] = append(f.first[s], u)
				}
			}
		})
		found[lo/parallel.ObjectChunk] = f
	})
	for t, s := range slot {
		for _, f := range found {
			if f == nil {
				continue
			}
			total[t] += f.total[s]
			keep := f.first[s]
			if limit > 0 {
				keep = keep[:min(len(keep), limit-len(first[t]))]
			}
			first[t] = append(first[t], keep...)
		}
	}
	return first, total
}

// AllReferrers lists each object of referrers once, for reading their
// labeled references.
func AllReferrers(referrers map[model.ObjectIndex][]model.ObjectIndex, targets []model.ObjectIndex) []model.ObjectIndex {
	seen := map[model.ObjectIndex]bool{}
	var out []model.ObjectIndex
	for _, t := range targets {
		for _, u := range referrers[t] {
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}

// ShowData is what was read or computed for Show beyond the heap and its
// retention.
type ShowData struct {
	// Values are the values of the objects ShowReads listed.
	Values map[model.ObjectIndex]*model.ObjectValues
	// Referrers and ReferrerTotals are Referrers of the objects (the
	// first references to each, how many there are), Labels the labeled
	// references of those referrers (model.ReadLabels; nil when the dump
	// could not be read again: then each reference goes via "?").
	Referrers      map[model.ObjectIndex][]model.ObjectIndex
	ReferrerTotals map[model.ObjectIndex]int64
	Labels         map[model.ObjectIndex][]model.LabeledRef
	// Paths is a shortest path from a GC root to each object that has one.
	Paths map[model.ObjectIndex]RetainerPath
	// Native are the dump's registered native sizes (RegisteredNative),
	// nil when unknown.
	Native *NativeSizes
}

// ShowRoot is one GC root record naming an object.
type ShowRoot struct {
	Kind   string `json:"kind"`
	Thread string `json:"thread"`
	// Frame is a java-frame root's frame, "" when unknown; FrameDepth
	// its depth in the stack (0: innermost), nil when unknown.
	Frame      string `json:"frame"`
	FrameDepth *int32 `json:"frame_depth"`
}

// ShowField is one field of an object with its decoded value.
type ShowField struct {
	Name string `json:"name"`
	// Type is the Java type of a primitive, "object" for a reference.
	Type string `json:"type"`
	// Value is a number, a boolean or a one-character string for a
	// primitive, the "0x…" id or nil for a reference.
	Value any `json:"value"`
	// Class and Text are a reference's class and short text, "" when it
	// has none.
	Class string `json:"class"`
	Text  string `json:"text"`
	// Static marks a class object's static field.
	Static bool `json:"static"`
}

// ShowElement is one array element with its decoded value.
type ShowElement struct {
	Index int64  `json:"index"`
	Value any    `json:"value"`
	Class string `json:"class"`
	Text  string `json:"text"`
}

// ShowReferrer is one reference to the shown object: the object holding
// it and the field, "[i]" or "static NAME" it goes through.
type ShowReferrer struct {
	ObjectID string `json:"object_id"`
	Class    string `json:"class"`
	Heap     string `json:"heap,omitempty"`
	Via      string `json:"via"`
}

// ShowObject is everything show tells of one object. Length, Elements,
// Referrers, ReferrersTotal and Path are nil where they do not apply or were
// not asked.
type ShowObject struct {
	ObjectID      string        `json:"object_id"`
	Class         string        `json:"class"`
	Heap          string        `json:"heap,omitempty"`
	ShallowBytes  int64         `json:"shallow_bytes"`
	RetainedBytes int64         `json:"retained_bytes"`
	Reachable     bool          `json:"reachable"`
	GCRoot        []ShowRoot    `json:"gc_root"`
	Text          string        `json:"text"`
	Fields        []ShowField   `json:"fields"`
	Length        *int64        `json:"length"`
	Elements      []ShowElement `json:"elements"`
	// Read is false when the object's record could not be read again
	// (standard input): then its fields and elements are unknown.
	Read bool `json:"read"`
	// Referrers are the first ShowOptions.MaxReferrers of the
	// ReferrersTotal references to the object.
	Referrers      []ShowReferrer `json:"referrers"`
	ReferrersTotal *int64         `json:"referrers_total"`
	Path           *RetainerPath  `json:"path"`

	// NativeBytes is the native size registered to the object,
	// RetainedNativeBytes that of the objects it dominates.
	NativeBytes         int64 `json:"native_bytes,omitempty"`
	RetainedNativeBytes int64 `json:"retained_native_bytes,omitempty"`
}

// Show describes the objects objs: class, shallow and retained size, GC
// roots, fields with decoded values and short texts, an array's first
// elements, and as asked the references to each and a shortest path from
// a GC root.
func Show(h *model.Heap, r *graph.Retention, objs []model.ObjectIndex, d ShowData, o ShowOptions) []ShowObject {
	out := make([]ShowObject, 0, len(objs))
	retainedNative := RetainedNative(r, d.Native)
	for _, obj := range objs {
		s := ShowObject{
			ObjectID:      ObjectID(h, obj),
			Class:         ClassName(h, obj),
			Heap:          HeapName(h, obj),
			ShallowBytes:  graph.ShallowBytes(h, obj, o.Size),
			RetainedBytes: r.RetainedBytes(obj),
			Reachable:     r.Reachable(obj),
			GCRoot:        showRoots(h, obj, d.Values),
			Text:          shortText(h, obj, d.Values),
			Fields:        []ShowField{},
		}
		s.NativeBytes, s.RetainedNativeBytes = d.Native.Of(obj), retainedNative[obj]
		v := d.Values[obj]
		s.Read = v != nil
		if v != nil {
			static := graph.IsClassObject(h, obj)
			for _, f := range v.Fields {
				sf := ShowField{Name: f.Name, Type: model.TypeName(f.Type), Value: fieldValue(f), Static: static}
				if f.Ref != model.NoObject {
					sf.Class, sf.Text = ClassName(h, f.Ref), shortText(h, f.Ref, d.Values)
				}
				s.Fields = append(s.Fields, sf)
			}
			if v.Length >= 0 {
				n := v.Length
				s.Length = &n
				s.Elements = []ShowElement{}
				for k, e := range v.Elements[:min(len(v.Elements), o.Elements)] {
					se := ShowElement{Index: int64(k), Value: fieldValue(e)}
					if e.Ref != model.NoObject {
						se.Class, se.Text = ClassName(h, e.Ref), shortText(h, e.Ref, d.Values)
					}
					s.Elements = append(s.Elements, se)
				}
			}
		}
		if o.Referrers {
			s.Referrers = showReferrers(h, obj, d)
			n := d.ReferrerTotals[obj]
			s.ReferrersTotal = &n
		}
		if p, ok := d.Paths[obj]; ok && o.Path {
			s.Path = &p
		}
		out = append(out, s)
	}
	return out
}

// showReferrers lists the references to obj that d.Referrers holds, one
// row each, named from the referrers' labeled references. A referrer's
// references to obj come in a run, in the order its labels have them;
// labels of its referent are no reference of the heap's and are left
// out.
func showReferrers(h *model.Heap, obj model.ObjectIndex, d ShowData) []ShowReferrer {
	out := []ShowReferrer{}
	refs := d.Referrers[obj]
	for k := 0; k < len(refs); {
		u := refs[k]
		end := k
		for end < len(refs) && refs[end] == u {
			end++
		}
		for _, l := range d.Labels[u] {
			if k < end && l.To == obj && !l.Weak {
				out = append(out, ShowReferrer{ObjectID: ObjectID(h, u), Class: ClassName(h, u), Heap: HeapName(h, u), Via: l.Label})
				k++
			}
		}
		for ; k < end; k++ {
			out = append(out, ShowReferrer{ObjectID: ObjectID(h, u), Class: ClassName(h, u), Heap: HeapName(h, u), Via: "?"})
		}
	}
	return out
}

// showRoots lists the GC root records naming obj, with the thread and
// frame of thread roots.
func showRoots(h *model.Heap, obj model.ObjectIndex, vals map[model.ObjectIndex]*model.ObjectValues) []ShowRoot {
	out := []ShowRoot{}
	for _, rt := range h.Roots {
		if rt.Object != obj {
			continue
		}
		sr := ShowRoot{Kind: rt.Kind.String()}
		sr.Thread, sr.Frame, sr.FrameDepth = rootPlace(h, rt, func() string { return nameText(h, h.Threads[rt.Thread].Object, vals) })
		out = append(out, sr)
	}
	return out
}

// Kinds of objects that have a short text.
const (
	textNone = iota
	textString
	textEnum
	textThread
	textBox
	textChars
	textBytes
)

// textKind says what short text, if any, object i has.
func textKind(h *model.Heap, i model.ObjectIndex) int {
	if i == model.NoObject || graph.IsClassObject(h, i) {
		return textNone
	}
	c := h.ClassOf(i)
	if c == model.NoClass {
		return textNone
	}
	switch h.Classes[c].Name {
	case "java.lang.String":
		return textString
	case "java.lang.Integer", "java.lang.Long", "java.lang.Short", "java.lang.Byte",
		"java.lang.Character", "java.lang.Boolean", "java.lang.Float", "java.lang.Double":
		return textBox
	case "char[]":
		return textChars
	case "byte[]":
		return textBytes
	}
	for k := range h.Supers(c) {
		switch h.Classes[k].Name {
		case "java.lang.Enum":
			return textEnum
		case "java.lang.Thread":
			return textThread
		}
	}
	return textNone
}

// shortText is object i's short text: a String's value, a boxed
// primitive's value, an enum's or a Thread's name, a char[] or a byte[]
// as text when it is printable; "" when it has none or it was not read.
func shortText(h *model.Heap, i model.ObjectIndex, vals map[model.ObjectIndex]*model.ObjectValues) string {
	v := vals[i]
	if v == nil {
		return ""
	}
	switch textKind(h, i) {
	case textString:
		return stringText(i, vals)
	case textBox:
		if f, ok := v.Field("value"); ok && f.Type != model.TypeObject {
			return fmt.Sprint(fieldValue(f))
		}
	case textEnum, textThread:
		return nameText(h, i, vals)
	case textChars:
		return printable(model.CharsText(v.Data, binary.BigEndian), v)
	case textBytes:
		return printable(model.Latin1Text(v.Data), v)
	}
	return ""
}

// stringText is the value of String s, ending in "…" when the value
// array is longer than what was read.
func stringText(s model.ObjectIndex, vals map[model.ObjectIndex]*model.ObjectValues) string {
	text, ok := model.StringText(vals, s)
	if !ok {
		return ""
	}
	if f, _ := vals[s].Field("value"); vals[f.Ref] != nil && int64(len(vals[f.Ref].Elements)) < vals[f.Ref].Length {
		text += "…"
	}
	return text
}

// nameText is the text of object i's field "name": a String, or the
// char[] of a JDK 5–8 Thread (model.NameText).
func nameText(h *model.Heap, i model.ObjectIndex, vals map[model.ObjectIndex]*model.ObjectValues) string {
	v := vals[i]
	if v == nil {
		return ""
	}
	f, ok := v.Field("name")
	if !ok {
		return ""
	}
	switch textKind(h, f.Ref) {
	case textString:
		return stringText(f.Ref, vals)
	case textChars:
		text, _ := model.NameText(vals, f.Ref)
		return text
	}
	return ""
}

// printable is text when every character of it is printable (or a tab or
// line break), ending in "…" when the array v is longer than what was
// read; "" otherwise.
func printable(text string, v *model.ObjectValues) string {
	if text == "" {
		return ""
	}
	for _, c := range text {
		if !unicode.IsPrint(c) && !strings.ContainsRune("\t\n\r", c) {
			return ""
		}
	}
	if int64(len(v.Elements)) < v.Length {
		text += "…"
	}
	return text
}

// fieldValue is a value as JSON shows it: a number, a boolean or a
// one-character string for a primitive, the "0x…" id or nil for a
// reference. A float that is not a number or infinite is a string.
func fieldValue(v model.Value) any {
	switch v.Type {
	case model.TypeObject:
		if v.Bits == 0 {
			return nil
		}
		return fmt.Sprintf("0x%x", v.Bits)
	case model.TypeBoolean:
		return v.Bits != 0
	case model.TypeChar:
		return string(rune(uint16(v.Bits)))
	case model.TypeByte:
		return int8(v.Bits)
	case model.TypeShort:
		return int16(v.Bits)
	case model.TypeInt:
		return int32(v.Bits)
	case model.TypeLong:
		return int64(v.Bits)
	case model.TypeFloat:
		return floatValue(float64(math.Float32frombits(uint32(v.Bits))), 32)
	case model.TypeDouble:
		return floatValue(math.Float64frombits(v.Bits), 64)
	}
	return nil
}

// floatValue is f as the shortest decimal that reads back as the same
// float of the given bits, a JSON number; NaN and infinities as strings.
func floatValue(f float64, bits int) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, bits)
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, bits))
}

// PathsByTarget maps each target of the object paths p (one path per
// target, ShortestPaths with Paths 1) to its described path in d.
func PathsByTarget(p graph.RetainerPaths, d Retainers) map[model.ObjectIndex]RetainerPath {
	out := make(map[model.ObjectIndex]RetainerPath, len(p.Chains))
	for k, c := range p.Chains {
		out[c[len(c)-1]] = d.Paths[k]
	}
	return out
}
