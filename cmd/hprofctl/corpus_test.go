package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpusFilesParse reads every dump of ../shared/corpus (not the
// ProGuard mapping files beside some): the binary dumps and the agent's
// ASCII output load completely, the others fail with a message that says
// what they are.
func TestCorpusFilesParse(t *testing.T) {
	corpus := sharedCorpus(t)
	var files []string
	err := filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".map") && !isHistogramText(p) {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("only %d corpus files found", len(files))
	}
	for _, p := range files {
		name, _ := filepath.Rel(corpus, p)
		t.Run(name, func(t *testing.T) {
			out, err := runCLI(t, "info", "-o", "json", p)
			switch {
			case strings.HasSuffix(p, "java.hprof.txt"):
				// The agent's ASCII output is read as a heap dump
				// too; these files hold profiles but no HEAP DUMP.
				var in infoJSON
				runJSON(t, &in, "info", p)
				if err != nil || in.Format != "hprof-ascii" || in.Objects != 0 || len(in.Anomalies) != 1 || in.Anomalies[0].Kind != "no-heap-dump" {
					t.Errorf("ASCII agent output: error %v, format %q, %d objects, anomalies %+v; want hprof-ascii without a heap dump",
						err, in.Format, in.Objects, in.Anomalies)
				}
				return
			case strings.HasSuffix(p, ".TMP.gz"):
				if err == nil || !strings.Contains(err.Error(), "header-less") {
					t.Errorf("agent temp file: error %v, want one saying it is header-less", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("info: %v", err)
			}
			var in infoJSON
			runJSON(t, &in, "info", p)
			if in.Truncated || in.Objects == 0 || in.Classes == 0 {
				t.Errorf("truncated %v, %d objects, %d classes:\n%s", in.Truncated, in.Objects, in.Classes, out)
			}
			// Old HotSpot dumps reference objects they never dumped
			// (permanent generation), and the agent writes object arrays
			// short; that is reported, not an error.
			for _, a := range in.Anomalies {
				if a.Kind != "dangling-reference" && a.Kind != "dangling-root" && a.Kind != "agent-array-lengths" {
					t.Errorf("anomaly %s: %s", a.Kind, a.Detail)
				}
			}
		})
	}
}

func isHistogramText(p string) bool {
	base := filepath.Base(p)
	return strings.HasPrefix(base, "histogram_") || strings.HasSuffix(base, ".notes.txt") ||
		(strings.Contains(base, "hprofagent") && strings.HasSuffix(base, ".txt"))
}

// matHistograms pairs Eclipse MAT's test dumps with the jmap -histo output
// taken from the same JVM, which lies beside each dump in the corpus.
var matHistograms = []struct {
	dump, histogram string
	// sameMoment: the histogram was taken while the heap held what the
	// dump holds, so instance counts must agree too, but for countDiffers.
	sameMoment   bool
	countDiffers map[string]bool
}{
	// jmap -histo ran after the dump and attached to the JVM: one more
	// java.lang.Object (allocated in between) and the int[][] of the
	// permanent generation, which the JDK 6 dumper does not write.
	{"sun_jdk6_30_x64_compressedOops.hprof.gz", "sun_jdk6_30_x64_compressedOops.notes.txt", true, map[string]bool{"java.lang.Object": true}},
	{"sun_jdk6_30_x64_nocompressedOops.hprof.gz", "sun_jdk6_30_x64_nocompressedOops.notes.txt", true, map[string]bool{"java.lang.Object": true}},
	{"sun_jdk6_31_hprofagent_compressedOops.hprof.gz", "sun_jdk6_31_hprofagent_compressedOops.txt", false, nil},
	{"sun_jdk6_31_hprofagent_nocompressedOops.hprof.gz", "sun_jdk6_31_hprofagent_nocompressedOops.txt", false, nil},
	{"sun_jdk5_13_x32.hprof.gz", "histogram_sun_jdk5_13_x32.txt", false, nil},
	{"sun_jdk6_18_x32.hprof.gz", "histogram_sun_jdk6_18_x32.txt", false, nil},
	{"sun_jdk6_18_x64.hprof.gz", "histogram_sun_jdk6_18_x64.txt", false, nil},
}

// TestCorpusMATHistograms checks, as Eclipse MAT's own test suite does,
// that every ordinary class (not java.lang.Class, whose size depends on
// the statics of each class, and not arrays, whose size depends on each
// length) has the bytes per instance the JVM reported; where the histogram
// was taken at the moment of the dump, instance counts and array bytes
// must agree as well.
func TestCorpusMATHistograms(t *testing.T) {
	dir := filepath.Join(sharedCorpus(t), "eclipse-mat_mat")
	for _, c := range matHistograms {
		t.Run(c.dump, func(t *testing.T) {
			ours := histoByClass(t, filepath.Join(dir, c.dump))
			jvm := readJVMHistogram(t, filepath.Join(dir, c.histogram))
			compared := 0
			for class, j := range jvm {
				o, ok := ours[class]
				if !ok || class == "java.lang.Class" {
					continue
				}
				if strings.HasSuffix(class, "[]") {
					if c.sameMoment && o.Instances == j.Instances && o.ShallowBytes != j.ShallowBytes {
						t.Errorf("%s: %d arrays of %d bytes, the JVM counted %d bytes", class, o.Instances, o.ShallowBytes, j.ShallowBytes)
					}
					continue
				}
				compared++
				if o.ShallowBytes*j.Instances != j.ShallowBytes*o.Instances {
					t.Errorf("%s: %d bytes per instance, the JVM says %d", class, o.ShallowBytes/o.Instances, j.ShallowBytes/j.Instances)
				}
				if c.sameMoment && o.Instances != j.Instances && !c.countDiffers[class] {
					t.Errorf("%s: %d instances, the JVM counted %d", class, o.Instances, j.Instances)
				}
			}
			if compared < 50 {
				t.Errorf("only %d classes compared", compared)
			}
		})
	}
}
