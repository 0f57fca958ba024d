package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/internal/heapindex"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// globalFlags are the flags every command takes.
type globalFlags struct {
	output   string
	bytes    bool
	size     string
	dump     int
	jvmpi    jvmpiFlags
	noIndex  bool
	index    string
	indexDir string
	mapping  mappingFlag
	// heaps are the Android heaps --heap selects; none selects all.
	heaps []string
	// stderr is where notes and warnings go; opened holds the indexes
	// the command mapped, closed after it.
	stderr io.Writer
	opened []*heapindex.Indexed
}

func newRootCommand() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "hprofctl",
		Short: "Analyze Java heap dumps: histograms, retention, allocation sites, deadlocks",
		Long: `hprofctl reads Java heap dumps (HPROF binary from jcmd, jmap,
-XX:+HeapDumpOnOutOfMemoryError, the hprof agent and Android; plain, gzip or
bzip2), the hprof agent's ASCII output (java.hprof.txt), JVMPI heap, object
and monitor dumps, and thread dumps (jstack, jcmd Thread.print, JDK 21+ JSON),
and answers the post-mortem questions: what fills the heap, what keeps it
alive, where it was allocated, which threads are stuck.

Every command prints a table for people, or JSON / CSV for scripts (-o).`,
		Example: `  hprofctl info java_pid1234.hprof
  hprofctl histo --top 20 heap.hprof.gz
  hprofctl histo -o json heap.hprof | jq '.[0]'`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			g.stderr = cmd.ErrOrStderr()
		},
		PersistentPostRunE: func(*cobra.Command, []string) error { return g.closeIndexes() },
	}
	pf := root.PersistentFlags()
	pf.StringVarP(&g.output, "output", "o", "table", "output format: table, json or csv")
	pf.BoolVar(&g.bytes, "bytes", false, "print exact byte counts in tables instead of KiB/MiB")
	pf.StringVar(&g.size, "size", "jvm", "shallow sizes: jvm (header, layout and padding, as jmap -histo) or fields (field bytes the dump records)")
	pf.IntVar(&g.dump, "dump", -1, "which dump of a file holding several — heap dumps, or thread dumps for deadlocks (from 0; -1: the last)")
	g.jvmpi.add(pf)
	pf.BoolVar(&g.noIndex, "no-index", false, "read the dump itself: neither use nor build its index")
	pf.StringVar(&g.index, "index", "", "the dump's index file (default: beside the dump as DUMP"+store.Suffix+", else in the user cache directory)")
	pf.StringArrayVar(&g.heaps, "heap", nil, "only objects of this Android heap (app, zygote, image ...; repeatable; default: all): what is counted, listed and suspected, while retention stays whole-graph")
	pf.StringVar(&g.indexDir, "index-dir", os.Getenv("HPROFCTL_INDEX_DIR"), "keep indexes in this directory (default $HPROFCTL_INDEX_DIR)")
	pf.StringVar(&g.mapping.path, "mapping", "", "ProGuard/R8 mapping file: show the original names of obfuscated classes, fields and stack frames")
	root.AddCommand(newInfoCommand(g), newIndexCommand(g), newHistoCommand(g), newDominatorsCommand(g), newRetainersCommand(g), newShowCommand(g), newStringsCommand(g), newCollectionsCommand(g), newLeaksCommand(g), newDiffCommand(g), newTopCommand(g), newDeadlocksCommand(g), newSitesCommand(g), newCPUCommand(g), newThreadsCommand(g), newMonitorsCommand(g), newReportCommand(g), newServeCommand(g), newQueryCommand(g), newRedactCommand(), newVersionCommand())
	return root
}

// options checks the output and size flags every heap command takes.
func (g *globalFlags) options() (report.Options, model.SizeMode, error) {
	opt, err := g.reportOptions()
	if err != nil {
		return opt, 0, err
	}
	size, err := g.sizeMode()
	return opt, size, err
}

