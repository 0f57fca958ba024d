package main

import (
	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/report"
	"github.com/spf13/cobra"
)

func newCPUCommand(g *globalFlags) *cobra.Command {
	var (
		co profile.CPUOptions
		by string
	)
	cmd := &cobra.Command{
		Use:   "cpu FILE",
		Short: "CPU profile of the hprof agent: traces by share of samples or time",
		Long: `cpu reads the hprof agent's CPU SAMPLES (cpu=samples, ASCII or binary) or CPU
TIME (cpu=times, ASCII) and ranks the stack traces by their share of the
samples (of the time), with the cumulative share. --by method totals per
method: self, where it is the innermost frame, and total, wherever in a trace
it is.

-o pprof writes a gzipped profile.proto to standard output, which go tool
pprof and flame graph tools open (this command only).`,
		Example: `  hprofctl cpu java.hprof.txt
  hprofctl cpu --by method --top 20 java.hprof.txt
  hprofctl cpu -o pprof java.hprof.txt > cpu.pb.gz && go tool pprof -top cpu.pb.gz`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := g.reportOptions(report.Pprof)
			if err != nil {
				return err
			}
			if err := session.CheckCPUBy(by); err != nil {
				return err
			}
			s, err := g.open(args[0])
			if err != nil {
				return err
			}
			if opt.Format == report.Pprof {
				// A profile.proto holds every trace.
				co.Top = 0
			}
			r, err := s.CPU(co)
			if err != nil {
				return err
			}
			if by == "method" {
				return report.CPUMethods(cmd.OutOrStdout(), r, opt)
			}
			return report.CPU(cmd.OutOrStdout(), r, opt)
		},
	}
	f := cmd.Flags()
	f.StringVar(&by, "by", "trace", "rank traces, or methods (self and total shares)")
	f.IntVar(&co.Depth, "depth", 0, "frames of each stack trace to show (0: all the file has)")
	f.IntVar(&co.Top, "top", 0, "show only the first N rows (0: all)")
	return cmd
}
