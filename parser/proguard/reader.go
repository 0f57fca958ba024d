// Package proguard reads the mapping files ProGuard and R8 write
// (-printmapping, mapping.txt): how an obfuscated build renamed its
// classes, fields and methods (docs/proguard.md#lines).
//
// A mapping file is a list of classes, each followed by its members:
//
//	com.example.Cache -> a.b:
//	    java.util.Map entries -> a
//	    1:4:void put(java.lang.String,java.lang.Object):31:34 -> b
//
// Lines starting with # are comments (R8 puts JSON metadata in them, at
// any indentation); blank lines are ignored. Usage follows bufio.Scanner:
//
//	r := proguard.NewReader(src, proguard.Options{Name: path})
//	for r.Next() {
//		e := r.Entry()
//		...
//	}
//	err := r.Err()
//
// or Read builds the compact Mapping that the lookups need.
package proguard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FormatError reports a line that is no mapping line: the file, the line
// and what was expected there.
type FormatError struct {
	File string
	Line int64
	Msg  string
	Err  error // the source's read error, or nil
}

// Error says where in which file what was wrong.
func (e *FormatError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: line %d: %s", e.File, e.Line, e.Msg)
}

// Unwrap returns the error reading the source failed with, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// Options configure a Reader.
type Options struct {
	// Name is the file name used in errors.
	Name string
	// MaxLine bounds the length of a line (default 64 KiB); a longer
	// line is an error rather than an unbounded allocation.
	MaxLine int
}

// Kind says what an Entry maps.
type Kind uint8

// The kinds of entries.
const (
	// Class is a class line: "original -> obfuscated:".
	Class Kind = iota + 1
	// Field is a field line: "type original -> obfuscated".
	Field
	// Method is a method line:
	// "[start:end:]type original(arguments)[:origStart[:origEnd]] -> obfuscated".
	Method
)

// String names the kind: "class", "field" or "method".
func (k Kind) String() string {
	switch k {
	case Class:
		return "class"
	case Field:
		return "field"
	case Method:
		return "method"
	}
	return "invalid"
}

// Entry is one class, field or method line of a mapping file.
type Entry struct {
	Kind Kind
	// Line is the entry's 1-based line in the file.
	Line int64
	// Original and Obfuscated are the names before and after
	// obfuscation: Java class names ("com.example.Outer$Inner") for a
	// class; a field's or method's simple name otherwise, except that a
	// method moved or inlined from another class names it in full
	// ("com.example.Util.check").
	Original, Obfuscated string
	// Type is the original type of a field, the return type of a method
	// ("int", "java.lang.String[]"); empty for a class.
	Type string
	// Arguments are a method's original parameter types, as written
	// between its parentheses (comma-separated, no spaces).
	Arguments string
	// Start and End are the range of line numbers a method's code has in
	// the obfuscated build, -1 when the line gives none; OriginalStart
	// and OriginalEnd the range in the original source it maps to, -1
	// when the line gives none (then the lines are unchanged; R8 writes
	// 0:0 for code that has no source line).
	Start, End                 int
	OriginalStart, OriginalEnd int
	// Class is the obfuscated name of the class a field or method
	// belongs to (the last class line before it); for a class, its own
	// obfuscated name.
	Class string
}

const defaultMaxLine = 64 << 10

// Reader reads the entries of a mapping file one at a time.
type Reader struct {
	name    string
	src     *bufio.Reader
	maxLine int
	line    int64
	class   string // obfuscated name of the current class, "" before the first
	entry   Entry
	err     error
}

// NewReader returns a Reader of the mapping in src.
func NewReader(src io.Reader, opt Options) *Reader {
	maxLine := opt.MaxLine
	if maxLine <= 0 {
		maxLine = defaultMaxLine
	}
	return &Reader{name: opt.Name, src: bufio.NewReaderSize(src, 64<<10), maxLine: maxLine}
}

// Next reads the next class, field or method entry, skipping comments
// and blank lines; it returns false at the end of the input or on an
// error, which Err then returns.
func (r *Reader) Next() bool {
	for r.err == nil {
		text, ok := r.readLine()
		if !ok {
			return false
		}
		body := bytes.TrimLeft(text, " \t")
		if len(body) == 0 || body[0] == '#' {
			continue
		}
		if len(body) == len(text) {
			r.parseClass(text)
		} else {
			r.parseMember(body)
		}
		return r.err == nil
	}
	return false
}

// Entry returns the entry Next read; it is overwritten by the next call.
func (r *Reader) Entry() *Entry { return &r.entry }

// Err returns the error that stopped the Reader, nil at the end of a good
// input.
func (r *Reader) Err() error { return r.err }

// Line returns the number of lines read so far.
func (r *Reader) Line() int64 { return r.line }

// readLine returns the next line without its line end; false at the end
// of the input or on an error.
func (r *Reader) readLine() ([]byte, bool) {
	var long []byte
	for {
		chunk, err := r.src.ReadSlice('\n')
		if len(long)+len(chunk) > r.maxLine+2 {
			r.line++
			r.err = r.errorf("line is longer than %d bytes", r.maxLine)
			return nil, false
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			long = append(long, chunk...)
			continue
		case err != nil && err != io.EOF:
			r.line++
			r.err = &FormatError{File: r.name, Line: r.line, Msg: "reading the mapping: " + err.Error(), Err: err}
			return nil, false
		case err == io.EOF && len(long)+len(chunk) == 0:
			return nil, false
		}
		if long != nil {
			chunk = append(long, chunk...)
		}
		r.line++
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		chunk = bytes.TrimSuffix(chunk, []byte("\r"))
		return chunk, true
	}
}

