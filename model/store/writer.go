package store

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"unsafe"
)

// Identity says which dump an index describes and what its sections hold.
// Open refuses an index whose identity differs from the one asked for.
type Identity struct {
	// Content is the version of the sections' content, owned by the
	// caller: which sections exist and what they mean. Change it whenever
	// that changes, so that indexes of older builds are rebuilt.
	Content uint32
	// Dump is the fingerprint of the dump the index describes.
	Dump Fingerprint
}

// errClosed is returned for work asked of a Writer after Commit or Abort.
var errClosed = errors.New("index writer is committed or aborted")

// writeBufferSize is the Writer's buffer where it writes through the page
// cache: small writes (padding, strings) gather in it, large array chunks
// go to the file directly.
const writeBufferSize = 1 << 20

// Writer writes an index file one section at a time. Sections are streamed
// into a temporary file in the final file's directory; Commit adds the
// section table and header, syncs the file and renames it to its final
// name, so the final name only ever holds a whole index. One section is
// open at a time: NewArray, NewStrings and NewBlob start one, its Close
// ends it. The first error is kept and returned by every later call.
// A Writer is not safe for concurrent use.
type Writer struct {
	path    string
	tmp     string
	perm    fs.FileMode
	group   int    // the group to give the file, or -1 for the writer's own
	dump    string // the dump's absolute path, recorded at Commit, or ""
	id      Identity
	f       *os.File
	buf     flushWriter   // a *directWriter where the system has one, else a *bufio.Writer
	direct  *directWriter // buf when it is one, else nil
	off     uint64        // bytes written so far
	flushed uint64        // bytes in the file by the last StartWriteback
	crc     uint32        // checksum of the open section so far
	open    *entry        // the section being written, or nil
	entries []entry
	names   map[string]bool
	err     error
	// state is the committed file's, for the ledger, when stated;
	// vouched says Commit enters it there (Vouch).
	state   fileState
	stated  bool
	vouched bool
	done    bool
}

// Create starts writing the index for dump identity id, to be committed as
// path with permissions perm. The temporary file is made in path's
// directory, so an error here (a directory that is not writable) says the
// index cannot be kept there. Temporary files of writers that died (this
// user's, locked by no process) are removed first. Call Abort (deferred)
// unless Commit succeeds.
func Create(path string, id Identity, perm fs.FileMode) (*Writer, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	removeAbandoned(dir, base)
	f, err := createLocked(dir, base+".*"+tempSuffix)
	if err != nil {
		return nil, err
	}
	w := &Writer{
		path:  path,
		tmp:   f.Name(),
		perm:  perm,
		group: -1,
		id:    id,
		f:     f,
		names: map[string]bool{},
	}
	if d := newDirectWriter(f); d != nil {
		w.buf, w.direct = d, d
	} else {
		w.buf = bufio.NewWriterSize(f, writeBufferSize)
	}
	// The header is written last, at offset 0; until then it is zeros
	// (in the buffer, so this cannot fail).
	w.raw(make([]byte, headerSize))
	return w, nil
}

// A flushWriter buffers what is written to it until Flush.
type flushWriter interface {
	io.Writer
	Flush() error
}

// closeDirect closes the file the writer opened past the page cache, if
// any.
func (w *Writer) closeDirect() error {
	if w.direct == nil {
		return nil
	}
	return w.direct.Close()
}

// createLocked makes a new temporary file in dir named after pattern (as
// os.CreateTemp does) and holds its lock. A file another writer's sweep
// removed before the lock was taken is given up for another.
func createLocked(dir, pattern string) (*os.File, error) {
	const tries = 8
	for range tries {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		if lockTemp(f, f.Name()) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s: %d temporary files in a row were removed before they could be locked", dir, tries)
}

// Path returns the path the index is committed to.
func (w *Writer) Path() string { return w.path }

// fail keeps the first error.
func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return w.err
}

// Err returns the first error the writer met, or nil: the one cause when
// a run of section writes all failed with it.
func (w *Writer) Err() error { return w.err }

// usable returns the error that stops further writing, if any.
func (w *Writer) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return errClosed
	}
	return nil
}