// regexpFlag compiles the regular expression given to --flag; nil when
// the flag was not given.
func regexpFlag(flag, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	return re, nil
}

// reportOptions are the report options of the global flags; also are the
// output formats a command offers beyond table, json and csv.
func (g *globalFlags) reportOptions(also ...report.Format) (report.Options, error) {
	f, err := report.ParseFormat(g.output, also...)
	return report.Options{Format: f, ExactBytes: g.bytes}, err
}

func (g *globalFlags) sizeMode() (model.SizeMode, error) {
	switch g.size {
	case "jvm":
		return model.SizeJVM, nil
	case "fields":
		return model.SizeFields, nil
	}
	return 0, fmt.Errorf("unknown --size %q: expected jvm or fields", g.size)
}

// load reads a heap dump, drawing a progress bar on stderr when it is a
// terminal: from its index when it has a fresh one (with objects: building
// it when it has none), else from the dump itself.
func (g *globalFlags) load(path string, objects bool) (*model.Heap, error) {
	h, _, err := g.open(path, objects)
	return h, err
}

// open is load that also returns the index the heap came from, nil when
// it was read from the dump.
func (g *globalFlags) open(path string, objects bool) (*model.Heap, *heapindex.Indexed, error) {
	return g.openDump(path, g.dump, objects)
}

// openDump is open for heap dump number dump of the file (-1: the last)
// whatever --dump says.
func (g *globalFlags) openDump(path string, dump int, objects bool) (*model.Heap, *heapindex.Indexed, error) {
	h, x, err := g.readDump(path, dump, objects || len(g.heaps) > 0)
	if err == nil {
		_, err = g.selectHeaps(h)
	}
	return h, x, err
}

// selectHeaps returns the heaps of h that --heap selects: all of them
// when it was not given, an error naming the heaps h has when it names
// another.
func (g *globalFlags) selectHeaps(h *model.Heap) (model.HeapSelection, error) {
	return h.SelectHeaps(g.heaps)
}

// suspectHeaps returns the heaps of h whose objects leaks suspects: those
// --heap selects, else every heap but those all Android apps share.
func (g *globalFlags) suspectHeaps(h *model.Heap) (model.HeapSelection, error) {
	heaps := g.heaps
	if len(heaps) == 0 {
		heaps = heap.LeakHeaps(h)
	}
	return h.SelectHeaps(heaps)
}

// readDump is openDump without the check of --heap.
func (g *globalFlags) readDump(path string, dump int, objects bool) (*model.Heap, *heapindex.Indexed, error) {
	m, err := g.mapping.read()
	if err != nil {
		return nil, nil, err
	}
	x, err := g.openIndex(path, dump, objects)
	if err != nil {
		return nil, nil, err
	}
	if x != nil {
		x.Heap.Deobfuscate(m)
		return x.Heap, x, nil
	}
	bare, err := g.jvmpi.options(path, g.stderr)
	if err != nil {
		return nil, nil, err
	}
	f, err := input.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	defer g.progress(f)()
	h, err := model.Load(f, model.LoadOptions{Dump: dump, Objects: objects, JVMPI: bare, LeanGC: true})
	if err != nil {
		return nil, nil, err
	}
	dumpfile.Attach(h, path)
	warnTruncated(g.stderr, f.Name, h.Anomalies)
	h.Deobfuscate(m)
	return h, nil, nil
}

