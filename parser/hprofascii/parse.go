package hprofascii

import (
	"bytes"
	"math"

	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/hprof"
)

// topLine reads a line that is not a continuation line and makes the
// current record of it; it reports whether it did.
func (r *Reader) topLine(line []byte) bool {
	switch line[0] {
	case 'T':
		switch {
		case bytes.HasPrefix(line, []byte("THREAD START (")):
			return r.threadStart(line)
		case bytes.HasPrefix(line, []byte("THREAD END (")):
			return r.threadEnd(line)
		case bytes.HasPrefix(line, []byte("TRACE ")):
			return r.trace(line)
		}
	case 'S':
		switch {
		case bytes.HasPrefix(line, []byte("SLEEP: ")):
			return r.event(line)
		case bytes.HasPrefix(line, []byte("SITES BEGIN ")):
			return r.sitesBegin(line)
		case string(line) == "SITES END":
			return r.sectionEnd(line, KindSitesBegin, KindSitesEnd)
		}
	case 'W', 'E':
		if bytes.HasPrefix(line, []byte("WAIT: ")) || bytes.HasPrefix(line, []byte("WAITED: ")) || bytes.HasPrefix(line, []byte("EXIT: ")) {
			return r.event(line)
		}
	case 'C':
		switch {
		case bytes.HasPrefix(line, []byte("CPU SAMPLES BEGIN ")):
			return r.cpuBegin(line, false)
		case bytes.HasPrefix(line, []byte("CPU TIME (ms) BEGIN ")):
			return r.cpuBegin(line, true)
		case string(line) == "CPU SAMPLES END", string(line) == "CPU TIME (ms) END":
			if r.section == KindCPUBegin && r.cpuTimes != (line[4] == 'T') {
				return r.bad(line, "CPU END line not matching its BEGIN line")
			}
			return r.sectionEnd(line, KindCPUBegin, KindCPUEnd)
		}
	case 'M':
		switch {
		case bytes.HasPrefix(line, []byte("MONITOR TIME BEGIN ")):
			return r.monitorTimeBegin(line)
		case string(line) == "MONITOR TIME END":
			return r.sectionEnd(line, KindMonitorTimeBegin, KindMonitorTimeEnd)
		case string(line) == "MONITOR DUMP BEGIN":
			r.openSection(KindMonitorDumpBegin)
			return r.accept()
		case string(line) == "MONITOR DUMP END":
			return r.sectionEnd(line, KindMonitorDumpBegin, KindMonitorDumpEnd)
		}
	case 'H':
		switch {
		case bytes.HasPrefix(line, []byte("HEAP DUMP BEGIN ")):
			return r.heapDumpBegin(line)
		case string(line) == "HEAP DUMP END":
			return r.sectionEnd(line, KindHeapDumpBegin, KindHeapDumpEnd)
		}
	case 'c':
		if oldProfHeader(line) {
			r.openSection(KindOldProfBegin)
			return r.accept()
		}
	}
	return r.row(line)
}

// accept ends a garbled stretch at a line that was read.
func (r *Reader) accept() bool {
	r.skipping = false
	return true
}

// bad reports the current line as unreadable.
func (r *Reader) bad(line []byte, what string) bool {
	r.garbled(r.rec.Line, "unreadable %s: %s", what, quote(line))
	return false
}

// sectionEnd reads the END line of the section begun by begin.
func (r *Reader) sectionEnd(line []byte, begin, end Kind) bool {
	if r.section != begin {
		return r.bad(line, "END line with no BEGIN line before it")
	}
	r.closeSection(end)
	return r.accept()
}