// raw writes bytes that belong to no section's checksum.
func (w *Writer) raw(b []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.buf.Write(b); err != nil {
		w.fail(err) // an *os.PathError: it names the file
		return
	}
	w.off += uint64(len(b))
}

// put writes bytes of the open section.
func (w *Writer) put(b []byte) error {
	if err := w.usable(); err != nil {
		return err
	}
	w.crc = crc32.Update(w.crc, castagnoli, b)
	w.raw(b)
	return w.err
}

// pad writes zeros up to the next aligned offset.
func (w *Writer) pad() {
	var zeros [alignment]byte
	w.raw(zeros[:alignUp(w.off)-w.off])
}

// begin opens a section.
func (w *Writer) begin(name string, kind Kind, elemSize uint8) (*entry, error) {
	if err := w.usable(); err != nil {
		return nil, err
	}
	switch {
	case w.open != nil:
		return nil, w.fail(fmt.Errorf("section %q begun while section %q is open", name, w.open.name))
	case !validName(name):
		return nil, w.fail(fmt.Errorf("section name %q: want 1 to %d letters, digits or . _ - /", name, MaxNameLen))
	case w.names[name]:
		return nil, w.fail(fmt.Errorf("section %q written twice", name))
	case len(w.entries) == maxSections:
		return nil, w.fail(fmt.Errorf("section %q: more than %d sections", name, maxSections))
	}
	w.pad()
	if w.err != nil {
		return nil, w.err
	}
	w.names[name] = true
	w.open = &entry{name: name, offset: w.off, kind: kind, elemSize: elemSize}
	w.crc = 0
	return w.open, nil
}

// owns checks that e is the open section.
func (w *Writer) owns(e *entry) error {
	if err := w.usable(); err != nil {
		return err
	}
	if w.open != e {
		return w.fail(fmt.Errorf("section %q written after it was closed", e.name))
	}
	return nil
}

// end closes section e, which holds count elements.
func (w *Writer) end(e *entry, count uint64) error {
	if err := w.owns(e); err != nil {
		return err
	}
	e.length = w.off - e.offset
	e.count = count
	e.crc = w.crc
	w.entries = append(w.entries, *e)
	w.open = nil
	return nil
}

// ArrayWriter streams one array section of element type T.
type ArrayWriter[T Integer] struct {
	w       *Writer
	e       *entry
	n       uint64
	scratch []byte
}

// NewArray starts the array section name of element type T on w.
func NewArray[T Integer](w *Writer, name string) (*ArrayWriter[T], error) {
	k := kindOf[T]()
	e, err := w.begin(name, k, uint8(k.intSize()))
	if err != nil {
		return nil, err
	}
	return &ArrayWriter[T]{w: w, e: e}, nil
}

// Append adds chunk to the end of the array. The chunk is written out
// before Append returns, so the caller may reuse it.
func (a *ArrayWriter[T]) Append(chunk []T) error {
	if err := a.w.owns(a.e); err != nil {
		return err
	}
	if len(chunk) == 0 {
		return nil
	}
	a.n += uint64(len(chunk))
	if nativeLittleEndian {
		return a.w.put(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(chunk))), len(chunk)*a.e.kind.intSize()))
	}
	size := a.e.kind.intSize()
	if a.scratch == nil {
		a.scratch = make([]byte, 64<<10)
	}
	for len(chunk) > 0 {
		n := min(len(chunk), len(a.scratch)/size)
		encodeLE(a.scratch, chunk[:n])
		if err := a.w.put(a.scratch[:n*size]); err != nil {
			return err
		}
		chunk = chunk[n:]
	}
	return nil
}

// Close ends the section.
func (a *ArrayWriter[T]) Close() error { return a.w.end(a.e, a.n) }

// WriteArray writes data as the array section name.
func WriteArray[T Integer](w *Writer, name string, data []T) error {
	a, err := NewArray[T](w, name)
	if err != nil {
		return err
	}
	if err := a.Append(data); err != nil {
		return err
	}
	return a.Close()
}

