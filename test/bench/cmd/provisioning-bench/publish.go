package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// publishedReport is the name report.md takes where it is published.
const publishedReport = "results.md"

// publish copies the report written in outDir into dir, where the
// repository's documentation links to it (--publish=docs/bench): report.md
// as results.md, with every file it links to (the part reports and the
// plots) and what those link to in turn. The files the previous
// publication linked to are removed first, so that nothing of an older run
// stays beside the new one; other files of dir are left alone.
func publish(outDir, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := linkedFiles(dir, publishedReport)
	if err != nil {
		return fmt.Errorf("reading the previous publication: %w", err)
	}
	for _, name := range old {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	files, err := linkedFiles(outDir, "report.md")
	if err != nil {
		return err
	}
	for _, name := range files {
		to := name
		if name == "report.md" {
			to = publishedReport
		}
		if err := copyPublished(filepath.Join(outDir, name), filepath.Join(dir, to)); err != nil {
			return err
		}
	}
	return nil
}

// localLink matches a markdown link or image to a file beside the page:
// a plain name, without a folder, a scheme or only an anchor.
var localLink = regexp.MustCompile(`\]\(([^)/#:\s]+)(?:#[^)]*)?\)`)

// linkedFiles is root and the files beside it that it links to, directly or
// through a linked markdown page, each once; none when root does not exist.
// A link to a file that does not exist is not followed.
func linkedFiles(dir, root string) ([]string, error) {
	var files []string
	seen := map[string]bool{root: true}
	for queue := []string{root}; len(queue) > 0; queue = queue[1:] {
		name := queue[0]
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		files = append(files, name)
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		for _, m := range localLink.FindAllStringSubmatch(string(data), -1) {
			if target := m[1]; !seen[target] {
				seen[target] = true
				queue = append(queue, target)
			}
		}
	}
	return files, nil
}

// copyPublished copies a file of the publication; in a markdown page, a
// link to report.md follows it to its published name.
func copyPublished(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if strings.HasSuffix(from, ".md") {
		data = []byte(strings.ReplaceAll(string(data), "](report.md", "]("+publishedReport))
	}
	return os.WriteFile(to, data, 0o644)
}
