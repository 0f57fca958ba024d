// Package threaddump reads Java thread dumps into thread.Dump values (model/thread):
//
//   - HotSpot text dumps: jstack [-l], jcmd Thread.print [-l], and the dump
//     a JVM prints on SIGQUIT (kill -3), also inside an application log
//     with other lines around it; a file may hold several;
//   - JDK 21+ jcmd Thread.dump_to_file dumps, JSON and plain text.
//
// The format is detected from the bytes. Usage follows bufio.Scanner:
//
//	r := threaddump.NewReader(src, threaddump.Options{Name: path})
//	for r.Next() {
//		d := r.Dump()
//		...
//	}
//	err := r.Err() // errors.Is(err, threaddump.ErrTruncated) for a cut-short dump
//
// A dump cut short still yields the threads read before the cut, with
// thread.Dump.Truncated set. The deadlock verdict HotSpot appends to its
// dumps is skipped: deadlocks are for the analysis to find.
package threaddump

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/input"
)

// ErrTruncated is wrapped by the error a Reader returns when its input
// ended inside a dump: the dumps and threads before the cut were good.
var ErrTruncated = errors.New("thread dump is truncated")

// FormatError reports input that is not a thread dump, or is malformed:
// the file, where (a line for text input, a byte offset for JSON), and
// what was wrong.
type FormatError struct {
	File   string
	Line   int64 // 1-based line of text input; 0 when Offset applies
	Offset int64 // byte offset in JSON input
	Msg    string
	Err    error // ErrTruncated, the source's read error, or nil
}

func (e *FormatError) Error() string {
	where := fmt.Sprintf("offset %d", e.Offset)
	if e.Line > 0 {
		where = fmt.Sprintf("line %d", e.Line)
	}
	if e.File == "" {
		return where + ": " + e.Msg
	}
	return e.File + ": " + where + ": " + e.Msg
}

// Unwrap returns ErrTruncated for a cut-short dump, or the error reading
// the source failed with.
func (e *FormatError) Unwrap() error { return e.Err }

// Options configure a Reader.
type Options struct {
	// Name is the file name used in errors.
	Name string
}

// Reader reads the thread dumps of one input, one at a time.
type Reader struct {
	name string
	src  *bufio.Reader

	detected bool
	hprof    bool // the input starts as an HPROF heap dump does
	text     *textParser
	json     *jsonParser

	dump  *thread.Dump
	dumps int
	err   error
}

// NewReader returns a Reader of the dumps in src.
func NewReader(src io.Reader, opt Options) *Reader {
	return &Reader{name: opt.Name, src: bufio.NewReaderSize(src, 64<<10)}
}

// Next reads the next dump; it returns false at the end of the input or
// on an error, which Err then returns.
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	if !r.detected {
		r.detect()
		if r.err != nil {
			return false
		}
	}
	var d *thread.Dump
	var err error
	if r.json != nil {
		d, err = r.json.next()
	} else {
		d, err = r.text.next()
	}
	if d != nil {
		r.dump = d
		r.dumps++
		if err != nil {
			r.err = err
		}
		return true
	}
	switch {
	case err != nil:
		r.err = err
	case r.dumps == 0:
		r.err = r.noDumpError()
	default:
		r.err = io.EOF
	}
	return false
}

// Dump returns the dump the last call to Next read.
func (r *Reader) Dump() *thread.Dump { return r.dump }

// Err returns the error that stopped Next, nil at a clean end of input.
func (r *Reader) Err() error {
	if r.err == io.EOF {
		return nil
	}
	return r.err
}

// detect looks at the first bytes (input.Detect): JSON when the first
// thing is an object (after jcmd's "PID:" line, if any), text otherwise.
func (r *Reader) detect() {
	r.detected = true
	head, err := r.src.Peek(input.HeadSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		r.err = &FormatError{File: r.name, Line: 1, Msg: "reading: " + err.Error(), Err: err}
		return
	}
	switch input.Detect(head) {
	case input.KindHPROF, input.KindHPROFASCII:
		r.hprof = true
	case input.KindThreadDumpJSON:
		skipped := input.JSONStart(head)
		if _, err := r.src.Discard(skipped); err != nil {
			r.err = &FormatError{File: r.name, Msg: "reading: " + err.Error(), Err: err}
			return
		}
		r.json = newJSONParser(r.src, r.name, int64(skipped))
		return
	}
	r.text = newTextParser(r.src, r.name)
}

// noDumpError explains an input in which no dump was found.
func (r *Reader) noDumpError() error {
	e := &FormatError{File: r.name, Msg: "no thread dump found: expected jstack or jcmd Thread.print output, a SIGQUIT dump in a log, or a jcmd Thread.dump_to_file file"}
	if r.text != nil {
		e.Line = r.text.line
	}
	if r.hprof {
		e.Line, e.Msg = 0, "this is an HPROF heap dump, not a thread dump"
	}
	return e
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
