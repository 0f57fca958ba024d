package model

import (
	"fmt"
	"sort"

	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/hprof"
)

// recordTables are what the top-level records name, kept by id or serial
// until finish resolves the names: strings, classes, stack frames and
// traces, threads.
type recordTables struct {
	strings     map[uint64]string
	classNameID map[uint64]uint64 // class object id -> name string id (LOAD_CLASS)
	classSerial map[uint32]uint64 // class serial -> class object id
	// primClassID is the class object id LOAD_CLASS gave each primitive
	// array type's class, 0 if none.
	primClassID  [TypeLong + 1]uint64
	frames       map[uint64]hprof.Frame
	rawTraces    []rawTrace
	threadNames  map[uint32]uint64 // START_THREAD serial -> name id
	threadIDs    map[uint32]uint64 // START_THREAD serial -> thread object id
	threadTrace  map[uint32]uint32 // thread serial -> trace serial
	threadGroups map[uint32]uint64 // START_THREAD serial -> group name id
	ended        map[uint32]bool   // thread serials named by END_THREAD
	unloaded     map[uint32]bool   // class serials named by UNLOAD_CLASS
}

// newRecordTables returns empty tables.
func newRecordTables() recordTables {
	return recordTables{
		strings:      map[uint64]string{},
		classNameID:  map[uint64]uint64{},
		classSerial:  map[uint32]uint64{},
		frames:       map[uint64]hprof.Frame{},
		threadNames:  map[uint32]uint64{},
		threadIDs:    map[uint32]uint64{},
		threadTrace:  map[uint32]uint32{},
		threadGroups: map[uint32]uint64{},
		ended:        map[uint32]bool{},
		unloaded:     map[uint32]bool{},
	}
}

// rawTrace is a TRACE record, its frames by id until buildTraces
// resolves them.
type rawTrace struct {
	serial, thread uint32
	frames         []uint64
}

// top decodes a top-level record; the hprof agent's profile records go to
// agentRecord.
func (b *builder) top(rec *hprof.Record) error {
	switch rec.Tag {
	case hprof.TagUTF8:
		b.strings[rec.UTF8.ID] = string(rec.UTF8.Text)
	case hprof.TagLoadClass:
		lc := rec.LoadClass
		b.classNameID[lc.ClassID] = lc.NameID
		b.classSerial[lc.Serial] = lc.ClassID
		if t := arrayElemType(JavaClassName(b.strings[lc.NameID])); t != TypeObject && t != 0 && b.primClassID[t] == 0 {
			b.primClassID[t] = lc.ClassID
		}
	case hprof.TagFrame:
		b.frames[rec.Frame.ID] = rec.Frame
	case hprof.TagTrace:
		b.rawTraces = append(b.rawTraces, rawTrace{serial: rec.Trace.Serial, thread: rec.Trace.ThreadSerial,
			frames: append([]uint64(nil), rec.Trace.FrameIDs...)})
	case hprof.TagStartThread:
		st := rec.StartThread
		b.threadNames[st.ThreadSerial] = st.NameID
		b.threadGroups[st.ThreadSerial] = st.GroupNameID
		b.threadIDs[st.ThreadSerial] = st.ThreadID
		if _, ok := b.threadTrace[st.ThreadSerial]; !ok {
			b.threadTrace[st.ThreadSerial] = st.TraceSerial
		}
	case hprof.TagEndThread:
		b.ended[rec.EndThread] = true
	case hprof.TagUnloadClass:
		b.unloaded[rec.UnloadClass] = true
	case hprof.TagControlSettings, hprof.TagAllocSites, hprof.TagHeapSummary, hprof.TagCPUSamples:
		b.agentRecord(rec)
	}
	return nil
}

// nameClasses names the classes, their fields and statics from the
// strings, and flags the JVMPI-era object arrays that name their element
// class.
func (b *builder) nameClasses() {
	h := b.h
	for i := range h.Classes {
		cl := &h.Classes[i]
		info := &b.infos[i]
		if cl.ID != 0 {
			if nid, ok := b.classNameID[cl.ID]; ok {
				cl.Name = JavaClassName(b.name(nid))
			} else if name, ok := b.traits.InventedClasses[cl.ID]; ok {
				cl.Name = name
			} else if cl.Name == "" {
				cl.Name = fmt.Sprintf("<unknown class 0x%x>", cl.ID)
			}
		}
		for k, id := range info.fieldIDs {
			cl.Fields[k].Name = b.name(id)
		}
		for k, id := range info.staticIDs {
			cl.Statics[k].Name = b.name(id)
		}
		if e := arrayElemType(cl.Name); e != 0 && cl.Elem == 0 {
			cl.Elem = e
		}
	}
	// JVMPI-era object arrays name their element class: such a "class"
	// (known by name) then has array instances but is no array class
	// itself.
	for i := range h.Classes {
		cl := &h.Classes[i]
		if _, named := b.classNameID[cl.ID]; named && cl.Elem == TypeObject && arrayElemType(cl.Name) == 0 {
			b.anomaly("element-class-array", cl.Instances, -1, "object arrays name the element class %s instead of the array class (JVMPI-era writer)", cl.Name)
		}
	}
}

