package session

// A heap dump's analysis is kept in an index file beside it (model/store):
// the object graph (model.Heap), the dominator tree with retained sizes
// and the strong shortest path tree (analysis). openIndex maps a fresh
// index, or builds one from the dump when there is none, it is stale or
// damaged; later questions about the dump then read only the index.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/report"
)

// IndexContent is the version of what the index's sections hold
// (store.Identity.Content). Change it whenever a section is added, removed
// or changes meaning, so that indexes of older builds are rebuilt.
const IndexContent = 12

// buildGCPercent is the garbage collector's growth target while a build
// works on a loaded heap (debug.SetGCPercent).
const buildGCPercent = 10

// indexedSize is the size mode the retained sizes are kept in.
const indexedSize = model.SizeJVM

// residentIndex is about how much of a mapped index a session keeps in
// its resident memory (store.Index.CapResident): a question that scans
// the index holds a window of it, the page cache the rest.
const residentIndex = 64 << 20

// indexOptions choose where the index is and how a build reports
// progress.
type indexOptions struct {
	// Path is the index file to use; empty: Dir, else beside the dump,
	// else in the user's cache directory (store.Locate).
	Path string
	// Dir keeps the index in this directory under a name derived from
	// the dump's path, when Path is empty.
	Dir string
	// Progress, when set, is called with the dump as a build starts to
	// read it and returns the function that stops reporting.
	Progress func(f *input.File) (stop func())
	// Waiting, when set, is called when another process is building the
	// index and this one waits for it.
	Waiting func()
	// Phase, when set, is told each phase of a build (Options.Phase).
	Phase func(name string, before float64)
	// Memory is the build's memory budget (Options.Memory).
	Memory int64
}

// indexed is a dump's heap with its dominator tree and shortest path
// tree, mapped from an index or just built.
type indexed struct {
	Heap *model.Heap
	// Path is the index file; empty when none could be written.
	Path string
	// Built reports whether this call built the index, Took how long the
	// build or the opening took; Rebuilt says why an existing index was
	// not used ("" when there was none).
	Built   bool
	Took    time.Duration
	Rebuilt string
	// Unsaved says why a built index could not be written (the heap is
	// then analysed in memory); empty otherwise.
	Unsaved string
	// OverBudget says which tables of the build stayed on the Go heap
	// past the memory budget, no scratch file taking them; empty when
	// none did.
	OverBudget string
	// Ignored says why indexes that exist were passed over (another
	// user's, unreadable, in a place others could write).
	Ignored []string

	retention *graph.Retention
	paths     *graph.PathTree
	ix        *store.Index
	// strings is the census of the Strings of every heap; nil when the
	// index keeps none (a compressed dump).
	strings *heap.StringCensus
	// summaries are the index's answers worked out ahead (summaries.go).
	summaries *summaries
	// answers are the answers to whole questions it keeps (answers.go).
	answers *keptAnswers
	// uncap stops keeping ix's resident pages under residentIndex.
	uncap func()
	// unmapRefs, set for a heap just built, unmaps its references, read
	// from the index written (useWrittenRefs).
	unmapRefs func() error
	// vouched says vouch found the whole index sound, its trees too.
	vouched bool
}

// errNotIndexable is returned for a dump that has no index: standard
// input or another file that is not a regular one.
var errNotIndexable = store.ErrNoFile

// openIndex returns the heap of the dump at path from its index, building the
// index first when there is none or the one there cannot be used (stale,
// cut short, corrupt, of another version). The error wraps
// errNotIndexable for a dump that is no regular file.
func openIndex(path string, o indexOptions) (*indexed, error) {
	x, place, id, err := openFresh(path, o)
	if x != nil || place == nil {
		return x, err
	}
	unlock := place.LockBuild(func() {
		if o.Waiting != nil {
			o.Waiting()
		}
	})
	defer unlock()
	// Another process may have built it while this one waited.
	if x, place, id, err = openFresh(path, o); x != nil || place == nil {
		return x, err
	}
	x, err = rebuildStale(path, o, place, id, err)
	if x != nil {
		x.Ignored = ignored(place)
	}
	return x, err
}