// row reads a line inside a section: a row, an entry or a heap record.
func (r *Reader) row(line []byte) bool {
	s := newScanner(line)
	switch first := s.word(); r.section {
	case KindSitesBegin:
		if string(first) == "percent" || string(first) == "rank" {
			r.skipping = false
			return false
		}
		return r.site(line)
	case KindCPUBegin, KindMonitorTimeBegin:
		if string(first) == "rank" {
			r.skipping = false
			return false
		}
		if r.section == KindCPUBegin {
			return r.cpuRow(line)
		}
		return r.monitorTimeRow(line)
	case KindOldProfBegin:
		if r.oldProfRow(line) {
			return true
		}
		r.section = 0
	case KindMonitorDumpBegin:
		switch string(first) {
		case "THREAD":
			return r.monitorThread(line)
		case "MONITOR", "RAW":
			return r.monitorEntry(line)
		}
		return r.bad(line, "line in MONITOR DUMP")
	case KindHeapDumpBegin:
		switch string(first) {
		case "ROOT":
			return r.root(line)
		case "CLS":
			return r.class(line)
		case "OBJ":
			return r.object(line)
		case "ARR":
			return r.array(line)
		}
		return r.bad(line, "line in HEAP DUMP")
	}
	if r.section != 0 {
		return r.bad(line, "line in the "+r.sectionName()+" section")
	}
	return r.bad(line, "line outside any section")
}

func (r *Reader) threadStart(line []byte) bool {
	s := newScanner(line)
	s.lit("THREAD START (obj=")
	obj := s.hex()
	s.lit(", id = ")
	serial := s.u32()
	s.lit(`, name="`)
	body, ok := bytes.CutSuffix(s.b, []byte(`")`))
	i := bytes.LastIndex(body, []byte(`", group="`))
	if !s.ok || !ok || i < 0 {
		return r.bad(line, "THREAD START line")
	}
	r.rec.Kind = KindThreadStart
	r.rec.ThreadStart = ThreadStart{ObjectID: obj, Serial: serial, Name: body[:i], Group: body[i+len(`", group="`):]}
	return r.accept()
}

func (r *Reader) threadEnd(line []byte) bool {
	s := newScanner(line)
	s.lit("THREAD END (id = ")
	serial := s.u32()
	s.lit(")")
	s.end()
	if !s.ok {
		return r.bad(line, "THREAD END line")
	}
	r.rec.Kind = KindThreadEnd
	r.rec.ThreadEnd = serial
	return r.accept()
}

func (r *Reader) trace(line []byte) bool {
	s := newScanner(line)
	s.lit("TRACE ")
	serial := s.u32()
	s.lit(":")
	var thread uint32
	var phase []byte
	if s.has(" (thread=") {
		thread = s.u32()
		s.lit(")")
	}
	if s.has(" (from ") {
		phase = s.upTo(" phase of JVM)")
	}
	s.end()
	if !s.ok {
		return r.bad(line, "TRACE line")
	}
	r.rec.Kind = KindTrace
	r.accept()
	r.gatherAll()
	t := &r.rec.Trace
	t.Serial, t.Thread, t.Phase, t.Frames = serial, thread, phase, t.Frames[:0]
	for i := range r.ends {
		l := r.contLine(i)
		if string(l) == "<empty>" && len(r.ends) == 1 {
			continue
		}
		f, ok := parseFrame(l)
		if !ok {
			r.garbled(r.lineNums[i], "unreadable frame of TRACE %d: %s", serial, quote(l))
			continue
		}
		r.skipping = false
		t.Frames = append(t.Frames, f)
	}
	return true
}

// parseFrame reads "class.method(source:line)".
func parseFrame(l []byte) (Frame, bool) {
	body, ok := bytes.CutSuffix(l, []byte(")"))
	body, lineText, ok2 := splitLast(body, ':')
	body, source, ok3 := splitLast(body, '(')
	class, method, ok4 := splitLast(body, '.')
	if !ok || !ok2 || !ok3 || !ok4 || len(class) == 0 || len(method) == 0 {
		return Frame{}, false
	}
	f := Frame{Class: class, Method: method, Source: source}
	switch string(lineText) {
	case "Unknown line":
		f.Line = thread.LineUnknown
	case "Compiled method":
		f.Line = thread.LineCompiled
	case "Native method":
		f.Line = thread.LineNative
	default:
		s := newScanner(lineText)
		n := s.i64()
		s.end()
		if !s.ok || n < math.MinInt32 || n > math.MaxInt32 {
			return Frame{}, false
		}
		f.Line = int32(n)
	}
	if string(method) == "<Unknown Method>" {
		f.Method = nil
	}
	if string(source) == "<Unknown Source>" {
		f.Source = nil
	}
	return f, true
}

