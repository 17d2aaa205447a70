package main

import (
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/internal/testutil/commandlines"
)

// What refuses each capability this release does not build yet, and the
// issue that builds it.
var capabilityRefusals = map[string]string{
	"volume-attributes-class": "feature gate VolumeAttributesClass is not supported by this release", // issue 16
}

func loadCommandLines(t *testing.T) []commandlines.CommandLine {
	t.Helper()
	lines, err := commandlines.Load("testdata/command-lines.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestCollectedCommandLinesParse(t *testing.T) {
	for _, line := range loadCommandLines(t) {
		t.Run(line.Name, func(t *testing.T) {
			_, err := parseFlags(line.ExpandedArgs())
			if line.Needs == "" {
				if err != nil {
					t.Errorf("refused (source %s): %v", line.Source, err)
				}
				return
			}
			// A command line that needs a capability not built yet is refused
			// with a message naming each flag or gate that turns one on, and
			// nothing else.
			if err == nil {
				t.Fatalf("needs %s but was accepted", line.Needs)
			}
			var want []string
			for _, need := range line.Needed() {
				refusal, ok := capabilityRefusals[need]
				if !ok {
					t.Fatalf("unknown need %q", need)
				}
				want = append(want, refusal)
			}
			if got := err.Error(); got != strings.Join(want, "; ") {
				t.Errorf("refused with %q, want %q", got, strings.Join(want, "; "))
			}
		})
	}
}

// With the capability flags and gate taken out, the same command lines
// parse: every other flag they set is understood.
func TestCollectedCommandLinesParseWithoutCapabilities(t *testing.T) {
	for _, line := range loadCommandLines(t) {
		if line.Needs == "" {
			continue
		}
		t.Run(line.Name, func(t *testing.T) {
			var args []string
			for _, arg := range line.ExpandedArgs() {
				args = append(args, strings.ReplaceAll(arg, "VolumeAttributesClass=true", "VolumeAttributesClass=false"))
			}
			if _, err := parseFlags(args); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}
