package main

import (
	"errors"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newRetainersCommand(g *globalFlags) *cobra.Command {
	var (
		class       string
		objects     []string
		paths       int
		includeWeak bool
		excludeWeak bool
	)
	cmd := &cobra.Command{
		Use:   "retainers FILE (--class REGEX | --object ID)",
		Short: "Shortest paths from GC roots: what keeps objects alive",
		Long: `retainers finds the shortest chains of strong references from a GC root (or a
system class) to the targets, naming each step's field, array index ([17]) or
static field (static MAP), and each path's root: its kind, and for stack roots
the thread and frame.

--object targets single objects (ids as 0x-hex or decimal, repeatable), with up
to --paths paths each through different last retainers. --class targets every
instance of the matching classes and merges their shortest paths by class
chain, with the number of instances on each (Eclipse MAT's "merge shortest
paths to GC roots"). A path of more than 256 objects (along a long linked list)
shows its first and last 64; one step stands for those between, with their
classes and counts ("elided" and "elided_classes" in JSON).

Weak, soft, phantom and final references are not followed (--exclude-weak, the
default); --include-weak follows them too. Field names come from a second read
of FILE.`,
		Example: `  hprofctl retainers --object 0x7a1b2c3d8 heap.hprof
  hprofctl retainers --class '^com\.example\.Session$' --paths 5 heap.hprof.gz
  hprofctl retainers --class Leak -o json heap.hprof | jq '.paths[0].chain'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (class == "") == (len(objects) == 0) {
				return errors.New("give either --class REGEX or --object ID")
			}
			if includeWeak && excludeWeak {
				return errors.New("--include-weak and --exclude-weak exclude each other")
			}
			ro := graph.RetainerOptions{Paths: paths, IncludeWeak: includeWeak}
			var err error
			if ro.Class, err = regexpFlag("class", class); err != nil {
				return err
			}
			retainers := func(s *session.Session) (heap.Retainers, error) {
				if ro.Objects, err = objectIndexes(s, objects, "--object", "--object"); err != nil {
					return heap.Retainers{}, err
				}
				return s.Retainers(ro)
			}
			return answer(cmd, g, args[0], retainers, report.Retainers)
		},
	}
	cmd.Flags().StringVar(&class, "class", "", "target every instance of the classes matching this regular expression")
	cmd.Flags().StringSliceVar(&objects, "object", nil, "target this object id (0x-hex or decimal; repeatable)")
	cmd.Flags().IntVar(&paths, "paths", 3, "paths per target object, or merged paths for --class")
	cmd.Flags().BoolVar(&includeWeak, "include-weak", false, "also follow weak, soft, phantom and final references")
	cmd.Flags().BoolVar(&excludeWeak, "exclude-weak", false, "follow strong references only (the default)")
	return cmd
}
