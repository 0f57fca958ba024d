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
	"time"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/analysis/threads"
	"github.com/hprofctl/hprofctl/internal/web"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/spf13/cobra"
)

func newServeCommand(g *globalFlags) *cobra.Command {
	var (
		addr string
		open bool
		base string
	)
	cmd := &cobra.Command{
		Use:   "serve FILE",
		Short: "A local web application over one heap dump",
		Long: `serve loads a heap dump once (from its index, building it when there is none)
and serves its pages until interrupted:

  /               overview: format, JVM, counts, anomalies (see info)
  /histogram      the class histogram, ?sort=bytes|count|name&match=RE&top=N
  /dominators     the dominator tree, ?expand=ID for what one object dominates
  /object/ID      one object: fields, referrers, path from a GC root (see show)
  /leaks          leak suspects (see leaks)
  /threads        threads, their stacks and what each retains
  /deadlocks      deadlocks the lock state proves
  /strings        duplicate strings; /collections: wasteful collections
  /sites, /cpu    an hprof agent file's allocation sites and CPU profile
                  (a file without a heap dump is served with these alone)
  /diff           with --base OLD: what changed since OLD (see diff), ?top=N
  /query          an OQL query and its rows (see query), ?q=QUERY&limit=N

Under /api/ each question is answered in the JSON that its command writes
with -o json, the command's flags as query parameters (/api/ lists them).

The pages run no script and load nothing from the network: the one style
sheet is built in. Everything the dump holds is escaped, and a
Content-Security-Policy forbids scripts. The server is read-only (GET and
HEAD) and listens on the loopback interface unless --addr names another:
then anyone who can reach that address reads the dump.`,
		Example: `  hprofctl serve heap.hprof
  hprofctl serve --addr 127.0.0.1:9000 --open heap.hprof.gz`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("output") {
				return errors.New("serve writes HTML and JSON: -o/--output does not apply")
			}
			if args[0] == "-" {
				return errors.New("serve reads the dump more than once: give a file, not standard input")
			}
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return fmt.Errorf("--addr %q: %w", addr, err)
			}
			s, err := newServer(g, args[0], base)
			if err != nil {
				return err
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
			srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
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
	return cmd
}

// newServer loads the dump at path with its dominator tree and returns
// the server of its pages, answering each question as its command does;
// base, when not "", is an earlier dump to compare with, read when the
// comparison is first asked for.
func newServer(g *globalFlags, path, base string) (*web.Server, error) {
	size, err := g.sizeMode()
	if err != nil {
		return nil, err
	}
	f, format, err := openSniffed(path)
	if err != nil {
		return nil, err
	}
	name := f.Name
	if err := f.Close(); err != nil {
		return nil, err
	}
	// An hprof agent file of profiling data only has no heap to analyse:
	// its overview and profiling pages are served.
	h, x, err := g.open(path, true)
	if err != nil {
		return nil, err
	}
	var (
		r      *graph.Retention
		strong *graph.PathTree
	)
	var profile *model.Profile
	if h.Source.Dumps > 0 {
		if h, r, strong, err = retentionOf(h, x, size, false); err != nil {
			return nil, err
		}
	} else if format.Kind != input.KindHPROF {
		// The heap model of an ASCII agent file holds its heap dump
		// alone; its profiling data comes from the profile reader.
		if profile, err = readProfile(g, path); err != nil {
			return nil, err
		}
	}
	d := web.Dump{
		Path: path, Name: name, Generator: "hprofctl " + versionString(),
		Heap: h, Retention: r, Strong: strong, Size: size, Profile: profile, Binary: format.Kind == input.KindHPROF,
		ShowData: func(objs []model.ObjectIndex, strong *graph.PathTree, o heap.ShowOptions) (heap.ShowData, error) {
			return readShowData(h, path, objs, strong, o)
		},
		PathLabels: func(p graph.RetainerPaths) (map[model.ObjectIndex][]model.LabeledRef, map[model.ObjectIndex]string, error) {
			return readPathLabels(h, path, p)
		},
		Deadlocks: func(hl *threads.HeapLocks) (*threads.DeadlockReport, []string) { return dumpDeadlocks(h, hl, name) },
	}
	if h.Source.Dumps > 0 {
		if d.Heaps, err = g.selectHeaps(h); err != nil {
			return nil, err
		}
		if d.Suspected, err = g.suspectHeaps(h); err != nil {
			return nil, err
		}
		if d.Native, err = nativeSizes(h, path); err != nil {
			return nil, err
		}
	}
	if base != "" {
		d.BaseName = base
		d.Base = func() (web.DiffSides, error) {
			var sides web.DiffSides
			for k, p := range []string{base, path} {
				var err error
				if sides.Histos[k], sides.Tops[k], err = diffSide(g, p, size, true); err != nil {
					return sides, err
				}
			}
			return sides, nil
		}
	}
	return web.New(d), nil
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

// readProfile reads the profiling data of the hprof agent file at path.
func readProfile(g *globalFlags, path string) (*model.Profile, error) {
	f, _, err := openSniffed(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, _, err := g.loadProfile(f, false)
	return p, err
}