// rebuildStale builds the index when err, why openFresh found none to
// use, asks for it.
func rebuildStale(path string, o indexOptions, place *store.Place, id store.Identity, err error) (*indexed, error) {
	var (
		se      *store.Error
		content *contentError
	)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return buildIndex(path, o, place, id, "")
	case errors.Is(err, store.ErrNotIndex) && o.Path != "":
		return nil, fmt.Errorf("--index %s: %w", o.Path, err)
	case errors.As(err, &se), errors.As(err, &content):
		return buildIndex(path, o, place, id, err.Error())
	}
	return nil, err
}

// contentError is an index whose container is whole but whose sections
// cannot be what this build wrote: it is rebuilt like a damaged one.
type contentError struct{ err error }

func (e *contentError) Error() string { return e.err.Error() }
func (e *contentError) Unwrap() error { return e.err }

// rebuildIndex builds the index of the dump at path, replacing any index
// there; why, when not empty, says what was wrong with it.
func rebuildIndex(path string, o indexOptions, why string) (*indexed, error) {
	place, id, err := locate(path, o)
	if err != nil {
		return nil, err
	}
	defer place.LockBuild(func() {
		if o.Waiting != nil {
			o.Waiting()
		}
	})()
	return buildIndex(path, o, place, id, why)
}

// freshIndex returns the heap of the dump at path from its index when a fresh
// one exists, and nil (no error) when there is none or it cannot be used:
// for commands that answer faster from the dump than by building one.
func freshIndex(path string, o indexOptions) (*indexed, error) {
	x, place, _, err := openFresh(path, o)
	if place == nil {
		return nil, err
	}
	return x, nil
}

// openFresh maps the index of the dump at path when it is fresh and whole.
// Otherwise it returns why not, with the place and identity a new index
// would have; a nil place means the dump has no index (or cannot be
// fingerprinted).
func openFresh(path string, o indexOptions) (*indexed, *store.Place, store.Identity, error) {
	start := time.Now()
	place, id, err := locate(path, o)
	if err != nil {
		return nil, nil, id, err
	}
	ix, err := place.Open(id)
	if err != nil {
		return nil, place, id, err
	}
	x, err := fromIndex(ix, path)
	if err != nil {
		ix.Close()
		if se := (*store.Error)(nil); !errors.As(err, &se) {
			err = fmt.Errorf("%s: %w", ix.Path(), err) // name the file
		}
		return nil, place, id, &contentError{err}
	}
	x.Took = time.Since(start)
	x.Ignored = ignored(place)
	return x, place, id, nil
}

// ignored says why place's last Open passed over indexes that exist.
func ignored(place *store.Place) []string {
	var out []string
	for _, err := range place.Ignored() {
		out = append(out, err.Error())
	}
	return out
}

// locate finds where the index of the dump at path is, and the identity
// it must have.
func locate(path string, o indexOptions) (*store.Place, store.Identity, error) {
	var (
		place *store.Place
		err   error
	)
	switch {
	case o.Path != "":
		place, err = store.Locate(path, o.Path)
	case o.Dir != "":
		place, err = store.LocateIn(path, o.Dir)
	default:
		place, err = store.Locate(path, "")
	}
	if err != nil {
		return nil, store.Identity{}, err
	}
	fp, err := store.FingerprintFile(path)
	if err != nil {
		return nil, store.Identity{}, err
	}
	return place, store.Identity{Content: IndexContent, Dump: fp}, nil
}

// fromIndex reads the heap and the trees from an open index.
func fromIndex(ix *store.Index, path string) (*indexed, error) {
	h, err := model.ReadIndex(ix)
	if err != nil {
		return nil, err
	}
	h.Source.File = path
	dumpfile.Attach(h, path)
	r, t, err := graph.ReadIndex(ix, h)
	if err != nil {
		return nil, err
	}
	census, err := heap.ReadStringIndex(ix, h)
	if err != nil {
		return nil, err
	}
	if err := checkSummarySections(ix); err != nil {
		return nil, err
	}
	return &indexed{Heap: h, Path: ix.Path(), retention: r, paths: t, strings: census, summaries: &summaries{}, answers: &keptAnswers{ix: ix, objects: h.NumObjects()}, ix: ix, uncap: ix.CapResident(residentIndex)}, nil
}

