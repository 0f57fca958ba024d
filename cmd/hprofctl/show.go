package main

import (
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

func newShowCommand(g *globalFlags) *cobra.Command {
	var so heap.ShowOptions
	cmd := &cobra.Command{
		Use:   "show FILE ID...",
		Short: "One object in full: sizes, GC roots, field values, elements, referrers",
		Long: `show prints each object: its class, shallow and retained size, whether and how
it is a GC root (kind, thread and frame), and every field with its type and
value (instance fields over the class chain, the class's own first; the static
fields of a class object). References show the object's id and class, and a
short text where there is one: a String's value (JDK 8 char[], JDK 9+ byte[]
with coder), a boxed number, an enum's or a Thread's name, a byte[] or char[]
that is printable text. An array shows its length and its first --elements.

--referrers lists the references to the object: the object holding each and
the field, [index] or static field it goes through, in object order, the first
--max-referrers of them (0: all), and how many there are in all
("referrers_total" in JSON). --path adds a shortest path from a GC root: the
one of the breadth-first tree of shortest paths (which the index keeps, and
leaks shows), whose last step is the first object in that order to reference
it. retainers --object may show another path of the same length.

IDs are 0x-hex or decimal. Values come from a second read of FILE, which
standard input cannot give.`,
		Example: `  hprofctl show heap.hprof 0x7a1b2c3d8
  hprofctl show --referrers --path heap.hprof 0x7a1b2c3d8 0x7a1b2c400
  hprofctl show --elements 100 -o json heap.hprof.gz 0x7a1b2c3d8 | jq '.fields'`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, size, err := g.options()
			if err != nil {
				return err
			}
			if so.Elements < 0 {
				return fmt.Errorf("--elements %d: must not be negative", so.Elements)
			}
			if so.MaxReferrers < 0 {
				return fmt.Errorf("--max-referrers %d: must not be negative", so.MaxReferrers)
			}
			so.Size = size
			path := args[0]
			h, r, strong, err := g.loadRetention(path, size, false)
			if err != nil {
				return err
			}
			if so.Heaps, err = g.selectHeaps(h); err != nil {
				return err
			}
			var objs []model.ObjectIndex
			for _, s := range args[1:] {
				id, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), base(s), 64)
				if err != nil {
					return fmt.Errorf("object id %q: %w", s, err)
				}
				i, ok := h.Lookup(id)
				if !ok {
					return fmt.Errorf("object %s: no such object in the dump", s)
				}
				objs = append(objs, i)
			}
			d, err := readShowData(h, path, objs, strong, so)
			if err != nil {
				return err
			}
			return report.Show(cmd.OutOrStdout(), heap.Show(h, r, objs, d, so), opt)
		},
	}
	cmd.Flags().IntVar(&so.Elements, "elements", 10, "list an array's first N elements")
	cmd.Flags().BoolVar(&so.Referrers, "referrers", false, "list the objects that reference it, with the field or index")
	cmd.Flags().IntVar(&so.MaxReferrers, "max-referrers", 100, "with --referrers, list the first N references (0: all); the total is counted anyway")
	cmd.Flags().BoolVar(&so.Path, "path", false, "add a shortest path from a GC root")
	return cmd
}

// readShowData reads what show needs beyond the heap: the values of the
// objects and of what they reference in one batch, the labeled
// references of their referrers in another, and the paths, from the
// strong shortest path tree (nil: computed here). Standard input cannot
// be read twice: then values and labels are missing.
func readShowData(h *model.Heap, path string, objs []model.ObjectIndex, strong *graph.PathTree, so heap.ShowOptions) (heap.ShowData, error) {
	var d heap.ShowData
	if so.Referrers {
		d.Referrers, d.ReferrerTotals = heap.Referrers(h, objs, so.MaxReferrers, so.Heaps)
	}
	if so.Path {
		if strong == nil {
			strong = graph.StrongPaths(h)
		}
		p, err := strong.Paths(objs)
		if err != nil {
			return d, err
		}
		labels, names, err := readPathLabels(h, path, p)
		if err != nil {
			return d, err
		}
		d.Paths = heap.PathsByTarget(p, heap.DescribePaths(h, p, false, labels, names))
	}
	if path == "-" {
		fmt.Fprintln(os.Stderr, "hprofctl: standard input cannot be read twice: field values are unknown")
		return d, nil
	}
	var err error
	if d.Native, err = nativeSizes(h, path); err != nil {
		return d, err
	}
	if d.Values, err = model.ReadValues(h, heap.ShowReads(h, objs, so), model.ValueOptions{Elements: heap.ShowReadElements(so)}); err != nil {
		return d, err
	}
	if so.Referrers {
		d.Labels, err = model.ReadLabels(h, heap.AllReferrers(d.Referrers, objs))
	}
	return d, err
}
