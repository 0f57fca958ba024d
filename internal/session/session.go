// Package session opens one file that hprofctl is asked about and answers
// every question about it, for the command line and the web server alike.
//
// Open tells the file's format once (input.File.Sniff) and keeps what it
// offers: a heap dump (from its index, built when there is none, or from
// the dump itself), an agent profile, thread dumps. What takes long to
// make (the heap, the dominator tree, the strong shortest path tree, the
// lock state, the native sizes) is made on first use and kept. The
// composed questions (leak suspects with labelled paths, threads with
// their locks and retention, deadlocks from any input, show, the HTML
// report's data, a diff's sides, the agent's profiles) are its methods,
// each written once: the command line only turns flags into Options and
// hands the answers to package report; internal/web asks the same methods.
//
// A Session is safe for concurrent use once open.
package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
	"github.com/hprofctl/hprofctl/parser/proguard"
	"github.com/hprofctl/hprofctl/report"
)

// Options say how a session reads its file. Dump is -1 for the last dump;
// the zero value of every other field is the default.
type Options struct {
	// Dump picks the heap dump or MONITOR DUMP of a file holding several
	// (from 0; -1: the last).
	Dump int
	// Size is how shallow sizes are counted.
	Size model.SizeMode
	// KeepUnreachable treats unreachable objects as reachable from the
	// virtual root in the dominator tree.
	KeepUnreachable bool
	// NoIndex reads the dump itself: its index is neither used nor
	// built.
	NoIndex bool
	// Index is the index file to use (empty: IndexDir, else beside the
	// dump, else in the user's cache directory); IndexDir keeps indexes
	// in that directory.
	Index, IndexDir string
	// Bare describes the file as a bare JVMPI buffer (nil: it is none).
	Bare *jvmpi.Options
	// Mapping, when set, gives the original names of obfuscated classes,
	// fields and frames.
	Mapping *proguard.Mapping
	// Heaps are the Android heaps whose objects are counted and listed
	// (none: all).
	Heaps []string
	// Progress, when set, is called as a read of the file starts and
	// returns the function that stops reporting it.
	Progress func(f *input.File) (stop func())
	// Phase, when set, is called as each phase of an index build begins
	// (BuildPhases names them), with the share of the build's time the
	// phases before it take, and with "" when the build ends.
	Phase func(name string, before float64)
	// Step, when set, is called as each of the jobs an index build runs
	// side by side ends (the heap's sections written, the shortest-path
	// tree found, the contracted graph of `threads --retained`, ...), on
	// the goroutine that ran it: what a trace of the build shows within
	// its phases.
	Step func(name string)
	// DiskProcs lets a build of a dump bigger than half the machine's
	// memory run with more processors than Go was given, GOMAXPROCS
	// raised for the whole process while it runs (see buildProcs), so
	// that its reads from the disk overlap. Set it only where no other
	// work runs beside the build (the command line; not a server).
	DiskProcs bool
	// Memory bounds the Go heap of an index build in bytes: the large
	// per-object tables past it are mapped from scratch files beside
	// the index (model/bigmem); 0: bigmem.DefaultBudget.
	Memory int64
	// Notes receives the warnings and notes, a line each; nil discards
	// them.
	Notes io.Writer
}

// Session is one file opened for questions: what it holds, and the
// analyses made of it so far.
type Session struct {
	path   string
	name   string
	format input.Format
	o      Options

	// spool is the temporary file standard input was copied to, read
	// again where a question needs the dump twice; removed by Close.
	spool string
	// compression is what the file was found compressed with when opened.
	compression input.Compression

	mu sync.Mutex
	// first is the file as sniffed, kept for its first read: standard
	// input or a pipe cannot be opened again.
	first *input.File
	// heap is the heap read so far; objects says it holds the objects
	// (loaded with them or from the index).
	heap    *model.Heap
	objects bool
	index   *indexed
	// classes is the index opened for its classes and kept answers
	// alone (classesIndex), classesTried whether that was tried.
	classes      *classIndex
	classesTried bool

	retention func() (*graph.Retention, error)
	strong    func() (*graph.PathTree, error)
	locks     func() (*threads.HeapLocks, error)
	native    func() (*heap.NativeSizes, error)
	profile   func() (*model.Profile, error)
	diffSides [2]func() (diffSide, error)

	// watch tells whether the file changed since it was read (Unchanged).
	watch changeWatch
}

