// Package hprofascii streams the ASCII output of the classic hprof agent
// (format=a, java.hprof.txt) of both generations, JVMPI (JDK 1.2–1.4)
// and JVMTI (JDK 5–8), record by record in bounded memory: threads,
// traces, the SITES, CPU SAMPLES, CPU TIME, old prof and MONITOR TIME
// tables row by row, monitor events, MONITOR DUMP entries and the HEAP
// DUMP object by object (docs/hprof-ascii.md).
//
// Usage follows bufio.Scanner:
//
//	r, err := hprofascii.NewReader(src, hprofascii.Options{Name: path})
//	for r.Next() {
//		rec := r.Record()
//		...
//	}
//	err = r.Err() // errors.Is(err, hprofascii.ErrTruncated) for a cut-short file
//
// Files written by a JVM that was killed, several dumps of a section
// (one per Ctrl-\), CRLF line ends and garbled stretches are all read: a
// line that cannot be read is reported as a Warning with its line number
// and skipped, with the lines that continue it, up to the next line that
// can be read; the sections around it are read as usual.
package hprofascii

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrTruncated is wrapped by the error a Reader returns when the file
// ends inside a section or inside a line: the records before were good.
var ErrTruncated = errors.New("file is truncated")

// FormatError reports input that cannot be read: the file, the line and
// what was wrong there.
type FormatError struct {
	File string
	Line int64
	Msg  string
	Err  error // ErrTruncated or nil
}

// Error says where in which file what was wrong.
func (e *FormatError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: line %d: %s", e.File, e.Line, e.Msg)
}

// Unwrap returns ErrTruncated for a cut-short file.
func (e *FormatError) Unwrap() error { return e.Err }

// Warning is something the Reader skipped or found odd, with its line.
type Warning struct {
	Line int64
	Msg  string
}

// Options configure a Reader.
type Options struct {
	// Name is the file name used in errors.
	Name string
	// MaxLine bounds the length of a line (default 1 MiB); a longer line
	// is skipped with a warning, never buffered whole.
	MaxLine int
}

const (
	defaultMaxLine = 1 << 20
	initialBuffer  = 64 << 10
	largeBuffer    = 1 << 20
	maxWarnings    = 100
	// batchLines and batchBytes bound the field or element lines one
	// KindObject/KindArray record carries; more follow in
	// KindObjectFields/KindArrayElements records.
	batchLines = 4096
	batchBytes = 1 << 20
	// recordLines and recordBytes bound the continuation lines kept for
	// other records (trace frames, class statics, monitor lists).
	recordLines = 1 << 16
	recordBytes = 8 << 20
	// preludeLines bounds the prelude before the reader gives up looking
	// for the line that ends it.
	preludeLines = 4096
	// maxEmptyReads is how many reads returning nothing the source gets
	// before it counts as stuck.
	maxEmptyReads = 100
)

// lineStatus is what readLine found.
type lineStatus uint8

const (
	lineOK lineStatus = iota
	lineTooLong
	lineEOF
)

// Reader streams the records of one hprof ASCII file.
type Reader struct {
	src     io.Reader
	name    string
	maxLine int

	buf      []byte
	pos, end int
	read     int64 // bytes read from src
	srcErr   error

	line     int64 // number of the last line read
	held     bool  // the last line read is handed out again by readLine
	heldLine []byte
	cut      bool // the input ended inside a line

	hdr  Header
	rec  Record
	err  error
	done bool

	head     []byte  // the current record's first line
	text     []byte  // its continuation lines, leading TAB removed
	ends     []int   // end of each continuation line in text
	lineNums []int64 // line number of each continuation line

	section     Kind  // Begin kind of the open section, 0 when none
	sectionLine int64 // line of its Begin record
	cpuTimes    bool  // the open CPU section is CPU TIME
	dumps       [KindHeapDumpEnd + 1]int
	more        Kind // KindObjectFields or KindArrayElements while a record continues

	skipping     bool // inside a garbled stretch, already reported
	warnings     []Warning
	warningCount int
	records      int64 // records handed out
}

// NewReader reads the header and the prelude from src and returns a
// Reader positioned before the first record.
func NewReader(src io.Reader, opt Options) (*Reader, error) {
	r := &Reader{src: src, name: opt.Name, maxLine: opt.MaxLine, buf: make([]byte, initialBuffer)}
	if r.maxLine <= 0 {
		r.maxLine = defaultMaxLine
	}
	if err := r.readHeader(); err != nil {
		return nil, err
	}
	return r, nil
}

