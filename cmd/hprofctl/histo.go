package main

import (
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newHistoCommand(g *globalFlags) *cobra.Command {
	var (
		sortBy string
		top    int
		match  string
		byHeap bool
	)
	cmd := &cobra.Command{
		Use:   "histo FILE",
		Short: "Class histogram: instances and shallow bytes per class",
		Long: `histo counts every object in the dump, reachable or not, by class — the
numbers jmap -histo prints for the live JVM. Class objects count as instances
of java.lang.Class. Sizes follow the JVM's object layout, inferred from the
dump (see 'hprofctl info'); --size fields counts only the field bytes.

An Android dump that shows native memory registered to Java objects
(NativeAllocationRegistry: Bitmap pixels from Android 8 on, and more) gets a
native bytes column: the registered sizes of each class's objects, which the
Java sizes leave out. Finding them needs the objects (histo then loads them,
building the index unless --no-index) and a second read of FILE (standard
input gives no such column).

Without an index, an uncompressed HotSpot dump written in segments (every
JDK since 9, and larger dumps of earlier ones) is counted on every core
(GOMAXPROCS): its segments are skimmed side by side and their counts
summed. Any other file is read in one pass; the answer is the same.`,
		Example: `  hprofctl histo --top 20 heap.hprof
  hprofctl histo --match '^com\.example\.' --sort count heap.hprof.gz
  hprofctl histo -o csv heap.hprof > histo.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ho := heap.HistoOptions{Sort: sortBy, Top: top, ByHeap: byHeap}
			var err error
			if ho.Match, err = regexpFlag("match", match); err != nil {
				return err
			}
			return answer(cmd, g, args[0], func(s *session.Session) (heap.Histo, error) { return s.Histogram(ho) }, report.Histogram)
		},
	}
	cmd.Flags().StringVar(&sortBy, "sort", "bytes", "order: bytes, count, name or native")
	cmd.Flags().IntVar(&top, "top", 0, "show only the first N classes (0: all)")
	cmd.Flags().BoolVar(&byHeap, "by-heap", false, "divide each class among the Android heaps (app, zygote, image ...): a column per heap")
	cmd.Flags().StringVar(&match, "match", "", "only classes whose name matches this regular expression")
	return cmd
}
