package store

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// tempSuffix ends the name of a Writer's temporary file, which is the
// final name, a dot, random digits and this suffix.
const tempSuffix = ".tmp"

// abandonAge is how long a temporary file must have gone unmodified before
// a new Writer may remove it: long enough to cover the moment between its
// creation and its writer's lock.
const abandonAge = time.Minute

// removeAbandoned removes the temporary files that writers of index base in
// dir left when they died (killed, out of memory, power lost): files no
// process holds locked and that have not changed for abandonAge. A build
// that is still running holds its lock, so its file stays.
func removeAbandoned(dir, base string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, ent := range ents {
		name := ent.Name()
		mid, ok := strings.CutPrefix(name, base+".")
		if !ok {
			continue
		}
		digits, ok := strings.CutSuffix(mid, tempSuffix)
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		info, err := ent.Info()
		if err != nil || !info.Mode().IsRegular() || time.Since(info.ModTime()) < abandonAge {
			continue
		}
		path := filepath.Join(dir, name)
		if unlocked(path) {
			os.Remove(path)
		}
	}
}