// buildIndex reads the dump, analyses it and writes the index; when the index
// cannot be written the analysis is still returned, with Unsaved saying
// why.
func buildIndex(path string, o indexOptions, place *store.Place, id store.Identity, why string) (*indexed, error) {
	start := time.Now()
	budget := o.Memory
	if budget == 0 {
		budget = bigmem.DefaultBudget(regularFileSize(path))
	}
	scratch := scratchDir(place)
	defer bigmem.SetBudget(budget, scratch)()
	// The Go heap's free pages go back to the system whenever the
	// process's own memory passes the budget.
	defer bigmem.BoundResident(budget)()
	phase := relievedPhases(o.phases(), budget)
	defer phase("")
	h, stop, err := loadForIndex(path, o, phase)
	defer stop()
	if err != nil {
		return nil, err
	}
	if h.Source.Dumps == 0 {
		return &indexed{Heap: h, Built: true, Took: time.Since(start), Rebuilt: why, Unsaved: "the file holds no heap dump"}, nil
	}
	// What the build holds from here on is mostly large arrays without
	// pointers, which a collection marks at little cost; the census of
	// the Strings allocates its garbage a batch at a time. Collecting at
	// 10% growth keeps that garbage from piling up over the 2 GiB or
	// more the heap and its trees hold (at the default 100%, the census
	// alone added about 2 GiB of resident memory on a 2.3 GB dump; at
	// 10% the build took the same CPU time as at 20% and 100%).
	defer debug.SetGCPercent(debug.SetGCPercent(buildGCPercent))
	// Once loaded the heap is final and four jobs only read it: writing
	// its sections, the census of the Strings, the dominator tree and the
	// shortest-path tree. The sections are written while the others run,
	// so the disk and the cores work side by side. The census comes
	// first, while the heap is all the build holds: its work tables
	// (about 0.27 GiB at most for 13.5 M Strings, from model/bigmem, so
	// within the budget) then take memory the trees reuse, where after
	// the trees they added to the trees' results at the build's peak.
	w, werr := place.Create(id)
	heapWritten := make(chan error, 1)
	refsWritten := make(chan *model.WrittenRefs, 1)
	if werr == nil {
		defer w.Abort()
		go func() {
			err := startWriteback(w, h.WriteIndex(w))
			refsWritten <- mapWrittenRefs(h, w, err)
			heapWritten <- err
		}()
	} else {
		refsWritten <- nil
	}
	phase("counting Strings")
	census := stringCensus(h)
	h.DropStringValues()
	// The shortest-path tree numbers the class chains as it finds its
	// levels, alongside the dominator tree. The collections are summed
	// alongside too, from its immediate dominators on (sumsDuring): that
	// phase and part of the next two run on one processor, where after
	// the trees the sums were the last work of the build, on one
	// processor too. They start once the work tables of the
	// semidominators are freed, so that their own (the collections'
	// states, 48 bytes each, within the budget) take the memory those
	// held.
	type pathsAndChains struct {
		tree   *graph.PathTree
		chains *graph.ClassChains
	}
	// The paths `retainers --class` keeps are described as soon as the
	// shortest-path tree is found, while the dominator tree is still
	// being worked out: in a dump the JVM gzipped, their labels are read
	// from most of its members again (a pass as long as the dump's
	// decompression on one processor), where the semidominators leave
	// the other processor idle.
	pathsDone := make(chan pathsAndChains, 1)
	retainersDone := make(chan *heap.KeptRetainers, 1)
	go func() {
		t, c := graph.StrongPathsWithChains(h)
		pathsDone <- pathsAndChains{t, c}
		retainersDone <- keepRetainers(h, t, c)
	}()
	sums := newBackgroundSums(h)
	retentionPhase := func(name string) {
		phase(name)
		if name == sumsDuring {
			sums.start()
		}
	}
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: indexedSize, Phase: retentionPhase})
	sums.start() // when the dominator tree had no such phase
	phase("writing the index")
	found := <-pathsDone
	retainers := <-retainersDone
	if err != nil {
		(<-refsWritten).Drop()
		if werr == nil {
			<-heapWritten
		}
		return nil, err
	}
	x := &indexed{Heap: h, Built: true, Rebuilt: why, retention: r, paths: found.tree, strings: census}
	// The references are read from the index from here on, their table
	// freed, once the collections' sums, the last job reading it on
	// another goroutine, are done. The scratch files of the tables freed
	// so far go too: what follows makes few tables, while the index
	// grows to its whole size.
	collections := sums.wait()
	if x.unmapRefs, err = useWrittenRefs(h, <-refsWritten); err != nil {
		return nil, err
	}
	bigmem.DropSpare()
	// The trees and the census are written while the other summaries
	// are worked out; theirs are the last sections.
	treesWritten := make(chan error, 1)
	go func(werr error) {
		if werr != nil {
			treesWritten <- werr
		} else if err := <-heapWritten; err != nil {
			treesWritten <- err
		} else {
			treesWritten <- startWriteback(w, x.writeTrees(w))
		}
	}(werr)
	x.summaries = summarize(h, r)
	x.answers = keepAnswers(h, r, found.tree, retainers, x.summaries.points)
	x.summaries.chains, x.summaries.sums = found.chains, collections
	if werr = <-treesWritten; werr == nil {
		werr = x.commit(w)
	}
	if werr != nil && w != nil && w.Err() != nil {
		werr = w.Err() // the cause, not that error joined once per section
	}
	if werr != nil {
		x.Unsaved = werr.Error()
	}
	x.OverBudget = overBudget(budget, scratch)
	x.Took = time.Since(start)
	return x, nil
}

