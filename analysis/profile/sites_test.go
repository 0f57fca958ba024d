package profile

import (
	"testing"

	"github.com/hprofctl/hprofctl/model/thread"
)

// TestAllocatingFrame: the method that executed new is below the
// constructors that ran for the object, java.lang.Object's and its
// superclasses' included, but a constructor of another class allocates.
func TestAllocatingFrame(t *testing.T) {
	f := func(class, method string) thread.Frame { return thread.Frame{Class: class, Method: method} }
	for _, c := range []struct {
		name   string
		class  string
		frames []thread.Frame
		want   int
	}{
		{"own constructor", "app.Leaf", []thread.Frame{f("app.Leaf", "<init>"), f("app.Factory", "makeLeaves")}, 1},
		{"superclass constructor first", "app.Sub", []thread.Frame{f("app.Base", "<init>"), f("app.Sub", "<init>"), f("app.Other", "build")}, 2},
		{"Object's constructor recorded", "app.Leaf", []thread.Frame{f("java.lang.Object", "<init>"), f("app.Leaf", "<init>"), f("app.Main", "main")}, 2},
		{"this(...) delegation", "app.Leaf", []thread.Frame{f("app.Leaf", "<init>"), f("app.Leaf", "<init>"), f("app.Main", "main")}, 2},
		{"array in a constructor", "int[]", []thread.Frame{f("app.Holder", "<init>"), f("app.Main", "main")}, 0},
		{"object in another class's constructor", "app.Leaf", []thread.Frame{f("app.Leaf", "<init>"), f("app.Holder", "<init>"), f("app.Main", "main")}, 1},
		{"array", "byte[]", []thread.Frame{f("app.Main", "fill")}, 0},
		{"trace ends in the constructors", "app.Sub", []thread.Frame{f("app.Base", "<init>"), f("app.Sub", "<init>")}, -1},
		{"no frames", "app.Leaf", nil, -1},
	} {
		if got := allocatingFrame(c.class, c.frames); got != c.want {
			t.Errorf("%s: frame %d, want %d", c.name, got, c.want)
		}
	}
}
