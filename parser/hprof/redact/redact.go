// Package redact writes a copy of an HPROF heap dump whose values are
// replaced, so that the dump can be shared: every primitive array's
// elements (so every String's characters), every primitive instance and
// static field value but the kept ones (DefaultKeep and the caller's),
// and the names of threads in START_THREAD records. Optionally the names
// of application classes, fields and methods are replaced too, and a
// ProGuard mapping of the replacement written (Options.Names).
//
// Replacement is keyed: values equal in the input are equal in the
// output and different ones stay different, lengths stay, arrays whose
// elements are all equal stay so, and UTF-16 text stays free of
// surrogates, so that duplicate strings, constant arrays and collection
// sizes come out as in the input. Field values and arrays of up to 16
// bytes are replaced by a keyed permutation (a four-round Feistel network
// whose round function is SipHash-1-3 under a key of its own), longer
// arrays by an AES-128 keystream (counter mode) seeded with their keyed
// digest (SipHash-2-4, 128 bits), and thread and class names by that
// digest too; every key is derived with HMAC-SHA256 from the run's key.
//
// The input is read twice, in constant memory beside the classes and
// names: once for the class layouts, the names and the digests of the
// arrays too big to hold, once to write the output record by record, with
// the same version, identifier size and record lengths. A plain file is
// read by the direct path (direct.go): its heap records are read at their
// offsets on GOMAXPROCS goroutines in both passes, the first walking them
// in the mapped file, the second reading pieces of about 1 MiB straight
// into the batches they are written from and replacing the values in
// place. Any other input (compressed, or a file the direct path does not
// read as hprof.Reader would) is streamed through one hprof.Reader, which
// hands the records on in batches of about 1 MiB whose values are
// replaced on GOMAXPROCS goroutines. Either way the batches are
// compressed for gzip output on those goroutines and written in order,
// and both paths write the same bytes.
package redact

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/hprofctl/hprofctl/parser/hprof"
	"github.com/hprofctl/hprofctl/parser/input"
)

// Options configure Redact.
type Options struct {
	// Key is the secret the replacement is keyed with; empty, a random
	// key is drawn for the run, so that no two runs agree.
	Key []byte
	// Keep lists the primitive fields, as CLASS.FIELD with the class that
	// declares them, whose values are copied unchanged (DefaultKeep is
	// the usual start).
	Keep []string
	// Names replaces the names of the classes, fields and methods outside
	// the platform's packages, and fills Summary.Mapping.
	Names bool
	// Gzip compresses the output as the JVM's -gz does: gzip members of
	// at most 1 MiB of the dump each, compressed in parallel, the first
	// one saying the block size in its comment.
	Gzip bool
}

// Count is how many values of one kind were replaced, and their bytes.
type Count struct {
	Values int64
	Bytes  int64
}

func (c *Count) add(bytes int) {
	c.Values++
	c.Bytes += int64(bytes)
}

// Summary says what Redact replaced and what it kept.
type Summary struct {
	// Arrays counts the replaced primitive arrays by element type.
	Arrays map[string]*Count
	// InstanceFields, StaticFields and Constants count replaced field
	// values; Opaque the instance bytes no class layout described,
	// replaced as bytes.
	InstanceFields, StaticFields, Constants, Opaque Count
	// ThreadNames counts the replaced thread and thread group names of
	// START_THREAD records.
	ThreadNames Count
	// UnusedStrings counts the string records left out because no record
	// refers to them (HotSpot writes every symbol, string literals too).
	UnusedStrings Count
	// Names counts the new class, field and method names written.
	Names Count
	// Kept counts the values kept, by CLASS.FIELD.
	Kept map[string]int64
	// DroppedBytes counts the bytes of records that were not copied:
	// records of unknown kinds and lock statistics.
	DroppedBytes int64
	// Read and Written are the decompressed bytes read and the bytes
	// written (before compression).
	Read, Written int64
	// Mapping is the ProGuard mapping from the replaced names back to the
	// real ones, with Options.Names.
	Mapping string
}

// File redacts the dump at path in (plain, gzip or bzip2) into the file
// out, gzip-compressed when its name ends in ".gz". A failed run removes
// out.
func File(in, out string, opt Options) (*Summary, error) {
	if err := clearOut(in, out); err != nil {
		return nil, err
	}
	f, err := os.Create(out)
	if err != nil {
		return nil, err
	}
	opt.Gzip = strings.HasSuffix(out, ".gz")
	sum, err := redactFile(in, f, opt)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing %s: %w", out, cerr)
	}
	if err != nil {
		os.Remove(out)
		return nil, err
	}
	return sum, nil
}

