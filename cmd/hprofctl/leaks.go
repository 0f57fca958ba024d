package main

import (
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newLeaksCommand(g *globalFlags) *cobra.Command {
	var (
		threshold string
		classes   int
		keep      bool
	)
	cmd := &cobra.Command{
		Use:   "leaks FILE",
		Short: "Leak suspects: what retains more than a share of the heap, and where it accumulates",
		Long: `leaks reports the leak suspects of the dominator tree (see dominators), as
Eclipse MAT's Leak Suspects report does:

  - single objects at the top of the tree retaining more than --threshold of
    the reachable heap (the highest such object: nothing below it is reported
    on its own);
  - classes whose other top-of-tree instances together retain more than
    --threshold, none of them doing so alone.

For an object, the accumulation point is where its memory fans out: walking
down the dominator tree into the biggest child while that child keeps 70% of
its parent's retained size. For a class group, it is the object where the
shortest paths of most (over 80%) of its instances meet, if they do. Each
suspect lists the --classes biggest classes among the objects its accumulation
point immediately dominates (a group: its instances), and a shortest path of
strong references from a GC root through the suspect to its accumulation
point, naming each step as retainers does.

On an Android dump the suspects come from every heap but zygote and image,
which all apps share, unless --heap names the heaps to suspect; app-heap
suspects are listed first, and percentages are of what the suspected heaps'
top objects retain.`,
		Example: `  hprofctl leaks heap.hprof
  hprofctl leaks --threshold 5 --classes 10 heap.hprof.gz
  hprofctl leaks -o json heap.hprof | jq '.[0].accumulation_point'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			share, err := session.ParseThreshold(threshold)
			if err != nil {
				return err
			}
			leaks := func(s *session.Session) (heap.LeakReport, error) {
				l, err := s.Leaks(session.LeakOptions{Threshold: share, Classes: classes})
				return l.Report, err
			}
			return answer(cmd, g, args[0], leaks, report.Leaks, keepUnreachable(keep))
		},
	}
	cmd.Flags().StringVar(&threshold, "threshold", "10", "report what retains more than this percentage of the heap (0.01 to 100)")
	cmd.Flags().IntVar(&classes, "classes", 5, "list the N biggest classes beneath each suspect")
	cmd.Flags().BoolVar(&keep, "keep-unreachable", false, "treat unreachable objects as reachable from the virtual root")
	return cmd
}