// overBudget says which of the tables of the build just done stayed on
// the Go heap past budget because no scratch file in dir could take them
// (bigmem.Spilled), and what to do about it; "" when none did.
func overBudget(budget int64, dir string) string {
	bytes, why := bigmem.Spilled()
	if bytes == 0 {
		return ""
	}
	if dir == "" {
		dir = os.TempDir()
	}
	return fmt.Sprintf("tables of %s in all stayed in memory past --memory %s: no scratch file in %s took them (%v); free disk space there, give --index-dir on a disk with room, or a larger --memory",
		humanize.IBytes(uint64(bytes)), humanize.IBytes(uint64(budget)), dir, why)
}

// startWriteback starts writing what w holds to disk (Writer.StartWriteback)
// once a bulk of sections is written without an error (err), while the
// build goes on, so that the sync that commits the index waits less. It
// returns the first error.
func startWriteback(w *store.Writer, err error) error {
	if err != nil {
		return err
	}
	return w.StartWriteback()
}

// relievedPhases returns phase, which first settles the resident memory
// (bigmem.Settle) at each new phase: the tables and work arrays the phase
// before used are done with, and their pages need not wait for the next
// check nor the collector.
func relievedPhases(phase func(string), budget int64) func(string) {
	return func(name string) {
		bigmem.Settle(budget)
		phase(name)
	}
}

// stringCensus is the census of the Strings of every heap of h, for the
// index, from the Strings' values the load took (loadForIndex) where it
// took them: nil for a compressed dump (reading its Strings again would
// inflate it all once more; the question does it when asked) or one whose
// values cannot be read (then the question says why).
func stringCensus(h *model.Heap) *heap.StringCensus {
	if h.Source.Compression != string(input.Plain) || h.Source.Lines > 0 {
		return nil
	}
	c, err := heap.CountStrings(h, model.HeapSelection{})
	if err != nil {
		return nil
	}
	return &c
}

// regularFileSize is the size of the regular file at path, 0 for anything
// else (standard input, a pipe) or when it cannot be told.
func regularFileSize(path string) int64 {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return st.Size()
	}
	return 0
}

// scratchDir is where a build's scratch files go: the directory of the
// first place its index may be written that exists ("" when none does:
// the system's temporary directory).
func scratchDir(place *store.Place) string {
	for _, p := range place.Paths() {
		if st, err := os.Stat(filepath.Dir(p)); err == nil && st.IsDir() {
			return filepath.Dir(p)
		}
	}
	return ""
}

// loadForIndex reads the heap of the dump at path with its objects and
// the Strings' values (model.LoadOptions.StringValues), which the census
// of the Strings takes, then drops. The
// progress display it starts lasts until stop, which is never nil: the
// rest of the build shows on it.
func loadForIndex(path string, o indexOptions, phase func(string)) (h *model.Heap, stop func(), err error) {
	stop = func() {}
	f, err := input.Open(path)
	if err != nil {
		return nil, stop, err
	}
	defer f.Close()
	if o.Progress != nil {
		stop = o.Progress(f)
	}
	phase("reading")
	h, err = model.Load(f, model.LoadOptions{Dump: -1, Objects: true, LeanGC: true, Phase: phase, StringValues: true})
	if err != nil {
		return nil, stop, err
	}
	dumpfile.Attach(h, path)
	return h, stop, nil
}

