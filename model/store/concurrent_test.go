package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// watchIndex opens the index at path in a loop until the returned stop is
// called (at the latest when the test ends), and fails the test unless
// every open finds no file or a whole index of one writer. stop returns
// how many whole indexes it saw.
func watchIndex(t *testing.T, path string) (stop func() int64) {
	var seen atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			_, err := racerOf(path)
			switch {
			case err == nil:
				seen.Add(1)
			case !errors.Is(err, fs.ErrNotExist):
				t.Errorf("a reader during the race: %v", err)
				return
			}
		}
	}()
	stopOnce := sync.OnceFunc(func() {
		close(done)
		wg.Wait()
	})
	t.Cleanup(stopOnce)
	return func() int64 {
		stopOnce()
		return seen.Load()
	}
}

// checkRaceResult checks that the race left one whole index and no
// temporary file.
func checkRaceResult(t *testing.T, path string, writers int) {
	t.Helper()
	id, err := racerOf(path)
	if err != nil {
		t.Fatalf("after the race: %v", err)
	}
	if id < 0 || id >= writers {
		t.Errorf("the index is of writer %d, want one of 0..%d", id, writers-1)
	}
	assertNoTemp(t, filepath.Dir(path))
}

func TestConcurrentWriterGoroutines(t *testing.T) {
	const writers = 6
	path := filepath.Join(t.TempDir(), "race"+Suffix)
	// An index opened before the race keeps reading what it had.
	if err := writeRounds(path, 99); err != nil {
		t.Fatal(err)
	}
	before, err := Open(path, testID)
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close()
	stop := watchIndex(t, path)
	var wg sync.WaitGroup
	for id := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := writeRounds(path, id); err != nil {
				t.Errorf("writer %d: %v", id, err)
			}
		}()
	}
	wg.Wait()
	seen := stop()
	checkRaceResult(t, path, writers)
	if id, err := racerOfIndex(before); id != 99 || err != nil {
		t.Errorf("the index opened before the race now reads as writer %d, %v; want 99", id, err)
	}
	t.Logf("%d whole indexes read during the race", seen)
}

func TestConcurrentWriterProcesses(t *testing.T) {
	const writers = 4
	path := filepath.Join(t.TempDir(), "race"+Suffix)
	stop := watchIndex(t, path)
	cmds := make([]*exec.Cmd, writers)
	for id := range cmds {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), childEnv+"=write", childPathEnv+"="+path, fmt.Sprintf("%s=%d", childIDEnv, id))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[id] = cmd
	}
	for id, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer process %d: %v", id, err)
		}
	}
	seen := stop()
	checkRaceResult(t, path, writers)
	t.Logf("%d whole indexes read during the race", seen)
}