func (r *Reader) sitesBegin(line []byte) bool {
	s := newScanner(line)
	s.lit("SITES BEGIN (ordered by ")
	by := s.upTo(")")
	if !s.ok {
		return r.bad(line, "SITES BEGIN line")
	}
	r.openSection(KindSitesBegin)
	r.rec.Sites = SitesBegin{OrderedBy: by, Time: parseCtime(s.b)}
	return r.accept()
}

// num reads a blank-separated unsigned 32-bit number.
func (s *scanner) num() uint32 {
	s.blanks()
	v := s.u32()
	if len(s.b) > 0 && s.b[0] != ' ' && s.b[0] != '\t' {
		s.ok = false
	}
	return v
}

func (r *Reader) site(line []byte) bool {
	s := newScanner(line)
	var v Site
	v.Rank = s.num()
	v.Self, v.Accum = s.percent(), s.percent()
	v.LiveBytes, v.LiveObjects, v.AllocBytes, v.AllocObjects = s.num(), s.num(), s.num(), s.num()
	v.Trace = s.num()
	v.Class = s.rest()
	if !s.ok {
		return r.bad(line, "SITES row")
	}
	r.inSection(KindSite)
	r.rec.Site = v
	return r.accept()
}

func (r *Reader) cpuBegin(line []byte, times bool) bool {
	s := newScanner(line)
	if times {
		s.lit("CPU TIME (ms) BEGIN (total = ")
	} else {
		s.lit("CPU SAMPLES BEGIN (total = ")
	}
	total := s.total()
	s.lit(")")
	if !s.ok {
		return r.bad(line, "CPU BEGIN line")
	}
	r.openSection(KindCPUBegin)
	r.cpuTimes = times
	r.rec.CPU = CPUBegin{Times: times, Total: total, Time: parseCtime(s.b)}
	return r.accept()
}

func (r *Reader) cpuRow(line []byte) bool {
	s := newScanner(line)
	var v CPURow
	v.Rank = s.num()
	v.Self, v.Accum = s.percent(), s.percent()
	v.Count, v.Trace = s.num(), s.num()
	method := s.rest()
	if string(method) != "<empty trace>" {
		var ok bool
		v.Class, v.Method, ok = splitLast(method, '.')
		s.ok = s.ok && ok && len(v.Class) > 0 && len(v.Method) > 0
	}
	if !s.ok {
		return r.bad(line, "CPU row")
	}
	r.inSection(KindCPURow)
	r.rec.CPURow = v
	return r.accept()
}

func (r *Reader) oldProfRow(line []byte) bool {
	s := newScanner(line)
	var v OldProfRow
	v.Count = s.i64()
	s.lit(" ")
	v.Callee = s.methodRef("<unknown callee>")
	s.lit(" ")
	v.Caller = s.methodRef("<unknown caller>")
	s.blanks()
	v.Time = s.i64()
	s.end()
	if !s.ok {
		return false
	}
	r.inSection(KindOldProfRow)
	r.rec.OldProfRow = v
	return r.accept()
}

// methodRef reads "class.method(signature)" or the placeholder unknown.
func (s *scanner) methodRef(unknown string) MethodRef {
	if s.has(unknown) {
		return MethodRef{}
	}
	w := s.word()
	paren := bytes.IndexByte(w, '(')
	if paren < 0 {
		s.ok = false
		return MethodRef{}
	}
	class, name, ok := splitLast(w[:paren], '.')
	if !ok || len(class) == 0 || len(name) == 0 {
		s.ok = false
		return MethodRef{}
	}
	return MethodRef{Class: class, Name: name, Signature: w[paren:]}
}

func (r *Reader) monitorTimeBegin(line []byte) bool {
	s := newScanner(line)
	s.lit("MONITOR TIME BEGIN (total = ")
	total := s.total()
	s.lit(" ms)")
	if !s.ok {
		return r.bad(line, "MONITOR TIME BEGIN line")
	}
	r.openSection(KindMonitorTimeBegin)
	r.rec.MonitorTime = MonitorTimeBegin{TotalMS: total, Time: parseCtime(s.b)}
	return r.accept()
}

