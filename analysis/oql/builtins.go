package oql

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
)

// attr is the built-in attribute name of v.
func (e *evaluator) attr(v Value, name string) (Value, error) {
	if v.Kind == KindNull {
		return v, nil
	}
	a := strings.ToLower(name)
	if v.Kind == KindList && a == "length" {
		return Int(int64(len(v.List))), nil
	}
	if v.Kind != KindObject {
		return Null(), fmt.Errorf("@%s of %s: not an object", name, kindName(v.Kind))
	}
	h, i := e.h, v.Obj
	switch a {
	case "objectid":
		return Int(int64(i)), nil
	case "objectaddress":
		return Int(int64(v.ID)), nil
	case "usedheapsize":
		return Int(h.ShallowBytes(i, e.opt.Size)), nil
	case "retainedheapsize":
		if !e.r.Reachable(i) {
			return Int(0), nil
		}
		return Int(e.r.RetainedBytes(i)), nil
	case "displayname":
		return String(displayName(h, i)), nil
	case "length":
		if c := h.ClassOf(i); c != model.NoClass && h.Classes[c].IsArray() && !isClassObject(h, i) {
			return Int(int64(h.ArrayLength(i))), nil
		}
		return Null(), nil
	case "clazz", "class":
		return e.call("classof", v)
	case "name":
		if c, ok := h.ClassObjectOf(i); ok && h.Classes[c].Object == i {
			return String(h.Classes[c].Name), nil
		}
		return Null(), nil
	case "gcrootinfo":
		if e.roots == nil {
			e.roots = map[model.ObjectIndex][]string{}
			for _, rt := range h.Roots {
				if rt.Object != model.NoObject {
					e.roots[rt.Object] = append(e.roots[rt.Object], rt.Kind.String())
				}
			}
		}
		if k := e.roots[i]; len(k) > 0 {
			return String(strings.Join(k, ", ")), nil
		}
		return Null(), nil
	}
	return Null(), fmt.Errorf("unknown attribute @%s: expected @objectId, @objectAddress, @usedHeapSize, @retainedHeapSize, @displayName, @length, @clazz, @name or @GCRootInfo", name)
}

// displayName is how MAT names an object: its class and address.
func displayName(h *model.Heap, i model.ObjectIndex) string {
	return heap.ClassName(h, i) + " @ " + heap.ObjectID(h, i)
}

// call applies the built-in function name to v.
func (e *evaluator) call(name string, v Value) (Value, error) {
	if v.Kind == KindNull {
		return v, nil
	}
	h := e.h
	switch name {
	case "tostring":
		if v.Kind != KindObject {
			return String(v.Text()), nil
		}
		return e.objectText(v.Obj)
	case "tohex":
		switch v.Kind {
		case KindInt:
			return String("0x" + strconv.FormatUint(uint64(v.Int), 16)), nil
		case KindObject:
			return String(fmt.Sprintf("0x%x", v.ID)), nil
		}
		return Null(), fmt.Errorf("toHex of %s", kindName(v.Kind))
	case "sizeof":
		switch v.Kind {
		case KindList:
			return Int(int64(len(v.List))), nil
		case KindObject:
			return Int(h.ShallowBytes(v.Obj, e.opt.Size)), nil
		}
		return Null(), fmt.Errorf("sizeof of %s", kindName(v.Kind))
	}
	if v.Kind != KindObject {
		return Null(), fmt.Errorf("%s of %s: not an object", name, kindName(v.Kind))
	}
	i := v.Obj
	switch name {
	case "classof":
		c := h.ClassOf(i)
		if isClassObject(h, i) {
			c = h.ClassClass()
		}
		if c == model.NoClass {
			return Null(), nil
		}
		return Object(h, h.Classes[c].Object), nil
	case "dominatorof":
		if !e.r.Reachable(i) {
			return Null(), nil
		}
		return Object(h, e.r.ImmediateDominator(i)), nil
	case "dominators":
		e.buildChildren()
		return e.objectList(e.children[e.childStart[i]:e.childStart[i+1]]), nil
	case "outbounds":
		return e.distinctList(h.Refs(i)), nil
	case "inbounds":
		e.buildReferrers()
		refs := e.referrers[e.referStart[i]:e.referStart[i+1]]
		out := make([]model.ObjectIndex, len(refs))
		for k, u := range refs {
			out[k] = model.ObjectIndex(u)
		}
		return e.distinctList(out), nil
	}
	return Null(), fmt.Errorf("unknown function %s", name)
}

// objectList is the objects of objs, given by index, as a list.
func (e *evaluator) objectList(objs []uint32) Value {
	out := Value{Kind: KindList, List: make([]Value, len(objs))}
	for k, o := range objs {
		out.List[k] = Object(e.h, model.ObjectIndex(o))
	}
	return out
}

// distinctList is objs as a list, each object once, in first-seen order.
func (e *evaluator) distinctList(objs []model.ObjectIndex) Value {
	out := Value{Kind: KindList, List: []Value{}}
	seen := map[model.ObjectIndex]bool{}
	for _, o := range objs {
		if !seen[o] {
			seen[o] = true
			out.List = append(out.List, Object(e.h, o))
		}
	}
	return out
}

// objectText is toString of object i: a String's value, a boxed
// primitive's, a char[] or byte[] as text, a class's name, an enum's or a
// Thread's name; "" for other objects.
func (e *evaluator) objectText(i model.ObjectIndex) (Value, error) {
	h := e.h
	if c, ok := h.ClassObjectOf(i); ok && h.Classes[c].Object == i {
		return String(h.Classes[c].Name), nil
	}
	c := h.ClassOf(i)
	if c == model.NoClass {
		return String(""), nil
	}
	switch h.Classes[c].Name {
	case "java.lang.String":
		return e.stringText(i)
	case "java.lang.Integer", "java.lang.Long", "java.lang.Short", "java.lang.Byte",
		"java.lang.Character", "java.lang.Boolean", "java.lang.Float", "java.lang.Double":
		v, err := e.field(Object(h, i), "value")
		if err != nil || v.Kind == KindNull {
			return v, err
		}
		return String(v.Text()), nil
	case "char[]", "byte[]":
		vals, err := e.values(i)
		if err != nil || vals == nil {
			return String(""), err
		}
		if vals.Elem == model.TypeChar {
			return String(model.CharsText(vals.Data, binary.BigEndian)), nil
		}
		return String(model.Latin1Text(vals.Data)), nil
	}
	for s := range h.Supers(c) {
		if n := h.Classes[s].Name; n == "java.lang.Enum" || n == "java.lang.Thread" {
			name, err := e.field(Object(h, i), "name")
			if err != nil || name.Kind != KindObject {
				return String(""), err
			}
			// A String, or up to JDK 8 a Thread's char[].
			return e.objectText(name.Obj)
		}
	}
	return String(""), nil
}

// stringText is the value of java.lang.String s.
func (e *evaluator) stringText(s model.ObjectIndex) (Value, error) {
	sv, err := e.values(s)
	if err != nil || sv == nil {
		return String(""), err
	}
	f, ok := sv.Field("value")
	if !ok || f.Ref == model.NoObject {
		return String(""), nil
	}
	av, err := e.values(f.Ref)
	if err != nil {
		return String(""), err
	}
	text, _ := model.StringValue(sv, av)
	return String(text), nil
}
