package input

import (
	"bufio"
	"io"

	"github.com/klauspost/compress/gzip"
)

// gzipMembers reads the members of a gzip stream one after the other as
// one stream, with the bytes and errors of klauspost/compress/gzip's multistream
// mode, and logs a checkpoint at the start of each member.
type gzipMembers struct {
	zr *gzip.Reader
	br *bufio.Reader
	// fed is how many bytes br has read from its source, which starts at
	// offset base of the file.
	fed  func() int64
	base int64
	out  int64 // decompressed bytes read so far
	log  *checkpointLog
	err  error
}

// newGzipMembers reads the gzip stream in br, whose first byte is at offset
// base of the file and at offset out of the decompressed stream; fed says
// how many bytes br has read from its source. It returns the error of the
// first member's header.
func newGzipMembers(br *bufio.Reader, fed func() int64, base, out int64, log *checkpointLog) (*gzipMembers, error) {
	g := &gzipMembers{br: br, fed: fed, base: base, out: out, log: log}
	start := g.stored()
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	g.zr = zr
	log.add(Checkpoint{Stored: start, Offset: out})
	return g, nil
}

// stored is the file offset of the next byte the gzip reader will take:
// the flate decoder reads a bufio.Reader byte by byte and never past the
// end of a member, so nothing it has not used is gone from br.
func (g *gzipMembers) stored() int64 {
	return g.base + g.fed() - int64(g.br.Buffered())
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for g.err == nil {
		n, err := g.zr.Read(p)
		g.out += int64(n)
		if err != io.EOF {
			g.err = err
			return n, err
		}
		// The member ended, its checksum and size verified: on to the
		// next header, or the end of the stream (io.EOF from Reset).
		start := g.stored()
		if err := g.zr.Reset(g.br); err != nil {
			g.err = err
			return n, err
		}
		g.zr.Multistream(false)
		g.log.add(Checkpoint{Stored: start, Offset: g.out})
		if n > 0 {
			return n, nil
		}
	}
	return 0, g.err
}
