package hprof

// SetKeptTail makes cursors keep at most n bytes after the last gzip
// checkpoint, for tests of the stream read past it; the returned function
// restores the bound.
func SetKeptTail(n int64) (restore func()) {
	old := keptTail
	keptTail = n
	return func() { keptTail = old }
}