// buildRoots makes the Heap's threads, from the thread roots and the
// announced threads, and its GC roots, each resolved to its object and
// thread.
func (b *builder) buildRoots() {
	h := b.h
	agent := b.agentFile()
	threadAt := map[uint32]int32{}
	for _, rr := range b.roots {
		if rr.kind != RootThreadObject {
			continue
		}
		if agent && rr.id == 0 {
			// The agent's stand-in for its "unknown thread", which the
			// roots of objects whose thread it does not know name.
			continue
		}
		if _, dup := threadAt[rr.thread]; dup {
			continue
		}
		threadAt[rr.thread] = int32(len(h.Threads))
		b.threadTrace[rr.thread] = rr.trace
		t := Thread{Serial: rr.thread, ID: rr.id, Object: NoObject, Trace: -1}
		if id, ok := b.threadNames[rr.thread]; ok {
			t.Name = b.name(id)
		}
		h.Threads = append(h.Threads, t)
	}
	for serial, id := range b.threadIDs {
		// A live thread's Thread object is a thread root. The agent also
		// announces threads whose Thread object is none (it may track a
		// second Thread object for a thread it saw start): only those
		// that ended are threads of the dump.
		if _, ok := threadAt[serial]; !ok && (!agent || b.ended[serial]) {
			threadAt[serial] = int32(len(h.Threads))
			h.Threads = append(h.Threads, Thread{Serial: serial, ID: id, Object: NoObject, Trace: -1, Name: b.name(b.threadNames[serial])})
		}
	}
	sort.SliceStable(h.Threads, func(i, j int) bool { return h.Threads[i].Serial < h.Threads[j].Serial })
	for i, t := range h.Threads {
		threadAt[t.Serial] = int32(i)
		if h.HasObjects {
			if idx, ok := h.Lookup(t.ID); ok {
				h.Threads[i].Object = idx
			}
		}
	}
	var dangling int64
	h.Roots = make([]Root, 0, len(b.roots))
	for _, rr := range b.roots {
		root := Root{Kind: rr.kind, ID: rr.id, Object: NoObject, Thread: -1, Frame: rr.frame}
		if ti, ok := threadAt[rr.thread]; ok && rr.thread != 0 {
			root.Thread = ti
		}
		if h.HasObjects {
			if idx, ok := h.Lookup(rr.id); ok {
				root.Object = idx
			} else if rr.id != 0 {
				dangling++
			}
		}
		h.Roots = append(h.Roots, root)
	}
	if dangling > 0 {
		b.anomaly("dangling-root", dangling, -1, "GC roots naming objects that are not in the dump")
	}
	b.roots = nil
}

// buildTraces makes the Heap's stack traces from the TRACE and FRAME
// records, and gives each thread its stack at the dump.
func (b *builder) buildTraces() {
	h := b.h
	bySerial := map[uint32]int32{}
	for _, rt := range b.rawTraces {
		t := Trace{Serial: rt.serial, ThreadSerial: rt.thread, Frames: make([]thread.Frame, len(rt.frames))}
		for i, fid := range rt.frames {
			f, ok := b.frames[fid]
			if !ok {
				t.Frames[i] = thread.Frame{Method: fmt.Sprintf("<unknown frame 0x%x>", fid), Line: thread.LineUnknown}
				continue
			}
			fr := thread.Frame{Method: b.name(f.MethodID), Signature: b.name(f.SignatureID), Line: f.Line}
			if f.SourceID != 0 {
				fr.File = b.name(f.SourceID)
			}
			if cid, ok := b.classSerial[f.ClassSerial]; ok {
				fr.Class = JavaClassName(b.name(b.classNameID[cid]))
			}
			t.Frames[i] = fr
		}
		bySerial[rt.serial] = int32(len(h.Traces))
		h.Traces = append(h.Traces, t)
	}
	// The hprof agent's thread roots and thread starts name the Thread
	// object's allocation trace, not the thread's stack at the dump: its
	// threads' stacks are unknown.
	if !b.agentFile() {
		for i := range h.Threads {
			if ti, ok := bySerial[b.threadTrace[h.Threads[i].Serial]]; ok {
				h.Threads[i].Trace = ti
			}
		}
	}
	b.rawTraces, b.frames = nil, nil
}
