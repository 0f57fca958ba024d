package store

import (
	"os"
	"path/filepath"
	"strings"
)

// tempSuffix ends the name of a Writer's temporary file, which is the
// final name, a dot, random digits and this suffix.
const tempSuffix = ".tmp"

// removeAbandoned removes the temporary files that writers of index base in
// dir left when they died (killed, out of memory, power lost): files of
// this user that no process holds locked. A build that is still running
// holds its lock, so its file stays; one that has just made its file and
// not locked it yet finds it gone once it holds the lock, and makes
// another (see lockTemp).
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
		if err != nil || !info.Mode().IsRegular() || !ownedByMe(info) {
			continue
		}
		removeIfUnlocked(filepath.Join(dir, name))
	}
}
