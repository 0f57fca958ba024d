package store

import (
	"errors"
	"fmt"
)

// The reasons an index cannot be used. Every error Open and the section
// readers return for a file they could read is an *Error wrapping one of
// them, so callers choose with errors.Is: rebuild the index over ErrStale,
// ErrVersion and ErrCorrupt; over ErrNotIndex only where the file's name
// is the index's own (a path the user gave may name some other file).
var (
	// ErrNotIndex: the file does not start as an index file does.
	ErrNotIndex = errors.New("not an hprofctl index")
	// ErrVersion: the file is an index of another format or content
	// version than this hprofctl reads.
	ErrVersion = errors.New("index of another version")
	// ErrStale: the index describes another dump, or this dump before it
	// was rewritten or touched.
	ErrStale = errors.New("index is stale")
	// ErrCorrupt: the file is cut short, has bytes that do not match their
	// checksum, or a header or section table that cannot be right.
	ErrCorrupt = errors.New("index is corrupt")
	// ErrUntrusted: the file belongs to another user, or lies where
	// another user could have put or replaced it (see Open).
	ErrUntrusted = errors.New("index is not trusted")
)

// ErrNoFile is returned for a dump that is not a regular file (standard
// input, a pipe): such a dump has no index.
var ErrNoFile = errors.New("not a regular file, so it has no index")

// Error says what is wrong with an index file and where.
type Error struct {
	// Path is the index file.
	Path string
	// Section names the section at fault, or is empty for the header and
	// the section table.
	Section string
	// Offset is the byte offset in the file where the fault was found.
	Offset int64
	// Reason is ErrNotIndex, ErrVersion, ErrStale, ErrCorrupt or
	// ErrUntrusted.
	Reason error
	// Detail says what was expected and what was found.
	Detail string
}

func (e *Error) Error() string {
	where := fmt.Sprintf("%s: offset %d", e.Path, e.Offset)
	if e.Section != "" {
		where += fmt.Sprintf(" (section %q)", e.Section)
	}
	return fmt.Sprintf("%s: %v: %s", where, e.Reason, e.Detail)
}

// Unwrap returns the reason, for errors.Is.
func (e *Error) Unwrap() error { return e.Reason }
