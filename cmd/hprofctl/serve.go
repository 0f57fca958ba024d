package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/hprofctl/hprofctl/internal/session"
	"github.com/hprofctl/hprofctl/internal/web"
	"github.com/spf13/cobra"
)

func newServeCommand(g *globalFlags) *cobra.Command {
	var (
		addr    string
		open    bool
		base    string
		keep    bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "serve FILE",
		Short: "A local web application over one heap dump",
		Long: `serve loads a heap dump once (from its index, building it when there is none)
and serves its pages until interrupted:

  /               overview: format, JVM, counts, anomalies (see info)
  /histogram      the class histogram, ?sort=bytes|count|name&match=RE&top=N
  /dominators     the dominator tree, ?expand=ID for what one object dominates,
                  ?open=ID,ID… for objects opened in place, ?offset=N&top=N
  /icicle         the dominator tree as an icicle by retained size, ?root=ID
  /top            top consumers (see top), ?by=class|classloader|package&top=N
  /class?name=C   a class: its instances by retained size, statics, totals
  /object/ID      one object: fields, referrers, path from a GC root (see show)
  /retainers      paths from the GC roots (see retainers), ?object=ID or
                  ?class=RE, &paths=N&include-weak=1
  /leaks          leak suspects (see leaks)
  /threads        threads, their stacks and what each retains
  /deadlocks      deadlocks the lock state proves
  /strings        duplicate strings; /collections: wasteful collections
  /sites, /cpu    an hprof agent file's allocation sites and CPU profile
                  (a file without a heap dump is served with these alone)
  /diff           with --base OLD: what changed since OLD (see diff), ?top=N
  /query          an OQL query and its rows (see query), ?q=QUERY&limit=N,
                  with examples; it counts and sums its whole answer

A dump replaced or rewritten while it is served is answered HTTP 409 on every
page and API question: restart serve to read the new one.

Under /api/ each question is answered in the JSON that its command writes
with -o json, the command's flags as query parameters (/api/ lists them).

The pages run no script and load nothing from the network: the one style
sheet is built in. Everything the dump holds is escaped, and a
Content-Security-Policy forbids scripts. The server is read-only (GET and
HEAD) and listens on the loopback interface unless --addr names another:
then anyone who can reach that address reads the dump.

Every request is bounded: it stops when its client goes away or after
--request-timeout (answered 503); a few compute at once (four per core),
the others wait their turn; lists are of 1 to 10,000 rows (top=0, "all",
is the command line's); the rows of the queries computing at once may
take 256 MiB together; the answers kept for later requests 256 MiB
together; an answer must be read within 30 seconds. A query the dump
cannot answer as written is answered 400. The server asks Go's collector
to keep its memory near what it holds once ready plus those bounds and a
margin of 128 MiB (a soft limit; GOMEMLIMIT set in the environment wins).`,
		Example: `  hprofctl serve heap.hprof
  hprofctl serve --addr 127.0.0.1:9000 --open heap.hprof.gz`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("output") {
				return errors.New("serve writes HTML and JSON: -o/--output does not apply")
			}
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return fmt.Errorf("--addr %q: %w", addr, err)
			}
			if timeout <= 0 {
				return fmt.Errorf("--request-timeout %s: want a duration above 0", timeout)
			}
			s, err := newServer(g, args[0], base, web.Limits{Request: timeout}, keepUnreachable(keep))
			if err != nil {
				return err
			}
			if os.Getenv("GOMEMLIMIT") == "" {
				debug.SetMemoryLimit(s.MemoryLimit())
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			if web.IsLoopback(host) {
				s.RequireLoopbackHost()
			} else {
				fmt.Fprintf(g.stderr, "hprofctl: warning: serving on %s, not only on this machine: anyone who reaches it reads the dump\n", ln.Addr())
			}
			go s.Warm()
			url := "http://" + ln.Addr().String() + "/"
			fmt.Fprintf(g.stderr, "hprofctl: serving %s at %s (interrupt to stop)\n", args[0], url)
			if open {
				openBrowser(url)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
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
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "listen on this host:port (port 0: any free one)")
	cmd.Flags().BoolVar(&open, "open", false, "open the overview in the desktop's browser")
	cmd.Flags().StringVar(&base, "base", "", "an earlier dump of the same application: /diff shows what changed since it")
	cmd.Flags().BoolVar(&keep, "keep-unreachable", false, "treat unreachable objects as reachable from the virtual root")
	cmd.Flags().DurationVar(&timeout, "request-timeout", web.DefaultLimits.Request, "give a request up after this long")
	return cmd
}

// newServer opens the dump at path, as the global flags and adjust say,
// and returns the server of its pages, each request within limits; base,
// when not "", is an earlier dump of the same application that /diff
// compares with.
func newServer(g *globalFlags, path, base string, limits web.Limits, adjust ...func(*session.Options)) (*web.Server, error) {
	s, err := g.open(path, adjust...)
	if err != nil {
		return nil, err
	}
	o := web.Options{Generator: "hprofctl " + versionString(), Limits: limits}
	if base != "" {
		if o.Base, err = g.open(base); err != nil {
			return nil, err
		}
	}
	return web.New(s, o)
}

// openBrowser asks the desktop to open url, and says so on failure: the
// server goes on either way.
func openBrowser(url string) {
	name, args := "xdg-open", []string{url}
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", url}
	}
	if err := exec.Command(name, args...).Start(); err != nil {
		fmt.Fprintf(os.Stderr, "hprofctl: cannot open a browser (%v): open %s yourself\n", err, url)
	}
}