// Header returns what the first lines say about the file.
func (r *Reader) Header() Header { return r.hdr }

// Record returns the current record; it is overwritten by Next.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the error that stopped Next, nil at a clean end of file.
func (r *Reader) Err() error { return r.err }

// Line returns the number of the last line read.
func (r *Reader) Line() int64 { return r.line }

// Bytes returns the number of bytes of the lines read so far.
func (r *Reader) Bytes() int64 { return r.read - int64(r.end-r.pos) }

// Warnings returns the first warnings met so far; WarningCount counts all.
func (r *Reader) Warnings() []Warning { return r.warnings }

// WarningCount is the number of warnings met so far.
func (r *Reader) WarningCount() int { return r.warningCount }

func (r *Reader) warn(line int64, format string, args ...any) {
	r.warningCount++
	if len(r.warnings) < maxWarnings {
		r.warnings = append(r.warnings, Warning{Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

// garbled reports an unreadable line, once per stretch of them.
func (r *Reader) garbled(line int64, format string, args ...any) {
	if !r.skipping {
		r.warn(line, format+"; skipped up to the next readable line", args...)
		r.skipping = true
	}
}

func (r *Reader) errorf(line int64, wrapped error, format string, args ...any) error {
	return &FormatError{File: r.name, Line: line, Msg: fmt.Sprintf(format, args...), Err: wrapped}
}

// fill reads more input after compacting the buffer; it grows the buffer
// when a line does not fit and, once the input proves large, for
// throughput.
func (r *Reader) fill() {
	if r.pos > 0 {
		r.end = copy(r.buf, r.buf[r.pos:r.end])
		r.pos = 0
	}
	limit := max(r.maxLine+1, largeBuffer)
	if (r.end == len(r.buf) || r.read >= 8*int64(len(r.buf))) && len(r.buf) < limit {
		nb := make([]byte, min(2*len(r.buf), limit))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for range maxEmptyReads {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		r.read += int64(n)
		if err != nil {
			r.srcErr = err
		}
		if n > 0 || err != nil {
			return
		}
	}
	r.srcErr = io.ErrNoProgress
}

// readLine returns the next line without its line end and trailing
// blanks; the slice is valid until the next call. A line longer than
// MaxLine is consumed and reported as lineTooLong; a last line without a
// line end is dropped and, unless it is blank, sets cut.
func (r *Reader) readLine() ([]byte, lineStatus) {
	if r.held {
		r.held = false
		return r.heldLine, lineOK
	}
	searched := 0
	for {
		if i := bytes.IndexByte(r.buf[r.pos+searched:r.end], '\n'); i >= 0 {
			line := r.buf[r.pos : r.pos+searched+i]
			r.pos += searched + i + 1
			r.line++
			if len(line) > r.maxLine {
				return nil, lineTooLong
			}
			return trimEnd(line), lineOK
		}
		searched = r.end - r.pos
		if searched > r.maxLine {
			r.line++
			r.discardLine()
			return nil, lineTooLong
		}
		if r.srcErr != nil {
			if r.end > r.pos {
				r.line++
				r.cut = len(trimEnd(r.buf[r.pos:r.end])) > 0
				r.pos = r.end
			}
			return nil, lineEOF
		}
		r.fill()
	}
}

// discardLine drops input up to and including the next line end.
func (r *Reader) discardLine() {
	for {
		if i := bytes.IndexByte(r.buf[r.pos:r.end], '\n'); i >= 0 {
			r.pos += i + 1
			return
		}
		r.pos = r.end
		if r.srcErr != nil {
			r.cut = true
			return
		}
		r.fill()
	}
}

// hold makes the next readLine return the line just read again.
func (r *Reader) hold(line []byte) {
	r.held = true
	r.heldLine = line
}

func trimEnd(b []byte) []byte {
	n := len(b)
	for n > 0 && (b[n-1] == '\r' || b[n-1] == ' ' || b[n-1] == '\t') {
		n--
	}
	return b[:n]
}

// readHeader reads the first line and skips the prelude up to the
// "--------" line that ends it.
func (r *Reader) readHeader() error {
	for r.end-r.pos < 32 && r.srcErr == nil {
		r.fill()
	}
	if start := r.buf[r.pos:r.end]; bytes.HasPrefix(start, []byte("JAVA PROFILE 1.0")) {
		if nul := bytes.IndexByte(start, 0); nul >= 0 && nul < 32 && !bytes.Contains(start[:nul], []byte(", created")) {
			return r.errorf(1, nil, "this is the binary HPROF format, not the hprof agent's ASCII format")
		}
	}
	line, st := r.readLine()
	switch st {
	case lineEOF:
		if r.line == 0 {
			return r.errorf(1, ErrTruncated, "the file is empty")
		}
		return r.errorf(1, ErrTruncated, "the file ends inside its first line")
	case lineTooLong:
		return r.errorf(1, nil, "no line end in the first %d bytes: not an hprof ASCII file", r.maxLine)
	}
	if oldProfHeader(line) || startsBody(line) {
		r.hdr.OldProf = oldProfHeader(line)
		if !r.hdr.OldProf {
			r.warn(1, "no JAVA PROFILE line starts the file: its beginning is missing")
		}
		r.hdr.BodyLine = 1
		r.hold(line)
		return nil
	}
	s := newScanner(line)
	s.lit("JAVA PROFILE ")
	version := s.upTo(", created ")
	if !s.ok || len(version) == 0 || len(version) > 16 {
		return r.errorf(1, nil, "expected \"JAVA PROFILE 1.0.1, created <date>\" or an old prof table, found %s: not an hprof ASCII file", quote(line))
	}
	r.hdr.Version = string(version)
	r.hdr.Created = parseCtime(s.b)
	for range preludeLines {
		line, st := r.readLine()
		switch st {
		case lineEOF:
			return r.errorf(r.line, ErrTruncated, "the file ends inside the prelude, before the -------- line that ends it")
		case lineTooLong:
			continue
		}
		switch {
		case string(line) == "--------":
			r.hdr.BodyLine = r.line + 1
			return nil
		case bytes.Contains(line, []byte("JVMTI based")):
			r.hdr.Generation = GenerationJVMTI
		case bytes.Contains(line, []byte("Header for -Xhprof ASCII Output")):
			r.hdr.Generation = GenerationJVMPI
		case startsBody(line):
			r.warn(r.line, "no -------- line ends the prelude: the body starts here")
			r.hdr.BodyLine = r.line
			r.hold(line)
			return nil
		}
	}
	return r.errorf(r.line, nil, "no -------- line ends the prelude within %d lines", preludeLines)
}

// startsBody reports whether a line of the prelude is unmistakably a
// body line (the prelude's own mentions of records are not).
func startsBody(line []byte) bool {
	for _, p := range []string{"THREAD START (obj=", "THREAD END (id = ", "SITES BEGIN (", "CPU SAMPLES BEGIN (",
		"CPU TIME (ms) BEGIN (", "MONITOR TIME BEGIN (", "HEAP DUMP BEGIN (", "MONITOR DUMP BEGIN"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return bytes.HasPrefix(line, []byte("TRACE ")) && len(line) > 6 && line[6] >= '0' && line[6] <= '9'
}

func oldProfHeader(line []byte) bool { return string(line) == "count callee caller time" }

// Next advances to the next record. It returns false at the end of the
// file or on an error (see Err).
func (r *Reader) Next() bool {
	if r.next() {
		r.records++
		return true
	}
	return false
}

func (r *Reader) next() bool {
	if r.err != nil || r.done {
		return false
	}
	if r.more != 0 && r.nextBatch() {
		return true
	}
	for {
		line, st := r.readLine()
		switch st {
		case lineEOF:
			r.finish()
			return false
		case lineTooLong:
			r.garbled(r.line, "line longer than %d bytes", r.maxLine)
			continue
		}
		if len(line) == 0 {
			continue
		}
		if line[0] == '\t' {
			r.garbled(r.line, "continuation line %s follows no record it could belong to", quote(line))
			continue
		}
		r.rec.Line, r.rec.Dump = r.line, 0
		r.head = append(r.head[:0], line...)
		if r.topLine(r.head) {
			return true
		}
	}
}

// finish ends the stream: cleanly, or with the error a cut-short file
// gets, or, when no record could be read after the header, with an error
// saying so.
func (r *Reader) finish() {
	r.done = true
	if r.srcErr != nil && r.srcErr != io.EOF && !errors.Is(r.srcErr, io.ErrUnexpectedEOF) {
		r.err = r.errorf(r.line, nil, "reading: %v", r.srcErr)
		return
	}
	if r.records == 0 {
		r.err = r.noRecord()
		return
	}
	open := ""
	if r.section != 0 && r.section != KindOldProfBegin {
		open = fmt.Sprintf("the %s section begun at line %d", r.sectionName(), r.sectionLine)
	}
	switch {
	case r.cut && open != "":
		r.err = r.errorf(r.line, ErrTruncated, "the file ends inside this line (no line end), inside %s", open)
	case r.cut:
		r.err = r.errorf(r.line, ErrTruncated, "the file ends inside this line (no line end)")
	case open != "":
		r.err = r.errorf(r.line, ErrTruncated, "the file ends inside %s, before its END line", open)
	}
}

// noRecord is the error of a file in which no record follows the header:
// it names the first line that could not be read, if any.
func (r *Reader) noRecord() error {
	switch {
	case len(r.warnings) > 0:
		w := r.warnings[0]
		return r.errorf(w.Line, nil, "no record could be read after the header: %s (%d lines in all)", w.Msg, r.line)
	case r.cut:
		return r.errorf(r.line, nil, "no record after the header: the file ends inside this line (no line end)")
	}
	return r.errorf(r.line, nil, "no record after the header: the file ends here")
}

// sectionName names the open section as its BEGIN line does.
func (r *Reader) sectionName() string {
	switch r.section {
	case KindSitesBegin:
		return "SITES"
	case KindCPUBegin:
		if r.cpuTimes {
			return "CPU TIME (ms)"
		}
		return "CPU SAMPLES"
	case KindOldProfBegin:
		return "old prof"
	case KindMonitorTimeBegin:
		return "MONITOR TIME"
	case KindMonitorDumpBegin:
		return "MONITOR DUMP"
	case KindHeapDumpBegin:
		return "HEAP DUMP"
	}
	return ""
}

// gather reads the continuation lines (leading TAB) after the current
// line into text, up to maxLines lines or maxBytes bytes; more reports
// whether further continuation lines follow.
func (r *Reader) gather(maxLines, maxBytes int) (more bool) {
	r.text, r.ends, r.lineNums = r.text[:0], r.ends[:0], r.lineNums[:0]
	for {
		line, st := r.readLine()
		switch st {
		case lineEOF:
			return false
		case lineTooLong:
			r.garbled(r.line, "line longer than %d bytes", r.maxLine)
			continue
		}
		if len(line) == 0 || line[0] != '\t' {
			r.hold(line)
			return false
		}
		if len(r.ends) >= maxLines || len(r.text) >= maxBytes {
			r.hold(line)
			return true
		}
		r.text = append(r.text, line[1:]...)
		r.ends = append(r.ends, len(r.text))
		r.lineNums = append(r.lineNums, r.line)
	}
}

// contLine returns continuation line i of the current record.
func (r *Reader) contLine(i int) []byte {
	start := 0
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.text[start:r.ends[i]]
}

// gatherAll gathers the continuation lines of a record that is not split
// in batches, dropping those beyond the limits.
func (r *Reader) gatherAll() {
	if !r.gather(recordLines, recordBytes) {
		return
	}
	first := r.line
	dropped := 0
	for {
		line, st := r.readLine()
		if st == lineEOF {
			break
		}
		if st == lineOK && (len(line) == 0 || line[0] != '\t') {
			r.hold(line)
			break
		}
		dropped++
	}
	r.warn(first, "the %s record of line %d has more continuation lines than the %d lines or %d bytes kept: %d lines dropped",
		r.rec.Kind, r.rec.Line, recordLines, recordBytes, dropped)
}

// openSection starts a section at the current line, reporting one left
// open before it.
func (r *Reader) openSection(k Kind) {
	if r.section != 0 && r.section != KindOldProfBegin {
		r.warn(r.line, "the %s section begun at line %d has no END line before this %s line", r.sectionName(), r.sectionLine, k)
	}
	r.section, r.sectionLine = k, r.line
	r.rec.Kind = k
	r.rec.Dump = r.dumps[k]
	r.dumps[k]++
}

// inSection marks the current record as a row of the open section.
func (r *Reader) inSection(k Kind) {
	r.rec.Kind = k
	r.rec.Dump = r.dumps[r.section] - 1
}

// closeSection ends the open section with the END record k.
func (r *Reader) closeSection(k Kind) {
	r.inSection(k)
	r.section = 0
}
