package main

import (
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newTopCommand(g *globalFlags) *cobra.Command {
	var (
		by   string
		top  int
		keep bool
	)
	cmd := &cobra.Command{
		Use:   "top FILE",
		Short: "Top consumers: retained heap by class, class loader or package",
		Long: `top groups the objects at the top of the dominator tree (those only the virtual
root above the GC roots dominates; their retained sizes add up to the reachable
heap) as Eclipse MAT's Top Consumers does, and lists each group's objects, the
bytes they retain and their share of the reachable heap, biggest first.

--by class (default) groups by the objects' class; class objects count as
java.lang.Class. --by classloader groups by the loader of the objects' class
(a class object: of the class it stands for), named by the loader's class and
id, <bootstrap> for the JVM's own. --by package groups by the package of the
objects' class (a class object: of the class it stands for; an array: of its
element class); arrays of primitives are <primitive arrays>, classes outside
any package <default package>. Packages are not nested: java.util and
java.util.concurrent are two rows.`,
		Example: `  hprofctl top heap.hprof
  hprofctl top --by package --top 10 heap.hprof
  hprofctl top --by classloader -o json heap.hprof.gz`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			to := heap.TopOptions{By: by, Top: top}
			if err := to.Check(); err != nil {
				return err
			}
			return answer(cmd, g, args[0], func(s *session.Session) (heap.TopConsumerReport, error) { return s.TopConsumers(to) }, report.TopConsumers, keepUnreachable(keep))
		},
	}
	cmd.Flags().StringVar(&by, "by", heap.ByClass, "group by class, classloader or package")
	cmd.Flags().IntVar(&top, "top", 20, "show only the N groups that retain most (0: all)")
	cmd.Flags().BoolVar(&keep, "keep-unreachable", false, "treat unreachable objects as reachable from the virtual root")
	return cmd
}