// Open opens the file at path ("-" for standard input) and tells what it
// holds; nothing more is read until a question asks for it. Standard
// input is first copied to a temporary file (spoolStdin), so that every
// question that reads the dump again gets the same answer as from a
// file; it has no index.
func Open(path string, o Options) (*Session, error) {
	if o.Notes == nil {
		o.Notes = io.Discard
	}
	var spool string
	if path == dumpfile.Stdin {
		var err error
		if spool, err = spoolStdin(os.Stdin); err != nil {
			return nil, err
		}
	}
	s := &Session{path: path, spool: spool, o: o}
	f, err := s.open()
	if err != nil {
		s.removeSpool()
		return nil, err
	}
	format, err := f.Sniff(o.Bare != nil)
	if err != nil {
		f.Close()
		s.removeSpool()
		return nil, err
	}
	s.name, s.format, s.first, s.compression = f.Name, format, f, f.Compression
	s.retention = sync.OnceValues(s.computeRetention)
	s.strong = sync.OnceValues(s.computeStrongPaths)
	s.locks = sync.OnceValues(s.readHeapLocks)
	s.native = sync.OnceValues(s.readNative)
	s.profile = sync.OnceValues(s.readProfile)
	for k, retained := range []bool{false, true} {
		s.diffSides[k] = sync.OnceValues(func() (diffSide, error) { return s.readDiffSide(retained) })
	}
	return s, nil
}

// Name is how the reports name the file: its path, or <stdin>.
func (s *Session) Name() string { return s.name }

// Format is what the file holds.
func (s *Session) Format() input.Format { return s.format }

// Close unmaps the index and closes the file; nothing the session gave
// may be used after it.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	if s.first != nil {
		errs = append(errs, s.first.Close())
		s.first = nil
	}
	if s.index != nil {
		errs = append(errs, s.index.close())
	}
	errs = append(errs, s.classes.close())
	errs = append(errs, s.removeSpool())
	return errors.Join(errs...)
}

