package main

import (
	"errors"
	"fmt"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/model/thread"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
	"github.com/hprofctl/hprofctl/parser/threaddump"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newThreadsCommand(g *globalFlags) *cobra.Command {
	var (
		depth    int
		retained bool
	)
	cmd := &cobra.Command{
		Use:   "threads FILE",
		Short: "Threads with their state and stack trace",
		Long: `threads lists every thread a file knows, with its state where the file records
one and its stack trace:
  binary HPROF   ROOT_THREAD_OBJ with its STACK TRACE (HotSpot), START_THREAD
                 and END_THREAD (hprof agent: TERMINATED); the name and the
                 state (Thread.threadStatus) of each java.lang.Thread object,
                 read in a second pass over the file (not for standard input);
  ASCII hprof    THREAD START / END, with the state and stack of MONITOR DUMP;
  thread dumps   jstack, jcmd Thread.print, SIGQUIT output, Thread.dump_to_file
                 (--dump N picks one dump of several; default the last).

--retained (HotSpot heap dumps, from a file) adds what each thread retains
and, under each frame, the objects it holds with their retained sizes (as
the dominator tree gives them). A thread retains what the JVM would free if
it ended: its Thread object and its stack roots (java frames, JNI locals,
native stack, thread block) stand for one node between the GC roots and
what they reference, and the thread retains what that node dominates. An
object that another root or another thread also keeps alive is not counted;
what two threads' stacks share is counted in neither. CSV lists the locals
in a last column, "; " between them, each as its frame's depth (0:
innermost), object id, retained bytes and class.`,
		Example: `  hprofctl threads heap.hprof
  hprofctl threads --retained heap.hprof
  hprofctl threads -o json jstack.txt | jq '.[] | select(.state == "BLOCKED")'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, size, err := g.options()
			if err != nil {
				return err
			}
			f, format, err := openSniffed(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			if retained && (format.Kind != input.KindHPROF || args[0] == "-") {
				return fmt.Errorf("--retained: %s is no binary heap dump read from a file", f.Name)
			}
			var rows []threads.ThreadRow
			switch format.Kind {
			case input.KindJVMPICapture:
				if rows, err = jvmpiThreads(g, args[0], format.Manifest, depth); err != nil {
					return err
				}
			case input.KindHPROF, input.KindHPROFASCII:
				// The Thread objects of a heap dump name the threads and
				// give their states: read where the dump's index says
				// they are, which standard input cannot give.
				if format.Kind == input.KindHPROF && args[0] != "-" {
					var (
						h   *model.Heap
						r   *graph.Retention
						err error
					)
					if retained {
						h, r, _, err = g.loadRetention(args[0], size, false)
					} else {
						h, err = g.load(args[0], true)
					}
					if err != nil {
						return err
					}
					var hl *threads.HeapLocks
					if h.HasObjects {
						if hl, err = threads.ReadHeapLocks(h); err != nil {
							return err
						}
					}
					rows = threads.ThreadsFromHeap(h, hl, depth)
					if retained {
						if err := threads.AddThreadRetention(h, r, rows); err != nil {
							return err
						}
					}
					break
				}
				p, h, err := model.LoadProfile(f, model.LoadOptions{Dump: g.dump})
				if err == nil {
					err = g.mapping.deobfuscate(p, h)
				}
				if err != nil {
					return err
				}
				if h != nil {
					rows = threads.ThreadsFromHeap(h, nil, depth)
				} else {
					rows = threads.ThreadsFromProfile(p, depth)
				}
			default:
				d, err := lastThreadDump(cmd, f.Name, threaddump.NewReader(f, threaddump.Options{Name: f.Name}), g.dump)
				if err != nil {
					return err
				}
				rows = threads.ThreadsFromDump(d, depth)
			}
			return report.Threads(cmd.OutOrStdout(), rows, opt)
		},
	}
	cmd.Flags().IntVar(&depth, "depth", 0, "frames of each stack to show (0: all the file has)")
	cmd.Flags().BoolVar(&retained, "retained", false, "add what each thread retains and each frame's locals (HotSpot heap dumps)")
	return cmd
}

// jvmpiThreads lists the threads of a JVMPI capture (path is its manifest
// or its buffer): those of a monitor dump with their states and stacks,
// or those a heap or object dump's side channel announces.
func jvmpiThreads(g *globalFlags, path, manifest string, depth int) ([]threads.ThreadRow, error) {
	c, err := jvmpi.LoadCapture(manifest)
	if err != nil {
		return nil, err
	}
	if c.Options.Kind == jvmpi.MonitorDump {
		d, _, err := jvmpi.ReadMonitorDump(manifest)
		if err != nil {
			return nil, err
		}
		return threads.ThreadsFromDump(d, depth), nil
	}
	h, err := g.load(path, false)
	if err != nil {
		return nil, err
	}
	return threads.ThreadsFromHeap(h, nil, depth), nil
}

// lastThreadDump reads dump number which of a thread-dump file (-1: the
// last); a dump cut short is kept, with a warning.
func lastThreadDump(cmd *cobra.Command, name string, r *threaddump.Reader, which int) (*thread.Dump, error) {
	var dumps []*thread.Dump
	for r.Next() {
		dumps = append(dumps, r.Dump())
	}
	if err := r.Err(); err != nil {
		if !errors.Is(err, threaddump.ErrTruncated) {
			return nil, err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "hprofctl: warning: %v\n", err)
	}
	switch {
	case which == -1 && len(dumps) > 0:
		return dumps[len(dumps)-1], nil
	case which >= 0 && which < len(dumps):
		return dumps[which], nil
	}
	return nil, fmt.Errorf("%s: --dump %d: the file holds %d thread dumps", name, which, len(dumps))
}
