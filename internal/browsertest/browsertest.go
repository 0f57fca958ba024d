// Package browsertest loads pages in a real headless Chromium for tests,
// through the DevTools protocol (chromedp): what a person would see, which
// requests a page makes, and whether anything on it runs or fails.
//
// One browser serves every test of a test binary: it starts on the first
// Load and ends with Close, which the binary's TestMain calls. Where no
// Chromium is installed the tests that need one skip, unless
// HPROFCTL_REQUIRE_BROWSER=1 (as in CI), where they fail.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// RequireEnv is the environment variable that, set to 1, makes a missing
// or broken browser fail the tests instead of skipping them.
const RequireEnv = "HPROFCTL_REQUIRE_BROWSER"

// binaries are the names a Chromium goes by, Debian's first.
var binaries = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless-shell"}

// timeout bounds each step a test takes in the browser, so a hung browser
// fails the test instead of the whole binary's time limit.
const timeout = 60 * time.Second

// shared is the browser of the test binary.
var shared struct {
	once     sync.Once
	ctx      context.Context
	cancel   func()
	startErr error
}

// startAttempts is how many times start tries to launch the browser: on a
// loaded machine Chromium's first launch (building its caches) can miss a
// deadline that the next one meets.
const startAttempts = 3

// start finds a Chromium and starts it headless.
func start() {
	var path string
	for _, name := range binaries {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		shared.startErr = fmt.Errorf("none of %s is on $PATH (Debian: apt-get install chromium)", strings.Join(binaries, ", "))
		return
	}
	var failures []string
	for attempt := 1; attempt <= startAttempts; attempt++ {
		ctx, cancel, err := launch(path)
		if err == nil {
			shared.ctx, shared.cancel = ctx, cancel
			return
		}
		cancel()
		failures = append(failures, fmt.Sprintf("attempt %d: %v", attempt, err))
	}
	shared.startErr = fmt.Errorf("starting %s: %s", path, strings.Join(failures, "; "))
}

// launch starts the Chromium at path headless and waits, up to timeout,
// until it answers; cancel ends it whether or not it started.
func launch(path string) (ctx context.Context, cancel func(), err error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.DisableGPU,
		chromedp.WSURLReadTimeout(timeout))
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root with its sandbox (containers,
		// CI); the pages the tests load are the tests' own.
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(alloc)
	cancel = func() {
		cancelBrowser()
		cancelAlloc()
	}
	started := make(chan error, 1)
	go func() { started <- chromedp.Run(ctx) }()
	select {
	case err = <-started:
	case <-time.After(timeout + 10*time.Second):
		err = fmt.Errorf("no answer in %v", timeout+10*time.Second)
	}
	return ctx, cancel, err
}

// Close ends the browser, if one started.
func Close() {
	if shared.cancel != nil {
		shared.cancel()
	}
}

// Page is a page loaded in a tab of the browser.
type Page struct {
	t   testing.TB
	ctx context.Context

	mu       sync.Mutex
	requests []string
	problems []string
}

// Load opens url in a new tab and waits until the page has loaded; the
// tab closes when the test ends. It skips t, or fails it with RequireEnv
// set, when no browser can be started.
func Load(t testing.TB, url string) *Page {
	t.Helper()
	shared.once.Do(start)
	if shared.startErr != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("no headless Chromium, and %s=1: %v", RequireEnv, shared.startErr)
		}
		t.Skipf("no headless Chromium (%s=1 fails instead): %v", RequireEnv, shared.startErr)
	}
	ctx, cancel := chromedp.NewContext(shared.ctx)
	t.Cleanup(cancel)
	// The first Run opens the tab, which lives as long as the context
	// that Run is given: this one, not one of the timeouts of run.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("browser: opening a tab: %v", err)
	}
	p := &Page{t: t, ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			p.requests = append(p.requests, e.Request.URL)
		case *log.EventEntryAdded:
			p.problems = append(p.problems, fmt.Sprintf("%s %s: %s", e.Entry.Source, e.Entry.Level, e.Entry.Text))
		case *runtime.EventConsoleAPICalled:
			p.problems = append(p.problems, fmt.Sprintf("console.%s called", e.Type))
		case *runtime.EventExceptionThrown:
			p.problems = append(p.problems, "exception: "+e.ExceptionDetails.Text)
		}
	})
	p.run("load "+url, network.Enable(), log.Enable(), runtime.Enable(), chromedp.Navigate(url), chromedp.WaitReady("body", chromedp.ByQuery))
	return p
}

// run runs actions in the page's tab, failing the test on an error.
func (p *Page) run(what string, actions ...chromedp.Action) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer in %v: %w", timeout, err)
		}
		p.t.Fatalf("browser: %s: %v", what, err)
	}
}

// Eval evaluates a JavaScript expression in the page, as the DevTools
// console would (the page's own policy does not apply), and stores its
// value, JSON-decoded, in out.
func (p *Page) Eval(expr string, out any) {
	p.t.Helper()
	p.run("evaluate "+expr, chromedp.Evaluate(expr, out))
}

// Click clicks, as a person would, the first element the CSS selector
// picks.
func (p *Page) Click(selector string) {
	p.t.Helper()
	p.run("click "+selector, chromedp.Click(selector, chromedp.ByQuery, chromedp.NodeVisible))
}

// Requests returns the URLs the page requested so far, itself first.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Problems returns what the page reported so far: its console messages,
// log entries (a blocked resource, a Content-Security-Policy violation)
// and uncaught exceptions.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Screenshot returns a PNG of the page as a window width by height CSS
// pixels shows it, from its top.
func (p *Page) Screenshot(width, height int64) []byte {
	p.t.Helper()
	var png []byte
	p.run("screenshot", chromedp.EmulateViewport(width, height), chromedp.CaptureScreenshot(&png))
	return png
}