// BuildPhases are the phases of an index build in their order, each with
// the share of the build's time it took on the real 2.3 GB dump of
// ../shared/bench/make-bigdump.sh, which a progress display turns into an estimate of
// the time left.
var BuildPhases = []struct {
	Name  string
	Share float64
}{
	{"reading", 0.26},
	{"sorting objects", 0.05},
	{"resolving references", 0.05},
	{"counting Strings", 0.05},
	{"depth-first search", 0.22},
	{"predecessors", 0.13},
	{"semidominators", 0.05},
	{"immediate dominators", 0.01},
	{"leaves", 0.02},
	{"retained sizes", 0.10},
	{"writing the index", 0.06},
}

// phases returns the function that tells o.Phase each phase of a build
// with the share of the time the phases before it take; nothing when
// o.Phase is nil.
func (o indexOptions) phases() func(string) {
	if o.Phase == nil {
		return func(string) {}
	}
	return func(name string) {
		before := 0.0
		for _, p := range BuildPhases {
			if p.Name == name {
				break
			}
			before += p.Share
		}
		o.Phase(name, min(before, 1))
	}
}

// writeTrees writes the trees and the census of the Strings into w,
// after the heap's sections.
func (x *indexed) writeTrees(w *store.Writer) error {
	if err := graph.WriteIndex(w, x.retention, x.paths); err != nil {
		return err
	}
	if x.strings != nil {
		return heap.WriteStringIndex(w, x.strings)
	}
	return nil
}

// commit writes the summaries of x into the index w after its trees
// (writeTrees), and makes the index whole.
func (x *indexed) commit(w *store.Writer) error {
	if err := x.summaries.write(w); err != nil {
		return err
	}
	if err := x.answers.write(w); err != nil {
		return err
	}
	w.Vouch() // every section is this build's own
	if err := w.Commit(); err != nil {
		return err
	}
	x.Path = w.Path()
	return nil
}

// vouch checks the whole of an index this user's hprofctl did not build,
// or that changed since it did: every section, the dominator and path
// trees' chains (what the heap's readers check was checked as it opened).
// When all are sound, it enters the index into the ledger
// (store.Index.Vouch), so that later questions take it without checks.
func (x *indexed) vouch() error {
	if err := errors.Join(x.checkRetention(), x.checkPaths()); err != nil {
		return err
	}
	if err := x.ix.Vouch(); err != nil {
		return err
	}
	x.vouched = true
	return nil
}

// checked reports whether the trees read from the index need no check
// before use: this user's hprofctl wrote the index, unchanged since, or
// vouch checked it whole.
func (x *indexed) checked() bool { return x.ix.Written() || x.vouched }

// checkRetention checks, before its first use, the dominator tree read
// from the index: that its counts add up and its chains end
// (graph.Retention.CheckIndexed). A tree just built needs no check, nor
// one from an index this user's hprofctl wrote, unchanged since
// (store.Index.Written), or one vouch checked.
func (x *indexed) checkRetention() error {
	if x.ix == nil || x.checked() || x.retention == nil {
		return nil
	}
	if err := x.retention.CheckIndexed(); err != nil {
		return fmt.Errorf("%s: %w", x.Path, err)
	}
	return nil
}

// checkPaths checks, before its first use, the shortest path tree read
// from the index: that its chains end (graph.PathTree.CheckIndexed),
// unless the index is one this user's hprofctl wrote, unchanged since, or
// one vouch checked.
func (x *indexed) checkPaths() error {
	if x.ix == nil || x.checked() || x.paths == nil {
		return nil
	}
	if err := x.paths.CheckIndexed(); err != nil {
		return fmt.Errorf("%s: %w", x.Path, err)
	}
	return nil
}

// retentionIn returns the dominator tree with retained sizes in size mode;
// with keepUnreachable (which the index does not keep) it is built again
// from the heap, without reading the dump.
func (x *indexed) retentionIn(size model.SizeMode, keepUnreachable bool) (*graph.Retention, error) {
	if x.retention == nil {
		return nil, errors.New("the file holds no heap dump")
	}
	if keepUnreachable && x.retention.Unreachable > 0 {
		return graph.ComputeRetention(x.Heap, graph.RetentionOptions{Size: size, KeepUnreachable: true})
	}
	return x.retention.InSize(size), nil
}