// spoolStdin copies in to a temporary file and returns its path.
func spoolStdin(in io.Reader) (string, error) {
	f, err := os.CreateTemp("", "hprofctl-stdin-*")
	if err != nil {
		return "", fmt.Errorf("standard input: keeping a copy to read it again: %w", err)
	}
	_, err = io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("standard input: keeping a copy in %s to read it again: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// removeSpool removes the copy of standard input, if any.
func (s *Session) removeSpool() error {
	if s.spool == "" {
		return nil
	}
	err := os.Remove(s.spool)
	s.spool = ""
	return err
}

// file is the path the dump is read from: its own, or the copy of
// standard input.
func (s *Session) file() string {
	if s.spool != "" {
		return s.spool
	}
	return s.path
}

// open opens the dump, standard input named <stdin> as when read from it.
func (s *Session) open() (*input.File, error) {
	f, err := input.Open(s.file())
	if err == nil && s.spool != "" {
		f.Name = "<stdin>"
	}
	return f, err
}

// Release hands back to the system the memory the session holds but no
// answer needs now: the pages of its index in the process's resident set
// (the page cache keeps them; a later question maps them again) and what
// the Go heap has freed. A long-lived session (serve) calls it between
// questions so that its resident memory does not keep every page any
// question touched.
func (s *Session) Release() {
	s.mu.Lock()
	x := s.index
	s.mu.Unlock()
	if x != nil && x.ix != nil {
		x.ix.Release()
	}
	debug.FreeOSMemory()
}

// stdin reports whether the session reads standard input, which has no
// index.
func (s *Session) stdin() bool { return s.path == dumpfile.Stdin }

// binary reports whether the file is a binary HPROF dump.
func (s *Session) binary() bool { return s.format.Kind == input.KindHPROF }

// noteln writes a line of notes: "hprofctl: " and the text.
func (s *Session) noteln(format string, args ...any) {
	fmt.Fprintf(s.o.Notes, "hprofctl: "+format+"\n", args...)
}

// read returns the file to read from its start: the sniffed one the
// first time, then the file opened again.
func (s *Session) read() (*input.File, error) {
	if f := s.first; f != nil {
		s.first = nil
		return f, nil
	}
	return s.open()
}

// dropFirst closes the sniffed file when a question is answered without
// it (from the index).
func (s *Session) dropFirst() {
	if s.first != nil {
		s.first.Close()
		s.first = nil
	}
}

// progress starts reporting the read of f and returns what stops it.
func (s *Session) progress(f *input.File) (stop func()) {
	if s.o.Progress == nil {
		return func() {}
	}
	return s.o.Progress(f)
}

// Heap returns the heap with its objects, from the dump's index where it
// can (building it when there is none), else read from the dump. A file
// with profiling data only gives a heap without dumps (Source.Dumps 0).
func (s *Session) Heap() (*model.Heap, error) { return s.loadHeap(true) }

// dumpHeap is Heap for the questions about a heap dump: a file that
// holds none (an agent file with profiling data only) is an error.
func (s *Session) dumpHeap(objects bool) (*model.Heap, error) {
	h, err := s.loadHeap(objects)
	switch {
	case err != nil || h.Source.Dumps > 0:
	case h.Truncated:
		err = fmt.Errorf("%s: the file was cut before its heap dump began: it holds only the records written before the heap "+
			"(strings, classes, stack traces); take or copy the dump again", h.Source.File)
	default:
		err = fmt.Errorf("%s: the file holds no heap dump, only profiling data (see sites, cpu, monitors, threads)", h.Source.File)
	}
	return h, err
}

// loadHeap returns the heap, reading it the first time: with objects,
// or without them when they are not needed (then a fresh index serves,
// else the dump is read for its classes and counters alone). --heap
// needs the objects.
func (s *Session) loadHeap(objects bool) (*model.Heap, error) {
	if err := s.notThreadDump(); err != nil {
		return nil, err
	}
	objects = objects || len(s.o.Heaps) > 0
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.heap != nil && (s.objects || !objects) {
		return s.heap, nil
	}
	h, err := s.readHeap(objects)
	if err != nil {
		return nil, err
	}
	h.Deobfuscate(s.o.Mapping)
	if _, err := h.SelectHeaps(s.o.Heaps); err != nil {
		return nil, err
	}
	s.heap = h
	return h, nil
}

// notThreadDump is the error of asking a thread dump a heap question: it
// names what the file is and the commands that read it.
func (s *Session) notThreadDump() error {
	switch s.format.Kind {
	case input.KindThreadDumpJSON:
		return fmt.Errorf("%s is a JSON thread dump (jcmd Thread.dump_to_file), which holds no heap or profile: read it with hprofctl deadlocks or hprofctl threads", s.name)
	case input.KindThreadDumpText:
		return fmt.Errorf("%s is text, neither a heap dump nor hprof agent output: if it is a thread dump (jstack, jcmd Thread.print) or a log holding one, read it with hprofctl deadlocks or hprofctl threads", s.name)
	}
	return nil
}

// readHeap reads the heap from the index, or from the dump when it is
// read without one: --no-index, a heap dump other than the last,
// standard input, a bare JVMPI buffer, or no fresh index when the
// objects are not needed.
func (s *Session) readHeap(objects bool) (*model.Heap, error) {
	if c := s.classesIndexFor(objects); c != nil {
		s.dropFirst()
		s.objects = false
		return c.heap, nil
	}
	x, err := s.openIndex(objects)
	if err != nil {
		return nil, err
	}
	if x != nil {
		s.dropFirst()
		s.index, s.objects = x, true
		return x.Heap, nil
	}
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer s.progress(f)()
	h, err := model.Load(f, model.LoadOptions{Dump: s.o.Dump, Objects: objects, JVMPI: s.o.Bare, LeanGC: true})
	if err != nil {
		return nil, err
	}
	dumpfile.Attach(h, s.file())
	s.warnTruncated(f.Name, h.Anomalies)
	s.objects = objects
	return h, nil
}

// indexOptions are where the session's index is.
func (s *Session) indexOptions() indexOptions {
	return indexOptions{Path: s.o.Index, Dir: s.o.IndexDir, Progress: s.o.Progress, Phase: s.o.Phase, Step: s.o.Step, DiskProcs: s.o.DiskProcs, Compressed: s.compression != input.Plain, Memory: s.o.Memory, Waiting: func() {
		s.noteln("waiting for another hprofctl that is indexing %s", s.path)
	}}
}

// openIndex returns the dump's index, building it when objects are wanted
// and there is none; nil (and no error) when the dump is read without one.
func (s *Session) openIndex(objects bool) (*indexed, error) {
	if s.o.NoIndex || s.o.Dump != -1 || s.o.Bare != nil || s.stdin() {
		return nil, nil
	}
	var (
		x   *indexed
		err error
	)
	if objects {
		x, err = openIndex(s.path, s.indexOptions())
	} else {
		x, err = freshIndex(s.path, s.indexOptions())
	}
	if errors.Is(err, errNotIndexable) {
		return nil, nil
	}
	if err != nil || x == nil {
		return nil, err
	}
	// An index opened for its classes first said what follows already.
	if s.classes != nil {
		x.Ignored = nil
	}
	s.indexNote(x)
	if s.classes == nil {
		s.warnTruncated(s.path, x.Heap.Anomalies)
	}
	return x, nil
}

// indexNote says what was done with the index x.
func (s *Session) indexNote(x *indexed) {
	report.IndexNotes(s.o.Notes, report.IndexNote{Dump: s.path, Index: x.Path, Built: x.Built, Took: x.Took, Rebuilt: x.Rebuilt, Unsaved: x.Unsaved, OverBudget: x.OverBudget, Ignored: x.Ignored})
}

// warnTruncated says that a dump is cut short, from its truncated
// anomaly: where the cut is and how much was read before it.
func (s *Session) warnTruncated(file string, anomalies []model.Anomaly) {
	for _, a := range anomalies {
		if a.Kind == "truncated" {
			s.noteln("warning: %s: %s: the answer covers only those", file, a.Detail)
		}
	}
}

// Retention returns the dominator tree with retained sizes, in the
// session's size mode: from the index when there is one, else built.
func (s *Session) Retention() (*graph.Retention, error) { return s.retention() }

func (s *Session) computeRetention() (*graph.Retention, error) {
	h, err := s.dumpHeap(true)
	if err != nil {
		return nil, err
	}
	if x := s.indexOf(); x != nil {
		err := x.checkRetention()
		if err == nil {
			return x.retentionIn(s.o.Size, s.o.KeepUnreachable)
		}
		s.noteln("warning: the index's dominator tree is not used, it is computed again: %v", err)
	}
	return graph.ComputeRetention(h, graph.RetentionOptions{Size: s.o.Size, KeepUnreachable: s.o.KeepUnreachable})
}

// indexOf returns the index the heap came from; nil when none.
func (s *Session) indexOf() *indexed {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.index
}

// StrongPaths returns the tree of strong shortest paths from the GC
// roots: the index's, else built.
func (s *Session) StrongPaths() (*graph.PathTree, error) { return s.strong() }

func (s *Session) computeStrongPaths() (*graph.PathTree, error) {
	h, err := s.dumpHeap(true)
	if err != nil {
		return nil, err
	}
	if x := s.indexOf(); x != nil {
		err := x.checkPaths()
		if err == nil {
			return x.paths, nil
		}
		s.noteln("warning: the index's shortest path tree is not used, it is computed again: %v", err)
	}
	return graph.StrongPaths(h), nil
}

// suspectHeaps returns the heaps whose objects leaks suspects: those
// Options.Heaps names, else every heap but those all Android apps share.
func (s *Session) suspectHeaps(h *model.Heap) (model.HeapSelection, error) {
	heaps := s.o.Heaps
	if len(heaps) == 0 {
		heaps = heap.LeakHeaps(h)
	}
	return h.SelectHeaps(heaps)
}

// readHeapLocks reads the lock state of a binary heap dump from its
// Thread objects and synchronizers; nil for any other file.
func (s *Session) readHeapLocks() (*threads.HeapLocks, error) {
	if !s.binary() {
		return nil, nil
	}
	h, err := s.Heap()
	if err != nil || !h.HasObjects {
		return nil, err
	}
	return threads.ReadHeapLocks(h)
}

// nativeSizes returns the native sizes an Android dump shows registered to
// the objects of h; nil when h lacks its objects, the dump records no
// primitive values, shows none, or cannot be read again (standard input).
func (s *Session) nativeSizes(h *model.Heap) (*heap.NativeSizes, error) {
	if h.Source.Lines > 0 || !h.HasObjects || !heap.MayHaveNative(h) {
		return nil, nil
	}
	return s.native()
}

func (s *Session) readNative() (*heap.NativeSizes, error) {
	h, err := s.Heap()
	if err != nil {
		return nil, err
	}
	n, err := heap.RegisteredNative(h)
	if err != nil {
		return nil, err
	}
	return &n, nil
}
