package main

import (
	"os"
	"path/filepath"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPublishCopiesTheReportAndWhatItLinksToInPlaceOfThePreviousPublication(t *testing.T) {
	out, docs := t.TempDir(), t.TempDir()
	report := "# csi-provisioner benchmark\n\n" +
		"[100 claims](provisioning-100-tuned.md), [setup](#setup), [upstream](https://example.com/x.md)\n\n" +
		"![Throughput](throughput.png)\n\nFrom [capacity.md](capacity.md#accuracy):\n"
	writeFiles(t, out, map[string]string{
		"report.md":                 report,
		"provisioning-100-tuned.md": "# 100 claims\n\n![Latency](latency.png) and [back](report.md)\n",
		"capacity.md":               "# capacity\n\n![Backlog](capacity-queue-depth.png) [missing](gone.png)\n",
		"throughput.png":            "new throughput",
		"latency.png":               "new latency",
		"capacity-queue-depth.png":  "new backlog",
		"results.json":              "{}",
		"memory.md":                 "# not linked from the report",
	})
	writeFiles(t, docs, map[string]string{
		publishedReport:  "# an older run\n\n![Throughput](throughput.png) [memory](old-memory.png) [benchmark](../benchmark.md)\n",
		"throughput.png": "old throughput",
		"old-memory.png": "old memory",
		"soak.md":        "# soak runs, not part of the publication",
	})

	if err := publish(out, docs); err != nil {
		t.Fatal(err)
	}

	want := map[string]string{
		publishedReport:             report,
		"provisioning-100-tuned.md": "# 100 claims\n\n![Latency](latency.png) and [back](results.md)\n",
		"capacity.md":               "# capacity\n\n![Backlog](capacity-queue-depth.png) [missing](gone.png)\n",
		"throughput.png":            "new throughput",
		"latency.png":               "new latency",
		"capacity-queue-depth.png":  "new backlog",
		"soak.md":                   "# soak runs, not part of the publication",
	}
	entries, err := os.ReadDir(docs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(docs, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = string(data)
	}
	for name, content := range want {
		if got[name] != content {
			t.Errorf("%s: got %q, want %q", name, got[name], content)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is in the published folder; want only the report, what it links to and the files of others", name)
		}
	}
}

func TestPublishIntoAFolderWithNoPreviousPublication(t *testing.T) {
	out := t.TempDir()
	docs := filepath.Join(t.TempDir(), "docs", "bench")
	writeFiles(t, out, map[string]string{"report.md": "# run\n\n![Memory](memory.png)\n", "memory.png": "plot"})

	if err := publish(out, docs); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{publishedReport: "# run\n\n![Memory](memory.png)\n", "memory.png": "plot"} {
		data, err := os.ReadFile(filepath.Join(docs, name))
		if err != nil || string(data) != want {
			t.Errorf("%s: got %q (%v), want %q", name, data, err, want)
		}
	}
}
