package report

import (
	"io"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

func TestCollectionsGolden(t *testing.T) {
	c := heap.CollectionReport{
		Classes: []heap.CollectionClass{
			{Class: "java.util.HashMap", Instances: 372_565, Empty: 12, Size: 1_803_105, Capacity: 6_617_136, FillRatio: 0.2725, WastedBytes: 19_256_124},
			{Class: "java.util.concurrent.CopyOnWriteArrayList", Instances: 30, Size: 63, Capacity: 63, FillRatio: 1},
		},
		Arrays: []heap.ArrayClassWaste{
			{Class: "byte[]", ZeroLength: 8, ZeroLengthBytes: 128, Constant: 325_252, ConstantBytes: 56_623_104},
			{Class: "java.lang.Object[]", AllNull: 110, AllNullBytes: 5_400},
		},
		Collections: 1_632_207, WastedBytes: 23_068_672, ArrayBytes: 56_628_632,
	}
	out := renderGolden(t, "collections", allVariants, func(w io.Writer, o Options) error { return Collections(w, c, false, o) })
	var back struct {
		Collections []heap.CollectionClass `json:"collections"`
		Arrays      []heap.ArrayClassWaste `json:"arrays"`
	}
	decodeJSON(t, out["json"], &back)
	if len(back.Collections) != 2 || back.Collections[0] != c.Classes[0] || back.Arrays[1] != c.Arrays[1] {
		t.Errorf("JSON decodes to %+v", back)
	}
	wantContains(t, "table", out["table"], "372,565", "27.25%", "18 MiB", "all 1,632,207 collections", "all such arrays: 54 MiB", "325,252")
	wantContains(t, "table --bytes", out["bytes"], "19256124", "56623104")

	objs := heap.CollectionReport{
		Objects: []heap.CollectionObject{
			{ObjectID: "0xfd61ac60", Class: "java.util.HashMap", Size: 3, Capacity: 1024, FillRatio: 0.0029296875, WastedBytes: 4084},
		},
		ArrayObjects: []heap.ArrayObject{
			{ObjectID: "0xfd61c100", Class: "int[]", Length: 1000, Kind: heap.ArrayConstant, Bytes: 4016, Value: int32(7)},
			{ObjectID: "0xfd61c200", Class: "java.lang.Object[]", Length: 100, Kind: heap.ArrayAllNull, Bytes: 416},
		},
		Collections: 1, WastedBytes: 4084, ArrayBytes: 4432,
	}
	out = renderGolden(t, "collections-objects", allVariants, func(w io.Writer, o Options) error { return Collections(w, objs, true, o) })
	var backObjs struct {
		Collections []heap.CollectionObject `json:"collections"`
		Arrays      []struct {
			ObjectID string `json:"object_id"`
			Value    any    `json:"value"`
		} `json:"arrays"`
	}
	decodeJSON(t, out["json"], &backObjs)
	if len(backObjs.Collections) != 1 || backObjs.Collections[0] != objs.Objects[0] || backObjs.Arrays[0].Value != 7.0 || backObjs.Arrays[1].Value != nil {
		t.Errorf("JSON decodes to %+v", backObjs)
	}
	wantContains(t, "table", out["table"], "0xfd61ac60", "0.29%", "constant", "all-null")
}

func TestCollectionsEmptyGolden(t *testing.T) {
	out := renderGolden(t, "collections-empty", allVariants, func(w io.Writer, o Options) error {
		return Collections(w, heap.CollectionReport{}, false, o)
	})
	if out["json"] != "{\n  \"collections\": [],\n  \"arrays\": []\n}\n" {
		t.Errorf("empty JSON %q", out["json"])
	}
}
