package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/hprofctl/hprofctl/internal/mcp"
	"github.com/hprofctl/hprofctl/internal/web"
)

func newMCPCommand(g *globalFlags) *cobra.Command {
	var (
		roots   []string
		addr    string
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the questions to an AI assistant: a Model Context Protocol server",
		Long: `mcp answers an AI assistant's questions about heap dumps, thread dumps and
agent profiles over the Model Context Protocol: on standard input and output
(what Claude Code, Claude Desktop, VS Code and Cursor start), or with --http
on the streamable HTTP transport, on the loopback interface only.

Each question is a tool (open, overview, histogram, dominators,
leak_suspects, retainers, show, duplicate_strings, collections,
top_consumers, threads, deadlocks, monitors, sites, cpu, diff, query) whose structured
result holds what the command of the same question writes with -o json, a
page of rows at a time. Each file opened stays open for the next questions.
The prompts why_out_of_memory and why_stuck give the investigations' plans.

Only files under the roots are opened: --root DIR (repeatable; default the
current directory, or the client's roots where it gives some, which narrow
--root). Paths holding "..", and symbolic links that lead out of the roots,
are refused. Nothing is written but indexes (beside each dump, in
--index-dir, or in the user cache directory). Everything taken from a dump is
marked as untrusted data.`,
		Example: `  claude mcp add hprofctl -- hprofctl mcp --root ~/dumps
  hprofctl mcp --http 127.0.0.1:8765 --root /var/tmp/dumps`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("output") {
				return errors.New("mcp answers in JSON: -o/--output does not apply")
			}
			s, err := mcp.New(mcp.Config{Roots: roots, IndexDir: g.indexDir, Timeout: timeout, Version: versionString()})
			if err != nil {
				return err
			}
			defer s.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			if addr == "" {
				return s.Run(ctx, &sdk.StdioTransport{})
			}
			return serveMCP(ctx, g, s, addr)
		},
	}
	cmd.Flags().StringArrayVar(&roots, "root", nil, "open only files under this directory (repeatable; default the current directory)")
	cmd.Flags().StringVar(&addr, "http", "", "serve the streamable HTTP transport on this loopback host:port instead of standard input and output")
	cmd.Flags().DurationVar(&timeout, "timeout", mcp.DefaultTimeout, "answer each tool call within this time (a longer question goes on in the background)")
	return cmd
}

// serveMCP serves s over streamable HTTP at addr, a loopback address,
// until ctx ends.
func serveMCP(ctx context.Context, g *globalFlags, s *mcp.Server, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: %w", addr, err)
	}
	if !web.IsLoopback(host) {
		return fmt.Errorf("--http %s: only a loopback address (127.0.0.1, [::1], localhost): the server reads files for whoever reaches it", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stderr, "hprofctl: MCP server at http://%s/ (interrupt to stop)\n", ln.Addr())
	srv := &http.Server{Handler: s.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shut)
}
