package store

import (
	"errors"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// directBlock is the alignment of the file offsets, lengths and memory of
// the writes that bypass the page cache: the largest logical block size
// of the disks met.
const directBlock = 4096

// directBufferSize is a directWriter's buffer, as large as the buffer of
// the writes through the page cache (writeBufferSize): larger writes
// measured no faster.
const directBufferSize = writeBufferSize

// A directWriter writes an index file from its start, in order, past the
// page cache (O_DIRECT where the system has it): the pages a buffered
// write fills are memory the system must find and clear first, a second
// or more per GiB on a virtual machine whose free memory went back to its
// host, and the build does not read the index it writes. Whole blocks go
// to the disk from an aligned buffer; a Flush writes the part block at
// the end through the page cache (file), and keeps it to write again with
// what follows. Such a write waits for the disk, where a buffered one
// leaves the disk to the system's writeback: when the file system refuses
// a write past the cache, or the disk takes them slowly (slowDirect), the
// writer goes on through the page cache.
type directWriter struct {
	direct *os.File // the file opened past the page cache; nil once given up
	file   *os.File // the same file, through the page cache
	buf    []byte   // directBufferSize bytes at a directBlock-aligned address
	n      int      // bytes held in buf
	off    int64    // the file offset of buf[0], a multiple of directBlock
	// writes and took count the writes past the page cache and the time
	// they took.
	writes int
	took   time.Duration
}

// The disk is slow for writes past the page cache when one write takes
// longer than slowWrite, or when the first probeWrites or more took more
// than slowPerBuffer each on average: a busy disk serves such writes,
// one at a time, after the queue of the system's own writeback (seen:
// 23 ms a buffer on average, up to 1.3 s, where an idle disk takes 1 to
// 2 ms once the first few writes of a new file are done).
const (
	slowWrite     = 100 * time.Millisecond
	slowPerBuffer = 5 * time.Millisecond
	probeWrites   = 32
)

// slowDirect says whether the writes past the page cache so far, the
// last of which took last, were slow.
func (d *directWriter) slowDirect(last time.Duration) bool {
	return last > slowWrite || d.writes >= probeWrites && d.took > time.Duration(d.writes)*slowPerBuffer
}

// pastPageCache says whether Writers write past the page cache where they
// can; tests turn it off to compare both ways.
var pastPageCache = true

// newDirectWriter returns a directWriter for the empty file f, whose path
// it opens again past the page cache; nil where that cannot be done.
func newDirectWriter(f *os.File) *directWriter {
	if !pastPageCache {
		return nil
	}
	direct := openDirect(f.Name())
	if direct == nil {
		return nil
	}
	raw := make([]byte, directBufferSize+directBlock)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(raw))) & (directBlock - 1))
	return &directWriter{direct: direct, file: f, buf: raw[skip : skip+directBufferSize]}
}

// Write buffers p, writing each full buffer out.
func (d *directWriter) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		c := copy(d.buf[d.n:], p[done:])
		d.n += c
		done += c
		if d.n == len(d.buf) {
			if err := d.writeBlocks(); err != nil {
				return done, err
			}
		}
	}
	return done, nil
}

// writeBlocks writes the whole blocks buf holds and moves the part block
// after them to its start.
func (d *directWriter) writeBlocks() error {
	whole := d.n &^ (directBlock - 1)
	if whole == 0 {
		return nil
	}
	if err := d.writeAt(d.buf[:whole], d.off); err != nil {
		return err
	}
	d.off += int64(whole)
	d.n = copy(d.buf, d.buf[whole:d.n])
	return nil
}

// writeAt writes b at off past the page cache, or through it once the
// file system refused that or the disk was slow.
func (d *directWriter) writeAt(b []byte, off int64) error {
	if d.direct != nil {
		start := time.Now()
		_, err := d.direct.WriteAt(b, off)
		if err == nil {
			took := time.Since(start)
			d.writes++
			d.took += took
			if d.slowDirect(took) {
				d.direct.Close()
				d.direct = nil
			}
			return nil
		}
		if !errors.Is(err, syscall.EINVAL) {
			return err
		}
		d.direct.Close()
		d.direct = nil
	}
	_, err := d.file.WriteAt(b, off)
	return err
}

// Flush writes all that is buffered: the whole blocks past the page
// cache, the part block after them through it.
func (d *directWriter) Flush() error {
	if err := d.writeBlocks(); err != nil {
		return err
	}
	if d.n == 0 {
		return nil
	}
	_, err := d.file.WriteAt(d.buf[:d.n], d.off)
	return err
}

// Close closes the file opened past the page cache.
func (d *directWriter) Close() error {
	if d.direct == nil {
		return nil
	}
	return d.direct.Close()
}
