package store

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestElements checks an array's elements against Elements as its
// checksum is read, in one piece and in pieces on several goroutines (an
// element before a piece's start is read across the boundary), and again
// when the section was first read without a check.
func TestElements(t *testing.T) {
	defer func(old int64) { checksumPiece = old }(checksumPiece)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const n = 1 << 16
	ascending := make([]uint32, n)
	for i := range ascending {
		ascending[i] = uint32(i / 3)
	}
	withMarks := make([]uint32, n)
	for i := range withMarks {
		withMarks[i] = uint32(i % 100)
		if i%7 == 0 {
			withMarks[i] = ^uint32(0) - uint32(i%2)
		}
	}
	dropAt := n/2 + 17 // in the second half: across a piece's start
	dropped := append([]uint32(nil), ascending...)
	dropped[dropAt] = 0
	cases := []struct {
		name string
		data []uint32
		want Elements
		says string // "" for no fault
	}{
		{"ascending", ascending, Elements{Below: n, Ascending: true}, ""},
		{"too big", ascending, Elements{Below: 100}, "element 300 is 100, not below 100"},
		{"marks", withMarks, Elements{Below: 100, Marks: ^uint32(0) - 1}, ""},
		{"no marks", withMarks, Elements{Below: 100}, "element 0 is 4294967295, not below 100"},
		{"a drop", dropped, Elements{Below: n, Ascending: true}, "element 32785 is 0, less than the one before it (10928)"},
	}
	for _, piece := range []int64{checksumPiece, 64 << 10} {
		checksumPiece = piece
		for _, c := range cases {
			for _, first := range []bool{true, false} {
				path := filepath.Join(t.TempDir(), "elements")
				w, err := Create(path, testID, 0o600)
				if err != nil {
					t.Fatal(err)
				}
				if err := WriteArray(w, "a", c.data); err != nil {
					t.Fatal(err)
				}
				if err := w.Commit(); err != nil {
					t.Fatal(err)
				}
				ix, err := Open(path, testID)
				if err != nil {
					t.Fatal(err)
				}
				if !first { // read without a check, then with one
					if _, err := Array[uint32](ix, "a"); err != nil {
						t.Fatal(err)
					}
				}
				_, err = ArrayOf[uint32](ix, "a", c.want)
				ix.Close()
				switch {
				case c.says == "" && err != nil:
					t.Errorf("%s (pieces of %d, checked first %v): %v", c.name, piece, first, err)
				case c.says != "" && (!errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.says)):
					t.Errorf("%s (pieces of %d, checked first %v): %v, want ErrCorrupt saying %q", c.name, piece, first, err, c.says)
				}
			}
		}
	}
}

// TestElements16 checks a uint16 array's elements as TestElements does a
// uint32 one's, across a piece's start.
func TestElements16(t *testing.T) {
	defer func(old int64) { checksumPiece = old }(checksumPiece)
	checksumPiece = 64 << 10
	const n = 1 << 16
	data := make([]uint16, n)
	for i := range data {
		data[i] = uint16(i / 3)
	}
	data[n/2+17] = 0
	ix := writeIndex(t, func(w *Writer) error { return WriteArray(w, "a", data) })
	if _, err := ArrayOf[uint16](ix, "a", Elements{Below: n}); err != nil {
		t.Errorf("in range: %v", err)
	}
	for want, says := range map[Elements]string{
		{Below: 100}:                   "element 300 is 100, not below 100",
		{Below: n, Ascending: true}:    "element 32785 is 0, less than the one before it (10928)",
		{Below: 0x5000, Marks: 0x5001}: "element 61440 is 20480, not below 20480",
	} {
		if _, err := ArrayOf[uint16](ix, "a", want); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), says) {
			t.Errorf("%+v: %v, want ErrCorrupt saying %q", want, err, says)
		}
	}
}
