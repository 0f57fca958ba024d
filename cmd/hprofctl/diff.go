package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

// growthExitCode is the exit status of diff --exit-code when something
// grew more than --max-growth.
const growthExitCode = 3

func newDiffCommand(g *globalFlags) *cobra.Command {
	var (
		top        int
		exitCode   bool
		maxGrowth  string
		noRetained bool
	)
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "What changed between two dumps: instances and bytes per class, new and gone classes, retained sizes",
		Long: `diff compares two heap dumps of the same application, OLD taken before NEW.

Per class it lists the instances and shallow bytes in each dump and the change,
the classes that grew most first, those that shrank last (classes that did not
change are left out); then the classes with instances in NEW only (new) and in
OLD only (gone); then, per class, what the objects at the top of the dominator
tree retain in each dump (as 'hprofctl top --by class'), the biggest growth
first. Classes are matched by name: classes of one name defined by several
class loaders are summed in each dump. --no-retained leaves the retained sizes
out: each dump is then read as a stream, or from its index when it has a fresh
one, without building one.

--max-growth sets a limit on how many shallow bytes the whole heap and each
class may grow by: a size (10MB, 512KiB, 1GB; KB/MB/GB are powers of 1000,
KiB/MiB/GiB of 1024) or a percentage of OLD's shallow bytes (5%). What grew
more is listed after the table and under "over_limit" in the JSON. With
--exit-code, diff exits with status 3 when something grew more than the limit
(any growth at all without --max-growth), 0 when nothing did, 1 on an error.`,
		Example: `  hprofctl diff before.hprof after.hprof
  hprofctl diff --top 0 -o json before.hprof after.hprof | jq '.classes[0]'
  hprofctl diff --exit-code --max-growth 10MB baseline.hprof current.hprof || echo "heap grew: $?"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := g.reportOptions()
			if err != nil {
				return err
			}
			if g.index != "" {
				return errors.New("--index names one index file and diff reads two dumps: use --index-dir")
			}
			do := heap.DiffOptions{Top: top}
			if cmd.Flags().Changed("max-growth") {
				if do.Limit, err = parseGrowth(maxGrowth); err != nil {
					return err
				}
			} else if exitCode {
				do.Limit = &heap.GrowthLimit{}
			}
			var sides [2]*session.Session
			for k, path := range args {
				if sides[k], err = g.open(path); err != nil {
					return err
				}
			}
			d, err := session.Diff(sides[0], sides[1], !noRetained, do)
			if err != nil {
				return err
			}
			if err := report.Diff(cmd.OutOrStdout(), d, opt); err != nil {
				return err
			}
			if exitCode && len(d.OverLimit) > 0 {
				return &ExitError{Code: growthExitCode}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&top, "top", 20, "show only the first N classes of each list (0: all)")
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit with status 3 when the heap or a class grew more than --max-growth (0: nothing did, 1: error)")
	cmd.Flags().StringVar(&maxGrowth, "max-growth", "", "the most shallow bytes the heap and each class may grow by: a size (10MB, 64MiB) or a percent of OLD's bytes (5%)")
	cmd.Flags().BoolVar(&noRetained, "no-retained", false, "compare the histograms only, without the dominator trees (no index is built)")
	return cmd
}

// parseGrowth reads --max-growth: a size as go-humanize reads it, or a
// percentage.
func parseGrowth(s string) (*heap.GrowthLimit, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("--max-growth %q: expected a size (10MB, 64MiB) or a percentage (5%%)", s)
		}
		return &heap.GrowthLimit{Percent: v}, nil
	}
	b, err := humanize.ParseBytes(s)
	if err != nil || b > 1<<62 {
		return nil, fmt.Errorf("--max-growth %q: expected a size (10MB, 64MiB) or a percentage (5%%)", s)
	}
	return &heap.GrowthLimit{Bytes: int64(b)}, nil
}
