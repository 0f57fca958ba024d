package main

import (
	"errors"

	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report/html"
	"github.com/spf13/cobra"
)

// reportDominators is how many of the biggest objects the report charts.
const reportDominators = 10

func newReportCommand(g *globalFlags) *cobra.Command {
	var (
		threshold string
		top       int
		keep      bool
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
			share, err := session.ParseThreshold(threshold)
			if err != nil {
				return err
			}
			s, err := g.open(args[0], keepUnreachable(keep))
			if err != nil {
				return err
			}
			rep, err := s.Report(session.ReportOptions{Threshold: share, Dominators: reportDominators, Top: top})
			if err != nil {
				return err
			}
			rep.Generator = "hprofctl " + versionString()
			return html.Write(cmd.OutOrStdout(), rep)
		},
	}
	cmd.Flags().StringVar(&threshold, "threshold", "10", "leak suspects: what retains more than this percentage of the heap (0.01 to 100)")
	cmd.Flags().IntVar(&top, "top", 30, "rows of the top consumer tables and of the histogram")
	cmd.Flags().BoolVar(&keep, "keep-unreachable", false, "treat unreachable objects as reachable from the virtual root")
	return cmd
}
