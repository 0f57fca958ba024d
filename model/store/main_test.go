package store

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
)

// The tests start copies of the test binary as other processes (writers
// racing each other, a writer under another user). childEnv names the
// role such a copy plays; TestMain runs it instead of the tests.
const (
	childEnv     = "HPROFCTL_STORE_TEST_CHILD"
	childPathEnv = "HPROFCTL_STORE_TEST_PATH"
	childIDEnv   = "HPROFCTL_STORE_TEST_WRITER"
)

func TestMain(m *testing.M) {
	var err error
	switch role := os.Getenv(childEnv); role {
	case "":
		os.Exit(m.Run())
	case "write":
		var id int
		if id, err = strconv.Atoi(os.Getenv(childIDEnv)); err == nil {
			err = writeRounds(os.Getenv(childPathEnv), id)
		}
	case "place":
		var report string
		report, err = writeAndOpenPlace(os.Getenv(childPathEnv))
		fmt.Print(report)
	default:
		err = fmt.Errorf("unknown child role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// racerElements is the length of the array each racing writer writes:
// 4 MiB, enough for writers to overlap.
const racerElements = 1 << 19

// racerRounds is how many indexes each racing writer commits.
const racerRounds = 3

// writeRounds commits racerRounds indexes at path, all written by writer id.
func writeRounds(path string, id int) error {
	data := make([]uint64, racerElements)
	for i := range data {
		data[i] = uint64(id)
	}
	for range racerRounds {
		w, err := Create(path, testID, 0o644)
		if err != nil {
			return err
		}
		err = errors.Join(
			WriteArray(w, "writer", data[:racerElements/2]),
			w.WriteStrings("name", []string{fmt.Sprint("writer ", id)}),
			WriteArray(w, "writer2", data[racerElements/2:]),
			w.Commit(),
		)
		w.Abort()
		if err != nil {
			return err
		}
	}
	return nil
}

// racerOf checks that every section of a racing writer's index at path was
// written by one writer, and returns that writer.
func racerOf(path string) (int, error) {
	ix, err := Open(path, testID)
	if err != nil {
		return 0, err
	}
	defer ix.Close()
	return racerOfIndex(ix)
}

func racerOfIndex(ix *Index) (int, error) {
	a, err := Array[uint64](ix, "writer")
	if err != nil {
		return 0, err
	}
	b, err := Array[uint64](ix, "writer2")
	if err != nil {
		return 0, err
	}
	names, err := ix.Strings("name")
	if err != nil {
		return 0, err
	}
	if len(a)+len(b) != racerElements || names.Len() != 1 {
		return 0, fmt.Errorf("%d+%d elements and %d names", len(a), len(b), names.Len())
	}
	id := a[0]
	if names.At(0) != fmt.Sprint("writer ", id) {
		return 0, fmt.Errorf("name %q in the index of writer %d", names.At(0), id)
	}
	for _, part := range [][]uint64{a, b} {
		if i := slices.IndexFunc(part, func(v uint64) bool { return v != id }); i >= 0 {
			return 0, fmt.Errorf("element %d is %d in the index of writer %d", i, part[i], id)
		}
	}
	return int(id), nil
}

// writeAndOpenPlace builds an index of dump where Locate places it, then
// opens it from there. Its report says what creating the index beside the
// dump gave, where the index was written and where it was opened.
func writeAndOpenPlace(dump string) (string, error) {
	fp, err := FingerprintFile(dump)
	if err != nil {
		return "", err
	}
	id := Identity{Content: 1, Dump: fp}
	beside := "writable"
	if w, err := Create(dump+Suffix, id, 0o644); err != nil {
		beside = err.Error()
	} else {
		w.Abort()
	}
	place, err := Locate(dump, "")
	if err != nil {
		return "", err
	}
	w, err := place.Create(id)
	if err != nil {
		return "", err
	}
	if err := errors.Join(w.WriteStrings("dump", []string{dump}), w.Commit()); err != nil {
		return "", err
	}
	ix, err := place.Open(id)
	if err != nil {
		return "", err
	}
	defer ix.Close()
	st, err := ix.Strings("dump")
	if err != nil {
		return "", err
	}
	if st.Len() != 1 || st.At(0) != dump {
		return "", fmt.Errorf("the index opened names dump %q", st.At(0))
	}
	return fmt.Sprintf("beside=%s\nwritten=%s\nopened=%s\n", beside, w.Path(), ix.Path()), nil
}
