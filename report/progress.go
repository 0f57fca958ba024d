package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
)

// Progress draws a progress bar for a file being read, redrawn a few times
// a second until Stop. The caller decides whether to show one (only when
// its output is a terminal).
type Progress struct {
	w       io.Writer
	total   int64
	done    func() int64
	stop    chan struct{}
	wg      sync.WaitGroup
	started time.Time

	mu sync.Mutex
	// phase is the phase of the work under way after the read (empty
	// while reading), phaseAt when it began, before the share of the
	// work's time the phases before it take (Phase).
	phase   string
	phaseAt time.Time
	before  float64
}

// StartProgress starts drawing on w; done reports how many of total bytes
// have been read so far (total <= 0: unknown, only the count is shown).
func StartProgress(w io.Writer, label string, total int64, done func() int64) *Progress {
	p := &Progress{w: w, total: total, done: done, stop: make(chan struct{}), started: time.Now()}
	p.run(func() { p.draw(label) })
	return p
}

// run calls draw a few times a second until Stop, which erases the line.
func (p *Progress) run(draw func()) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				fmt.Fprint(p.w, "\r\033[K")
				return
			case <-tick.C:
				draw()
			}
		}
	}()
}

// Phase shows that the work has moved on to the phase called name, the
// phases before it taking the share before (0 to 1) of the work's time:
// the bar then names the phase, the time it has taken so far and an
// estimate of the time left, the work's time so far scaled by the share
// done. The phase "reading" keeps the bar of the bytes read.
func (p *Progress) Phase(name string, before float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if name == "reading" {
		name = ""
	}
	p.phase, p.phaseAt, p.before = name, time.Now(), before
}

func (p *Progress) draw(label string) {
	p.mu.Lock()
	phase, phaseAt, before := p.phase, p.phaseAt, p.before
	p.mu.Unlock()
	if phase != "" {
		now := time.Now()
		line := fmt.Sprintf("%s %s", phase, now.Sub(phaseAt).Round(time.Second))
		if before > 0 && before < 1 {
			left := time.Duration(float64(phaseAt.Sub(p.started))/before) - now.Sub(p.started)
			line += ", about " + max(left, time.Second).Round(time.Second).String() + " left"
		}
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	n := p.done()
	if p.total <= 0 {
		fmt.Fprintf(p.w, "\r\033[K%s %s", label, humanize.IBytes(uint64(n)))
		return
	}
	const width = 30
	frac := min(float64(n)/float64(p.total), 1)
	filled := int(frac * width)
	line := fmt.Sprintf("%s [%s%s] %3.0f%% %s / %s", label, strings.Repeat("=", filled),
		strings.Repeat(" ", width-filled), frac*100, humanize.IBytes(uint64(n)), humanize.IBytes(uint64(p.total)))
	if elapsed := time.Since(p.started); n > 0 && frac < 1 && elapsed > time.Second {
		left := time.Duration(float64(elapsed) * float64(p.total-n) / float64(n))
		line += ", about " + left.Round(time.Second).String() + " left to read"
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
}

// Stop erases the bar.
func (p *Progress) Stop() {
	close(p.stop)
	p.wg.Wait()
}

// StartCount draws, on w, a count of what done reports (rows found,
// say, named by unit) until Stop, a few times a second.
func StartCount(w io.Writer, label, unit string, done func() int64) *Progress {
	p := &Progress{w: w, done: done, stop: make(chan struct{})}
	p.run(func() { fmt.Fprintf(p.w, "\r\033[K%s: %s %s", label, humanize.Comma(p.done()), unit) })
	return p
}
