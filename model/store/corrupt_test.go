package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openAndRead opens the index at path and reads all of it.
func openAndRead(path string, want Identity) error {
	ix, err := Open(path, want)
	if err != nil {
		return err
	}
	defer ix.Close()
	return readAll(ix)
}

// region is a stretch of an index file and the fault a change in it must
// give.
type region struct {
	start, end int
	reason     error
	section    string
}

// regions maps every byte of the sample index at path to the fault a
// change of it must give.
func regions(t *testing.T, path string) []region {
	t.Helper()
	ix, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rs := []region{
		{0, 16, ErrNotIndex, ""},
		{16, 20, ErrVersion, ""},
		{20, headerSize, ErrCorrupt, ""},
	}
	for i := range ix.sections {
		s := &ix.sections[i]
		end := int(alignUp(s.offset + s.length))
		rs = append(rs, region{int(s.offset), end, ErrCorrupt, s.name})
	}
	return append(rs, region{rs[len(rs)-1].end, len(ix.data), ErrCorrupt, ""})
}

// TestFlippedBytes changes each byte of an index in turn and checks that
// reading the index reports it, as the fault of the right region.
func TestFlippedBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flip")
	newSample().write(t, path, testID)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range regions(t, path) {
		for pos := r.start; pos < r.end; pos = nextProbe(pos, r.start, r.end) {
			for _, mask := range []byte{0xFF, 1 << (pos % 8)} {
				var b [1]byte
				f.ReadAt(b[:], int64(pos))
				f.WriteAt([]byte{b[0] ^ mask}, int64(pos))
				err := openAndRead(path, testID)
				f.WriteAt(b[:], int64(pos))
				var e *Error
				switch {
				case !errors.As(err, &e):
					t.Fatalf("byte %d ^ %#x: error %v, want an *Error", pos, mask, err)
				case !errors.Is(err, r.reason) || e.Section != r.section:
					t.Fatalf("byte %d ^ %#x: %v; want %v in section %q", pos, mask, err, r.reason, r.section)
				}
			}
		}
	}
	if err := openAndRead(path, testID); err != nil {
		t.Fatalf("after restoring every byte: %v", err)
	}
}

// nextProbe returns the byte after pos to change or cut in the stretch
// [start, end): every byte of the first and last 128, every 61st between.
func nextProbe(pos, start, end int) int {
	if pos+1-start < 128 || end-(pos+1) <= 128 {
		return pos + 1
	}
	return min(pos+61, end-128)
}

// TestCutShort cuts an index at every length and also extends it by a
// byte: Open must refuse each.
func TestCutShort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "whole")
	newSample().write(t, path, testID)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut")
	f, err := os.Create(cut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(whole, 0)); err != nil {
		t.Fatal(err)
	}
	for n := len(whole) + 1; n >= 0; n-- {
		if n == len(whole) {
			continue
		}
		if err := f.Truncate(int64(n)); err != nil {
			t.Fatal(err)
		}
		_, err := Open(cut, testID)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut to %d of %d bytes: %v, want ErrCorrupt", n, len(whole), err)
		}
	}
}

func TestIdentityMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "id")
	newSample().write(t, path, testID)
	other := func(change func(*Identity)) Identity {
		id := testID
		change(&id)
		return id
	}
	cases := []struct {
		want   Identity
		reason error
		detail string
	}{
		{other(func(id *Identity) { id.Content++ }), ErrVersion, "content version 7, this hprofctl reads 8"},
		{other(func(id *Identity) { id.Dump.Size++ }), ErrStale, "a dump of 2300000000 bytes, the dump has 2300000001"},
		{other(func(id *Identity) { id.Dump.Sample[17] ^= 4; id.Dump.ModTime-- }), ErrStale, "sampled blocks have other contents than when it was indexed (then modified at 2023-11-14 22:13:20.123456789 UTC, now at 2023-11-14 22:13:20.123456788 UTC)"},
	}
	// Only the time differs (a touched dump): the index serves.
	if ix, err := Open(path, other(func(id *Identity) { id.Dump.ModTime-- })); err != nil {
		t.Errorf("Open for a dump of another modification time only: %v, want the index", err)
	} else {
		ix.Close()
	}
	for _, c := range cases {
		_, err := Open(path, c.want)
		if !errors.Is(err, c.reason) || !strings.Contains(err.Error(), c.detail) {
			t.Errorf("Open for %+v: %v; want %v saying %q", c.want, err, c.reason, c.detail)
		}
	}
}

func TestFormatVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2")
	newSample().write(t, path, testID)
	b, _ := os.ReadFile(path)
	binary.LittleEndian.PutUint32(b[hdrFormat:], FormatVersion+1)
	binary.LittleEndian.PutUint32(b[hdrCRC:], crc32.Checksum(b[:hdrCRC], castagnoli))
	os.WriteFile(path, b, 0o644)
	_, err := Open(path, testID)
	want := fmt.Sprintf("%s: offset 16: index of another version: index format version 2, this hprofctl reads version 1", path)
	if !errors.Is(err, ErrVersion) || err.Error() != want {
		t.Errorf("Open: %v\nwant %s", err, want)
	}
}

func TestNotAnIndex(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "heap.hprof")
	os.WriteFile(text, []byte("JAVA PROFILE 1.0.2\x00 and more bytes than a header takes, well over one hundred and twenty-eight of them, to be sure."), 0o644)
	for _, path := range []string{text, dir} {
		if _, err := Open(path, testID); !errors.Is(err, ErrNotIndex) {
			t.Errorf("Open(%s): %v, want ErrNotIndex", path, err)
		}
	}
	if _, err := Open(filepath.Join(dir, "absent"), testID); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(absent): %v, want fs.ErrNotExist", err)
	}
}

func TestWrongKindAndMissingSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kinds")
	newSample().write(t, path, testID)
	ix, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	wantErr := func(err error, want string) {
		t.Helper()
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want ErrCorrupt saying %q", err, want)
		}
	}
	_, err = Array[uint32](ix, "u64")
	wantErr(err, `(section "u64"): index is corrupt: it holds uint64, it was read as uint32`)
	_, err = Array[int32](ix, "u32")
	wantErr(err, "it holds uint32, it was read as int32")
	_, err = ix.Strings("blob")
	wantErr(err, "it holds blob, it was read as strings")
	_, err = ix.Blob("names")
	wantErr(err, "it holds strings, it was read as blob")
	_, err = Array[uint8](ix, "absent")
	wantErr(err, `(section "absent"): index is corrupt: the index has no such section`)
	var v []int
	wantErr(ix.JSON("blob", &v), "json: cannot unmarshal number")
}

// TestCraftedStrings gives string tables bad offsets under valid
// checksums, as only a crafted file can.
func TestCraftedStrings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "strings")
	w, err := Create(path, testID, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	w.WriteStrings("s", []string{"ab", "cde"})
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	// The section: "abcde", 3 zero bytes, offsets 0, 2, 5.
	const offs = headerSize + 8
	cases := []struct {
		name   string
		change func(b []byte)
		want   string
	}{
		{"first not zero", func(b []byte) { b[offs] = 1 }, "the first string starts at 1, not 0"},
		{"decreasing", func(b []byte) { b[offs+4] = 6 }, "string 2 starts at 5, before the end of the one before it (6)"},
		{"past the offsets", func(b []byte) { b[offs+8] = 9 }, "the strings end at 9, their offsets start at 8"},
		{"padding too long", func(b []byte) { b[offs+8] = 3; b[offs+4] = 1 }, "the strings end at 3, their offsets start at 8: that is not 4-byte alignment"},
		{"padding not zero", func(b []byte) { b[headerSize+6] = 'x' }, "the strings end at 5, their offsets start at 8: the padding between: not zero"},
		{"offsets not aligned", func(b []byte) {
			table := binary.LittleEndian.Uint64(b[hdrTableOffset:])
			b[table+entLength]++ // 21 bytes: the offsets would start at 9
		}, "the offsets start at 9, not a multiple of their width 4"},
	}
	for _, c := range cases {
		b := append([]byte(nil), good...)
		c.change(b)
		reseal(b)
		os.WriteFile(path, b, 0o644)
		ix, err := Open(path, testID)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = ix.Strings("s")
		ix.Close()
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrCorrupt saying %q", c.name, err, c.want)
		}
	}
}

