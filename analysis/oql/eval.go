package oql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
)

// Options tune a query's evaluation.
type Options struct {
	// Size chooses the shallow sizes of @usedHeapSize and sizeof.
	Size model.SizeMode
	// Limit stops after that many rows (0: all).
	Limit int
	// Heaps selects the Android heaps whose objects a FROM clause naming
	// classes yields; objects named by id are taken as given.
	Heaps model.HeapSelection
}

// errPending says a value needs the field values of objects not read
// yet: the row is evaluated again once they are.
var errPending = errors.New("field values not read yet")

// rowChunk is how many objects of a FROM clause are evaluated together:
// their field values are read in one batch per level of references, and
// forgotten before the next chunk, which bounds the memory a query over
// millions of objects keeps.
const rowChunk = 1 << 18

// evaluator answers queries over one heap. Field values come from the
// dump at path, read in batches: evaluating a row that needs an object's
// values not read yet notes the object and fails with errPending; the
// objects noted for a chunk of rows are read together, and the rows that
// waited are evaluated again.
type evaluator struct {
	h    *model.Heap
	r    *graph.Retention
	path string
	opt  Options

	// vals are the values read for the current chunk; an object present
	// with nil values could not be decoded. want are the objects to read
	// next.
	vals map[model.ObjectIndex]*model.ObjectValues
	want map[model.ObjectIndex]bool

	subqueries map[*Subquery]Value
	patterns   map[string]*regexp.Regexp
	// children and referrers are built on first use: the dominator tree
	// and the references reversed, each as offsets into one list.
	childStart, children  []uint32
	referStart, referrers []uint32
	roots                 map[model.ObjectIndex][]string
}

// Run answers query q over heap h with its retention r; field values are
// read from the dump at path (which standard input cannot be). Rows come
// in the order of the FROM clause's objects (by index for classes).
func Run(h *model.Heap, r *graph.Retention, path string, q *Query, o Options) (*Result, error) {
	e := &evaluator{h: h, r: r, path: path, opt: o, subqueries: map[*Subquery]Value{}, patterns: map[string]*regexp.Regexp{}}
	return e.query(q, o.Limit)
}

// query evaluates q and its UNIONs, at most limit rows (0: all).
func (e *evaluator) query(q *Query, limit int) (*Result, error) {
	res, err := e.selectQuery(q, limit)
	if err != nil {
		return nil, err
	}
	for _, u := range q.Union {
		if limit > 0 && len(res.Rows) >= limit {
			break
		}
		more, err := e.selectQuery(u, limit-len(res.Rows))
		if err != nil {
			return nil, err
		}
		if len(more.Columns) != len(res.Columns) {
			return nil, fmt.Errorf("UNION of %d columns with %d columns", len(res.Columns), len(more.Columns))
		}
		res.Rows = append(res.Rows, more.Rows...)
	}
	if limit > 0 && len(res.Rows) > limit {
		res.Rows = res.Rows[:limit]
	}
	return res, nil
}

// selectQuery evaluates one SELECT, at most limit rows (0: all).
func (e *evaluator) selectQuery(q *Query, limit int) (*Result, error) {
	if err := e.prepare(q); err != nil {
		return nil, err
	}
	objs, err := e.fromObjects(q.From)
	if err != nil {
		return nil, err
	}
	res := &Result{Columns: []string{"object"}, Rows: [][]Value{}}
	if q.Mode == SelectColumns && !q.Star {
		res.Columns = res.Columns[:0]
		for _, it := range q.Items {
			res.Columns = append(res.Columns, it.Name)
		}
	}
	seen := map[string]bool{}
	var retainers []model.ObjectIndex
	full := func() bool { return limit > 0 && len(res.Rows) >= limit && q.Mode != SelectRetainedSet }
	add := func(row []Value) {
		if full() {
			return
		}
		if q.Distinct {
			var b strings.Builder
			for _, v := range row {
				b.WriteString(v.key())
				b.WriteByte(0)
			}
			if seen[b.String()] {
				return
			}
			seen[b.String()] = true
		}
		res.Rows = append(res.Rows, row)
	}
	for lo := 0; lo < len(objs) && !full(); lo += rowChunk {
		rows, err := e.chunkRows(q, objs[lo:min(lo+rowChunk, len(objs))])
		if err != nil {
			return nil, err
		}
		for k, row := range rows {
			if row == nil {
				continue
			}
			obj := objs[lo+k]
			switch {
			case q.Mode == SelectColumns && q.Star:
				add([]Value{Object(e.h, obj)})
			case q.Mode == SelectColumns:
				add(row)
			default:
				if q.Star {
					row = []Value{Object(e.h, obj)}
				}
				for _, v := range row {
					picked, err := objectsOf(v)
					if err != nil {
						return nil, err
					}
					for _, p := range picked {
						if q.Mode == SelectObjects {
							add([]Value{Object(e.h, p)})
						} else {
							retainers = append(retainers, p)
						}
					}
				}
			}
		}
	}
	if q.Mode == SelectRetainedSet {
		for _, i := range e.retainedSet(retainers) {
			add([]Value{Object(e.h, i)})
		}
		if limit > 0 && len(res.Rows) > limit {
			res.Rows = res.Rows[:limit]
		}
	}
	return res, nil
}

