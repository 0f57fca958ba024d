package oql

import (
	"fmt"
	"math"
	"strings"

	"github.com/hprofctl/hprofctl/model"
)

// scope is what names mean while one row is evaluated: the row's value,
// its alias, and the row of the enclosing query a correlated subquery
// refers to.
type scope struct {
	this  Value
	alias string
	outer *scope
}

// eval evaluates x for the row of scope sc.
func (e *evaluator) eval(x Expr, sc scope) (Value, error) {
	switch x := x.(type) {
	case *Literal:
		return x.Value, nil
	case *This:
		return sc.this, nil
	case *Name:
		for s := &sc; s != nil; s = s.outer {
			if s.alias != "" && x.Name == s.alias {
				return s.this, nil
			}
		}
		return e.field(sc.this, x.Name)
	case *Field:
		v, err := e.eval(x.X, sc)
		if err != nil {
			return v, err
		}
		return e.field(v, x.Name)
	case *Attr:
		v, err := e.eval(x.X, sc)
		if err != nil {
			return v, err
		}
		return e.attr(v, x.Name)
	case *Index:
		v, err := e.eval(x.X, sc)
		if err != nil {
			return v, err
		}
		k, err := e.eval(x.I, sc)
		if err != nil {
			return k, err
		}
		if !x.Range {
			return e.index(v, k)
		}
		hi, err := e.eval(x.Hi, sc)
		if err != nil {
			return hi, err
		}
		return e.slice(v, k, hi)
	case *Call:
		v, err := e.eval(x.Args[0], sc)
		if err != nil {
			return v, err
		}
		return e.call(x.Name, v)
	case *Method:
		v, err := e.eval(x.X, sc)
		if err != nil {
			return v, err
		}
		args := make([]Value, len(x.Args))
		for k, a := range x.Args {
			if args[k], err = e.eval(a, sc); err != nil {
				return args[k], err
			}
		}
		return e.method(v, x.Name, args)
	case *Not:
		v, err := e.eval(x.X, sc)
		if err != nil {
			return v, err
		}
		t, err := truth(v)
		return Bool(!t), err
	case *List:
		out := Value{Kind: KindList, List: make([]Value, len(x.Items))}
		for k, it := range x.Items {
			v, err := e.eval(it, sc)
			if err != nil {
				return v, err
			}
			out.List[k] = v
		}
		return out, nil
	case *Subquery:
		return e.subquery(x, sc)
	case *Binary:
		return e.binary(x, sc)
	}
	return Null(), fmt.Errorf("unknown expression %T", x)
}

// truth is a WHERE condition's value: null is false, and so is the
// number 0 (other numbers are true).
func truth(v Value) (bool, error) {
	v = unwrap(v)
	switch v.Kind {
	case KindBool:
		return v.Bool, nil
	case KindNull:
		return false, nil
	case KindInt:
		return v.Int != 0, nil
	case KindFloat:
		return v.Float != 0, nil
	}
	return false, fmt.Errorf("expected a condition (true or false), found %s %s", kindName(v.Kind), v.Text())
}

// kindName names a kind of value in error messages.
func kindName(k Kind) string {
	return [...]string{"null", "a number", "a number", "a boolean", "a string", "an object", "a list"}[k]
}

// field is the value of field name of v: a column of a row a subquery
// gave (of its one row; a row of one column reads through to its value),
// a list's length, a field of an object (a static of a class object); null for
// null, for an object without that field and for one whose record could
// not be read. A name no class of the dump declares is an error.
func (e *evaluator) field(v Value, name string) (Value, error) {
	if v.Kind == KindList && v.Names == nil {
		if name == "length" {
			return Int(int64(len(v.List))), nil
		}
		if len(v.List) == 1 {
			return e.field(v.List[0], name)
		}
	}
	if v.Names != nil {
		for k, n := range v.Names {
			if n == name {
				return v.List[k], nil
			}
		}
		if len(v.Names) != 1 {
			return Null(), fmt.Errorf("field %s: the row has the columns %s", name, strings.Join(v.Names, ", "))
		}
		return e.field(v.List[0], name)
	}
	switch v.Kind {
	case KindNull:
		return v, nil
	case KindObject:
	default:
		return Null(), fmt.Errorf("field %s of %s %s: not an object", name, kindName(v.Kind), v.Text())
	}
	vals, err := e.values(v.Obj)
	if err != nil || vals == nil {
		return Null(), err
	}
	f, ok := vals.Field(name)
	if !ok {
		// A class object's statics: Java's C.name reads a superclass's
		// when C declares none (MAT's too).
		if c, isClass := e.h.ClassObjectOf(v.Obj); isClass && e.h.Classes[c].Object == v.Obj {
			if f, ok = e.h.InheritedStatic(c, name); ok {
				return e.fieldValue(f), nil
			}
		}
		if !e.knownField(name) {
			return Null(), fmt.Errorf("unknown field %s: no class of the dump declares it", name)
		}
		return Null(), nil
	}
	return e.fieldValue(f), nil
}

