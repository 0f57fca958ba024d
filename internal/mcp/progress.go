package mcp

import (
	"context"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hprofctl/hprofctl/parser/input"
)

// progressEvery is how often the progress of a read is told.
const progressEvery = 500 * time.Millisecond

// progress tells the tool call that waits for a file how far its read
// (an index build, a dump read whole) has come: a progress notification
// as the read starts, every progressEvery, and as it ends.
type progress struct {
	mu     sync.Mutex
	notify func(read, total int64)
}

// start reports the read of f until stop is called; it is the
// session.Options.Progress of the file's session.
func (p *progress) start(f *input.File) (stop func()) {
	p.send(f.StoredOffset(), f.Size)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				p.send(f.StoredOffset(), f.Size)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		p.send(f.StoredOffset(), f.Size)
	}
}

// send tells the call that listens, if any.
func (p *progress) send(read, total int64) {
	p.mu.Lock()
	notify := p.notify
	p.mu.Unlock()
	if notify != nil {
		notify(read, total)
	}
}

// listen has the progress told to the call req when it asked for it (a
// progress token), until the returned function is called.
func (p *progress) listen(ctx context.Context, req *sdk.CallToolRequest, file string) (done func()) {
	if req == nil || req.Params == nil || req.Session == nil || req.Params.GetProgressToken() == nil {
		return func() {}
	}
	token := req.Params.GetProgressToken()
	notify := func(read, total int64) {
		req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: token, Message: "reading " + file, Progress: float64(read), Total: float64(total),
		})
	}
	p.mu.Lock()
	p.notify = notify
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.notify = nil
	}
}
