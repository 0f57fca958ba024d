package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// infoAnomalies runs info -o json and returns its anomalies and notes by
// kind.
func infoAnomalies(t *testing.T, dump string) (anomalies, notes map[string]int64) {
	t.Helper()
	type anomaly struct {
		Kind  string `json:"kind"`
		Count int64  `json:"count"`
	}
	var in struct {
		Anomalies []anomaly `json:"anomalies"`
		Notes     []anomaly `json:"notes"`
	}
	runJSON(t, &in, "info", dump)
	anomalies, notes = map[string]int64{}, map[string]int64{}
	for _, a := range in.Anomalies {
		anomalies[a.Kind] += a.Count
	}
	for _, a := range in.Notes {
		notes[a.Kind] += a.Count
	}
	return anomalies, notes
}

// TestCDSArchivedReferencesAreANote checks the references a HotSpot dump
// holds, in the CDS archived heap's roots array, to archived objects it
// never dumps (docs/hprof.md#cds-archived-heap). The MonitorPair dumps
// taken with the JVM's defaults (CDS archive mapped, G1) have them: a note,
// no dangling-reference anomaly. The -Xshare:off dumps of testdata/jvm
// have neither, so the note does not hide a real dangling reference there.
func TestCDSArchivedReferencesAreANote(t *testing.T) {
	for _, jdk := range []string{"jdk17", "jdk25"} {
		dump := filepath.Join(threadsDir(t), "heap", jdk+"-cds-monitor-pair.hprof.gz")
		anomalies, notes := infoAnomalies(t, dump)
		if anomalies["dangling-reference"] != 0 || notes["cds-archived-object-omitted"] < 100 {
			t.Errorf("%s: anomalies %v, notes %v; want the archived roots' references as a note", jdk, anomalies, notes)
		}
		out, err := runCLI(t, "report", dump)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "cds-archived-object-omitted") || strings.Contains(out, "<td>dangling-reference</td>") {
			t.Errorf("%s: report does not show the note as a note", jdk)
		}
	}
	for _, name := range []string{"jdk17-default", "jdk17-oom", "jdk25-default", "jdk25-inspect-before"} {
		anomalies, notes := infoAnomalies(t, filepath.Join(repoRoot(t), "testdata", "jvm", name+".hprof.gz"))
		if anomalies["dangling-reference"] != 0 || len(notes) != 0 {
			t.Errorf("%s (-Xshare:off): anomalies %v, notes %v", name, anomalies, notes)
		}
	}
}