// encodeLE stores src little-endian into dst.
func encodeLE[T Integer](dst []byte, src []T) {
	switch kindOf[T]().intSize() {
	case 1:
		for i, v := range src {
			dst[i] = byte(v)
		}
	case 2:
		for i, v := range src {
			binary.LittleEndian.PutUint16(dst[2*i:], uint16(v))
		}
	case 4:
		for i, v := range src {
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(v))
		}
	default:
		for i, v := range src {
			binary.LittleEndian.PutUint64(dst[8*i:], uint64(v))
		}
	}
}

// wideOffsetsAbove is the largest string data a table indexes with 4-byte
// offsets; tests lower it to write 8-byte ones without gigabytes.
var wideOffsetsAbove uint64 = math.MaxUint32

// StringsWriter streams one string table section. It keeps 8 bytes per
// string in memory until Close; the strings themselves go to the file as
// they are added.
type StringsWriter struct {
	w    *Writer
	e    *entry
	ends []uint64
	size uint64
}

// NewStrings starts the string table section name on w.
func (w *Writer) NewStrings(name string) (*StringsWriter, error) {
	e, err := w.begin(name, KindStrings, 0)
	if err != nil {
		return nil, err
	}
	return &StringsWriter{w: w, e: e}, nil
}

// Add appends str to the table; its index is the number of strings added
// before it.
func (s *StringsWriter) Add(str string) error {
	if err := s.w.owns(s.e); err != nil {
		return err
	}
	if err := s.w.put(unsafe.Slice(unsafe.StringData(str), len(str))); err != nil {
		return err
	}
	s.size += uint64(len(str))
	s.ends = append(s.ends, s.size)
	return nil
}

