package report

import (
	"fmt"
	"io"

	"github.com/hprofctl/hprofctl/analysis/heap"
)

// Collections renders the collections and wasteful arrays: per class, or
// each object (objects). JSON is {"collections": [...], "arrays": [...]};
// a table or CSV shows the two lists one after the other (CSV: a blank
// line between them).
func Collections(w io.Writer, c heap.CollectionReport, objects bool, o Options) error {
	return Generate(w, collections{c, objects}, o)
}

// collections is a collection report as a Document: per class, or each
// object.
type collections struct {
	heap.CollectionReport
	objects bool
}

// JSON writes the two lists.
func (c collections) JSON(w io.Writer) error {
	if c.objects {
		return writeJSON(w, struct {
			Collections []heap.CollectionObject `json:"collections"`
			Arrays      []heap.ArrayObject      `json:"arrays"`
		}{nonNil(c.Objects), nonNil(c.ArrayObjects)})
	}
	return writeJSON(w, struct {
		Collections []heap.CollectionClass `json:"collections"`
		Arrays      []heap.ArrayClassWaste `json:"arrays"`
	}{nonNil(c.Classes), nonNil(c.Arrays)})
}

// CSV writes the two lists, a blank line between them; the fill is a
// ratio.
func (c collections) CSV(w io.Writer, o Options) error {
	colls, arrays := c.grids("fill ratio")
	return writeTwo(w, colls, arrays, o.writeCSV)
}

// Table writes the two lists with their totals; the fill is a
// percentage.
func (c collections) Table(w io.Writer, o Options) error {
	colls, arrays := c.grids("fill")
	colls.footer = make([]any, len(colls.columns))
	colls.footer[len(colls.columns)-2] = c.WastedBytes
	colls.footer[len(colls.columns)-1] = fmt.Sprintf("all %s collections", o.cell(count, c.Collections, false))
	arrays.footer = make([]any, len(arrays.columns))
	arrays.footer[len(arrays.columns)-1] = "all such arrays: " + o.cell(bytes, c.ArrayBytes, false)
	return writeTwo(w, colls, arrays, o.writeTable)
}

// writeTwo writes a and b with write, a blank line between them.
func writeTwo(w io.Writer, a, b grid, write func(io.Writer, grid) error) error {
	if err := write(w, a); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return write(w, b)
}

// grids is the collections and the arrays, per class or each object;
// fill titles the fill column.
func (c collections) grids(fill string) (colls, arrays grid) {
	if c.objects {
		colls = grid{columns: []column{{"object", ident, "object_id"}, {"size", count, "size"}, {"capacity", count, "capacity"}, {fill, ratio, "fill_ratio"}, {"wasted bytes", bytes, "wasted_bytes"}, {"class", text, "class"}}}
		for _, r := range c.Objects {
			colls.rows = append(colls.rows, []any{r.ObjectID, r.Size, r.Capacity, r.FillRatio, r.WastedBytes, r.Class})
		}
		arrays = grid{columns: []column{{"object", ident, "object_id"}, {"length", count, "length"}, {"kind", text, "kind"}, {"bytes", bytes, "bytes"}, {"value", text, "value"}, {"class", text, "class"}}}
		for _, r := range c.ArrayObjects {
			value := ""
			if r.Value != nil {
				value = valueText(r.Value)
			}
			arrays.rows = append(arrays.rows, []any{r.ObjectID, r.Length, r.Kind, r.Bytes, value, r.Class})
		}
	} else {
		colls = grid{columns: []column{{"instances", count, "instances"}, {"empty", count, "empty"}, {"size", count, "size"}, {"capacity", count, "capacity"}, {fill, ratio, "fill_ratio"}, {"wasted bytes", bytes, "wasted_bytes"}, {"class", text, "class"}}}
		for _, r := range c.Classes {
			colls.rows = append(colls.rows, []any{r.Instances, r.Empty, r.Size, r.Capacity, r.FillRatio, r.WastedBytes, r.Class})
		}
		arrays = grid{columns: []column{{"zero-length", count, "zero_length"}, {"bytes", bytes, "zero_length_bytes"}, {"all-null", count, "all_null"}, {"bytes", bytes, "all_null_bytes"}, {"constant", count, "constant"}, {"bytes", bytes, "constant_bytes"}, {"class", text, "class"}}}
		for _, r := range c.Arrays {
			arrays.rows = append(arrays.rows, []any{r.ZeroLength, r.ZeroLengthBytes, r.AllNull, r.AllNullBytes, r.Constant, r.ConstantBytes, r.Class})
		}
	}
	colls.none = "no JDK collection in the heap"
	arrays.none = "no array of length 0, of nulls only or of one constant value"
	return colls, arrays
}

// nonNil is rows, or an empty list for JSON's [] instead of null.
func nonNil[T any](rows []T) []T {
	if rows == nil {
		return []T{}
	}
	return rows
}
