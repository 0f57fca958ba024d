package main

import (
	"errors"
	"fmt"

	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/report/html"
	"github.com/spf13/cobra"
)

// reportDominators is how many of the biggest objects the report charts.
const reportDominators = 10

func newReportCommand(g *globalFlags) *cobra.Command {
	var (
		threshold       string
		top             int
		keepUnreachable bool
	)
	cmd := &cobra.Command{
		Use:   "report FILE",
		Short: "One self-contained HTML page: the post-mortem summary of a heap dump",
		Long: `report writes to standard output one HTML page that sums up a heap dump, to
open in a browser or attach to a ticket:

  - an overview: format, JVM, counts, GC roots and anomalies (see info);
  - the leak suspects, each with its accumulation point, the biggest classes
    beneath it and its shortest path from a GC root (see leaks);
  - the objects that retain most, charted (see dominators);
  - the top consumers by class and by package (see top);
  - the class histogram (see histo);
  - the threads with their stacks and what each retains, and the objects
    each frame holds (see threads --retained);
  - the deadlocks the dump's lock state proves (see deadlocks).

The page is one file: its style sheet and charts are inline, it loads
nothing and runs no script, and a Content-Security-Policy forbids both.
Everything the dump holds (class, field and thread names, strings) is
escaped, so markup in a hostile dump shows as text.

Byte counts are shown in KiB/MiB with the exact count beneath; -o does not
apply.`,
		Example: `  hprofctl report heap.hprof > heap.html
  hprofctl report --threshold 5 --top 50 heap.hprof.gz > heap.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("output") {
				return errors.New("report writes HTML: -o/--output does not apply")
			}
			size, err := g.sizeMode()
			if err != nil {
				return err
			}
			share, err := parseThreshold(threshold)
			if err != nil {
				return err
			}
			if top < 1 {
				return fmt.Errorf("--top %d: want 1 or more", top)
			}
			path := args[0]
			if path == "-" {
				return errors.New("report reads the dump more than once: give a file, not standard input")
			}
			f, format, err := openSniffed(path)
			if err != nil {
				return err
			}
			name := f.Name
			if err := f.Close(); err != nil {
				return err
			}
			h, r, strong, err := g.loadRetention(path, size, keepUnreachable)
			if err != nil {
				return err
			}
			heaps, err := g.selectHeaps(h)
			if err != nil {
				return err
			}
			suspected, err := g.suspectHeaps(h)
			if err != nil {
				return err
			}
			native, err := nativeSizes(h, path)
			if err != nil {
				return err
			}
			rep := html.Report{Generator: "hprofctl " + versionString(), Info: heap.Summarize(h, size)}
			rep.Info.AddNative(h, native)
			rep.Leaks = heap.FindLeaks(h, r, heap.LeakOptions{Threshold: share, Classes: 5, Strong: strong, Heaps: suspected})
			labels, names, err := readPathLabels(h, path, rep.Leaks.Paths())
			if err != nil {
				return err
			}
			rep.Leaks.Describe(h, labels, names)
			rep.PathRetained = rep.Leaks.PathRetainedBytes(r)
			rep.Dominators = heap.Dominators(h, r, heap.DominatorOptions{Top: reportDominators, Size: size, Heaps: heaps, Native: native})
			for _, by := range []string{heap.ByClass, heap.ByPackage} {
				t, err := heap.TopConsumers(h, r, heap.TopOptions{By: by, Top: top, Heaps: heaps})
				if err != nil {
					return err
				}
				rep.Consumers = append(rep.Consumers, t)
			}
			if rep.Histogram, err = heap.Histogram(h, heap.HistoOptions{Top: top, Size: size, Heaps: heaps, Native: native}); err != nil {
				return err
			}
			// Only a binary dump's Thread objects and synchronizers,
			// read from the file, name the threads and give their lock
			// state.
			var hl *threads.HeapLocks
			if format.Kind == input.KindHPROF && h.HasObjects {
				if hl, err = threads.ReadHeapLocks(h); err != nil {
					return err
				}
			}
			rep.Threads = threads.ThreadsFromHeap(h, hl, 0)
			// What a thread retains is measured on the tree of reachable
			// objects alone.
			if !keepUnreachable {
				if err := threads.AddThreadRetention(h, r, rep.Threads); err != nil {
					return err
				}
			}
			rep.Deadlocks, rep.DeadlockNotes = dumpDeadlocks(h, hl, name)
			return html.Write(cmd.OutOrStdout(), rep)
		},
	}
	cmd.Flags().StringVar(&threshold, "threshold", "10", "leak suspects: what retains more than this percentage of the heap")
	cmd.Flags().IntVar(&top, "top", 30, "rows of the top consumer tables and of the histogram")
	cmd.Flags().BoolVar(&keepUnreachable, "keep-unreachable", false, "treat unreachable objects as reachable from the virtual root")
	return cmd
}

// dumpDeadlocks finds the deadlocks of the dump named name with heap h:
// those of an hprof agent file's MONITOR DUMP, else those its lock state
// hl proves, with the notes on what a heap dump cannot tell; nil when it
// has neither.
func dumpDeadlocks(h *model.Heap, hl *threads.HeapLocks, name string) (*threads.DeadlockReport, []string) {
	if d := threads.MonitorDumpThreads(h.Profile()); d != nil {
		r := threads.FindDeadlocks(d)
		r.Source = name + " (MONITOR DUMP)"
		return &r, nil
	}
	if hl == nil {
		return nil, nil
	}
	r, notes := threads.HeapDeadlocks(hl)
	r.Source = name + " (heap dump)"
	return &r, notes
}