// knownField reports whether a class of the dump declares a field or a
// static named name.
func (e *evaluator) knownField(name string) bool {
	if e.fieldNames == nil {
		e.fieldNames = map[string]bool{}
		for _, c := range e.h.Classes {
			for _, f := range c.Fields {
				e.fieldNames[f.Name] = true
			}
			for _, s := range c.Statics {
				e.fieldNames[s.Name] = true
			}
		}
	}
	return e.fieldNames[name]
}

// fieldValue is a decoded field or element as a query value.
func (e *evaluator) fieldValue(f model.Value) Value {
	switch f.Type {
	case model.TypeObject:
		return Object(e.h, f.Ref)
	case model.TypeBoolean:
		return Bool(f.Bits != 0)
	case model.TypeChar:
		return String(string(rune(uint16(f.Bits))))
	case model.TypeByte:
		return Int(int64(int8(f.Bits)))
	case model.TypeShort:
		return Int(int64(int16(f.Bits)))
	case model.TypeInt:
		return Int(int64(int32(f.Bits)))
	case model.TypeLong:
		return Int(int64(f.Bits))
	case model.TypeFloat:
		return Float(float64(math.Float32frombits(uint32(f.Bits))))
	case model.TypeDouble:
		return Float(math.Float64frombits(f.Bits))
	}
	return Null()
}

// index is element k of a list, an array or a collection (see
// elements); null outside the bounds.
func (e *evaluator) index(v, k Value) (Value, error) {
	v, k = unwrap(v), unwrap(k)
	if v.Kind == KindNull || k.Kind == KindNull {
		return Null(), nil
	}
	if k.Kind != KindInt {
		return Null(), fmt.Errorf("index must be an integer, found %s", kindName(k.Kind))
	}
	switch v.Kind {
	case KindList:
		if k.Int < 0 || k.Int >= int64(len(v.List)) {
			return Null(), nil
		}
		return v.List[k.Int], nil
	case KindObject:
	default:
		return Null(), fmt.Errorf("[%d] of %s: not an array", k.Int, kindName(v.Kind))
	}
	if c := e.h.ClassOf(v.Obj); c == model.NoClass || !e.h.Classes[c].IsArray() || isClassObject(e.h, v.Obj) {
		all, err := e.elements(v)
		if err != nil {
			return all, err
		}
		return e.index(all, k)
	}
	vals, err := e.values(v.Obj)
	if err != nil || vals == nil || vals.Length < 0 || k.Int < 0 || k.Int >= vals.Length {
		return Null(), err
	}
	if vals.Elem == model.TypeObject {
		size := e.h.Source.IDSize
		if (k.Int+1)*int64(size) > int64(len(vals.Data)) {
			return Null(), nil
		}
		id := bits(vals.Data[k.Int*int64(size) : (k.Int+1)*int64(size)])
		i, ok := e.h.Lookup(id)
		if !ok {
			return Null(), nil
		}
		return Object(e.h, i), nil
	}
	if !vals.HasElements() {
		return Null(), nil
	}
	return e.fieldValue(vals.Element(int(k.Int))), nil
}

// bits is the big-endian number in b.
func bits(b []byte) uint64 {
	var x uint64
	for _, c := range b {
		x = x<<8 | uint64(c)
	}
	return x
}
