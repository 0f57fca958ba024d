package oql

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/model"
)

// Kind is the type of a Value.
type Kind int

// The kinds of values.
const (
	KindNull Kind = iota
	KindInt
	KindFloat
	KindBool
	KindString
	KindObject
	KindList
)

// Value is one value of a query: null, a number, a boolean, a string, an
// object of the heap, or a list of values (what dominators, outbounds
// and inbounds give).
type Value struct {
	Kind  Kind
	Int   int64
	Float float64
	Bool  bool
	Str   string
	// Obj is the object of a KindObject value, ID its id in the dump.
	Obj  model.ObjectIndex
	ID   uint64
	List []Value
	// Names names the columns of a row a subquery gave (a record whose
	// columns X.name reads); nil for other lists.
	Names []string
}

// record is one row of a subquery as a value: its columns, by name.
func record(names []string, row []Value) Value {
	return Value{Kind: KindList, List: row, Names: names}
}

// unwrap is the value of a record of one column; other values as they
// are.
func unwrap(v Value) Value {
	for v.Names != nil && len(v.List) == 1 {
		v = v.List[0]
	}
	return v
}

// Null is the null value.
func Null() Value { return Value{Kind: KindNull} }

// Int is an integer value.
func Int(n int64) Value { return Value{Kind: KindInt, Int: n} }

// Float is a floating-point value.
func Float(f float64) Value { return Value{Kind: KindFloat, Float: f} }

// Bool is a boolean value.
func Bool(b bool) Value { return Value{Kind: KindBool, Bool: b} }

// String is a string value.
func String(s string) Value { return Value{Kind: KindString, Str: s} }

// Object is the value of object i of heap h; null for NoObject.
func Object(h *model.Heap, i model.ObjectIndex) Value {
	if i == model.NoObject {
		return Null()
	}
	return Value{Kind: KindObject, Obj: i, ID: h.ObjectID(i)}
}

// JSON is the value as JSON shows it: a number, a boolean, null, a
// string, an object's "0x…" id, an array for a list. A float that is not
// a number or infinite is a string.
func (v Value) JSON() any {
	v = unwrap(v)
	switch v.Kind {
	case KindInt:
		return v.Int
	case KindFloat:
		if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
			return strconv.FormatFloat(v.Float, 'g', -1, 64)
		}
		return json.Number(strconv.FormatFloat(v.Float, 'g', -1, 64))
	case KindBool:
		return v.Bool
	case KindString:
		return v.Str
	case KindObject:
		return fmt.Sprintf("0x%x", v.ID)
	case KindList:
		out := make([]any, len(v.List))
		for k, x := range v.List {
			out[k] = x.JSON()
		}
		return out
	}
	return nil
}

// Text is the value as a table or CSV cell shows it: "" for null, a
// list's values between brackets.
func (v Value) Text() string {
	v = unwrap(v)
	switch v.Kind {
	case KindNull:
		return ""
	case KindInt:
		return strconv.FormatInt(v.Int, 10)
	case KindFloat:
		return strconv.FormatFloat(v.Float, 'g', -1, 64)
	case KindBool:
		return strconv.FormatBool(v.Bool)
	case KindString:
		return v.Str
	case KindObject:
		return fmt.Sprintf("0x%x", v.ID)
	}
	parts := make([]string, len(v.List))
	for k, x := range v.List {
		parts[k] = x.Text()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// key is a string equal for equal values, for DISTINCT.
func (v Value) key() string {
	v = unwrap(v)
	switch v.Kind {
	case KindList:
		var b strings.Builder
		b.WriteString("l[")
		for _, x := range v.List {
			b.WriteString(x.key())
			b.WriteByte(0)
		}
		return b.String() + "]"
	case KindString:
		return "s" + v.Str
	case KindObject:
		return "o" + strconv.FormatUint(uint64(v.Obj), 10)
	case KindInt:
		return "n" + strconv.FormatInt(v.Int, 10)
	case KindFloat:
		if v.Float == math.Trunc(v.Float) && math.Abs(v.Float) < 1<<62 {
			return "n" + strconv.FormatInt(int64(v.Float), 10)
		}
	}
	return string(rune('a'+v.Kind)) + v.Text()
}

// Result is what a query gives: named columns and rows of values.
type Result struct {
	Columns []string
	Rows    [][]Value
	// Total counts the rows the query gives; more than len(Rows) when a
	// limit cut them.
	Total int
}
