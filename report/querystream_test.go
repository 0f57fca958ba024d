package report

import (
	"math"
	"strings"
	"testing"

	"github.com/hprofctl/hprofctl/analysis/oql"
)

// A streamed answer is byte for byte the answer Query writes at once, in
// every format, with and without rows: values of every kind, text that
// JSON would escape for HTML, lists, odd floats.
func TestQueryStreamEqualsQuery(t *testing.T) {
	list := oql.Value{Kind: oql.KindList, List: []oql.Value{oql.Int(1), oql.String("two"), oql.Null()}}
	rows := [][]oql.Value{
		{oql.Int(-7), oql.String(`<a href="x">&amp;</a>`), oql.Bool(true), oql.Float(1.5)},
		{oql.Null(), oql.String("line\nbreak, \"quoted\""), list, oql.Float(math.Inf(1))},
		{oql.Int(math.MaxInt64), oql.String("ünïcødé"), oql.Bool(false), oql.Float(1e300)},
	}
	columns := []string{"n", "s <&>", "b", "f"}
	for _, format := range []Format{JSON, CSV, Table} {
		for _, rs := range [][][]oql.Value{rows, nil} {
			o := Options{Format: format}
			var want, got strings.Builder
			if err := Query(&want, &oql.Result{Columns: columns, Rows: rs}, o); err != nil {
				t.Fatal(err)
			}
			q, err := NewQueryStream(&got, columns, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				if err := q.Row(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := q.Close(); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%s, %d rows: streamed\n%s\nwant\n%s", format, len(rs), got.String(), want.String())
			}
		}
	}
}
