package main

import (
	"errors"

	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newIndexCommand(g *globalFlags) *cobra.Command {
	var force, list, prune bool
	cmd := &cobra.Command{
		Use:   "index (FILE | --list | --prune)",
		Short: "Build the dump's index, so that every later question reads only it",
		Long: `index reads a heap dump once and keeps what every heap command needs in an
index file: the objects and their references, classes, GC roots, threads, the
dominator tree with retained sizes, the shortest paths from the GC roots,
where each object lies in the dump, and answers worked out ahead for the
questions that would otherwise pass over every object (the String census of
strings, the class chains of retainers --class, what threads --retained
spreads over, the sums of collections). Heap commands use a fresh index by
themselves (and build one when there is none), so running index first is only
a way to pay the time up front.

The index is DUMP.hprofctl-index beside the dump, or in the user cache
directory when the dump's directory is not writable or others could write in
it; --index names the file, --index-dir a directory. It records the dump's
size and a hash of sampled blocks: a dump rewritten since makes it stale (one
only touched keeps it), and a stale, cut or damaged index is rebuilt, never
trusted. Nor is an index of another user, or one in a directory another user
could write in or replace (one with the sticky bit, as /tmp, excepted): it is
ignored with a warning, and the cache is used instead. A fresh index is used
as it is unless --force. Processes started at once on one dump build one
index: the others wait for it. An index is checked as it is read (checksums,
ids in range, trees whose chains end), except one this user's hprofctl built
that no process has changed since, by its entry in the user cache
directory's hprofctl/written (Linux): its questions skip that work. Run on a
fresh index that has no entry (a copy, say), index checks it whole and gives
it one, or builds it again if it is damaged.

--list shows the indexes in the cache directory (or --index-dir) with what
became of their dumps: fresh, stale, dump gone, no record (made by an older
hprofctl), old version, unusable, abandoned (a killed build's temporary file)
or being built. --prune removes those of yours that serve no dump, and shows
the list with what it removed.

--memory SIZE bounds the build's own memory, what it keeps on its Go heap
(default a third of the dump file, at most an eighth of the machine's
memory): past it the per-object tables (ids, classes, references, the
dominator computation's arrays, retained sizes) are mapped from scratch files
beside the index, whose pages are page cache that the kernel writes to disk
and takes back when it needs the memory, so a dump bigger than the machine's
memory can be indexed; the files are removed as they are made and leave
nothing behind. The resident memory that top shows counts the mapped pages
the build touched; its anonymous part (RssAnon) is the build's own. On a terminal the progress
bar names the build's phase and estimates the time left.

A dump that takes more than half the machine's memory (a compressed one
counted at twice its size) is built with three times the processors Go is
given (GOMAXPROCS): its tables are then read back from the disk, and a
goroutine that waits for a page holds its processor, so with more of them
the reads overlap while the cores work.

A HotSpot dump stored uncompressed is read on every core (GOMAXPROCS): the
records up to the first object in order, the objects after it in batches side
by side (whole segments, or stretches of a larger segment or of a dump not
written in segments), joined in the dump's order, so the index is the one a
single reader makes. A compressed dump, standard input, or a dump whose
objects the batches cannot follow is read by one reader, which says what is
wrong with a damaged one.`,
		Example: `  hprofctl index java_pid1234.hprof
  hprofctl index --index-dir /var/tmp/idx heap.hprof.gz
  hprofctl index --memory 2GiB huge.hprof
  hprofctl index --list
  hprofctl index --prune`,
		Args: func(cmd *cobra.Command, args []string) error {
			if list || prune {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := g.reportOptions()
			if err != nil {
				return err
			}
			if g.noIndex {
				return errors.New("index and --no-index exclude each other")
			}
			if list || prune {
				l, err := session.CachedIndexes(g.indexDir, prune)
				if err != nil {
					return err
				}
				return report.IndexListing(cmd.OutOrStdout(), l, opt)
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
	cmd.Flags().BoolVar(&list, "list", false, "list the indexes in the cache directory (or --index-dir) and what became of their dumps")
	cmd.Flags().BoolVar(&prune, "prune", false, "remove the indexes in the cache directory (or --index-dir) that serve no dump")
	return cmd
}
