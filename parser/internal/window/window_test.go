package window

import (
	"bytes"
	"testing"
)

// TestNewSizedGrows: a window that starts smaller than what is asked of
// it grows until it holds it, and holds the stream's bytes.
func TestNewSizedGrows(t *testing.T) {
	src := make([]byte, 100_000)
	for i := range src {
		src[i] = byte(i * 7)
	}
	w := NewSized(bytes.NewReader(src), 16)
	if got := w.Fill(len(src)); got != len(src) {
		t.Fatalf("Fill(%d) buffered %d bytes", len(src), got)
	}
	if !bytes.Equal(w.Buf[w.Pos:w.End], src) {
		t.Error("the buffered bytes are not the stream's")
	}
	empty := NewSized(bytes.NewReader(src), 0)
	if got := empty.Fill(3); got < 3 {
		t.Errorf("a window sized 0 buffered %d bytes, fewer than 3", got)
	}
}
