package main

import (
	"fmt"
	"os"

	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/internal/heapindex"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
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
			opt, size, err := g.options()
			if err != nil {
				return err
			}
			so.Size = size
			f, format, err := openSniffed(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			p, h, err := g.loadSites(f, format.Kind, args[0], &so)
			if err != nil {
				return err
			}
			r, err := profile.Sites(p, h, so)
			if err != nil {
				return err
			}
			return report.Sites(cmd.OutOrStdout(), r, opt)
		},
	}
	f := cmd.Flags()
	f.StringVar(&so.By, "by", "site", "roll up: site (class and trace), class, trace or method")
	f.StringVar(&so.Sort, "sort", "live", "order: live (live bytes) or alloc (allocated bytes)")
	f.IntVar(&so.Depth, "depth", 0, "frames of each stack trace to show (0: all the file has)")
	f.IntVar(&so.Top, "top", 0, "show only the first N sites (0: all)")
	return cmd
}

// loadSites reads what sites ranks from the file f at path, of the given
// kind: the profile and, when it has no site table, the heap with its
// objects, from the dump's index (built when missing) where it can; the
// index's dominator tree then goes into so.Retention. A binary file is
// first opened from a fresh index or read without its objects, which is
// all a site table needs.
func (g *globalFlags) loadSites(f *input.File, kind input.Kind, path string, so *profile.SiteOptions) (*model.Profile, *model.Heap, error) {
	if path == "-" {
		p, h, err := g.loadProfile(f, true)
		if err == nil && p.Sites == nil && h == nil {
			err = fmt.Errorf("%s: the file has no SITES section, and standard input cannot be read again for its HEAP DUMP", path)
		}
		return p, h, err
	}
	var (
		p   *model.Profile
		h   *model.Heap
		x   *heapindex.Indexed
		err error
	)
	if kind == input.KindHPROF {
		if h, x, err = g.open(path, false); err != nil {
			return nil, nil, err
		}
		p = h.Profile()
	} else if p, _, err = g.loadProfile(f, false); err != nil {
		return nil, nil, err
	}
	if p.Sites != nil {
		return p, h, nil
	}
	if x == nil {
		if h, x, err = g.open(path, true); err != nil {
			return nil, nil, err
		}
	}
	if h.Source.Dumps == 0 {
		return nil, nil, fmt.Errorf("%s: the file has no allocation sites and no heap dump", path)
	}
	if x != nil {
		so.Retention, err = x.Retention(so.Size, false)
	}
	return p, h, err
}

// openSniffed opens path and tells what it holds (input.File.Sniff), for
// the commands that read profiles and thread dumps, which take no JVMPI
// flags.
func openSniffed(path string) (*input.File, input.Format, error) {
	f, err := input.Open(path)
	if err != nil {
		return nil, input.Format{}, err
	}
	format, err := f.Sniff(false)
	if err != nil {
		f.Close()
		return nil, input.Format{}, err
	}
	return f, format, nil
}

// loadProfile reads the profiling data of an agent file, ASCII or binary;
// for a binary file the heap too (with its objects when objects is set).
func (g *globalFlags) loadProfile(f *input.File, objects bool) (*model.Profile, *model.Heap, error) {
	if isTerminal(os.Stderr) {
		pr := report.StartProgress(os.Stderr, "reading "+f.Name, f.Size, f.StoredOffset)
		defer pr.Stop()
	}
	p, h, err := model.LoadProfile(f, model.LoadOptions{Dump: g.dump, Objects: objects})
	if err != nil {
		return nil, nil, err
	}
	warnTruncated(os.Stderr, f.Name, p.Anomalies)
	return p, h, g.mapping.deobfuscate(p, h)
}