func (r *Reader) monitorTimeRow(line []byte) bool {
	s := newScanner(line)
	var v MonitorTimeRow
	v.Rank = s.num()
	v.Self, v.Accum = s.percent(), s.percent()
	v.Count, v.Trace = s.num(), s.num()
	rest := s.rest()
	ok := false
	if m, java := bytes.CutSuffix(rest, []byte(" (Java)")); java {
		v.Monitor, ok = parseJavaMonitor(m)
	} else if m, raw := bytes.CutSuffix(rest, []byte(" (Raw)")); raw {
		v.Monitor, ok = parseRawMonitor(m)
	}
	if !s.ok || !ok {
		return r.bad(line, "MONITOR TIME row")
	}
	r.inSection(KindMonitorTimeRow)
	r.rec.MonitorRow = v
	return r.accept()
}

// parseJavaMonitor reads a Java monitor: a JVMTI class name or
// signature, or JVMPI's "class(id)".
func parseJavaMonitor(b []byte) (MonitorRef, bool) {
	if len(b) == 0 {
		return MonitorRef{}, false
	}
	if inner, ok := bytes.CutSuffix(b, []byte(")")); ok {
		if class, id, ok := splitLast(inner, '('); ok && len(class) > 0 {
			s := newScanner(id)
			v := s.hex()
			s.end()
			if s.ok {
				return MonitorRef{Class: class, ID: v}, true
			}
		}
	}
	return MonitorRef{Class: b}, true
}

// parseRawMonitor reads JVMPI's `"name"(id)`, the id with or without 0x.
func parseRawMonitor(b []byte) (MonitorRef, bool) {
	s := newScanner(b)
	s.lit(`"`)
	name := s.upToLast(`"(`)
	s.has("0x")
	id := s.hex()
	s.lit(")")
	s.end()
	return MonitorRef{Raw: true, Name: name, ID: id}, s.ok
}

// monitor reads a Java monitor up to the last sep, and sep.
func (s *scanner) monitor(sep string) MonitorRef {
	m, ok := parseJavaMonitor(s.upToLast(sep))
	s.ok = s.ok && ok
	return m
}

// thread reads "thread N" or "<unknown thread>" (0).
func (s *scanner) thread() uint32 {
	if s.has("<unknown thread>") {
		return 0
	}
	s.lit("thread ")
	return s.u32()
}

func (r *Reader) event(line []byte) bool {
	s := newScanner(line)
	var v MonitorEvent
	switch {
	case s.has("SLEEP: timeout="):
		v.Kind = EventSleep
		v.Timeout = s.i64()
		s.lit(", ")
	case s.has("WAIT: MONITOR "):
		v.Kind = EventWait
		v.Monitor = s.monitor(", timeout=")
		v.Timeout = s.i64()
		s.lit(", ")
	case s.has("WAITED: MONITOR "):
		v.Kind = EventWaited
		v.Monitor = s.monitor(", time_waited=")
		v.TimeWaited = s.i64()
		s.lit(", ")
	default:
		s.lit("EXIT: MONITOR ")
		v.Kind = EventExit
		v.Monitor = s.monitor(", ")
	}
	v.Thread = s.thread()
	s.end()
	if !s.ok {
		return r.bad(line, "monitor event line")
	}
	r.rec.Kind = KindMonitorEvent
	r.rec.Event = v
	return r.accept()
}

func (r *Reader) monitorThread(line []byte) bool {
	s := newScanner(line)
	s.blanks()
	s.lit("THREAD ")
	var v MonitorThread
	v.Thread = s.u32()
	s.lit(", trace ")
	v.Trace = s.u32()
	s.lit(", status:")
	s.blanks()
	v.Suspended = s.has(flagSuspended)
	v.Interrupted = s.has(flagInterrupted)
	v.InNative = s.has(flagInNative)
	v.State = s.b
	if !s.ok || bytes.ContainsAny(v.State, " \t|") {
		return r.bad(line, "MONITOR DUMP thread line")
	}
	r.inSection(KindMonitorDumpThread)
	r.rec.MonitorThread = v
	return r.accept()
}

