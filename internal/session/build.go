package session

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/bigmem"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/parser/input"
)

// buildIndex reads the dump, analyses it and writes the index; when the index
// cannot be written the analysis is still returned, with Unsaved saying
// why.
func buildIndex(path string, o indexOptions, place *store.Place, id store.Identity, why string) (*indexed, error) {
	start := time.Now()
	if o.DiskProcs {
		defer overlapDiskReads(path, o.Compressed)()
	}
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
	x := &indexed{Heap: h, Built: true, Rebuilt: why, Unsaved: "the file holds no heap dump"}
	if h.Source.Dumps > 0 {
		// What the build holds from here on is mostly large arrays
		// without pointers, which a collection marks at little cost;
		// the census of the Strings allocates its garbage a batch at a
		// time. Collecting at 10% growth keeps that garbage from piling
		// up over the 2 GiB or more the heap and its trees hold (at the
		// default 100%, the census alone added about 2 GiB of resident
		// memory on a 2.3 GB dump; at 10% the build took the same CPU
		// time as at 20% and 100%).
		defer debug.SetGCPercent(debug.SetGCPercent(buildGCPercent))
		if x, err = analyseHeap(h, place, id, phase, o.steps(), dumpPastMemory(path, o.Compressed)); err != nil {
			return nil, err
		}
		x.Rebuilt = why
		x.OverBudget = overBudget(budget, scratch)
	}
	x.Took = time.Since(start)
	return x, nil
}

// analyseHeap works out what the index of h holds and writes it into a
// new index of place, committed when whole; when it cannot be written,
// Unsaved says why.
//
// Once loaded the heap is final and four jobs only read it: writing its
// sections, the census of the Strings, the dominator tree and the
// shortest-path tree. The sections are written while the others run
// (heapWrite), so the disk and the cores work side by side. The census
// comes first, while the heap is all the build holds: its work tables
// (about 0.27 GiB at most for 13.5 M Strings, from model/bigmem, so within
// the budget) then take memory the trees reuse, where after the trees they
// added to the trees' results at the build's peak. The shortest-path tree
// (pathSearch) is searched alongside the dominator tree; with searchFirst
// (a heap past the machine's memory, pastMemory) it must be over before
// the semidominators start (see retentionPhases). step is told as each job
// ends.
func analyseHeap(h *model.Heap, place *store.Place, id store.Identity, phase, step func(string), searchFirst bool) (*indexed, error) {
	hw := startHeapWrite(h, place, id, step)
	defer hw.abort()
	phase("counting Strings")
	census := stringCensus(h)
	h.DropStringValues()
	paths := startPathSearch(h, step)
	// The collections are summed alongside the dominator tree, from its
	// immediate dominators on (sumsDuring): that phase and part of the
	// next two run on one processor, where after the trees the sums were
	// the last work of the build, on one processor too. They start once
	// the work tables of the semidominators are freed, so that their own
	// (the collections' states, 48 bytes each, within the budget) take
	// the memory those held.
	sums := newBackground[*heap.CollectionSums]()
	sumCollections := func() *heap.CollectionSums {
		s := collectionSums(h)
		step("collections summed")
		return s
	}
	// The contracted graph of `threads --retained` needs only the
	// tree's immediate dominators: it is found beside the retained
	// sizes, whose adding up runs on one processor, and the summaries
	// after them, where it came after the tree.
	edges := newBackground[*threads.ThreadEdgeList]()
	o := graph.RetentionOptions{
		Size:  indexedSize,
		Phase: retentionPhases(phase, func() { sums.start(sumCollections) }, paths, searchFirst),
		Dominated: func(idom []model.ObjectIndex) {
			edges.start(func() *threads.ThreadEdgeList { return threadEdges(h, idom, step) })
		},
	}
	r, err := graph.ComputeRetention(h, o)
	sums.start(sumCollections) // when the dominator tree had no such phase
	phase("writing the index")
	found, retainers := paths.wait()
	if err != nil {
		hw.drop()
		return nil, err
	}
	x := &indexed{Heap: h, Built: true, retention: r, paths: found.tree, strings: census}
	collections := sums.wait()
	// The scratch files of the tables freed so far go: what follows
	// makes few tables, while the index grows to its whole size.
	bigmem.DropSpare()
	// The trees and the census are written while the other summaries
	// are worked out; theirs are the last sections.
	treesWritten := make(chan error, 1)
	go func() {
		if err := hw.wait(); err != nil {
			treesWritten <- err
		} else {
			err := startWriteback(hw.w, x.writeTrees(hw.w))
			step("trees written")
			treesWritten <- err
		}
	}()
	x.summaries = summarize(h, r, step)
	x.answers = keepAnswers(h, r, found.tree, retainers, x.summaries.points)
	step("answers kept")
	x.summaries.chains, x.summaries.sums, x.summaries.edges = found.chains, collections, edges.wait()
	werr := <-treesWritten
	// The references are read from the index from here on, their table
	// freed, once the last job reading it on another goroutine, the
	// contracted graph's, is done.
	if x.unmapRefs, err = useWrittenRefs(h, <-hw.refs); err != nil {
		return nil, err
	}
	bigmem.DropSpare()
	if werr == nil {
		werr = x.commit(hw.w)
		step("index committed")
	}
	if werr != nil && hw.w != nil && hw.w.Err() != nil {
		werr = hw.w.Err() // the cause, not that error joined once per section
	}
	if werr != nil {
		x.Unsaved = werr.Error()
	}
	return x, nil
}