// openIndex returns the dump's heap from its index, building the index
// when objects are wanted and it has none; nil (and no error) when the
// dump is read without one: --no-index, a heap dump other than the last,
// standard input, a bare JVMPI buffer, or no fresh index for a command
// that needs no objects.
func (g *globalFlags) openIndex(path string, dump int, objects bool) (*heapindex.Indexed, error) {
	if g.noIndex || dump != -1 || g.jvmpi.kind != "" || path == "-" {
		return nil, nil
	}
	o := heapindex.Options{Path: g.index, Dir: g.indexDir, Progress: g.progress}
	var (
		x   *heapindex.Indexed
		err error
	)
	if objects {
		x, err = heapindex.Open(path, o)
	} else {
		x, err = heapindex.Fresh(path, o)
	}
	if errors.Is(err, heapindex.ErrNotIndexable) {
		return nil, nil
	}
	if err != nil || x == nil {
		return nil, err
	}
	g.opened = append(g.opened, x)
	report.IndexNotes(g.stderr, indexNote(path, x))
	warnTruncated(g.stderr, path, x.Heap.Anomalies)
	return x, nil
}

// progress draws a progress bar of reading f on stderr when it is a
// terminal, and returns the function that stops it.
func (g *globalFlags) progress(f *input.File) (stop func()) {
	if !isTerminal(os.Stderr) {
		return func() {}
	}
	return report.StartProgress(os.Stderr, "reading "+f.Name, f.Size, f.StoredOffset).Stop
}

// closeIndexes unmaps the indexes the command opened.
func (g *globalFlags) closeIndexes() error {
	var errs []error
	for _, x := range g.opened {
		errs = append(errs, x.Close())
	}
	g.opened = nil
	return errors.Join(errs...)
}

// loadHeap is load for the commands that analyse a heap: a file that
// holds no heap dump (an agent file with profiling data only) is an error.
func (g *globalFlags) loadHeap(path string, objects bool) (*model.Heap, error) {
	h, _, err := g.openHeap(path, objects)
	return h, err
}

// openHeap is loadHeap that also returns the index the heap came from.
func (g *globalFlags) openHeap(path string, objects bool) (*model.Heap, *heapindex.Indexed, error) {
	h, x, err := g.open(path, objects)
	if err == nil && h.Source.Dumps == 0 {
		err = fmt.Errorf("%s: the file holds no heap dump, only profiling data (see sites, cpu, monitors, threads)", h.Source.File)
	}
	return h, x, err
}

// warnTruncated says on w that a dump is cut short, from its truncated
// anomaly: where the cut is and how much was read before it.
func warnTruncated(w io.Writer, file string, anomalies []model.Anomaly) {
	for _, a := range anomalies {
		if a.Kind == "truncated" {
			fmt.Fprintf(w, "hprofctl: warning: %s: %s: the answer covers only those\n", file, a.Detail)
		}
	}
}

// isTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one too).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// loadRetention loads a heap dump with its objects and builds its
// dominator tree; from an index it also returns the strong shortest path
// tree kept there (nil otherwise: the analyses compute it).
func (g *globalFlags) loadRetention(path string, size model.SizeMode, keepUnreachable bool) (*model.Heap, *graph.Retention, *graph.PathTree, error) {
	h, x, err := g.openHeap(path, true)
	if err != nil {
		return nil, nil, nil, err
	}
	return retentionOf(h, x, size, keepUnreachable)
}

// retentionOf is the dominator tree of heap h: from its index x when it
// has one (with the strong shortest path tree kept there), else computed.
func retentionOf(h *model.Heap, x *heapindex.Indexed, size model.SizeMode, keepUnreachable bool) (*model.Heap, *graph.Retention, *graph.PathTree, error) {
	if x != nil {
		r, err := x.Retention(size, keepUnreachable)
		return h, r, x.StrongPaths(), err
	}
	r, err := graph.ComputeRetention(h, graph.RetentionOptions{Size: size, KeepUnreachable: keepUnreachable})
	return h, r, nil, err
}

// indexNote is what the command says about the index x of the dump at
// path.
func indexNote(path string, x *heapindex.Indexed) report.IndexNote {
	return report.IndexNote{Dump: path, Index: x.Path, Built: x.Built, Took: x.Took, Rebuilt: x.Rebuilt, Unsaved: x.Unsaved}
}
