package oql

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/hprofctl/hprofctl/model"
)

// method applies the method name to v with args. Methods are a fixed set
// of pure functions of query values (docs/oql.md lists them); nothing
// reaches outside the dump. A method outside that set gives null, as
// Eclipse MAT gives nothing for the Java methods it refuses.
func (e *evaluator) method(v Value, name string, args []Value) (Value, error) {
	if v.Names != nil {
		switch name {
		case "getkey":
			return e.field(v, "key")
		case "getvalue":
			return e.field(v, "value")
		case "get":
			if len(args) == 1 && args[0].Kind == KindString {
				return e.field(v, args[0].Str)
			}
		}
	}
	v = unwrap(v)
	for k := range args {
		args[k] = unwrap(args[k])
	}
	if len(args) == 0 && knownFunction(name) {
		return e.call(name, v)
	}
	switch name {
	case "equals":
		if len(args) == 1 {
			return Bool(equal(v, args[0])), nil
		}
	case "getkey", "getvalue":
		if v.Kind == KindObject && len(args) == 0 {
			return e.entryPart(v, name == "getkey")
		}
	}
	switch v.Kind {
	case KindString:
		return stringMethod(v.Str, name, args), nil
	case KindList:
		return listMethod(v.List, name, args), nil
	case KindInt, KindFloat:
		return numberMethod(v, name, args), nil
	case KindObject:
		if name == "size" && len(args) == 0 {
			all, err := e.elements(v)
			if err != nil || all.Kind != KindList {
				return Null(), err
			}
			return Int(int64(len(all.List))), nil
		}
	}
	return Null(), nil
}

// entryPart is the key or the value of a map entry object (a
// HashMap$Node, a Hashtable$Entry …).
func (e *evaluator) entryPart(v Value, key bool) (Value, error) {
	if key {
		return e.field(v, "key")
	}
	vals, err := e.values(v.Obj)
	if err != nil || vals == nil {
		return Null(), err
	}
	for _, n := range []string{"value", "val"} {
		if f, ok := vals.Field(n); ok {
			return e.fieldValue(f), nil
		}
	}
	return Null(), nil
}

// stringMethod applies a method of java.lang.String.
func stringMethod(s, name string, args []Value) Value {
	arg := func(k int) (string, bool) {
		if k >= len(args) {
			return "", false
		}
		switch a := args[k]; a.Kind {
		case KindString:
			return a.Str, true
		case KindInt:
			if a.Int >= 0 && a.Int <= utf8.MaxRune {
				return string(rune(a.Int)), true
			}
		}
		return "", false
	}
	runes := []rune(s)
	switch name {
	case "length":
		return Int(int64(len(runes)))
	case "isempty":
		return Bool(s == "")
	case "tostring", "trim", "touppercase", "tolowercase":
		return String(map[string]func(string) string{"tostring": strings.Clone, "trim": strings.TrimSpace,
			"touppercase": strings.ToUpper, "tolowercase": strings.ToLower}[name](s))
	case "indexof", "lastindexof", "contains", "startswith", "endswith":
		a, ok := arg(0)
		if !ok || len(args) != 1 {
			return Null()
		}
		switch name {
		case "contains":
			return Bool(strings.Contains(s, a))
		case "startswith":
			return Bool(strings.HasPrefix(s, a))
		case "endswith":
			return Bool(strings.HasSuffix(s, a))
		}
		at := strings.Index(s, a)
		if name == "lastindexof" {
			at = strings.LastIndex(s, a)
		}
		if at < 0 {
			return Int(-1)
		}
		return Int(int64(utf8.RuneCountInString(s[:at])))
	case "charat":
		if len(args) == 1 && args[0].Kind == KindInt && args[0].Int >= 0 && args[0].Int < int64(len(runes)) {
			return String(string(runes[args[0].Int]))
		}
	case "substring":
		lo, hi := int64(-1), int64(len(runes))
		if len(args) >= 1 && args[0].Kind == KindInt {
			lo = args[0].Int
		}
		if len(args) == 2 && args[1].Kind == KindInt {
			hi = args[1].Int
		}
		if len(args) <= 2 && lo >= 0 && lo <= hi && hi <= int64(len(runes)) {
			return String(string(runes[lo:hi]))
		}
	}
	return Null()
}

