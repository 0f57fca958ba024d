package model

import (
	"errors"
	"fmt"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
)

// LoadOptions choose what a load builds.
type LoadOptions struct {
	// Dump picks one heap dump of a file holding several (from 0); -1,
	// the default for callers that set it so, picks the last.
	Dump int
	// Objects builds the per-object tables and the reference graph;
	// without it only classes, counters, roots and traces are kept
	// (enough for a histogram), in far less memory and time.
	Objects bool
	// JVMPI describes a bare JVMPI buffer (one with no capture manifest
	// beside it), which has no header to be recognized by: when set, the
	// file is read as that buffer. A capture manifest beside the file
	// wins over it.
	JVMPI *jvmpi.Options
	// LeanGC keeps the peak memory of a load with Objects near the live
	// size: the garbage collector runs at 20% heap growth instead of the
	// process's setting (Go's default is 100%) while the heap is built,
	// and the memory the build freed, too scattered for the analyses'
	// large arrays to reuse, is handed back to the OS after it. The graph
	// lives in a few large pointer-free slices, so collections cost
	// almost nothing. The setting is process-wide while the load runs and
	// restored after it: for a program whose main work is the load, not
	// one that loads heaps concurrently.
	LeanGC bool
	// Phase, when set, is called with a short name as each phase of
	// the work after the read begins (sorting the objects, resolving
	// their references), for a progress display.
	Phase func(name string)
	// StringValues takes, while a plain HotSpot dump is read in pieces,
	// a digest of each byte and char array's elements and each String's
	// coder (Heap.StringValues), for the census of the Strings: about 8
	// bytes per such array until Heap.DropStringValues.
	StringValues bool
}

// builder turns the records of a dump into a Heap as they stream. What it
// keeps is grouped by concern, each group a struct of its own: the
// top-level records' tables (buildrecords.go), the heap dump being kept
// (builddump.go), the hprof agent's profile records (buildprofile.go),
// the address gaps the layout is inferred from (buildlayout.go) and the
// anomalies counted on the way (buildanomalies.go). finish turns them
// into the Heap.
type builder struct {
	r      hprof.Source
	traits hprof.Traits // r's
	opt    LoadOptions
	h      *Heap

	recordTables
	dumpState
	agentProfile
	layoutObservations
	anomalyCounts
}

// newBuilder returns a builder of the Heap that r's records make.
func newBuilder(r hprof.Source, opt LoadOptions) *builder {
	hdr := r.Header()
	traits := r.Traits()
	h := &Heap{
		Source:          Source{Format: traits.Format, Version: hdr.Version, IDSize: hdr.IDSize, Time: hdr.Time},
		RecordCounts:    map[string]int64{},
		SubRecordCounts: map[string]int64{},
		HasObjects:      opt.Objects,
		classByID:       map[uint64]ClassIndex{},
	}
	b := &builder{
		r: r, traits: traits, opt: opt, h: h,
		recordTables: newRecordTables(),
		dumpState:    dumpState{dump: -1, late: map[int][]uint64{}},
		agentProfile: agentProfile{allocs: map[ObjectAlloc]int64{}},
	}
	for i := range b.primClass {
		b.primClass[i] = NoClass
	}
	b.objects.refs.wide = hdr.IDSize == 8
	b.objects.trackOffsets = !traits.Lines && !traits.NamedReferences && traits.Producer == ""
	return b
}

// run reads every record, keeps the chosen heap dump, records what the
// reader met on the way, and finishes the Heap.
func (b *builder) run() error {
	if err := b.scan(); err != nil {
		return err
	}
	return b.finish()
}

