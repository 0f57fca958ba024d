package oql

import (
	"fmt"
	"math"
	"strings"
)

// binary evaluates x: AND and OR evaluate their right side only when the
// left does not decide, the other operators both sides.
func (e *evaluator) binary(x *Binary, sc scope) (Value, error) {
	l, err := e.eval(x.L, sc)
	if err != nil {
		return l, err
	}
	l = unwrap(l)
	switch x.Op {
	case "AND", "OR":
		lt, err := truth(l)
		if err != nil {
			return Null(), err
		}
		if lt == (x.Op == "OR") {
			return Bool(lt), nil
		}
		r, err := e.eval(x.R, sc)
		if err != nil {
			return r, err
		}
		rt, err := truth(r)
		return Bool(rt), err
	}
	r, err := e.eval(x.R, sc)
	if err != nil {
		return r, err
	}
	r = unwrap(r)
	switch x.Op {
	case "=", "!=", "<", "<=", ">", ">=":
		if other, ok := objectAgainstScalar(l, r); ok {
			return Null(), fmt.Errorf("%s compares an object with %s %s: compare a field or an attribute of it (.@objectId, toString(…))", x.Op, kindName(other.Kind), other.Text())
		}
	}
	switch x.Op {
	case "IMPLEMENTS":
		return Bool(e.implements(l, r.Str)), nil
	case "=":
		return Bool(equal(l, r)), nil
	case "!=":
		return Bool(!equal(l, r)), nil
	case "<", "<=", ">", ">=":
		c, ok := order(l, r)
		if !ok {
			return Bool(false), nil
		}
		switch x.Op {
		case "<":
			return Bool(c < 0), nil
		case "<=":
			return Bool(c <= 0), nil
		case ">":
			return Bool(c > 0), nil
		}
		return Bool(c >= 0), nil
	case "LIKE":
		if r.Kind != KindString {
			return Null(), fmt.Errorf("LIKE needs a regular expression string, found %s", kindName(r.Kind))
		}
		re, err := e.lim.pattern(r.Str)
		if err != nil {
			return Null(), err
		}
		return Bool(l.Kind == KindString && re.MatchString(l.Str)), nil
	case "IN":
		if r.Kind != KindList {
			return Bool(equal(l, r)), nil
		}
		found, err := e.lim.in(l, r.List)
		return Bool(found), err
	}
	return arithmetic(x.Op, l, r)
}

// objectAgainstScalar reports whether one of a and b is an object and the
// other a number, a string or a boolean, a comparison that is always a
// mistake (Eclipse MAT refuses it too); other is the non-object.
func objectAgainstScalar(a, b Value) (other Value, ok bool) {
	if b.Kind == KindObject {
		a, b = b, a
	}
	switch b.Kind {
	case KindInt, KindFloat, KindString, KindBool:
		return b, a.Kind == KindObject
	}
	return b, false
}

// equal compares two values: numbers by value, objects by identity.
func equal(a, b Value) bool {
	if c, ok := order(a, b); ok {
		return c == 0
	}
	switch {
	case a.Kind != b.Kind:
		return false
	case a.Kind == KindNull:
		return true
	case a.Kind == KindBool:
		return a.Bool == b.Bool
	case a.Kind == KindObject:
		return a.Obj == b.Obj
	case a.Kind == KindList:
		return a.key() == b.key()
	}
	return false
}

// order compares numbers with numbers and strings with strings; ok is
// false for other pairs.
func order(a, b Value) (int, bool) {
	if a.Kind == KindString && b.Kind == KindString {
		return strings.Compare(a.Str, b.Str), true
	}
	if a.Kind == KindInt && b.Kind == KindInt {
		return compareNumbers(a.Int, b.Int), true
	}
	af, aok := number(a)
	bf, bok := number(b)
	if !aok || !bok {
		return 0, false
	}
	return compareNumbers(af, bf), true
}

// compareNumbers is -1, 0 or 1 as a is less than, equal to or greater
// than b.
func compareNumbers[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// number is v as a float when v is a number.
func number(v Value) (float64, bool) {
	switch v.Kind {
	case KindInt:
		return float64(v.Int), true
	case KindFloat:
		return v.Float, true
	}
	return 0, false
}

// arithmetic applies + - * / % to numbers; + joins when either side is a
// string. null gives null, and so does a division by zero.
func arithmetic(op string, l, r Value) (Value, error) {
	if l.Kind == KindNull || r.Kind == KindNull {
		return Null(), nil
	}
	if op == "+" && (l.Kind == KindString || r.Kind == KindString) {
		return String(l.Text() + r.Text()), nil
	}
	if l.Kind == KindInt && r.Kind == KindInt {
		a, b := l.Int, r.Int
		var n int64
		var err error
		switch op {
		case "+":
			n, err = addInt(a, b)
		case "-":
			n, err = subInt(a, b)
		case "*":
			n, err = mulInt(a, b)
		}
		if op == "+" || op == "-" || op == "*" {
			return Int(n), err
		}
		if b == 0 || a == math.MinInt64 && b == -1 {
			return Null(), nil
		}
		if op == "/" {
			return Int(a / b), nil
		}
		return Int(a % b), nil
	}
	a, aok := number(l)
	b, bok := number(r)
	if !aok || !bok {
		return Null(), fmt.Errorf("%s needs numbers, found %s and %s", op, kindName(l.Kind), kindName(r.Kind))
	}
	switch op {
	case "+":
		return Float(a + b), nil
	case "-":
		return Float(a - b), nil
	case "*":
		return Float(a * b), nil
	case "/":
		return Float(a / b), nil
	}
	return Float(math.Mod(a, b)), nil
}
