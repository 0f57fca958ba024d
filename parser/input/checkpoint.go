package input

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// Checkpoint is where a member of a gzip file starts. Each member is a
// complete gzip stream, so decompression can begin there: the byte at
// Stored in the file starts the member, whose first decompressed byte is
// the byte at Offset of the whole decompressed stream. The JVM's -gz dumps
// have one member per BLOCKSIZE (1 MiB) of dump; a file gzipped afterwards
// has a single member, so only its start.
type Checkpoint struct {
	// Stored is the member's offset in the compressed file.
	Stored int64
	// Offset is the offset of the member's first byte in the decompressed
	// stream.
	Offset int64
}

// checkpointGap is the fewest decompressed bytes between two recorded
// checkpoints: a file of many tiny members keeps one checkpoint per
// checkpointGap bytes at most, not one per member.
const checkpointGap = 64 << 10

// checkpointLog collects the checkpoints of a file as its members are
// reached, possibly on a decompressing goroutine.
type checkpointLog struct {
	mu   sync.Mutex
	list []Checkpoint
}

func (l *checkpointLog) add(c Checkpoint) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.list); n > 0 && c.Offset-l.list[n-1].Offset < checkpointGap {
		return
	}
	l.list = append(l.list, c)
}

func (l *checkpointLog) snapshot() []Checkpoint {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Checkpoint(nil), l.list...)
}

// Checkpoints returns the checkpoints of the gzip members reached so far,
// in file order; once Read has returned io.EOF, those of the whole file
// (members closer than 64 KiB of decompressed bytes to the previous
// checkpoint are left out). It is nil for plain and bzip2 files, and safe to
// call from another goroutine.
func (f *File) Checkpoints() []Checkpoint {
	if f.checkpoints == nil {
		return nil
	}
	return f.checkpoints.snapshot()
}

// CheckpointBefore returns the index of the last of the checkpoints (in
// file order, as Checkpoints returns them) whose Offset is at most offset,
// and false when there is none.
func CheckpointBefore(checkpoints []Checkpoint, offset int64) (int, bool) {
	i := sort.Search(len(checkpoints), func(i int) bool { return checkpoints[i].Offset > offset })
	return i - 1, i > 0
}

// Resume returns the decompressed stream of the gzip file r (size bytes
// long) from checkpoint c on: its first byte is the byte at c.Offset of the
// whole stream, and it goes on through the following members to the end
// of the file. r is read with ReadAt only, so several streams may share
// one open file.
func Resume(r io.ReaderAt, size int64, c Checkpoint) (io.Reader, error) {
	return NewResumer(r, size).Resume(c)
}

// Resumer resumes the decompression of one gzip file at its checkpoints
// again and again, as Resume does, with one decompressor and read buffer
// for all (about 100 KiB that Resume makes anew each time): for reading
// many objects one after the other.
type Resumer struct {
	at   io.ReaderAt
	size int64
	br   *bufio.Reader
	zr   *gzip.Reader
}

// NewResumer returns a Resumer of the gzip file r, size bytes long.
func NewResumer(r io.ReaderAt, size int64) *Resumer {
	return &Resumer{at: r, size: size}
}

// Resume is the package's Resume through the decompressor z keeps: the
// stream it returns ends at the next call.
func (z *Resumer) Resume(c Checkpoint) (io.Reader, error) {
	if c.Stored < 0 || c.Stored >= z.size {
		return nil, fmt.Errorf("gzip checkpoint at offset %d: the file has %d bytes", c.Stored, z.size)
	}
	src := io.NewSectionReader(z.at, c.Stored, z.size-c.Stored)
	if z.br == nil {
		z.br = bufio.NewReaderSize(src, 1<<16)
	} else {
		z.br.Reset(src)
	}
	var err error
	if z.zr == nil {
		z.zr, err = gzip.NewReader(z.br)
	} else {
		err = z.zr.Reset(z.br)
	}
	if err != nil {
		z.zr = nil
		return nil, fmt.Errorf("gzip member at offset %d: %w", c.Stored, err)
	}
	return z.zr, nil
}
