package main

import (
	"testing"

	"github.com/csi-protect/external-provisioner/internal/testutil/commandlines"
)

// Every collected upstream and driver command line is accepted as written.
func TestCollectedCommandLinesParse(t *testing.T) {
	lines, err := commandlines.Load("testdata/command-lines.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range lines {
		t.Run(line.Name, func(t *testing.T) {
			if _, err := parseFlags(line.ExpandedArgs()); err != nil {
				t.Errorf("refused (source %s): %v", line.Source, err)
			}
		})
	}
}