// objectsOf lists the objects of value v for SELECT OBJECTS: the object,
// a list's objects, none for null.
func objectsOf(v Value) ([]model.ObjectIndex, error) {
	switch v.Kind {
	case KindNull:
		return nil, nil
	case KindObject:
		return []model.ObjectIndex{v.Obj}, nil
	case KindList:
		var out []model.ObjectIndex
		for _, x := range v.List {
			o, err := objectsOf(x)
			if err != nil {
				return nil, err
			}
			out = append(out, o...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("SELECT OBJECTS: %s is %s, not an object", v.Text(), kindName(v.Kind))
}

// chunkRows evaluates q over objs: for each object its items' values (an
// empty row for SELECT *), nil where WHERE rejects it. Rows waiting for
// field values are evaluated again after each batch of reads.
func (e *evaluator) chunkRows(q *Query, objs []model.ObjectIndex) ([][]Value, error) {
	e.vals = map[model.ObjectIndex]*model.ObjectValues{}
	e.want = map[model.ObjectIndex]bool{}
	rows := make([][]Value, len(objs))
	pending := make([]int, len(objs))
	for k := range pending {
		pending[k] = k
	}
	for len(pending) > 0 {
		var wait []int
		for _, k := range pending {
			row, err := e.row(q, objs[k])
			if errors.Is(err, errPending) {
				wait = append(wait, k)
				continue
			}
			if err != nil {
				return nil, err
			}
			rows[k] = row
		}
		if len(wait) > 0 {
			if err := e.read(); err != nil {
				return nil, err
			}
		}
		pending = wait
	}
	e.vals = nil
	return rows, nil
}

// row evaluates q for object obj: nil when WHERE rejects it.
func (e *evaluator) row(q *Query, obj model.ObjectIndex) ([]Value, error) {
	sc := scope{this: Object(e.h, obj), alias: q.From.Alias}
	if q.Where != nil {
		w, err := e.eval(q.Where, sc)
		if err != nil {
			return nil, err
		}
		ok, err := truth(w)
		if err != nil || !ok {
			return nil, err
		}
	}
	row := make([]Value, len(q.Items))
	for k, it := range q.Items {
		v, err := e.eval(it.Expr, sc)
		if err != nil {
			return nil, err
		}
		row[k] = v
	}
	return row, nil
}

// read reads the values of the objects rows wait for, in one batch.
func (e *evaluator) read() error {
	if e.path == "-" {
		return errors.New("the query reads field values, and standard input cannot be read twice")
	}
	objs := make([]model.ObjectIndex, 0, len(e.want))
	for i := range e.want {
		objs = append(objs, i)
	}
	slices.Sort(objs)
	got := make([]*model.ObjectValues, len(objs))
	err := model.EachValues(e.h, e.path, objs, func(k int, v *model.ObjectValues) error {
		got[k] = &model.ObjectValues{Fields: slices.Clone(v.Fields), Length: v.Length, Elem: v.Elem, Data: slices.Clone(v.Data)}
		return nil
	})
	if err != nil {
		return err
	}
	for k, i := range objs {
		e.vals[i] = got[k]
	}
	clear(e.want)
	return nil
}

// values are the values of object i: errPending when not read yet, nil
// when its record could not be decoded.
func (e *evaluator) values(i model.ObjectIndex) (*model.ObjectValues, error) {
	if v, ok := e.vals[i]; ok {
		return v, nil
	}
	if e.vals == nil {
		return nil, errors.New("field values are read only for the rows of a FROM clause")
	}
	e.want[i] = true
	return nil, errPending
}

// prepare evaluates the subqueries in q's expressions, once each: they
// cannot refer to the outer query's object.
func (e *evaluator) prepare(q *Query) error {
	var walk func(x Expr) error
	walk = func(x Expr) error {
		switch x := x.(type) {
		case *Field:
			return walk(x.X)
		case *Attr:
			return walk(x.X)
		case *Index:
			if err := walk(x.X); err != nil {
				return err
			}
			return walk(x.I)
		case *Call:
			for _, a := range x.Args {
				if err := walk(a); err != nil {
					return err
				}
			}
		case *Binary:
			if err := walk(x.L); err != nil {
				return err
			}
			return walk(x.R)
		case *Not:
			return walk(x.X)
		case *List:
			for _, a := range x.Items {
				if err := walk(a); err != nil {
					return err
				}
			}
		case *Subquery:
			if _, done := e.subqueries[x]; done {
				return nil
			}
			sub := &evaluator{h: e.h, r: e.r, path: e.path, opt: e.opt, subqueries: e.subqueries, patterns: e.patterns}
			res, err := sub.query(x.Query, 0)
			if err != nil {
				return err
			}
			list := make([]Value, len(res.Rows))
			for k, row := range res.Rows {
				list[k] = row[0]
				if len(row) > 1 {
					list[k] = Value{Kind: KindList, List: row}
				}
			}
			e.subqueries[x] = Value{Kind: KindList, List: list}
		}
		return nil
	}
	if q.Where != nil {
		if err := walk(q.Where); err != nil {
			return err
		}
	}
	for _, it := range q.Items {
		if err := walk(it.Expr); err != nil {
			return err
		}
	}
	return nil
}

// fromObjects lists the objects a FROM clause names, in index order for
// classes, in the order written for ids and as the subquery gives them.
func (e *evaluator) fromObjects(f From) ([]model.ObjectIndex, error) {
	h := e.h
	switch f.Kind {
	case FromQuery:
		res, err := e.query(f.Sub, 0)
		if err != nil {
			return nil, err
		}
		var out []model.ObjectIndex
		for _, row := range res.Rows {
			o, err := objectsOf(row[0])
			if err != nil {
				return nil, fmt.Errorf("FROM (subquery): %w", err)
			}
			out = append(out, o...)
		}
		return out, nil
	case FromIDs:
		var out []model.ObjectIndex
		for _, id := range f.IDs {
			i, ok := h.Lookup(id)
			if !ok {
				return nil, fmt.Errorf("FROM: no object 0x%x in the dump", id)
			}
			if c, ok := h.ClassObjectOf(i); ok && h.Classes[c].Object == i && !f.Objects {
				set := make([]bool, len(h.Classes))
				set[c] = true
				out = append(out, e.instances(e.withSubclasses(set, f.InstanceOf))...)
				continue
			}
			out = append(out, i)
		}
		return out, nil
	}
	set := make([]bool, len(h.Classes))
	found := false
	var re *regexp.Regexp
	if f.Kind == FromPattern {
		var err error
		if re, err = regexp.Compile(`^(?:` + f.Pattern + `)$`); err != nil {
			return nil, fmt.Errorf("FROM %q: %w", f.Pattern, err)
		}
	}
	for c := range h.Classes {
		if re != nil && re.MatchString(h.Classes[c].Name) || re == nil && h.Classes[c].Name == f.Class {
			set[c], found = true, true
		}
	}
	if !found && f.Kind == FromClass {
		return nil, fmt.Errorf("FROM %s: no such class in the dump", f.Class)
	}
	set = e.withSubclasses(set, f.InstanceOf)
	if f.Objects {
		var out []model.ObjectIndex
		for c, in := range set {
			if in && h.Classes[c].Object != model.NoObject && e.opt.Heaps.Has(h.Classes[c].Object) {
				out = append(out, h.Classes[c].Object)
			}
		}
		slices.Sort(out)
		return out, nil
	}
	return e.instances(set), nil
}

// withSubclasses adds to the classes of set their subclasses when
// instanceOf.
func (e *evaluator) withSubclasses(set []bool, instanceOf bool) []bool {
	if !instanceOf {
		return set
	}
	out := make([]bool, len(set))
	for c := range e.h.Classes {
		for s := range e.h.Supers(model.ClassIndex(c)) {
			if set[s] {
				out[c] = true
				break
			}
		}
	}
	return out
}

// instances lists the objects of the classes of set, by index; class
// objects count as instances of java.lang.Class.
func (e *evaluator) instances(set []bool) []model.ObjectIndex {
	h := e.h
	classClass := h.ClassClass()
	classes := classClass != model.NoClass && set[classClass]
	var out []model.ObjectIndex
	for n := range h.NumObjects() {
		i := model.ObjectIndex(n)
		c := h.ClassOf(i)
		if (c != model.NoClass && set[c] || classes && c == model.NoClass && isClassObject(h, i)) && e.opt.Heaps.Has(i) {
			out = append(out, i)
		}
	}
	return out
}

// isClassObject reports whether object i is the class object of a class.
func isClassObject(h *model.Heap, i model.ObjectIndex) bool {
	c, ok := h.ClassObjectOf(i)
	return ok && h.Classes[c].Object == i
}

// scope is what names mean while one row is evaluated.
type scope struct {
	this  Value
	alias string
}

// eval evaluates x for the row of scope sc.
func (e *evaluator) eval(x Expr, sc scope) (Value, error) {
	switch x := x.(type) {
	case *Literal:
		return x.Value, nil
	case *This:
		return sc.this, nil
	case *Name:
		if sc.alias != "" && x.Name == sc.alias {
			return sc.this, nil
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
		return e.index(v, k)
	case *Call:
		v, err := e.eval(x.Args[0], sc)
		if err != nil {
			return v, err
		}
		return e.call(x.Name, v)
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
		return e.subqueries[x], nil
	case *Binary:
		return e.binary(x, sc)
	}
	return Null(), fmt.Errorf("unknown expression %T", x)
}

// truth is a WHERE condition's value: null is false.
func truth(v Value) (bool, error) {
	switch v.Kind {
	case KindBool:
		return v.Bool, nil
	case KindNull:
		return false, nil
	}
	return false, fmt.Errorf("expected a condition (true or false), found %s %s", kindName(v.Kind), v.Text())
}

func kindName(k Kind) string {
	return [...]string{"null", "a number", "a number", "a boolean", "a string", "an object", "a list"}[k]
}

func (e *evaluator) binary(x *Binary, sc scope) (Value, error) {
	l, err := e.eval(x.L, sc)
	if err != nil {
		return l, err
	}
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
	switch x.Op {
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
		re, ok := e.patterns[r.Str]
		if !ok {
			if re, err = regexp.Compile(`^(?:` + r.Str + `)$`); err != nil {
				return Null(), fmt.Errorf("LIKE %q: %w", r.Str, err)
			}
			e.patterns[r.Str] = re
		}
		return Bool(l.Kind == KindString && re.MatchString(l.Str)), nil
	case "IN":
		if r.Kind != KindList {
			return Bool(equal(l, r)), nil
		}
		for _, v := range r.List {
			if equal(l, v) {
				return Bool(true), nil
			}
		}
		return Bool(false), nil
	}
	return arithmetic(x.Op, l, r)
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

func compareNumbers[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

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
		switch op {
		case "+":
			return Int(a + b), nil
		case "-":
			return Int(a - b), nil
		case "*":
			return Int(a * b), nil
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

// field is the value of field name of object v; null for null, for an
// object without that field and for one whose record could not be read.
func (e *evaluator) field(v Value, name string) (Value, error) {
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
		return Null(), nil
	}
	return e.fieldValue(f), nil
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

// index is element k of a list or an array.
func (e *evaluator) index(v, k Value) (Value, error) {
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

// buildChildren lists, for each object, the objects it immediately
// dominates, by index.
func (e *evaluator) buildChildren() {
	if e.childStart != nil {
		return
	}
	n := e.h.NumObjects()
	parent := func(i int) (model.ObjectIndex, bool) {
		o := model.ObjectIndex(i)
		if !e.r.Reachable(o) {
			return 0, false
		}
		d := e.r.ImmediateDominator(o)
		return d, d != model.NoObject
	}
	e.childStart = make([]uint32, n+1)
	for i := range n {
		if d, ok := parent(i); ok {
			e.childStart[d+1]++
		}
	}
	for i := range n {
		e.childStart[i+1] += e.childStart[i]
	}
	e.children = make([]uint32, e.childStart[n])
	fill := slices.Clone(e.childStart[:n])
	for i := range n {
		if d, ok := parent(i); ok {
			e.children[fill[d]] = uint32(i)
			fill[d]++
		}
	}
}

// buildReferrers lists, for each object, the objects that reference it,
// by index.
func (e *evaluator) buildReferrers() {
	if e.referStart != nil {
		return
	}
	h := e.h
	n := h.NumObjects()
	e.referStart = make([]uint32, n+1)
	for i := range n {
		for _, r := range h.Refs(model.ObjectIndex(i)) {
			e.referStart[r+1]++
		}
	}
	for i := range n {
		e.referStart[i+1] += e.referStart[i]
	}
	e.referrers = make([]uint32, e.referStart[n])
	fill := slices.Clone(e.referStart[:n])
	for i := range n {
		for _, r := range h.Refs(model.ObjectIndex(i)) {
			e.referrers[fill[r]] = uint32(i)
			fill[r]++
		}
	}
}

// retainedSet is what the objects retain one by one: every object each
// of them dominates, itself included, by index.
func (e *evaluator) retainedSet(objs []model.ObjectIndex) []model.ObjectIndex {
	e.buildChildren()
	in := make([]bool, e.h.NumObjects())
	var out []model.ObjectIndex
	stack := slices.Clone(objs)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if in[i] || !e.r.Reachable(i) {
			continue
		}
		in[i] = true
		out = append(out, i)
		for _, c := range e.children[e.childStart[i]:e.childStart[i+1]] {
			stack = append(stack, model.ObjectIndex(c))
		}
	}
	slices.Sort(out)
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
			return e.stringText(name.Obj)
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
