package threaddump

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/model/thread"
)

// maxLine bounds the bytes kept of one line; the rest of a longer line is
// dropped.
const maxLine = 1 << 20

// textStyle is the flavour of a text dump.
type textStyle int

const (
	// hotspotText: jstack, jcmd Thread.print, SIGQUIT. Ends with a
	// "JNI global refs" line.
	hotspotText textStyle = iota
	// plainText: jcmd Thread.dump_to_file in its plain-text format. Has
	// no end marker.
	plainText
)

var (
	// "2026-01-01 12:00:00", the line before "Full thread dump".
	hotspotTime = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`)
	// An ISO-8601 instant, the time line of a plain-text dump.
	isoInstant = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)
	// `#13 "name" virtual WAITING 2026-…`; the name may hold quotes.
	plainHeader = regexp.MustCompile(`^#(\d+) "(.*)" (virtual )?([A-Z_]+)(?: |$)`)
	// "Found 2 Java-level deadlocks:" (HotSpot prints "Found one
	// Java-level deadlock:" for a single one).
	verdictStart = regexp.MustCompile(`^Found (one|\d+) Java-level deadlocks?:`)
	// "Found 1 deadlock.", the last line of the verdict.
	verdictEnd = regexp.MustCompile(`^Found \d+ deadlocks?\.`)
)

// textParser reads HotSpot and plain-text dumps line by line.
type textParser struct {
	src  *bufio.Reader
	name string
	line int64 // lines read
	eof  bool
	err  error // the source's read error

	cur      *thread.Dump
	style    textStyle
	threadAt int  // index in cur.Threads of the thread being read, -1 for none
	ownable  bool // inside that thread's "Locked ownable synchronizers:"
	cut      bool // the input ended inside a line of cur

	inVerdict bool         // skipping HotSpot's deadlock verdict
	recent    [4]string    // the last lines read, the newest last
	ready     *thread.Dump // a dump completed and not returned yet
}

func newTextParser(src *bufio.Reader, name string) *textParser {
	return &textParser{src: src, name: name, threadAt: -1}
}

// next returns the next complete or cut dump, with a *FormatError
// wrapping ErrTruncated when the input ended inside it; nil at the end.
func (p *textParser) next() (*thread.Dump, error) {
	for {
		if p.ready != nil {
			d := p.ready
			p.ready = nil
			return d, nil
		}
		if p.eof {
			return p.atEOF()
		}
		line, complete := p.readLine()
		if complete {
			p.handle(line)
		} else if line != "" {
			p.handleCut(line)
		}
	}
}

// atEOF finishes the dump left open when the input ended.
func (p *textParser) atEOF() (*thread.Dump, error) {
	d := p.cur
	if d == nil {
		if p.err != nil {
			return nil, &FormatError{File: p.name, Line: p.line, Msg: "reading: " + p.err.Error(), Err: p.err}
		}
		return nil, nil
	}
	truncated := p.cut || p.style == hotspotText
	p.closeDump(truncated)
	p.ready = nil
	if p.err != nil {
		return d, &FormatError{File: p.name, Line: p.line, Msg: "reading: " + p.err.Error(), Err: p.err}
	}
	if !truncated {
		return d, nil
	}
	return d, &FormatError{File: p.name, Line: p.line, Err: ErrTruncated,
		Msg: fmt.Sprintf("input ends inside a thread dump; %d threads were read before the cut", len(d.Threads))}
}