// searchBefore is the phase of the dominator tree (graph.ComputeRetention)
// that waits for the shortest-path search of a heap past the machine's
// memory. The semidominators write their forest at random, and the
// search's tables, read at random too, beside them take the page cache
// the forest needs: on the 32 GiB synthetic dump, 2 cores, the
// semidominators took 233.8 s and 399.4 s with the search still running
// (its goroutines capped at one, or its threads at the lowest priority,
// to leave the depth-first walk a core), against 84.6–89.9 s once it was
// over.
const searchBefore = "semidominators"

// retentionPhases returns the dominator tree's phase callback: it tells
// phase, starts the collections' sums (startSums) at sumsDuring and,
// with searchFirst, waits at searchBefore for the shortest-path search
// to be over.
func retentionPhases(phase func(string), startSums func(), paths *pathSearch, searchFirst bool) func(string) {
	return func(name string) {
		phase(name)
		if name == searchBefore && searchFirst {
			<-paths.over
		}
		if name == sumsDuring {
			startSums()
		}
	}
}

// heapWrite writes the sections of a heap into a new index on a goroutine
// of its own, then maps the references it wrote (mapWrittenRefs).
type heapWrite struct {
	w       *store.Writer // nil when the index could not be created
	created error         // why not
	done    chan error
	refs    chan *model.WrittenRefs
}

// startHeapWrite creates the index of h in place and starts writing the
// heap's sections into it, telling step when they are written.
func startHeapWrite(h *model.Heap, place *store.Place, id store.Identity, step func(string)) *heapWrite {
	hw := &heapWrite{done: make(chan error, 1), refs: make(chan *model.WrittenRefs, 1)}
	hw.w, hw.created = place.Create(id)
	if hw.created != nil {
		hw.w = nil
		hw.refs <- nil
		return hw
	}
	go func() {
		err := startWriteback(hw.w, h.WriteIndex(hw.w))
		step("heap's sections written")
		hw.refs <- mapWrittenRefs(h, hw.w, err)
		hw.done <- err
	}()
	return hw
}

// wait returns once the heap's sections are written, with the error that
// kept them from it (that of creating the index included).
func (hw *heapWrite) wait() error {
	if hw.w == nil {
		return hw.created
	}
	return <-hw.done
}

// drop waits for the writing to end and unmaps the references it mapped:
// for a build that fails.
func (hw *heapWrite) drop() {
	(<-hw.refs).Drop()
	hw.wait()
}

// abort removes the index being written unless it was committed.
func (hw *heapWrite) abort() {
	if hw.w != nil {
		hw.w.Abort()
	}
}

// pathSearch finds the shortest-path tree of a heap and its class chains
// on a goroutine of its own, then describes the paths `retainers --class`
// keeps. They are described as soon as the tree is found, while the
// dominator tree is still being worked out: in a dump the JVM gzipped,
// their labels are read from most of its members again (a pass as long as
// the dump's decompression on one processor), where the semidominators
// leave the other processor idle.
type pathSearch struct {
	found     chan pathsAndChains
	retainers chan *heap.KeptRetainers
	// over is closed once the tree is found and its paths described.
	over chan struct{}
}

// pathsAndChains are the shortest-path tree and its class chains.
type pathsAndChains struct {
	tree   *graph.PathTree
	chains *graph.ClassChains
}

// startPathSearch starts the search of h's shortest-path tree, telling
// step when it is found and when its paths are described.
func startPathSearch(h *model.Heap, step func(string)) *pathSearch {
	p := &pathSearch{found: make(chan pathsAndChains, 1), retainers: make(chan *heap.KeptRetainers, 1), over: make(chan struct{})}
	go func() {
		defer close(p.over)
		t, c := graph.StrongPathsWithChains(h)
		step("shortest-path tree found")
		p.found <- pathsAndChains{t, c}
		kept := keepRetainers(h, t, c)
		step("retainers' paths described")
		p.retainers <- kept
	}()
	return p
}

// wait returns the tree with its chains, and the kept retainers' paths.
func (p *pathSearch) wait() (pathsAndChains, *heap.KeptRetainers) {
	found := <-p.found
	return found, <-p.retainers
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

// steps returns the function that tells o.Step that a job of the build
// ended; one that does nothing when o.Step is not set.
func (o indexOptions) steps() func(string) {
	if o.Step == nil {
		return func(string) {}
	}
	return o.Step
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
