package hprof

import (
	"errors"
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/internal/window"
)

// maxCheckpointGap is the largest distance between two gzip checkpoints
// at which objects are decoded from the checkpoint before them rather than
// by streaming the whole dump again: the JVM's -gz members are 1 MiB of
// data each, a single-member gzip file has one checkpoint at its start.
const maxCheckpointGap = 64 << 20

// ErrNoRandomAccess is returned by NewObjectReader for a dump whose
// storage allows no reading at record offsets: a bzip2 file, a gzip file
// of one member (or of members too far apart). Such a dump is streamed
// again instead.
var ErrNoRandomAccess = errors.New("the dump cannot be read at record offsets, only streamed")

// ObjectReaderOptions describe the dump an ObjectReader reads: the facts
// of its file header and how it is stored.
type ObjectReaderOptions struct {
	// Header is the dump's file header; its Version and IDSize say how
	// sub-records are decoded.
	Header Header
	// Compression is the compression of the stored file.
	Compression input.Compression
	// Checkpoints are the starts of the gzip members of a gzip file
	// (input.File.Checkpoints), where decompression can begin.
	Checkpoints []input.Checkpoint
}

// RandomAccess reports whether a dump stored as o says can be read at
// record offsets: a plain file, or a gzip file whose members start no
// more than 64 MiB of decompressed bytes apart (the JVM's -gz dumps).
func (o ObjectReaderOptions) RandomAccess() bool {
	switch o.Compression {
	case input.Plain:
		return true
	case input.Gzip:
		return checkpointsDense(o.Checkpoints)
	}
	return false
}

// checkpointsDense reports whether gzip checkpoints lie close enough
// together for decoding single objects from them.
func checkpointsDense(cps []input.Checkpoint) bool {
	if len(cps) < 2 {
		return false
	}
	for i := 1; i < len(cps); i++ {
		if cps[i].Offset-cps[i-1].Offset > maxCheckpointGap {
			return false
		}
	}
	return true
}

// ObjectReader decodes single heap sub-records of a binary HPROF dump at
// their record offsets (offsets in the decompressed stream, as a Reader
// gives them in Record.Offset), without reading the records before them:
// in a plain file at the offset itself, in a gzip file from the member
// that holds it. It reads the stored file with ReadAt only, so that one
// ObjectReader serves several goroutines.
type ObjectReader struct {
	at   io.ReaderAt
	size int64
	o    ObjectReaderOptions
}

// NewObjectReader returns a reader of the objects of the dump stored in r
// (size bytes as stored), described by o. It returns ErrNoRandomAccess
// when o does not allow reading at offsets (o.RandomAccess).
func NewObjectReader(r io.ReaderAt, size int64, o ObjectReaderOptions) (*ObjectReader, error) {
	if !o.RandomAccess() {
		return nil, ErrNoRandomAccess
	}
	if o.Header.IDSize != 4 && o.Header.IDSize != 8 {
		return nil, fmt.Errorf("identifier size %d: expected 4 or 8", o.Header.IDSize)
	}
	return &ObjectReader{at: r, size: size, o: o}, nil
}

// Plain reports whether the dump is stored uncompressed, so that ReadAt
// reads its bytes at their record offsets.
func (x *ObjectReader) Plain() bool { return x.o.Compression == input.Plain }

// Size is the size of the stored file in bytes.
func (x *ObjectReader) Size() int64 { return x.size }

// ReadAt reads the stored bytes of a plain dump (Plain) at offset off, as
// io.ReaderAt does.
func (x *ObjectReader) ReadAt(p []byte, off int64) (int, error) {
	if !x.Plain() {
		return 0, fmt.Errorf("reading %d bytes at offset %d: the dump is %s-compressed", len(p), off, x.o.Compression)
	}
	return x.at.ReadAt(p, off)
}

// Stored is what the reader reads the stored file through: an *os.File
// for a dump file, which a caller may map rather than read.
func (x *ObjectReader) Stored() io.ReaderAt { return x.at }