// readLine returns the next line without its line end, and whether it
// was complete (ended by a newline).
func (p *textParser) readLine() (string, bool) {
	var buf []byte
	for {
		chunk, err := p.src.ReadSlice('\n')
		if len(buf) < maxLine {
			buf = append(buf, chunk[:min(len(chunk), maxLine-len(buf))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			p.eof = true
			if err != io.EOF {
				p.err = err
			}
			return strings.TrimRight(string(buf), "\r\n"), false
		}
		return strings.TrimRight(string(buf), "\r\n"), true
	}
}

// handleCut takes the last line of an input that ended inside it: only an
// end marker is trusted, anything else may be cut mid-way.
func (p *textParser) handleCut(line string) {
	if p.cur != nil && p.style == hotspotText && strings.HasPrefix(line, "JNI global ref") {
		p.handle(line)
		return
	}
	p.line++
	if p.cur != nil {
		p.cut = true
	}
}

func (p *textParser) handle(line string) {
	p.line++
	defer p.remember(line)
	if p.inVerdict {
		if verdictEnd.MatchString(line) {
			p.inVerdict = false
			return
		}
		if _, ok := parseHotspotHeader(line); !ok && !strings.HasPrefix(line, "Full thread dump ") {
			return
		}
		p.inVerdict = false
	}
	switch {
	case strings.HasPrefix(line, "Full thread dump "):
		p.closeDump(true)
		p.openDump(hotspotText, p.line)
		p.cur.VM = strings.TrimSuffix(strings.TrimPrefix(line, "Full thread dump "), ":")
		if prev := p.recent[len(p.recent)-1]; hotspotTime.MatchString(prev) {
			p.cur.Time = prev
			p.cur.Line--
		}
	case strings.HasPrefix(line, "JNI global ref"):
		if p.cur != nil && p.style == hotspotText {
			p.closeDump(false)
		}
	case verdictStart.MatchString(line):
		if p.cur != nil && p.style == hotspotText {
			p.closeDump(false)
		}
		p.inVerdict = true
	case strings.HasPrefix(line, `"`):
		t, ok := parseHotspotHeader(line)
		if !ok {
			return
		}
		if p.cur == nil || p.style != hotspotText {
			p.closeDump(false)
			p.openDump(hotspotText, p.line)
		}
		p.startThread(t)
	case strings.HasPrefix(line, "#"):
		t, ok := parsePlainHeader(line)
		if !ok {
			return
		}
		if p.cur == nil || p.style != plainText {
			p.closeDump(p.cur != nil)
			p.openPlainDump()
		}
		p.startThread(t)
	case p.cur != nil && p.style == plainText && isoInstant.MatchString(line) && isDigits(p.recent[len(p.recent)-1]):
		// The process id and time lines that start the next plain dump.
		p.closeDump(false)
	default:
		p.threadLine(line)
	}
}

func (p *textParser) remember(line string) {
	copy(p.recent[:], p.recent[1:])
	p.recent[len(p.recent)-1] = line
}

func (p *textParser) openDump(style textStyle, line int64) {
	format := "HotSpot thread dump"
	if style == plainText {
		format = "plain-text thread dump"
	}
	p.cur = &thread.Dump{Format: format, Line: line}
	p.style = style
	p.threadAt = -1
	p.ownable = false
	p.cut = false
}

// openPlainDump starts a plain-text dump, taking its time and runtime
// version from the preamble (process id, time, version, blank line) when
// the lines before the first thread are one.
func (p *textParser) openPlainDump() {
	p.openDump(plainText, p.line)
	r := p.recent
	if isDigits(r[0]) && isoInstant.MatchString(r[1]) && r[3] == "" {
		p.cur.Time = r[1]
		p.cur.VM = r[2]
		p.cur.Line = p.line - 4
	}
}

// closeDump makes the open dump ready for next; truncated marks it cut.
func (p *textParser) closeDump(truncated bool) {
	if p.cur == nil {
		return
	}
	p.cur.Truncated = p.cur.Truncated || truncated
	p.ready = p.cur
	p.cur = nil
	p.threadAt = -1
	p.ownable = false
}

func (p *textParser) startThread(t thread.Snapshot) {
	p.cur.Threads = append(p.cur.Threads, t)
	p.threadAt = len(p.cur.Threads) - 1
	p.ownable = false
}

// threadLine reads a line inside a thread's stanza: its state, a frame, a
// lock, or the start of its ownable synchronizers. Lines that are not
// indented belong to something else (an application log) and are skipped,
// as are indented lines of no interest ("No compile task").
func (p *textParser) threadLine(line string) {
	if p.threadAt < 0 {
		return
	}
	s := strings.TrimLeft(line, " \t")
	if len(s) == len(line) {
		return
	}
	t := &p.cur.Threads[p.threadAt]
	switch {
	case strings.HasPrefix(s, "java.lang.Thread.State: "):
		state := strings.TrimPrefix(s, "java.lang.Thread.State: ")
		state, detail, _ := strings.Cut(state, " ")
		t.State = state
		t.StateDetail = strings.TrimSuffix(strings.TrimPrefix(detail, "("), ")")
	case strings.HasPrefix(s, "at "):
		t.Frames = append(t.Frames, parseFrame(strings.TrimPrefix(s, "at ")))
		p.ownable = false
	case strings.HasPrefix(s, "- "):
		if l, ok := parseLockLine(s, p.ownable); ok {
			l.Frame = len(t.Frames) - 1
			if p.ownable {
				l.Frame = -1
			}
			t.Locks = append(t.Locks, l)
		}
	case s == "Locked ownable synchronizers:":
		p.ownable = true
		p.cur.SynchronizerOwners = true
	}
}

// parseHotspotHeader reads a HotSpot thread header:
//
//	"worker-1" #12 [29263] daemon prio=5 os_prio=0 cpu=1.49ms elapsed=1.81s tid=0x… nid=0x71a5 waiting for monitor entry  [0x…]
//
// The name runs from the first to the last quote: names are not escaped,
// and nothing after the name holds a quote. The "#N" Java thread id and
// "daemon" come before the first key=value field; VM-internal threads
// have neither.
func parseHotspotHeader(line string) (thread.Snapshot, bool) {
	var t thread.Snapshot
	end := strings.LastIndexByte(line, '"')
	if len(line) < 2 || line[0] != '"' || end == 0 {
		return t, false
	}
	rest := line[end+1:]
	if !strings.HasPrefix(rest, " ") {
		return t, false
	}
	keyed := false
	for _, f := range strings.Fields(rest) {
		if strings.HasPrefix(f, "prio=") || strings.HasPrefix(f, "os_prio=") || strings.HasPrefix(f, "tid=") || strings.HasPrefix(f, "nid=") {
			keyed = true
			break
		}
		switch {
		case len(f) > 1 && f[0] == '#' && isDigits(f[1:]):
			t.ID = f[1:]
		case f == "daemon":
			t.Daemon = true
		}
	}
	if !keyed {
		return thread.Snapshot{}, false
	}
	t.Name = line[1:end]
	return t, true
}

// parsePlainHeader reads the header of a thread in a plain-text dump:
// `#13 "name" [virtual ]STATE TIME`.
func parsePlainHeader(line string) (thread.Snapshot, bool) {
	g := plainHeader.FindStringSubmatch(line)
	if g == nil {
		return thread.Snapshot{}, false
	}
	return thread.Snapshot{ID: g[1], Name: g[2], Virtual: g[3] != "", State: g[4]}, true
}

// parseFrame reads a frame as HotSpot prints it,
// "java.lang.Thread.run(java.base@17.0.15/Thread.java:840)", or as
// StackTraceElement.toString does in JDK 21+ dumps,
// "java.base/java.lang.Thread.run(Thread.java:1474)".
func parseFrame(s string) thread.Frame {
	name, where := s, ""
	if open := strings.IndexByte(s, '('); open >= 0 {
		name = s[:open]
		where = strings.TrimSuffix(s[open+1:], ")")
	}
	name = stripModule(name)
	if slash := strings.IndexByte(where, '/'); slash >= 0 {
		where = where[slash+1:]
	}
	f := thread.Frame{Method: name, Line: thread.LineUnknown}
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		f.Class, f.Method = name[:dot], name[dot+1:]
	}
	switch where {
	case "Native Method":
		f.Line = thread.LineNative
	case "", "Unknown Source":
	default:
		f.File = where
		if colon := strings.LastIndexByte(where, ':'); colon >= 0 {
			if n, err := strconv.ParseInt(where[colon+1:], 10, 32); err == nil && n > 0 {
				f.File, f.Line = where[:colon], int32(n)
			}
		}
	}
	return f
}

// stripModule removes the "loader/module@version/" prefix of a
// StackTraceElement string. A hidden class's name holds a slash too
// ("Main$$Lambda/0x0000…"), which is kept.
func stripModule(name string) string {
	i := strings.LastIndexByte(name, '/')
	for i >= 0 && strings.HasPrefix(name[i+1:], "0x") {
		i = strings.LastIndexByte(name[:i], '/')
	}
	return name[i+1:]
}

// parseLockLine reads a lock line of a thread: "- locked <0x…> (a CLASS)"
// (HotSpot) or "- locked <CLASS@HASH>" (plain text); in the "Locked
// ownable synchronizers:" list, "- <0x…> (a CLASS)". Lines about
// eliminated locks and waits with no object are skipped.
func parseLockLine(s string, ownable bool) (thread.LockUse, bool) {
	var l thread.LockUse
	s = strings.TrimPrefix(s, "- ")
	open := strings.IndexByte(s, '<')
	if open < 0 {
		return l, false
	}
	length := strings.IndexByte(s[open:], '>')
	if length < 0 {
		return l, false
	}
	verb := strings.TrimSpace(s[:open])
	ref := s[open+1 : open+length]
	rest := strings.TrimSpace(s[open+length+1:])
	switch {
	case ownable && verb == "":
		l.Action, l.Lock.Kind = thread.Holds, thread.LockSynchronizer
	case verb == "locked":
		l.Action, l.Lock.Kind = thread.Holds, thread.LockMonitor
	case verb == "waiting to lock" || verb == "waiting to re-lock in wait()":
		l.Action, l.Lock.Kind = thread.Enters, thread.LockMonitor
	case verb == "waiting on":
		l.Action, l.Lock.Kind = thread.WaitsOn, thread.LockMonitor
	case verb == "parking to wait for":
		l.Action, l.Lock.Kind = thread.Parks, thread.LockSynchronizer
	default:
		return l, false
	}
	if strings.HasPrefix(rest, "(a ") && strings.HasSuffix(rest, ")") {
		l.Lock.Class = rest[len("(a ") : len(rest)-1]
	}
	switch at := strings.LastIndexByte(ref, '@'); {
	case strings.HasPrefix(ref, "0x"):
		id, err := strconv.ParseUint(ref[2:], 16, 64)
		if err != nil || id == 0 {
			return l, false
		}
		l.Lock.ID = id
	case at > 0:
		l.Lock.Name = ref
		if l.Lock.Class == "" {
			l.Lock.Class = ref[:at]
		}
	default:
		return l, false
	}
	return l, true
}
