package library

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Each behaviour of the library that doc.go lists names the tests that
// guard it: they must exist, here or in pkg/controller.
func TestTheDocNamesTestsThatExist(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var tests strings.Builder
	for _, pattern := range []string{"*_test.go", "../*_test.go"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tests.Write(src)
		}
	}
	names := regexp.MustCompile(`Test[A-Za-z]+\*?`).FindAllString(string(doc), -1)
	if len(names) < 10 {
		t.Fatalf("doc.go names %d tests, want one for each behaviour at least", len(names))
	}
	for _, name := range names {
		declared := "func " + name + "("
		if prefix, ok := strings.CutSuffix(name, "*"); ok {
			declared = "func " + prefix
		}
		if !strings.Contains(tests.String(), declared) {
			t.Errorf("doc.go names %s, which no test declares", name)
		}
	}
}
