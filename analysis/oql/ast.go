package oql

import "strings"

// SelectMode is what a SELECT makes of its items.
type SelectMode int

// The select modes.
const (
	// SelectColumns gives one row per object, one column per item.
	SelectColumns SelectMode = iota
	// SelectObjects (SELECT OBJECTS) flattens the items' objects into a
	// list of objects, one per row.
	SelectObjects
	// SelectRetainedSet (SELECT AS RETAINED SET) gives the objects the
	// selected objects retain.
	SelectRetainedSet
)

// Query is one parsed SELECT with the queries UNION adds to it.
type Query struct {
	Distinct bool
	Mode     SelectMode
	// Star is SELECT *: the objects themselves.
	Star  bool
	Items []SelectItem
	From  From
	// Where is nil without a WHERE clause.
	Where Expr
	Union []*Query
}

// SelectItem is one column of a SELECT: its expression and its name (the
// AS name, else the expression as written).
type SelectItem struct {
	Expr Expr
	Name string
}

// FromKind says where a FROM clause takes its objects.
type FromKind int

// The kinds of FROM clauses.
const (
	// FromClass: the instances of the class named Class.
	FromClass FromKind = iota
	// FromPattern: the instances of the classes whose name the regular
	// expression Pattern matches as a whole.
	FromPattern
	// FromIDs: the objects of IDs (with Objects), or the instances of the
	// classes whose class objects they are.
	FromIDs
	// FromQuery: the objects the subquery Sub gives.
	FromQuery
	// FromExpr: the values of the parenthesised expression Expr, each
	// element of a list; numbers and strings as they are.
	FromExpr
)

// ObjectRef is an object named in a FROM clause: by its address (written
// 0x…) or by its object id, the index @objectId gives (written in
// decimal).
type ObjectRef struct {
	N       uint64
	Address bool
}

// From is a FROM clause.
type From struct {
	Kind FromKind
	// InstanceOf takes the instances of subclasses too.
	InstanceOf bool
	// Objects takes the class objects themselves rather than their
	// instances.
	Objects bool
	Class   string
	Pattern string
	IDs     []ObjectRef
	Sub     *Query
	Expr    Expr
	// Alias names the current object in the expressions; "" when none.
	Alias string
}

// Expr is an expression of the language.
type Expr interface{ expr() }

// Literal is a number, string, boolean or null written in the query.
type Literal struct{ Value Value }

// This is the current object of the FROM clause (what a bare @attribute
// applies to).
type This struct{}

// Name is a bare identifier: the FROM alias, or a field of the current
// object.
type Name struct{ Name string }

// Field is X.Name: a field of the object X.
type Field struct {
	X    Expr
	Name string
}

// Attr is X.@Name: a built-in attribute of X.
type Attr struct {
	X    Expr
	Name string
}

// Index is X[I]: an element of an array, a list or a collection; with
// Range, X[I:Hi] is the list of elements I to Hi, both included, a
// negative bound counting from the end (-1 the last).
type Index struct {
	X, I, Hi Expr
	Range    bool
}

// Method is X.Name(Args): one of the fixed pure functions of values
// that methods.go lists (length(), size(), get(i), getKey() …).
type Method struct {
	X    Expr
	Name string
	Args []Expr
}

// Call is a built-in function applied to its arguments.
type Call struct {
	Name string
	Args []Expr
}

// Binary is L Op R: OR, AND, a comparison, LIKE, IN or arithmetic.
type Binary struct {
	Op   string
	L, R Expr
}

// Not negates X.
type Not struct{ X Expr }

// List is a parenthesised list of expressions, (a, b, c), for IN.
type List struct{ Items []Expr }

// Subquery is a query inside an expression; its value is the list of
// what it selects.
type Subquery struct{ Query *Query }

func (*Literal) expr()  {}
func (*This) expr()     {}
func (*Name) expr()     {}
func (*Field) expr()    {}
func (*Attr) expr()     {}
func (*Index) expr()    {}
func (*Call) expr()     {}
func (*Method) expr()   {}
func (*Binary) expr()   {}
func (*Not) expr()      {}
func (*List) expr()     {}
func (*Subquery) expr() {}

// functions are the built-in functions, each taking one argument.
var functions = []string{"toString", "toHex", "classof", "dominators", "dominatorof", "outbounds", "inbounds", "sizeof", "eval"}

func knownFunction(name string) bool {
	for _, f := range functions {
		if strings.EqualFold(f, name) {
			return true
		}
	}
	return false
}

func functionList() string { return strings.Join(functions, ", ") }