// clearOut refuses an out that is the input, and removes an existing
// regular file out rather than have os.Create truncate it: ext4 writes a
// file truncated and written again out to disk as it is closed
// (auto_da_alloc), which kept a run waiting a third of a second per GB.
func clearOut(in, out string) error {
	ost, err := os.Stat(out)
	if err != nil {
		return nil // no out yet, or one os.Create reports on
	}
	if ist, err := os.Stat(in); err == nil && os.SameFile(ist, ost) {
		return fmt.Errorf("%s is the input: redact writes a new file", out)
	}
	if lst, err := os.Lstat(out); err == nil && lst.Mode().IsRegular() {
		return os.Remove(out)
	}
	return nil
}

// redactFile redacts the dump at path in into w: a plain file by the
// direct path, any other (or one the direct path leaves) by the streaming
// path.
func redactFile(in string, w io.Writer, opt Options) (*Summary, error) {
	var err error
	if opt.Key, err = runKey(opt.Key); err != nil {
		return nil, err
	}
	if f, err := os.Open(in); err == nil {
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			src, unmap := mapFile(f, st.Size())
			sum, err := redactDirect(src, in, w, opt)
			unmap()
			if !errors.Is(err, errNotDirect) {
				return sum, err
			}
		}
	}
	return Redact(func() (io.ReadCloser, error) { return input.Open(in) }, in, w, opt)
}

// runKey is the key of a run: key, or a random one when key is empty.
func runKey(key []byte) ([]byte, error) {
	if len(key) > 0 {
		return key, nil
	}
	key = make([]byte, 32)
	_, err := rand.Read(key)
	return key, err
}

// redactDirect redacts the dump src into w by the direct path (see
// direct.go); errNotDirect, before anything is written, when it leaves
// the dump to the streaming path.
func redactDirect(src *dumpSource, name string, w io.Writer, opt Options) (*Summary, error) {
	size := src.size
	k := newKeyer(opt.Key)
	s, spans, classDumps, err := directScan(src, name, k.keys, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	p, err := makePlan(s, opt.Keep)
	if err != nil {
		return nil, err
	}
	header, err := headerLength(src, size)
	if err != nil {
		return nil, err
	}
	r, err := hprof.NewReader(newTopStream(src, size, header, spans), hprof.Options{Name: name})
	if err != nil {
		return nil, err
	}
	rw := newRewriter(k, s, p, w, opt.Gzip, name)
	rw.direct = &jobRedactor{name: name, src: src, classDumps: classDumps}
	rw.spans = spans
	if opt.Names {
		rw.names = newRenamer(s, k)
	}
	if _, err := rw.run(r); err != nil {
		return nil, err
	}
	rw.sum.Read = size
	return rw.finish(), nil
}

// Redact reads the dump that open opens (twice) and writes the redacted
// dump to w; name names the input in errors. The values are replaced on
// GOMAXPROCS goroutines beside the one that reads.
func Redact(open func() (io.ReadCloser, error), name string, w io.Writer, opt Options) (*Summary, error) {
	key, err := runKey(opt.Key)
	if err != nil {
		return nil, err
	}
	k := newKeyer(key)
	s, err := readPass(open, name, true, func(r *hprof.Reader) (*scan, error) { return firstPass(r, k) })
	if err != nil {
		return nil, err
	}
	p, err := makePlan(s, opt.Keep)
	if err != nil {
		return nil, err
	}
	rw := newRewriter(k, s, p, w, opt.Gzip, name)
	if opt.Names {
		rw.names = newRenamer(s, k)
	}
	if _, err := readPass(open, name, false, rw.run); err != nil {
		return nil, err
	}
	return rw.finish(), nil
}

// finish completes the summary of a run with the new names.
func (rw *rewriter) finish() *Summary {
	if rw.names != nil {
		rw.sum.Mapping = rw.names.mapping()
		for _, text := range rw.names.order {
			rw.sum.Names.add(len(text))
		}
	}
	return rw.sum
}

// readPass opens the input and runs one pass over it; ahead has an
// input.File read ahead of the pass (the first one, a scan that does
// little per byte, on one core where the second replaces on all).
func readPass(open func() (io.ReadCloser, error), name string, ahead bool, pass func(*hprof.Reader) (*scan, error)) (*scan, error) {
	src, err := open()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if f, ok := src.(*input.File); ok && ahead {
		f.ReadAhead()
	}
	r, err := hprof.NewReader(src, hprof.Options{Name: name})
	if err != nil {
		return nil, err
	}
	if r.Header().Version == "1.0" {
		return nil, fmt.Errorf("%s: redact does not write \"JAVA PROFILE 1.0\" dumps (their CLASS_DUMP records hold signatures, not type codes)", name)
	}
	return pass(r)
}

// errHeapCut is wrapped by the error for a heap record the reader could
// not read to its end: its rest cannot be vouched for.
var errHeapCut = errors.New("heap record not read to its end")