func (r *Reader) monitorEntry(line []byte) bool {
	s := newScanner(line)
	s.blanks()
	m := &r.rec.Monitor
	m.WaitingToEnter, m.WaitingToBeNotified = m.WaitingToEnter[:0], m.WaitingToBeNotified[:0]
	m.Owned, m.Owner, m.EntryCount = false, 0, 0
	body, unowned := bytes.CutSuffix(s.b, []byte(" unowned"))
	ok := false
	switch {
	case bytes.HasPrefix(body, []byte("RAW MONITOR ")):
		m.Monitor, ok = parseRawMonitor(body[len("RAW MONITOR "):])
	case bytes.HasPrefix(body, []byte("MONITOR ")):
		m.Monitor, ok = parseJavaMonitor(body[len("MONITOR "):])
	}
	if !ok {
		return r.bad(line, "MONITOR DUMP monitor line")
	}
	r.inSection(KindMonitorDumpMonitor)
	r.accept()
	r.gatherAll()
	for i := range r.ends {
		l := r.contLine(i)
		c := newScanner(l)
		switch {
		case c.has("owner: "):
			owner := c.thread()
			c.lit(", entry count: ")
			n := c.i64()
			c.end()
			if c.ok && !unowned && !m.Owned && n >= math.MinInt32 && n <= math.MaxInt32 {
				m.Owned, m.Owner, m.EntryCount = true, owner, int32(n)
			} else {
				c.ok = false
			}
		case c.has("waiting to enter:"):
			m.WaitingToEnter = c.threadList(m.WaitingToEnter)
		case c.has("waiting to be notified:"):
			m.WaitingToBeNotified = c.threadList(m.WaitingToBeNotified)
		default:
			c.ok = false
		}
		c.end()
		if !c.ok {
			r.garbled(r.lineNums[i], "unreadable line of the monitor entry of line %d: %s", r.rec.Line, quote(l))
			continue
		}
		r.skipping = false
	}
	return true
}

// threadList reads "[ thread N,]* thread N" (items may be <unknown
// thread>, 0) and appends the serials to list.
func (s *scanner) threadList(list []uint32) []uint32 {
	for s.ok {
		s.blanks()
		if len(s.b) == 0 {
			break
		}
		list = append(list, s.thread())
		if !s.has(",") {
			break
		}
	}
	return list
}

func (r *Reader) heapDumpBegin(line []byte) bool {
	s := newScanner(line)
	s.lit("HEAP DUMP BEGIN (")
	var v HeapDumpBegin
	v.Objects = s.total()
	s.lit(" objects, ")
	v.Bytes = s.total()
	s.lit(" bytes)")
	if !s.ok {
		return r.bad(line, "HEAP DUMP BEGIN line")
	}
	r.openSection(KindHeapDumpBegin)
	v.Time = parseCtime(s.b)
	r.rec.HeapDump = v
	return r.accept()
}

func (r *Reader) root(line []byte) bool {
	s := newScanner(line)
	s.lit("ROOT ")
	v := Root{ID: s.hex(), FrameDepth: -1}
	s.lit(" (kind=<")
	switch string(s.upTo(">")) {
	case "thread":
		v.Kind = hprof.RootThreadObj
		s.lit(", id=")
		v.ThreadSerial = s.u32()
		s.lit(", trace=")
		v.TraceSerial = s.u32()
	case "unknown":
		v.Kind = hprof.RootUnknown
	case "JNI global ref":
		v.Kind = hprof.RootJNIGlobal
		s.lit(", id=")
		v.JNIRef = s.hex()
		s.lit(", trace=")
		v.TraceSerial = s.u32()
	case "JNI local ref":
		v.Kind = hprof.RootJNILocal
		v.ThreadSerial, v.FrameDepth = s.threadFrame()
	case "Java stack":
		v.Kind = hprof.RootJavaFrame
		v.ThreadSerial, v.FrameDepth = s.threadFrame()
	case "native stack":
		v.Kind = hprof.RootNativeStack
		s.lit(", thread=")
		v.ThreadSerial = s.u32()
	case "thread block":
		v.Kind = hprof.RootThreadBlock
		s.lit(", thread=")
		v.ThreadSerial = s.u32()
	case "system class":
		v.Kind = hprof.RootStickyClass
		s.lit(", name=")
		name, ok := bytes.CutSuffix(s.b, []byte(")"))
		s.ok = s.ok && ok && len(name) > 0
		v.ClassName, s.b = name, s.b[len(name):]
	case "busy monitor":
		v.Kind = hprof.RootMonitorUsed
	default:
		s.ok = false
	}
	s.lit(")")
	s.end()
	if !s.ok {
		return r.bad(line, "ROOT line")
	}
	r.inSection(KindRoot)
	r.rec.Root = v
	return r.accept()
}