// TestCraftedTable gives the section table faults under valid checksums.
func TestCraftedTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "table")
	newSample().write(t, path, testID)
	good, _ := os.ReadFile(path)
	table := int(binary.LittleEndian.Uint64(good[hdrTableOffset:]))
	entry1 := table + entrySize // "u16", 4 elements at offset 192
	cases := []struct {
		name   string
		change func(b []byte)
		want   string
	}{
		{"name", func(b []byte) { b[entry1] = ' ' }, `entry 1: invalid name " 16"`},
		{"name bytes after its end", func(b []byte) { b[entry1+20] = 'x' }, "entry 1: name has bytes after its end"},
		{"duplicate", func(b []byte) { copy(b[entry1:], "u8\x00") }, `entry 1: section "u8" appears twice`},
		{"offset", func(b []byte) { binary.LittleEndian.PutUint64(b[entry1+entOffset:], 256) }, `entry 1: section "u16" starts at offset 256, the one before it ends (aligned) at 192`},
		{"count", func(b []byte) { b[entry1+entCount]++ }, `entry 1: section "u16": 8 bytes are not 5 elements of uint16`},
		{"element size", func(b []byte) { b[entry1+entElemSize] = 4 }, `entry 1: section "u16": 8 bytes are not 4 elements of uint16`},
		{"kind", func(b []byte) { b[entry1+entKind] = 99 }, `entry 1: section "u16": unknown kind 99`},
		{"reserved", func(b []byte) { b[entry1+entReserved] = 1 }, `entry 1: section "u16": reserved bytes are not zero`},
		{"overrun", func(b []byte) {
			binary.LittleEndian.PutUint64(b[table+entLength:], 1<<62)
			binary.LittleEndian.PutUint64(b[table+entCount:], 1<<62)
		}, `entry 0: section "u8" of 4611686018427387904 bytes at offset 128 overruns the section table`},
		{"sections", func(b []byte) { b[hdrSections]-- }, "a table of 14 sections cannot start at offset"},
		{"too many sections", func(b []byte) { binary.LittleEndian.PutUint32(b[hdrSections:], maxSections+1) }, "65537 sections, at most 65536"},
		{"reserved header bytes", func(b []byte) { b[hdrReserved+3] = 1 }, "reserved header bytes are not zero"},
		{"strings table too small", func(b []byte) {
			e := table + 11*entrySize // "names"
			binary.LittleEndian.PutUint64(b[e+entCount:], 1<<40)
		}, `section "names": 1068 bytes cannot hold 1099511627776 strings with 4-byte offsets`},
		{"blob count", func(b []byte) { b[table+13*entrySize+entCount]++ }, `section "blob": a blob of 9 bytes says it has 10`},
	}
	for _, c := range cases {
		b := append([]byte(nil), good...)
		c.change(b)
		reseal(b)
		os.WriteFile(path, b, 0o644)
		_, err := Open(path, testID)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrCorrupt saying %q", c.name, err, c.want)
		}
	}
}

func TestErrorText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "text")
	w, err := Create(path, testID, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	w.WriteBlob("blob", []byte("123456789"))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	b[128] = '0'
	os.WriteFile(path, b, 0o644)
	ix, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	_, err = ix.Blob("blob")
	want := fmt.Sprintf(`%s: offset 128 (section "blob"): index is corrupt: checksum 0xe3069283, its 9 bytes give %#08x`,
		path, crc32.Checksum([]byte("023456789"), crc32.MakeTable(crc32.Castagnoli)))
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
	// The fault is found once and kept.
	if _, again := ix.Blob("blob"); again != err {
		t.Errorf("second read: %v, want the same error", again)
	}
}
