package main

import (
	"errors"

	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newIndexCommand(g *globalFlags) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "index FILE",
		Short: "Build the dump's index, so that every later question reads only it",
		Long: `index reads a heap dump once and keeps what every heap command needs in an
index file: the objects and their references, classes, GC roots, threads, the
dominator tree with retained sizes, the shortest paths from the GC roots, and
where each object lies in the dump. Heap commands use a fresh index by
themselves (and build one when there is none), so running index first is only
a way to pay the time up front.

The index is DUMP.hprofctl-index beside the dump, or in the user cache
directory when the dump's directory is not writable; --index names the file,
--index-dir a directory. It records the dump's size, modification time and a
hash of sampled blocks: a dump rewritten or touched since makes it stale, and
a stale, cut or damaged index is rebuilt, never trusted. A fresh index is
used as it is unless --force.

--memory SIZE bounds what the build keeps on its own heap (default an eighth
of the machine's memory): past it the per-object tables (ids, classes,
references, the dominator computation's arrays, retained sizes) are mapped
from scratch files beside the index, which the kernel pages to disk and back,
so a dump bigger than the machine's memory can be indexed; the files are
removed as they are made and leave nothing behind. On a terminal the progress
bar names the build's phase and estimates the time left.`,
		Example: `  hprofctl index java_pid1234.hprof
  hprofctl index --index-dir /var/tmp/idx heap.hprof.gz
  hprofctl index --memory 2GiB huge.hprof`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := g.reportOptions()
			if err != nil {
				return err
			}
			if g.noIndex {
				return errors.New("index and --no-index exclude each other")
			}
			s, err := g.open(args[0])
			if err != nil {
				return err
			}
			sum, err := s.BuildIndex(force)
			if err != nil {
				return err
			}
			return report.Index(cmd.OutOrStdout(), sum, opt)
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "rebuild the index even when it is fresh")
	return cmd
}