// scan reads every record, keeps the chosen heap dump and records what
// the reader met on the way: what run does before it finishes the Heap.
func (b *builder) scan() error {
	r := b.r
	var topCounts [256]int64
	var subCounts [256]int64
	records := 0
	for r.Next() {
		records++
		rec := r.Record()
		if rec.Sub == 0 {
			topCounts[rec.Tag]++
			if err := b.top(rec); err != nil {
				return err
			}
			continue
		}
		subCounts[rec.Sub]++
		if b.opt.Dump >= 0 && rec.Dump != b.opt.Dump {
			continue
		}
		if rec.Dump != b.dump {
			b.startDump(rec.Dump)
		}
		if err := b.sub(rec); err != nil {
			return err
		}
	}
	err := r.Err()
	if records == 0 && !b.traits.Lines {
		return b.noRecord(err)
	}
	b.h.Source.Bytes = r.BytesRead()
	if b.traits.Lines {
		b.h.Source.Lines = r.Offset()
	}
	if err != nil {
		if !errors.Is(err, hprof.ErrTruncated) {
			return err
		}
		b.h.Truncated = true
		b.truncated(err)
	}
	for t, n := range topCounts {
		if n > 0 {
			b.h.RecordCounts[hprof.Tag(t).String()] = n
		}
	}
	for t, n := range subCounts {
		if n > 0 {
			b.h.SubRecordCounts[hprof.SubTag(t).String()] = n
		}
	}
	for _, w := range r.Warnings() {
		b.anomaly("reader-warning", 1, w.Offset, "%s", w.Msg)
	}
	if extra := r.WarningCount() - len(r.Warnings()); extra > 0 {
		b.anomaly("reader-warning", int64(extra), -1, "further warnings not listed")
	}
	if r.Dumps() == 0 {
		b.anomaly("no-heap-dump", 1, -1, "the file holds no heap dump record (HEAP_DUMP or HEAP_DUMP_SEGMENT): it may be cut short, or hold only profiling records")
	}
	b.h.Source.Dumps = r.Dumps()
	b.h.Source.Dump = b.dump
	if b.opt.Dump >= 0 && b.opt.Dump >= r.Dumps() {
		return fmt.Errorf("%s: heap dump %d requested, the file has %d", b.h.Source.File, b.opt.Dump, r.Dumps())
	}
	return nil
}

// startDump drops what an earlier heap dump of the file left: with several
// dumps, the last one (or the chosen one) is the heap.
func (b *builder) startDump(d int) {
	b.h.Classes = nil
	b.h.classByID = map[uint64]ClassIndex{}
	b.h.heapNames, b.h.switchAt, b.h.switchHeap = nil, nil, nil
	b.dumpState.reset(d)
	b.allocs = map[ObjectAlloc]int64{}
	b.layoutObservations = layoutObservations{}
}

// finish turns what the records left into the Heap: classes named and
// their chains checked, the instances put aside decoded, the object table
// resolved, roots, threads, traces, the agent's profile, the layout and
// the sizes.
func (b *builder) finish() error {
	b.h.Source.Producer = b.producer()
	b.nameClasses()
	b.cutSuperLoops()
	b.reportArraySupers()
	if err := b.resolveDeferred(); err != nil {
		return err
	}
	b.resolveReferentFields()
	classClass := b.countClassObjects()
	b.reportUndumpedClasses()
	if b.opt.Objects {
		b.phase("sorting objects")
		if err := b.resolveObjects(classClass); err != nil {
			return err
		}
	}
	b.reportCounts()
	b.buildRoots()
	b.buildTraces()
	b.buildProfile()
	b.chooseLayout()
	b.applySizes(b.r.Sizes())
	return nil
}

// phase tells LoadOptions.Phase that phase name begins.
func (b *builder) phase(name string) {
	if b.opt.Phase != nil {
		b.opt.Phase(name)
	}
}

// producer names the writer of the dump: the reader's word for it when it
// has one, else the hprof agent, Android or HotSpot as the records and the
// version say.
func (b *builder) producer() string {
	switch {
	case b.traits.Producer != "":
		return b.traits.Producer
	case b.agentFile():
		return "hprof-agent"
	case b.h.Source.Version == "1.0.3":
		return "android"
	}
	return "hotspot"
}

// name returns the string a UTF8 record gave id, or a stand-in naming the
// id.
func (b *builder) name(id uint64) string {
	if s, ok := b.strings[id]; ok {
		return s
	}
	return fmt.Sprintf("<unknown string 0x%x>", id)
}