// close unmaps the index; the Heap and trees must not be used after it.
func (x *indexed) close() error {
	var err error
	if x.unmapRefs != nil {
		err, x.unmapRefs = x.unmapRefs(), nil
	}
	if x.ix == nil {
		return err
	}
	x.uncap()
	return errors.Join(err, x.ix.Close())
}

// mapWrittenRefs maps the references the heap's sections wrote into w
// (model.Heap.MapWrittenRefs), on the goroutine that wrote them; nil
// when writing failed or they cannot be mapped: the build then keeps its
// own table.
func mapWrittenRefs(h *model.Heap, w *store.Writer, written error) *model.WrittenRefs {
	if written != nil {
		return nil
	}
	refs, err := h.MapWrittenRefs(w)
	if err != nil {
		return nil
	}
	return refs
}

// useWrittenRefs puts refs, when mapped, in place of h's table of
// references and returns what unmaps them.
func useWrittenRefs(h *model.Heap, refs *model.WrittenRefs) (func() error, error) {
	if refs == nil {
		return nil, nil
	}
	return h.UseWrittenRefs(refs)
}

// BuildIndex makes sure the dump has a fresh index, building it when it
// has none or rebuild is set, and sums up the index.
func (s *Session) BuildIndex(rebuild bool) (report.IndexSummary, error) {
	if s.stdin() {
		return report.IndexSummary{}, errors.New("standard input has no index: give the dump's file")
	}
	build := openIndex
	if rebuild {
		build = func(path string, o indexOptions) (*indexed, error) { return rebuildIndex(path, o, "") }
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropFirst()
	x, err := build(s.path, s.indexOptions())
	if err != nil {
		return report.IndexSummary{}, err
	}
	checked := false
	if x.ix != nil && !x.Built && !x.ix.Written() {
		if err := x.vouch(); err != nil {
			x.close()
			if x, err = rebuildIndex(s.path, s.indexOptions(), err.Error()); err != nil {
				return report.IndexSummary{}, err
			}
		} else {
			checked = true
		}
	}
	if x.Unsaved != "" {
		report.BudgetNote(s.o.Notes, x.OverBudget)
		return report.IndexSummary{}, fmt.Errorf("the index of %s was not written: %s", s.path, x.Unsaved)
	}
	if s.index != nil {
		s.index.close()
	}
	x.Heap.Deobfuscate(s.o.Mapping)
	s.index, s.heap, s.objects = x, x.Heap, true
	s.indexNote(x)
	sum := report.IndexSummary{
		Dump: s.path, Index: x.Path, Built: x.Built, Seconds: x.Took.Seconds(),
		Objects: int64(x.Heap.NumObjects()), References: int64(x.Heap.NumRefs()),
		Classes: int64(len(x.Heap.Classes)), Unsaved: x.Unsaved, Checked: checked,
	}
	if st, err := os.Stat(s.path); err == nil {
		sum.DumpBytes = st.Size()
	}
	if st, err := os.Stat(x.Path); x.Path != "" && err == nil {
		sum.IndexBytes = st.Size()
	}
	return sum, nil
}

// CachedIndexes lists the indexes in dir (empty: the user's cache
// directory, where the indexes of dumps in directories that could not
// hold them go) with what became of their dumps; with prune it removes
// those of this user that serve no dump (stale, dump gone, no record of
// it, of another version, unusable, abandoned by a killed build).
func CachedIndexes(dir string, prune bool) (report.IndexList, error) {
	if dir == "" {
		cache, err := store.CacheDir()
		if err != nil {
			return report.IndexList{}, err
		}
		dir = cache
	}
	out := report.IndexList{Dir: dir}
	listed, err := store.List(dir, IndexContent)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	removed := map[string]bool{}
	if prune {
		gone, err := store.Prune(listed)
		for _, l := range gone {
			removed[l.Path] = true
		}
		if err != nil {
			return out, err
		}
	}
	for _, l := range listed {
		out.Indexes = append(out.Indexes, report.CachedIndex{
			Index: l.Path, Dump: l.Dump, Bytes: l.Bytes, Modified: l.Modified,
			State: string(l.State), Detail: l.Detail, Removed: removed[l.Path],
		})
	}
	return out, nil
}
