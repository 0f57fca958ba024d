package main

import (
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newSitesCommand(g *globalFlags) *cobra.Command {
	var so profile.SiteOptions
	cmd := &cobra.Command{
		Use:   "sites FILE",
		Short: "Allocation sites: live and allocated bytes per class and stack trace",
		Long: `sites ranks allocation sites as the hprof agent's own SITES table does: class,
live bytes and instances, allocated bytes and instances, percent and
cumulative percent, and each site's stack trace (--depth N frames).

The numbers come from the best source the file has, which the output names:
  sites-record  the agent's SITES section (ASCII) or ALLOC_SITES record (binary);
  heap-traces   an agent heap dump (heap=dump) whose objects carry allocation
                traces: its live objects by class and trace;
  stack-roots   a dump without allocation traces (every HotSpot dump): the
                objects Java stack frames hold, by class and frame, with the
                bytes each retains.

--by class|trace|method rolls the sites up; --sort live|alloc orders them.

For the agent's own sites, percent is the agent's: each site's share of all
live bytes, whatever the order. An ASCII SITES section prints these shares
but not the total, so the table of sites keeps the printed self and accum,
and a roll-up derives the total from the listed sites' live bytes and the
last printed accum; the output (table line "Percent:", JSON "percent_of")
says how the total was obtained.`,
		Example: `  hprofctl sites java.hprof.txt
  hprofctl sites --by method --top 20 heap.hprof
  hprofctl sites -o json --depth 3 java.hprof | jq '.[0]'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answer(cmd, g, args[0], func(s *session.Session) (profile.SitesReport, error) { return s.Sites(so) }, report.Sites)
		},
	}
	f := cmd.Flags()
	f.StringVar(&so.By, "by", "site", "roll up: site (class and trace), class, trace or method")
	f.StringVar(&so.Sort, "sort", "live", "order: live (live bytes) or alloc (allocated bytes)")
	f.IntVar(&so.Depth, "depth", 0, "frames of each stack trace to show (0: all the file has)")
	f.IntVar(&so.Top, "top", 0, "show only the first N sites (0: all)")
	return cmd
}