// threadFrame reads ", thread=N, frame=D".
func (s *scanner) threadFrame() (uint32, int32) {
	s.lit(", thread=")
	thread := s.u32()
	s.lit(", frame=")
	n := s.i64()
	if n < math.MinInt32 || n > math.MaxInt32 {
		s.ok = false
	}
	return thread, int32(n)
}

func (r *Reader) class(line []byte) bool {
	s := newScanner(line)
	s.lit("CLS ")
	id := s.hex()
	s.lit(" (name=")
	name := s.upToLast(", trace=")
	trace := s.u32()
	s.lit(")")
	s.end()
	if !s.ok {
		return r.bad(line, "CLS line")
	}
	r.inSection(KindClass)
	r.accept()
	c := &r.rec.Class
	c.ID, c.Name, c.TraceSerial = id, name, trace
	c.SuperID, c.LoaderID, c.SignersID, c.ProtectionDomainID = 0, 0, 0, 0
	c.Statics, c.Constants = c.Statics[:0], c.Constants[:0]
	r.gatherAll()
	for i := range r.ends {
		l := r.contLine(i)
		key, ref, ok := splitReference(l)
		switch {
		case !ok:
		case string(key) == "super":
			c.SuperID = ref
		case string(key) == "loader":
			c.LoaderID = ref
		case string(key) == "signers":
			c.SignersID = ref
		case string(key) == "domain":
			c.ProtectionDomainID = ref
		case bytes.HasPrefix(key, []byte("static ")) && len(key) > len("static "):
			c.Statics = append(c.Statics, Reference{Name: key[len("static "):], ID: ref})
		default:
			var index uint32
			if index, ok = constantIndex(key); ok {
				c.Constants = append(c.Constants, Constant{Index: index, ID: ref})
			}
		}
		if !ok {
			r.garbled(r.lineNums[i], "unreadable line of the CLS of line %d: %s", r.rec.Line, quote(l))
			continue
		}
		r.skipping = false
	}
	return true
}

// constantIndex reads the index of "constant pool entry N" (JVMTI) or
// "constant[N]" (JVMPI).
func constantIndex(key []byte) (uint32, bool) {
	s := newScanner(key)
	if s.has("constant pool entry ") {
		n := s.u32()
		s.end()
		return n, s.ok
	}
	s.lit("constant[")
	n := s.u32()
	s.lit("]")
	s.end()
	return n, s.ok
}

// splitReference reads a "name<TAB>[<TAB>]id" continuation line.
func splitReference(l []byte) (name []byte, id uint64, ok bool) {
	tab := bytes.IndexByte(l, '\t')
	if tab <= 0 {
		return nil, 0, false
	}
	s := newScanner(l[tab:])
	s.blanks()
	id = s.hex()
	s.end()
	return l[:tab], id, s.ok
}