func (r *Reader) errorf(format string, args ...any) error {
	return &FormatError{File: r.name, Line: r.line, Msg: fmt.Sprintf(format, args...)}
}

// arrow separates the original side of a line from the obfuscated one.
const arrow = " -> "

// parseClass reads a class line: "original -> obfuscated:".
func (r *Reader) parseClass(text []byte) {
	const want = `expected a class line "ORIGINAL -> OBFUSCATED:"`
	line := strings.TrimRight(string(text), " \t")
	orig, obf, ok := strings.Cut(line, arrow)
	if !ok || !strings.HasSuffix(obf, ":") {
		r.err = r.errorf("%s, found %q", want, clip(line))
		return
	}
	obf = strings.TrimSpace(obf[:len(obf)-1])
	orig = strings.TrimSpace(orig)
	if !isName(orig) || !isName(obf) {
		r.err = r.errorf("%s, found %q (a class name is empty or has spaces)", want, clip(line))
		return
	}
	r.class = obf
	r.entry = Entry{Kind: Class, Line: r.line, Original: orig, Obfuscated: obf, Class: obf}
}

// parseMember reads an indented field or method line.
func (r *Reader) parseMember(body []byte) {
	line := strings.TrimRight(string(body), " \t")
	if r.class == "" {
		r.err = r.errorf("member line %q before any class line", clip(line))
		return
	}
	left, obf, ok := strings.Cut(line, arrow)
	obf = strings.TrimSpace(obf)
	if !ok || !isName(obf) {
		r.err = r.errorf(`expected a member line "TYPE NAME -> OBFUSCATED" or a method line, found %q`, clip(line))
		return
	}
	if strings.Contains(left, "(") {
		r.parseMethod(left, obf, line)
		return
	}
	typ, name, ok := strings.Cut(strings.TrimSpace(left), " ")
	if !ok || !isName(typ) || !isName(name) {
		r.err = r.errorf(`expected a field line "TYPE NAME -> OBFUSCATED", found %q`, clip(line))
		return
	}
	r.entry = Entry{Kind: Field, Line: r.line, Original: name, Obfuscated: obf, Type: typ, Class: r.class}
}

// parseMethod reads the original side of a method line:
// "[start:[end:]]type name(arguments)[:origStart[:origEnd]]".
func (r *Reader) parseMethod(left, obf, line string) {
	const want = `expected a method line "[START:END:]TYPE NAME(ARGUMENTS)[:LINE[:LINE]] -> OBFUSCATED"`
	head, rest, ok := strings.Cut(strings.TrimSpace(left), " ")
	open := strings.IndexByte(rest, '(')
	closing := strings.LastIndexByte(rest, ')')
	if !ok || open <= 0 || closing < open {
		r.err = r.errorf("%s, found %q", want, clip(line))
		return
	}
	e := Entry{Kind: Method, Line: r.line, Original: rest[:open], Obfuscated: obf, Arguments: rest[open+1 : closing], Class: r.class}
	if !isName(e.Original) || strings.ContainsAny(e.Arguments, " ()") {
		r.err = r.errorf("%s, found %q", want, clip(line))
		return
	}
	// The obfuscated range prefixes the return type: "1:4:void".
	parts := strings.Split(head, ":")
	e.Type = parts[len(parts)-1]
	nums, ok := lineNumbers(parts[:len(parts)-1])
	if !ok || len(nums) > 2 || !isName(e.Type) {
		r.err = r.errorf("%s, found %q (bad line range or return type)", want, clip(line))
		return
	}
	e.Start, e.End = rangeOf(nums)
	// The original range follows the parentheses: ":31" or ":31:34".
	var orig []int
	if suffix := rest[closing+1:]; suffix != "" {
		parts := strings.Split(suffix, ":")
		orig, ok = lineNumbers(parts[1:])
		if parts[0] != "" || !ok || len(orig) == 0 || len(orig) > 2 {
			r.err = r.errorf("%s, found %q (bad original line range)", want, clip(line))
			return
		}
	}
	e.OriginalStart, e.OriginalEnd = rangeOf(orig)
	r.entry = e
}

// lineNumbers parses line numbers; false when one is no number.
func lineNumbers(parts []string) ([]int, bool) {
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 31)
		if err != nil {
			return nil, false
		}
		nums[i] = int(n)
	}
	return nums, true
}

// rangeOf turns one or two line numbers into a range: one number is a
// range of one line, none is -1, -1.
func rangeOf(nums []int) (start, end int) {
	switch len(nums) {
	case 1:
		return nums[0], nums[0]
	case 2:
		return nums[0], nums[1]
	}
	return -1, -1
}

// isName reports whether s can be a name or type of a mapping line:
// not empty, no spaces.
func isName(s string) bool { return s != "" && !strings.ContainsAny(s, " \t") }

// clip shortens a line quoted in an error.
func clip(s string) string {
	const most = 120
	if len(s) <= most {
		return s
	}
	return s[:most] + "..."
}
