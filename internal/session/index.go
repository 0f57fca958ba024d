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
	"time"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/model"
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
	// Step, when set, is told as each job of a build ends (Options.Step).
	Step func(name string)
	// DiskProcs lets a big build raise GOMAXPROCS (Options.DiskProcs).
	DiskProcs bool
	// Compressed says the dump file is compressed (its size understates
	// what the build reads).
	Compressed bool
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
	if x.ix != nil && !x.Built && !x.ix.Written() {
		if err := x.vouch(); err != nil {
			x.close()
			if x, err = rebuildIndex(s.path, s.indexOptions(), err.Error()); err != nil {
				return report.IndexSummary{}, err
			}
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
		Classes: int64(len(x.Heap.Classes)), Unsaved: x.Unsaved, Checked: x.vouched,
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
