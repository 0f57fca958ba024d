package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/hprofctl/hprofctl/internal/session"
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
	wide     bool
	size     string
	dump     int
	jvmpi    jvmpiFlags
	noIndex  bool
	index    string
	indexDir string
	mapping  mappingFlag
	// heaps are the Android heaps --heap selects; none selects all.
	heaps []string
	// stderr is where notes and warnings go; opened holds the sessions
	// the command opened, closed after it.
	stderr io.Writer
	opened []*session.Session
	// build shows the phases of an index build.
	build buildDisplay
	// memory is --memory as given ("": the default).
	memory string
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

Given a file and no command, it triages the file: what it is, what is wrong
in it (the thread that threw an OutOfMemoryError, leak suspects, what no GC
root reaches, the deadlock verdict, a cut) and the commands to run next.

Every command prints a table for people, or JSON / CSV for scripts (-o).`,
		Example: `  hprofctl java_pid1234.hprof
  hprofctl leaks java_pid1234.hprof
  hprofctl deadlocks --exit-code threads.txt
  hprofctl -o json heap.hprof.gz | jq '.findings'`,
		Args:          triageArgs,
		RunE:          func(cmd *cobra.Command, args []string) error { return runTriage(cmd, g, args) },
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			g.stderr = cmd.ErrOrStderr()
			if os.Getenv(buildTraceEnv) != "" {
				g.build.trace = g.stderr
			}
			return checkCounts(cmd)
		},
		Version:            versionString(),
		PersistentPostRunE: func(*cobra.Command, []string) error { return g.closeSessions() },
	}
	pf := root.PersistentFlags()
	pf.StringVarP(&g.output, "output", "o", "table", "output format: table, json or csv")
	pf.BoolVar(&g.bytes, "bytes", false, "print exact byte counts in tables instead of KiB/MiB")
	pf.BoolVar(&g.wide, "wide", false, "print tables whole: do not fit them to the terminal's width by cutting long names in the middle")
	pf.StringVar(&g.size, "size", "jvm", "shallow sizes: jvm (header, layout and padding, as jmap -histo) or fields (field bytes the dump records)")
	pf.IntVar(&g.dump, "dump", -1, "which dump of a file holding several — heap dumps, or thread dumps for deadlocks (from 0; -1: the last)")
	g.jvmpi.add(pf)
	pf.BoolVar(&g.noIndex, "no-index", false, "read the dump itself: neither use nor build its index")
	pf.StringVar(&g.index, "index", "", "the dump's index file (default: beside the dump as DUMP"+store.Suffix+", else in the user cache directory)")
	pf.StringArrayVar(&g.heaps, "heap", nil, "only objects of this Android heap (app, zygote, image ...; repeatable; default: all): what is counted, listed and suspected, while retention stays whole-graph")
	pf.StringVar(&g.indexDir, "index-dir", os.Getenv("HPROFCTL_INDEX_DIR"), "keep indexes in this directory (default $HPROFCTL_INDEX_DIR)")
	pf.StringVar(&g.memory, "memory", "", "memory budget of an index build, e.g. 2GiB (default: a third of the dump file, at most an eighth of the machine's memory): the process's own memory, which its Go heap fills with the per-object tables (ids, classes, references, the dominator computation's arrays, retained sizes) up to the budget; past it they are mapped from scratch files beside the index, removed when the build ends, whose pages are page cache: the kernel writes them to disk and takes them back when it needs the memory")
	pf.StringVar(&g.mapping.path, "mapping", "", "ProGuard/R8 mapping file: show the original names of obfuscated classes, fields and stack frames")
	root.AddCommand(newInfoCommand(g), newIndexCommand(g), newHistoCommand(g), newDominatorsCommand(g), newRetainersCommand(g), newShowCommand(g), newStringsCommand(g), newCollectionsCommand(g), newLeaksCommand(g), newDiffCommand(g), newTopCommand(g), newDeadlocksCommand(g), newSitesCommand(g), newCPUCommand(g), newThreadsCommand(g), newMonitorsCommand(g), newReportCommand(g), newServeCommand(g), newMCPCommand(g), newQueryCommand(g), newRedactCommand(), newVersionCommand())
	root.SetVersionTemplate("hprofctl {{.Version}}\n")
	wordErrors(root)
	g.closeOnError(root)
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
	return report.Options{Format: f, ExactBytes: g.bytes, Width: g.tableWidth()}, err
}

// tableWidth is the width tables fit in: the terminal's, when standard
// output is one and --wide is not given; else 0, whole tables.
func (g *globalFlags) tableWidth() int {
	if g.wide || !isTerminal(os.Stdout) {
		return 0
	}
	w, _, err := term.GetSize(int(os.Stdout.Fd()))
	if err != nil {
		return 0
	}
	return w
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

// open opens the file at path as the global flags say, adjusted by each
// of adjust; the session is closed after the command.
func (g *globalFlags) open(path string, adjust ...func(*session.Options)) (*session.Session, error) {
	size, err := g.sizeMode()
	if err != nil {
		return nil, err
	}
	m, err := g.mapping.read()
	if err != nil {
		return nil, err
	}
	bare, err := g.jvmpi.options(path, g.stderr)
	if err != nil {
		return nil, err
	}
	memory, err := g.memoryBudget()
	if err != nil {
		return nil, err
	}
	o := session.Options{
		Memory: memory, DiskProcs: true,
		Dump: g.dump, Size: size, NoIndex: g.noIndex || g.jvmpi.kind != "", Index: g.index, IndexDir: g.indexDir,
		Bare: bare, Mapping: m, Heaps: g.heaps, Progress: g.progress, Phase: g.build.enter, Step: g.build.step, Notes: g.stderr,
	}
	for _, a := range adjust {
		a(&o)
	}
	s, err := session.Open(path, o)
	if err != nil {
		return nil, err
	}
	g.opened = append(g.opened, s)
	return s, nil
}

// keepUnreachable is the adjustment of --keep-unreachable.
func keepUnreachable(keep bool) func(*session.Options) {
	return func(o *session.Options) { o.KeepUnreachable = keep }
}

// progress draws a progress bar of reading f on stderr when it is a
// terminal, and returns the function that stops it.
func (g *globalFlags) progress(f *input.File) (stop func()) {
	if !isTerminal(os.Stderr) {
		return func() {}
	}
	bar := report.StartProgress(os.Stderr, "reading "+f.Name, f.Size, f.StoredOffset)
	g.build.setBar(bar)
	return func() {
		g.build.setBar(nil)
		bar.Stop()
	}
}

// closeOnError makes every command below root close the sessions it
// opened when it fails too (PersistentPostRunE runs after a success
// only): a session of standard input removes its copy when closed.
func (g *globalFlags) closeOnError(root *cobra.Command) {
	for _, c := range root.Commands() {
		if run := c.RunE; run != nil {
			c.RunE = func(cmd *cobra.Command, args []string) error {
				err := run(cmd, args)
				if err != nil {
					err = errors.Join(err, g.closeSessions())
				}
				return err
			}
		}
		g.closeOnError(c)
	}
}

// closeSessions closes the sessions the command opened.
func (g *globalFlags) closeSessions() error {
	var errs []error
	for _, s := range g.opened {
		errs = append(errs, s.Close())
	}
	g.opened = nil
	return errors.Join(errs...)
}

// isTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one too).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// answer is what a command that asks one question does: it opens the
// file at path (adjusted as adjust says), asks the session question and
// writes the answer with write in the output format of the flags.
func answer[T any](cmd *cobra.Command, g *globalFlags, path string, question func(*session.Session) (T, error), write func(io.Writer, T, report.Options) error, adjust ...func(*session.Options)) error {
	opt, err := g.reportOptions()
	if err != nil {
		return err
	}
	s, err := g.open(path, adjust...)
	if err != nil {
		return err
	}
	a, err := question(s)
	if err != nil {
		return err
	}
	return write(cmd.OutOrStdout(), a, opt)
}
