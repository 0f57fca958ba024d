package jvmpi

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingSideChannelNamesManifest: a manifest whose side channel is
// not there is reported under the manifest's name, which the user gave,
// and not only under the name of a file that does not exist (a mutated
// manifest of the stress test named "mon-nocontention-id99….events.json").
func TestMissingSideChannelNamesManifest(t *testing.T) {
	dir := t.TempDir()
	for name, manifest := range map[string]string{
		"heap.json":    `{"format": "jvmpi-heap-dump", "level": 2, "id_size": 4, "classes": "absent.classes.json"}`,
		"monitor.json": `{"format": "jvmpi-monitor-dump", "id_size": 8, "events": "absent.events.json"}`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadCapture(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), "absent.") || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: error %v, want one that starts with the manifest's path and names the missing side channel", name, err)
		}
	}
}
