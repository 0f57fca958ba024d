package main

import (
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newMonitorsCommand(g *globalFlags) *cobra.Command {
	var depth int
	cmd := &cobra.Command{
		Use:   "monitors FILE",
		Short: "Monitor contention and monitor state of the hprof agent",
		Long: `monitors reads the hprof agent's MONITOR TIME section (monitor=y: contended
monitors ranked by the time threads waited to enter them, with the trace where
they waited) and its MONITOR DUMP (every monitor in use: owner, entry count,
threads waiting to enter and waiting to be notified). Only the agent's ASCII
output (format=a) holds them.

It also reads a JVMPI monitor dump capture (its .json manifest or its .bin
buffer): every Java and raw monitor with its owner, entry count, threads
waiting to enter and waiting to be notified, threads and raw monitors named
from the capture's side channel.`,
		Example: `  hprofctl monitors java.hprof.txt
  hprofctl monitors -o json java.hprof.txt | jq '.contended[0]'
  hprofctl monitors monitor-dump.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answer(cmd, g, args[0], func(s *session.Session) (profile.MonitorsReport, error) { return s.Monitors(depth) }, report.Monitors)
		},
	}
	cmd.Flags().IntVar(&depth, "depth", 0, "frames of each stack trace to show (0: all the file has)")
	return cmd
}
