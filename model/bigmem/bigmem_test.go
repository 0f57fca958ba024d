package bigmem

import (
	"os"
	"testing"
)

// TestMakeOverBudget: past the budget a table is mapped from a scratch
// file that is gone from the directory at once, holds what is written to
// it, and is released by Free; within it (or below minMapped) a table is
// an ordinary slice.
func TestMakeOverBudget(t *testing.T) {
	dir := t.TempDir()
	defer SetBudget(1, dir)()
	n := 3 * minMapped / 4
	table := Make[uint32](n)
	if len(table) != n || MappedBytes() != int64(4*n) {
		t.Fatalf("len %d, mapped %d bytes; want %d and %d", len(table), MappedBytes(), n, 4*n)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("scratch files left in the directory: %v", left)
	}
	for i := range table {
		if table[i] != 0 {
			t.Fatalf("entry %d is %d, want 0", i, table[i])
		}
		table[i] = uint32(i * 7)
	}
	for i := range table {
		if table[i] != uint32(i*7) {
			t.Fatalf("entry %d reads %d, want %d", i, table[i], i*7)
		}
	}
	Free(table)
	if MappedBytes() != 0 {
		t.Errorf("mapped %d bytes after Free, want 0", MappedBytes())
	}
	small := Make[uint64](16)
	Free(small)
	if MappedBytes() != 0 {
		t.Errorf("a small table was mapped")
	}
}

// TestMakeWithinBudget: no budget, no mapping.
func TestMakeWithinBudget(t *testing.T) {
	defer SetBudget(0, t.TempDir())()
	table := Make[int64](minMapped)
	if MappedBytes() != 0 {
		t.Errorf("mapped %d bytes without a budget", MappedBytes())
	}
	table[len(table)-1] = -1
	Free(table)
}

// TestAppendOverBudget: a list grown by Append past the budget moves to
// mapped tables, keeps every value in order, and leaves only its last
// table mapped.
func TestAppendOverBudget(t *testing.T) {
	defer SetBudget(1, t.TempDir())()
	var list []uint32
	n := minMapped // 4 MiB of uint32: grown through mapped tables
	for i := range n {
		list = Append(list, uint32(i*3))
	}
	list = Append(list, 1, 2)
	if len(list) != n+2 || list[n] != 1 || list[n+1] != 2 {
		t.Fatalf("len %d, tail %v; want %d and [1 2]", len(list), list[n:], n+2)
	}
	for i := range n {
		if list[i] != uint32(i*3) {
			t.Fatalf("entry %d reads %d, want %d", i, list[i], i*3)
		}
	}
	if got, want := MappedBytes(), int64(4*cap(list)); got != want {
		t.Errorf("mapped %d bytes, want %d: the last table's only", got, want)
	}
	Free(list)
	if MappedBytes() != 0 {
		t.Errorf("mapped %d bytes after Free, want 0", MappedBytes())
	}
}
