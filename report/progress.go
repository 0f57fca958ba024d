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
	w     io.Writer
	total int64
	done  func() int64
	stop  chan struct{}
	wg    sync.WaitGroup
}

// StartProgress starts drawing on w; done reports how many of total bytes
// have been read so far (total <= 0: unknown, only the count is shown).
func StartProgress(w io.Writer, label string, total int64, done func() int64) *Progress {
	p := &Progress{w: w, total: total, done: done, stop: make(chan struct{})}
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

func (p *Progress) draw(label string) {
	n := p.done()
	if p.total <= 0 {
		fmt.Fprintf(p.w, "\r\033[K%s %s", label, humanize.IBytes(uint64(n)))
		return
	}
	const width = 30
	frac := min(float64(n)/float64(p.total), 1)
	filled := int(frac * width)
	fmt.Fprintf(p.w, "\r\033[K%s [%s%s] %3.0f%% %s / %s", label, strings.Repeat("=", filled),
		strings.Repeat(" ", width-filled), frac*100, humanize.IBytes(uint64(n)), humanize.IBytes(uint64(p.total)))
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