func (r *Reader) object(line []byte) bool {
	s := newScanner(line)
	s.lit("OBJ ")
	o := Object{ID: s.hex()}
	s.lit(" (sz=")
	o.Size = s.u32()
	s.lit(", trace=")
	o.TraceSerial = s.u32()
	s.lit(", class=")
	o.ClassName = s.upToLast("@")
	o.ClassID = s.hex()
	s.lit(")")
	s.end()
	if !s.ok {
		return r.bad(line, "OBJ line")
	}
	r.inSection(KindObject)
	r.accept()
	o.Fields = r.rec.Object.Fields
	r.rec.Object = o
	r.gatherBatch(KindObjectFields)
	r.objectFields()
	return true
}

// objectFields reads the gathered field lines of the current object.
func (r *Reader) objectFields() {
	o := &r.rec.Object
	o.Fields = o.Fields[:0]
	for i := range r.ends {
		l := r.contLine(i)
		name, id, ok := splitReference(l)
		if !ok {
			r.garbled(r.lineNums[i], "unreadable field line of the OBJ %x: %s", o.ID, quote(l))
			continue
		}
		r.skipping = false
		o.Fields = append(o.Fields, Reference{Name: name, ID: id})
	}
}

var primitiveTypes = map[string]hprof.Type{
	"boolean": hprof.TypeBoolean, "byte": hprof.TypeByte, "char": hprof.TypeChar, "short": hprof.TypeShort,
	"int": hprof.TypeInt, "long": hprof.TypeLong, "float": hprof.TypeFloat, "double": hprof.TypeDouble,
}

func (r *Reader) array(line []byte) bool {
	s := newScanner(line)
	s.lit("ARR ")
	a := Array{ID: s.hex()}
	s.lit(" (sz=")
	a.Size = s.u32()
	s.lit(", trace=")
	a.TraceSerial = s.u32()
	s.lit(", nelems=")
	a.Length = s.u32()
	s.lit(", elem type=")
	typ, ok := bytes.CutSuffix(s.b, []byte(")"))
	s.ok = s.ok && ok
	if name, id, ok := splitLast(typ, '@'); ok {
		a.ElemType, a.TypeName = hprof.TypeObject, name
		c := newScanner(id)
		a.ClassID = c.hex()
		c.end()
		a.OfElement = !bytes.HasSuffix(name, []byte("[]"))
		s.ok = s.ok && c.ok && len(name) > 0
	} else {
		a.TypeName = typ
		elem, jvmti := bytes.CutSuffix(typ, []byte("[]"))
		a.ElemType, a.OfElement = primitiveTypes[string(elem)], !jvmti
		s.ok = s.ok && a.ElemType != 0
	}
	if !s.ok {
		return r.bad(line, "ARR line")
	}
	r.inSection(KindArray)
	r.accept()
	a.Elements = r.rec.Array.Elements[:0]
	r.rec.Array = a
	if a.ElemType != hprof.TypeObject {
		return true
	}
	r.gatherBatch(KindArrayElements)
	r.arrayElements()
	return true
}

// arrayElements reads the gathered element lines of the current array.
func (r *Reader) arrayElements() {
	a := &r.rec.Array
	a.Elements = a.Elements[:0]
	for i := range r.ends {
		l := r.contLine(i)
		s := newScanner(l)
		s.lit("[")
		index := s.u32()
		s.lit("]")
		s.blanks()
		id := s.hex()
		s.end()
		if !s.ok || index >= a.Length {
			r.garbled(r.lineNums[i], "unreadable element line of the ARR %x: %s", a.ID, quote(l))
			continue
		}
		r.skipping = false
		a.Elements = append(a.Elements, Element{Index: index, ID: id})
	}
}

// gatherBatch gathers the first or next batch of field or element lines
// of an OBJ or ARR; if more follow, the record continues in records of
// kind more.
func (r *Reader) gatherBatch(more Kind) {
	r.more = 0
	if r.gather(batchLines, batchBytes) {
		r.more = more
	}
}

// nextBatch delivers the next batch of field or element lines of a
// record too long for one.
func (r *Reader) nextBatch() bool {
	k := r.more
	r.gatherBatch(k)
	if len(r.ends) == 0 {
		return false
	}
	r.rec.Kind, r.rec.Line = k, r.lineNums[0]
	if k == KindObjectFields {
		r.objectFields()
	} else {
		r.arrayElements()
	}
	return true
}
