package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
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
paths to GC roots").

Weak, soft, phantom and final references are not followed (--exclude-weak, the
default); --include-weak follows them too. Field names come from a second read
of FILE, which standard input cannot give: steps then show "?".`,
		Example: `  hprofctl retainers --object 0x7a1b2c3d8 heap.hprof
  hprofctl retainers --class '^com\.example\.Session$' --paths 5 heap.hprof.gz
  hprofctl retainers --class Leak -o json heap.hprof | jq '.paths[0].chain'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := g.reportOptions()
			if err != nil {
				return err
			}
			if (class == "") == (len(objects) == 0) {
				return errors.New("give either --class REGEX or --object ID")
			}
			if includeWeak && excludeWeak {
				return errors.New("--include-weak and --exclude-weak exclude each other")
			}
			ro := graph.RetainerOptions{Paths: paths, IncludeWeak: includeWeak}
			if ro.Class, err = regexpFlag("class", class); err != nil {
				return err
			}
			h, x, err := g.openHeap(args[0], true)
			if err != nil {
				return err
			}
			if x != nil {
				ro.Strong = x.StrongPaths()
			}
			if ro.Heaps, err = g.selectHeaps(h); err != nil {
				return err
			}
			for _, s := range objects {
				id, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), base(s), 64)
				if err != nil {
					return fmt.Errorf("--object %q: %w", s, err)
				}
				i, ok := h.Lookup(id)
				if !ok {
					return fmt.Errorf("--object %s: no such object in the dump", s)
				}
				ro.Objects = append(ro.Objects, i)
			}
			p := graph.ShortestPaths(h, ro)
			labels, names, err := readPathLabels(h, args[0], p)
			if err != nil {
				return err
			}
			return report.Retainers(cmd.OutOrStdout(), heap.DescribePaths(h, p, ro.Class != nil, labels, names), opt)
		},
	}
	cmd.Flags().StringVar(&class, "class", "", "target every instance of the classes matching this regular expression")
	cmd.Flags().StringSliceVar(&objects, "object", nil, "target this object id (0x-hex or decimal; repeatable)")
	cmd.Flags().IntVar(&paths, "paths", 3, "paths per target object, or merged paths for --class")
	cmd.Flags().BoolVar(&includeWeak, "include-weak", false, "also follow weak, soft, phantom and final references")
	cmd.Flags().BoolVar(&excludeWeak, "exclude-weak", false, "follow strong references only (the default)")
	return cmd
}

// base is the number base of an object id as given: 16 with "0x".
func base(s string) int {
	if strings.HasPrefix(strings.ToLower(s), "0x") {
		return 16
	}
	return 10
}

// readPathLabels reads the dump at path again for what describing paths
// needs: the labeled references of their objects and the names of their
// root threads. Standard input cannot be read twice: then it returns no
// labels, and steps show "?".
func readPathLabels(h *model.Heap, path string, p graph.RetainerPaths) (map[model.ObjectIndex][]model.LabeledRef, map[model.ObjectIndex]string, error) {
	if path == "-" {
		fmt.Fprintln(os.Stderr, "hprofctl: standard input cannot be read twice: field names are shown as ?")
		return nil, nil, nil
	}
	labels, err := model.ReadLabels(h, p.Sources(h))
	if err != nil {
		return nil, nil, err
	}
	var names map[model.ObjectIndex]string
	if strs := p.ThreadNameStrings(h, labels); len(strs) > 0 {
		if names, err = model.ReadStrings(h, strs); err != nil {
			return nil, nil, err
		}
	}
	return labels, names, nil
}
