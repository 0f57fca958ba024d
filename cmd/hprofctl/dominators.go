package main

import (
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newDominatorsCommand(g *globalFlags) *cobra.Command {
	var (
		top      int
		class    string
		children int
		byClass  bool
		keep     bool
	)
	cmd := &cobra.Command{
		Use:   "dominators FILE",
		Short: "Dominator tree: the objects that retain most, with retained sizes",
		Long: `dominators builds the dominator tree of the heap's strong references under a
virtual root ("root") above every GC root and system class, and lists the
objects that retain most: what the JVM would free if each were freed.

By default the rows are the top of the tree (the objects only the virtual root
dominates); --class lists every reachable instance of the matching classes
instead. Each row shows its immediate dominator and the objects it immediately
dominates (--children of them). --by-class groups the rows per class: a class
retains the union of what its objects retain, so objects nested under others
of their class count once.

Weak, soft, phantom and final references do not retain their referent.
Unreachable objects are counted and left out unless --keep-unreachable.

In an Android dump that shows native memory registered to Java objects
(NativeAllocationRegistry), each row also retains the native sizes of the
objects it dominates ("retained native").`,
		Example: `  hprofctl dominators --top 20 heap.hprof
  hprofctl dominators --class '^com\.example\.Cache$' --children 5 heap.hprof
  hprofctl dominators --by-class -o json heap.hprof.gz`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			do := heap.DominatorOptions{Top: top, Children: children, ByClass: byClass}
			var err error
			if do.Class, err = regexpFlag("class", class); err != nil {
				return err
			}
			return answer(cmd, g, args[0], func(s *session.Session) (heap.DominatorReport, error) { return s.Dominators(do) }, report.Dominators, keepUnreachable(keep))
		},
	}
	cmd.Flags().IntVar(&top, "top", 20, "show only the N objects (or classes) that retain most (0: all)")
	cmd.Flags().StringVar(&class, "class", "", "only instances of classes whose name matches this regular expression")
	cmd.Flags().IntVar(&children, "children", 10, "list up to N immediately dominated objects per row")
	cmd.Flags().BoolVar(&byClass, "by-class", false, "group the selected objects per class (retained bytes of the union of their retained sets)")
	cmd.Flags().BoolVar(&keep, "keep-unreachable", false, "treat unreachable objects as reachable from the virtual root")
	return cmd
}
