package session

import (
	"fmt"
	"os"
	"sync"

	"github.com/hprofctl/hprofctl/model/store"
	"github.com/hprofctl/hprofctl/parser/input"
)

// ErrDumpChanged is what a question fails with when the dump's file was
// replaced or rewritten since the session read it: the answers would mix
// the old dump's index with the new file's records.
var ErrDumpChanged = input.ErrChanged

// changeWatch remembers the dump's fingerprint when Unchanged was first
// asked, and the verdict on the last file state it saw.
type changeWatch struct {
	mu       sync.Mutex
	base     *store.Fingerprint
	seenSize int64
	seenTime int64
	seenErr  error
}

// Unchanged reports whether the dump's file is still the one the session
// read: nil while it is, an error wrapping ErrDumpChanged once it is not.
// The first call takes the file's fingerprint (its size, modification
// time and sampled content), later calls compare with it: a stat when the
// size and time are those seen last, else the sampled content again, so
// that a touched file whose content is the same is no change. A session of
// standard input, which cannot change under it, is always unchanged.
func (s *Session) Unchanged() error {
	if s.stdin() {
		return nil
	}
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.base == nil {
		fp, err := store.FingerprintFile(s.path)
		if err != nil {
			return nil
		}
		w.base, w.seenSize, w.seenTime = &fp, fp.Size, fp.ModTime
		return nil
	}
	st, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("%s: %w (%v)", s.name, ErrDumpChanged, err)
	}
	if st.Size() == w.seenSize && st.ModTime().UnixNano() == w.seenTime {
		return w.seenErr
	}
	fp, err := store.FingerprintFile(s.path)
	w.seenSize, w.seenTime, w.seenErr = st.Size(), st.ModTime().UnixNano(), nil
	switch {
	case err != nil:
		w.seenErr = fmt.Errorf("%s: %w (%v)", s.name, ErrDumpChanged, err)
	case fp.Size != w.base.Size || fp.Sample != w.base.Sample:
		w.seenErr = fmt.Errorf("%s: %w", s.name, ErrDumpChanged)
	}
	return w.seenErr
}
