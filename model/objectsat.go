package model

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// maxCheckpointGap is the largest distance between two gzip checkpoints
// at which objects are decoded from the checkpoint before them rather than
// by streaming the whole dump again: the JVM's -gz members are 1 MiB of
// data each, a single-member gzip file has one checkpoint at its start.
const maxCheckpointGap = 64 << 20

// visitObjects calls fn with the heap sub-records of the objects objs, as
// rereadDump does, but reads only those records where it can: at their
// offsets in a plain file, or from the gzip member before them in a file
// of many members (the JVM's -gz). Otherwise (a single-member gzip or a
// bzip2 file, no recorded offsets) it streams the whole dump again.
func (h *Heap) visitObjects(path string, objs []ObjectIndex, fn func(hprof.Source, *hprof.Record) error) error {
	if h.offsets == nil || path == "-" {
		return rereadDump(h, path, fn)
	}
	comp := input.Compression(h.Source.Compression)
	switch {
	case comp == input.Plain:
	case comp == input.Gzip && checkpointsDense(h.checkpoints):
	default:
		return rereadDump(h, path, fn)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := h.visitObjectAt(f, st.Size(), comp, obj, fn); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
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

// visitObjectAt decodes the sub-record of object obj at its offset: a
// reader is given the file's header and an open-ended heap dump segment,
// then the bytes from the record on.
func (h *Heap) visitObjectAt(f *os.File, size int64, comp input.Compression, obj ObjectIndex, fn func(hprof.Source, *hprof.Record) error) error {
	off := h.recordOffset(obj)
	var body io.Reader
	if comp == input.Plain {
		if off < 0 || off >= size {
			return fmt.Errorf("object 0x%x: its offset %d lies outside the dump (%d bytes): the dump changed since it was indexed", h.ObjectID(obj), off, size)
		}
		body = io.NewSectionReader(f, off, size-off)
	} else {
		cp, ok := input.CheckpointBefore(h.checkpoints, off)
		if !ok {
			return fmt.Errorf("object 0x%x: no gzip checkpoint before offset %d", h.ObjectID(obj), off)
		}
		z, err := input.Resume(f, size, cp)
		if err != nil {
			return err
		}
		if _, err := io.CopyN(io.Discard, z, off-cp.Offset); err != nil {
			return fmt.Errorf("object 0x%x: decompressing to offset %d: %w", h.ObjectID(obj), off, err)
		}
		body = z
	}
	r, err := hprof.NewReader(io.MultiReader(bytes.NewReader(h.segmentPrefix()), body), hprof.Options{})
	if err != nil {
		return err
	}
	for r.Next() {
		rec := r.Record()
		if rec.Sub == 0 {
			continue
		}
		if id := recordObjectID(rec); id != h.ObjectID(obj) {
			return fmt.Errorf("object 0x%x: the record at offset %d is not it (it is a %s of 0x%x): the dump changed since it was indexed", h.ObjectID(obj), off, rec.Sub, id)
		}
		return fn(r, rec)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("object 0x%x at offset %d: %w", h.ObjectID(obj), off, err)
	}
	return fmt.Errorf("object 0x%x: no record at offset %d", h.ObjectID(obj), off)
}

// segmentPrefix is a file header like the dump's, followed by the header
// of a heap dump segment whose length 0 lets it run to the end of the
// stream.
func (h *Heap) segmentPrefix() []byte {
	var b bytes.Buffer
	b.WriteString("JAVA PROFILE " + h.Source.Version)
	b.WriteByte(0)
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(h.Source.IDSize)))
	b.Write(make([]byte, 8))
	b.WriteByte(byte(hprof.TagHeapDumpSegment))
	b.Write(make([]byte, 8))
	return b.Bytes()
}

// recordObjectID returns the id of the object a heap sub-record dumps, 0
// for other sub-records.
func recordObjectID(rec *hprof.Record) uint64 {
	switch rec.Sub {
	case hprof.SubInstanceDump:
		return rec.Instance.ID
	case hprof.SubObjArrayDump:
		return rec.ObjArray.ID
	case hprof.SubPrimArrayDump, hprof.SubPrimArrayNoData:
		return rec.PrimArray.ID
	case hprof.SubClassDump:
		return rec.Class.ID
	}
	return 0
}