// listMethod applies a method of java.util.List.
func listMethod(l []Value, name string, args []Value) Value {
	switch name {
	case "size", "length":
		return Int(int64(len(l)))
	case "isempty":
		return Bool(len(l) == 0)
	case "get":
		if len(args) == 1 && args[0].Kind == KindInt && args[0].Int >= 0 && args[0].Int < int64(len(l)) {
			return l[args[0].Int]
		}
	case "contains":
		if len(args) == 1 {
			for _, x := range l {
				if equal(unwrap(x), args[0]) {
					return Bool(true)
				}
			}
			return Bool(false)
		}
	case "sublist":
		if len(args) == 2 && args[0].Kind == KindInt && args[1].Kind == KindInt &&
			args[0].Int >= 0 && args[0].Int <= args[1].Int && args[1].Int <= int64(len(l)) {
			return Value{Kind: KindList, List: l[args[0].Int:args[1].Int]}
		}
	}
	return Null()
}

// numberMethod applies a method of java.lang.Number.
func numberMethod(v Value, name string, args []Value) Value {
	if len(args) != 0 {
		return Null()
	}
	f, _ := number(v)
	switch name {
	case "intvalue":
		return Int(int64(int32(javaInt(v, f))))
	case "longvalue":
		return Int(javaInt(v, f))
	case "floatvalue":
		return Float(float64(float32(f)))
	case "doublevalue":
		return Float(f)
	}
	return Null()
}

// javaInt is number v converted to a long as Java casts it.
func javaInt(v Value, f float64) int64 {
	switch {
	case v.Kind == KindInt:
		return v.Int
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// slice is v[lo:hi]: the elements lo to hi of a list, an array or a
// collection, both included, a negative bound counting from the end.
func (e *evaluator) slice(v, lo, hi Value) (Value, error) {
	v, lo, hi = unwrap(v), unwrap(lo), unwrap(hi)
	if v.Kind == KindNull || lo.Kind == KindNull || hi.Kind == KindNull {
		return Null(), nil
	}
	if lo.Kind != KindInt || hi.Kind != KindInt {
		return Null(), fmt.Errorf("a range [a:b] needs integers, found %s and %s", kindName(lo.Kind), kindName(hi.Kind))
	}
	all := v
	if v.Kind == KindObject {
		var err error
		if all, err = e.elements(v); err != nil || all.Kind != KindList {
			return all, err
		}
	}
	if all.Kind != KindList {
		return Null(), fmt.Errorf("[%d:%d] of %s: not an array or a collection", lo.Int, hi.Int, kindName(v.Kind))
	}
	n := int64(len(all.List))
	a, b := lo.Int, hi.Int
	if a < 0 {
		a += n
	}
	if b < 0 {
		b += n
	}
	a, b = max(a, 0), min(b, n-1)
	if a > b {
		return Value{Kind: KindList, List: []Value{}}, nil
	}
	return Value{Kind: KindList, List: all.List[a : b+1]}, nil
}

// implements reports whether object v is what class names: an Eclipse
// MAT model interface (org.eclipse.mat.snapshot.model.IClass for a class
// object, IArray, IObjectArray, IPrimitiveArray, IInstance,
// IClassLoader, IObject), else an instance of that class of the dump or
// of a subclass. HPROF records no interfaces, so a Java interface of the
// dump matches nothing.
func (e *evaluator) implements(v Value, class string) bool {
	if v.Kind != KindObject {
		return false
	}
	h := e.h
	_, isClass := e.classOfObject(v)
	c := h.ClassOf(v.Obj)
	array := !isClass && c != model.NoClass && h.Classes[c].IsArray()
	switch strings.TrimPrefix(class, "org.eclipse.mat.snapshot.model.") {
	case "IObject":
		return true
	case "IClass":
		return isClass
	case "IArray":
		return array
	case "IObjectArray":
		return array && h.Classes[c].Elem == model.TypeObject
	case "IPrimitiveArray":
		return array && h.Classes[c].Elem != model.TypeObject
	case "IInstance":
		return !isClass && !array
	case "IClassLoader":
		class = "java.lang.ClassLoader"
	}
	if isClass {
		c = h.ClassClass()
	}
	if c == model.NoClass {
		return false
	}
	for s := range h.Supers(c) {
		if h.Classes[s].Name == class {
			return true
		}
	}
	return false
}