// Close writes the table's offsets and ends the section: 4-byte offsets
// when the strings take less than 4 GiB, else 8-byte ones.
func (s *StringsWriter) Close() error {
	if err := s.w.owns(s.e); err != nil {
		return err
	}
	width := 4
	if s.size > wideOffsetsAbove {
		width = 8
	}
	s.e.elemSize = uint8(width)
	var zeros [8]byte
	if err := s.w.put(zeros[:(width-int(s.size%uint64(width)))%width]); err != nil {
		return err
	}
	const batch = 8 << 10
	buf := make([]byte, 0, batch*width)
	for i := -1; i < len(s.ends); i++ {
		var end uint64
		if i >= 0 {
			end = s.ends[i]
		}
		if width == 4 {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(end))
		} else {
			buf = binary.LittleEndian.AppendUint64(buf, end)
		}
		if len(buf) == cap(buf) || i == len(s.ends)-1 {
			if err := s.w.put(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return s.w.end(s.e, uint64(len(s.ends)))
}

// WriteStrings writes strs as the string table section name.
func (w *Writer) WriteStrings(name string, strs []string) error {
	s, err := w.NewStrings(name)
	if err != nil {
		return err
	}
	for _, str := range strs {
		if err := s.Add(str); err != nil {
			return err
		}
	}
	return s.Close()
}

// BlobWriter streams one blob section; it is an io.WriteCloser.
type BlobWriter struct {
	w *Writer
	e *entry
}

// NewBlob starts the blob section name on w.
func (w *Writer) NewBlob(name string) (*BlobWriter, error) {
	e, err := w.begin(name, KindBlob, 1)
	if err != nil {
		return nil, err
	}
	return &BlobWriter{w: w, e: e}, nil
}

// Write appends p to the blob.
func (b *BlobWriter) Write(p []byte) (int, error) {
	if err := b.w.owns(b.e); err != nil {
		return 0, err
	}
	if err := b.w.put(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close ends the section.
func (b *BlobWriter) Close() error {
	if err := b.w.owns(b.e); err != nil {
		return err
	}
	return b.w.end(b.e, b.w.off-b.e.offset)
}

// WriteBlob writes data as the blob section name.
func (w *Writer) WriteBlob(name string, data []byte) error {
	b, err := w.NewBlob(name)
	if err != nil {
		return err
	}
	if _, err := b.Write(data); err != nil {
		return err
	}
	return b.Close()
}

// WriteJSON writes v encoded as JSON as the blob section name.
func (w *Writer) WriteJSON(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return w.fail(fmt.Errorf("section %q: %w", name, err))
	}
	return w.WriteBlob(name, data)
}

// StartWriteback writes out what w buffers and asks the system to start
// writing the file to disk without waiting, so that Commit's sync, which
// waits, finds less left to write: call it after the bulk of the
// sections, while other work runs. It returns the writer's error, as the
// other calls do.
func (w *Writer) StartWriteback() error {
	if err := w.usable(); err != nil {
		return err
	}
	if err := w.buf.Flush(); err != nil {
		return w.fail(err) // an *os.PathError: it names the file
	}
	w.flushed = w.off
	startWriteback(w.f)
	return nil
}

// Commit ends the file: it writes the section table and the header, syncs
// the file to disk, gives it its permissions and renames it to its final
// path (replacing any file there), then syncs the directory. On an error
// the temporary file is removed and nothing is renamed.
func (w *Writer) Commit() error {
	if err := w.usable(); err != nil {
		w.Abort()
		return err
	}
	if w.open != nil {
		w.fail(fmt.Errorf("commit while section %q is open", w.open.name))
		w.Abort()
		return w.err
	}
	if w.dump != "" {
		w.WriteBlob(dumpSection, []byte(w.dump))
	}
	w.pad()
	tableOffset := w.off
	table := make([]byte, len(w.entries)*entrySize)
	for i := range w.entries {
		w.entries[i].encode(table[i*entrySize:])
	}
	w.raw(table)
	h := header{
		format:      FormatVersion,
		content:     w.id.Content,
		fileSize:    w.off,
		tableOffset: tableOffset,
		sections:    uint32(len(w.entries)),
		tableCRC:    crc32.Checksum(table, castagnoli),
		dump:        w.id.Dump,
	}
	hb := make([]byte, headerSize)
	h.encode(hb)
	if w.err == nil {
		if err := w.buf.Flush(); err != nil {
			w.fail(err) // an *os.PathError: it names the file
		}
	}
	steps := []func() error{
		w.closeDirect,
		func() error { _, err := w.f.WriteAt(hb, 0); return err },
		w.f.Sync,
		w.setAccess,
		// Renamed while still open and locked: a sweep between would
		// take the closed file for an abandoned one.
		func() error { return os.Rename(w.tmp, w.path) },
		w.noteState,
		w.f.Close,
	}
	for _, step := range steps {
		if w.err != nil {
			break
		}
		if err := step(); err != nil {
			w.fail(fmt.Errorf("commit index %s: %w", w.path, err))
		}
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	w.done = true
	syncDir(filepath.Dir(w.path))
	if w.vouched && w.stated {
		recordWritten(w.path, w.state)
	}
	return nil
}

// Vouch has Commit enter the file into the ledger of indexes this user's
// hprofctl wrote (see Index.Written): the caller vouches that every
// section holds what its readers may use unchecked, having built it
// itself. Whoever writes what it did not build (a copy of another file,
// a crafted one) must not vouch for it.
func (w *Writer) Vouch() { w.vouched = true }

// noteState takes the state of the file just renamed to its name, for the
// ledger (recordWritten). A file whose state cannot be taken is left out
// of the ledger, which is no fault.
func (w *Writer) noteState() error {
	if st, err := w.f.Stat(); err == nil {
		w.state, w.stated = stateOf(st)
	}
	return nil
}

// setAccess gives the file its permissions and, when one is asked for,
// its group. A file that cannot be given that group (this user is not in
// it) gets for its group what others get, so that it is never readable by
// more users than asked for.
func (w *Writer) setAccess() error {
	perm := w.perm
	if w.group >= 0 {
		if err := w.f.Chown(-1, w.group); err != nil {
			perm = perm&^0o070 | (perm&0o007)<<3
		}
	}
	return w.f.Chmod(perm)
}

// Abort gives up the index: the temporary file is closed and removed.
// It does nothing after a successful Commit, so it may be deferred.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.closeDirect()
	w.f.Close()
	os.Remove(w.tmp)
}
