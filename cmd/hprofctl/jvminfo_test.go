package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOOMInfo reads the dump fixture.OomMain's JVM wrote on
// -XX:+HeapDumpOnOutOfMemoryError. Known from the program and its
// jdk17-oom.info.txt: the error was thrown in thread main at
// OomMain.java:21 (the long[] allocation), by the JVM java -version names,
// started as "java ... fixture.OomMain" from a JDK 17 home. info (table
// and JSON), report and serve's overview show all of it, the system
// properties too; HTML escapes it.
func TestOOMInfo(t *testing.T) {
	dump := filepath.Join(repoRoot(t), "testdata", "jvm", "jdk17-oom.hprof.gz")
	recorded, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "jvm", "jdk17-oom.info.txt"))
	if err != nil {
		t.Fatal(err)
	}
	build := regexp.MustCompile(`OpenJDK Runtime Environment \(build ([^)]+)\)`).FindSubmatch(recorded)
	if build == nil || !strings.Contains(string(recorded), "-cp $CLASSES fixture.OomMain") {
		t.Fatal("jdk17-oom.info.txt lacks the JVM's build or command line")
	}
	version := string(build[1])
	var in struct {
		JVM struct {
			OOMThread  string `json:"oom_thread"`
			OOMFrame   string `json:"oom_frame"`
			Version    string `json:"version"`
			Command    string `json:"command"`
			Home       string `json:"home"`
			Properties []struct {
				Key   string `json:"key"`
				Value string `json:"value"`
			} `json:"properties"`
		} `json:"jvm"`
	}
	runJSON(t, &in, "info", dump)
	j := in.JVM
	if j.OOMThread != "main" || j.OOMFrame != "fixture.OomMain.main(OomMain.java:21)" || j.Version != version ||
		j.Command != "fixture.OomMain" || !strings.Contains(j.Home, "17") {
		t.Errorf("jvm %+v; want the error thrown in main at OomMain.java:21, version %s, command fixture.OomMain", j, version)
	}
	props := map[string]string{}
	for _, p := range j.Properties {
		props[p.Key] = p.Value
	}
	if props["java.vm.version"] != version || props["sun.java.command"] != "fixture.OomMain" || props["java.specification.version"] != "17" {
		t.Errorf("properties %v", props)
	}
	table, err := runCLI(t, "info", dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`thrown in thread "main" at fixture.OomMain.main(OomMain.java:21)`, version, "sun.java.command"} {
		if !strings.Contains(table, want) {
			t.Errorf("info table lacks %q", want)
		}
	}
	html, err := runCLI(t, "report", dump)
	if err != nil {
		t.Fatal(err)
	}
	ts := serveDump(t, dump)
	_, _, overview := get(t, "GET", ts.URL+"/")
	for name, page := range map[string]string{"report": html, "serve /": overview} {
		for _, want := range []string{`thrown in thread &#34;main&#34; at <code>fixture.OomMain.main(OomMain.java:21)</code>`,
			"<th>java</th><td>" + strings.ReplaceAll(version, "+", "&#43;") + "</td>", "<th>command</th><td><code>fixture.OomMain</code>", "<code>sun.java.command</code>"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
}

// TestJVMInfoAcrossVersions reads the system properties of a JDK 25 dump
// (a ConcurrentHashMap, as JDK 17's) and of Eclipse MAT's JDK 5 dump (a
// Hashtable): the version java -version printed for the fixture
// (jdk25-default.info.txt), and the 1.5.0_13 the corpus file is named for.
func TestJVMInfoAcrossVersions(t *testing.T) {
	recorded, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "jvm", "jdk25-default.info.txt"))
	if err != nil {
		t.Fatal(err)
	}
	build := regexp.MustCompile(`OpenJDK Runtime Environment [^(]*\(build ([^)]+)\)`).FindSubmatch(recorded)
	if build == nil {
		t.Fatal("jdk25-default.info.txt lacks the JVM's build")
	}
	for path, want := range map[string]string{
		filepath.Join(repoRoot(t), "testdata", "jvm", "jdk25-default.hprof.gz"):       string(build[1]),
		filepath.Join(sharedCorpus(t), "eclipse-mat_mat", "sun_jdk5_13_x32.hprof.gz"): "1.5.0_13",
	} {
		var in struct {
			JVM struct {
				Version string `json:"version"`
				VM      string `json:"vm"`
			} `json:"jvm"`
		}
		runJSON(t, &in, "info", path)
		if !strings.HasPrefix(in.JVM.Version, want) && !strings.Contains(in.JVM.VM, want) {
			t.Errorf("%s: version %q, vm %q; want %s", filepath.Base(path), in.JVM.Version, in.JVM.VM, want)
		}
	}
}
