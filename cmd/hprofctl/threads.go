package main

import (
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/internal/session"
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
                 read in a second pass over the file;
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
			list := func(s *session.Session) ([]threads.ThreadRow, error) {
				return s.Threads(session.ThreadOptions{Depth: depth, Retained: retained})
			}
			return answer(cmd, g, args[0], list, report.Threads)
		},
	}
	cmd.Flags().IntVar(&depth, "depth", 0, "frames of each stack to show (0: all the file has)")
	cmd.Flags().BoolVar(&retained, "retained", false, "add what each thread retains and each frame's locals (HotSpot heap dumps)")
	return cmd
}