// ReadObject decodes the heap sub-record at record offset off, which must
// dump the object id (an instance, an array or a class), and calls fn
// with it and the source positioned at its payload (Source.Payload,
// Source.PayloadChunks). When the record there is not that object's, or
// off lies outside the dump, the dump changed since the offset was taken
// and the error says so; errors name the object and the offset.
func (x *ObjectReader) ReadObject(off int64, id uint64, fn func(Source, *Record) error) error {
	body, err := x.from(off, id)
	if err != nil {
		return err
	}
	return x.readRecord(body, off, id, fn)
}

// readRecord decodes the sub-record of object id that body, the
// decompressed stream from record offset off on, starts with, and calls
// fn with it as ReadObject does.
func (x *ObjectReader) readRecord(body io.Reader, off int64, id uint64, fn func(Source, *Record) error) error {
	r := newSubRecordReader(body, x.o.Header, off)
	if !r.Next() {
		if err := r.Err(); err != nil {
			return fmt.Errorf("object 0x%x at offset %d: %w", id, off, err)
		}
		return fmt.Errorf("object 0x%x: no record at offset %d", id, off)
	}
	rec := r.Record()
	if got := rec.ObjectID(); got != id {
		return fmt.Errorf("object 0x%x: the record at offset %d is not it (it is a %s of 0x%x): %w", id, off, rec.Sub, got, input.ErrChanged)
	}
	return fn(r, rec)
}

// from returns the decompressed stream of the dump from offset off on.
func (x *ObjectReader) from(off int64, id uint64) (io.Reader, error) {
	if x.Plain() {
		if off < 0 || off >= x.size {
			return nil, fmt.Errorf("object 0x%x: its offset %d lies outside the dump (%d bytes): %w", id, off, x.size, input.ErrChanged)
		}
		return io.NewSectionReader(x.at, off, x.size-off), nil
	}
	at, err := x.checkpointBefore(off, id)
	if err != nil {
		return nil, err
	}
	cp := x.o.Checkpoints[at]
	z, err := input.Resume(x.at, x.size, cp)
	if err != nil {
		return nil, err
	}
	if _, err := io.CopyN(io.Discard, z, off-cp.Offset); err != nil {
		return nil, fmt.Errorf("object 0x%x: decompressing to offset %d: %w", id, off, err)
	}
	return z, nil
}

// checkpointBefore returns the index of the gzip checkpoint from which
// object id, at record offset off, is decompressed.
func (x *ObjectReader) checkpointBefore(off int64, id uint64) (int, error) {
	at, ok := input.CheckpointBefore(x.o.Checkpoints, off)
	if !ok {
		return 0, fmt.Errorf("object 0x%x: no gzip checkpoint before offset %d", id, off)
	}
	return at, nil
}

// subRecordWindow is the size the read buffer of ReadObject starts at:
// a page, which holds most objects' records; a bigger record grows it.
const subRecordWindow = 4 << 10

// newSubRecordReader returns a Reader of the heap sub-records in src,
// whose first byte is at stream offset base of a dump with header hdr:
// as if inside a heap dump segment that runs to the end of the stream.
func newSubRecordReader(src io.Reader, hdr Header, base int64) *Reader {
	r := &Reader{w: window.NewSized(src, subRecordWindow), maxPayload: defaultMaxPayload, hdr: hdr, idSize: hdr.IDSize, v10: hdr.Version == "1.0"}
	r.w.Base = base
	r.heapTag = TagHeapDumpSegment
	r.unbounded = true
	r.dumps = 1
	r.dumpOpen = true
	return r
}

// ObjectID is the id of the object a heap sub-record dumps (an instance,
// an array or a class), 0 for other records.
func (rec *Record) ObjectID() uint64 {
	switch rec.Sub {
	case SubInstanceDump:
		return rec.Instance.ID
	case SubObjArrayDump:
		return rec.ObjArray.ID
	case SubPrimArrayDump, SubPrimArrayNoData:
		return rec.PrimArray.ID
	case SubClassDump:
		return rec.Class.ID
	}
	return 0
}
