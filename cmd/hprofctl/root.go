package main

import (
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/hprofctl/hprofctl/analysis"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// globalFlags are the flags every command takes.
type globalFlags struct {
	output string
	bytes  bool
	size   string
	dump   int
	jvmpi  jvmpiFlags
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
	}
	pf := root.PersistentFlags()
	pf.StringVarP(&g.output, "output", "o", "table", "output format: table, json or csv")
	pf.BoolVar(&g.bytes, "bytes", false, "print exact byte counts in tables instead of KiB/MiB")
	pf.StringVar(&g.size, "size", "jvm", "shallow sizes: jvm (header, layout and padding, as jmap -histo) or fields (field bytes the dump records)")
	pf.IntVar(&g.dump, "dump", -1, "which dump of a file holding several — heap dumps, or thread dumps for deadlocks (from 0; -1: the last)")
	g.jvmpi.add(pf)
	root.AddCommand(newInfoCommand(g), newHistoCommand(g), newDominatorsCommand(g), newRetainersCommand(g), newLeaksCommand(g), newDeadlocksCommand(g), newSitesCommand(g), newCPUCommand(g), newThreadsCommand(g), newMonitorsCommand(g), newVersionCommand())
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

func (g *globalFlags) reportOptions() (report.Options, error) {
	f, err := report.ParseFormat(g.output)
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
// terminal.
func (g *globalFlags) load(path string, objects bool) (*model.Heap, error) {
	bare, err := g.jvmpi.options(path, os.Stderr)
	if err != nil {
		return nil, err
	}
	f, err := input.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if isTerminal(os.Stderr) {
		p := report.StartProgress(os.Stderr, "reading "+f.Name, f.Size, f.StoredOffset)
		defer p.Stop()
	}
	h, err := model.Load(f, model.LoadOptions{Dump: g.dump, Objects: objects, JVMPI: bare, LeanGC: true})
	if err != nil {
		return nil, err
	}
	warnTruncated(os.Stderr, f.Name, h.Anomalies)
	return h, nil
}

// loadHeap is load for the commands that analyse a heap: a file that
// holds no heap dump (an agent file with profiling data only) is an error.
func (g *globalFlags) loadHeap(path string, objects bool) (*model.Heap, error) {
	h, err := g.load(path, objects)
	if err == nil && h.Source.Dumps == 0 {
		err = fmt.Errorf("%s: the file holds no heap dump, only profiling data (see sites, cpu, monitors, threads)", h.Source.File)
	}
	return h, err
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
// dominator tree.
func (g *globalFlags) loadRetention(path string, size model.SizeMode, keepUnreachable bool) (*model.Heap, *analysis.Retention, error) {
	h, err := g.loadHeap(path, true)
	if err != nil {
		return nil, nil, err
	}
	r, err := analysis.ComputeRetention(h, analysis.RetentionOptions{Size: size, KeepUnreachable: keepUnreachable})
	return h, r, err
}
