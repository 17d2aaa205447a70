package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// collectedCommandLine is one entry of testdata/command-lines.yaml: the
// container args of upstream's own manifests and of widely deployed drivers'
// manifests, each with where it was read.
type collectedCommandLine struct {
	Name   string            `json:"name"`
	Source string            `json:"source"`
	Image  string            `json:"provisioner-image"`
	Needs  string            `json:"needs"`
	Env    map[string]string `json:"env"`
	Args   []string          `json:"args"`
}

// What refuses each capability this release does not build yet, and the
// issue that builds it.
var capabilityRefusals = map[string]string{
	"capacity":                "--enable-capacity is not supported by this release",                  // issue 14
	"node-deployment":         "--node-deployment is not supported by this release",                  // issue 14
	"volume-attributes-class": "feature gate VolumeAttributesClass is not supported by this release", // issue 16
}

func loadCommandLines(t *testing.T) []collectedCommandLine {
	t.Helper()
	data, err := os.ReadFile("testdata/command-lines.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var lines []collectedCommandLine
	if err := yaml.UnmarshalStrict(data, &lines); err != nil {
		t.Fatal(err)
	}
	if len(lines) < 20 {
		t.Fatalf("only %d command lines collected", len(lines))
	}
	return lines
}

// envReference is Kubernetes' $(VAR) syntax in container args.
var envReference = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expandArgs does what the kubelet does to container args: $(VAR) becomes
// the variable's value, and a reference to an undefined variable stays as
// written.
func expandArgs(args []string, env map[string]string) []string {
	out := make([]string, len(args))
	for i, arg := range args {
		out[i] = envReference.ReplaceAllStringFunc(arg, func(ref string) string {
			if v, ok := env[envReference.FindStringSubmatch(ref)[1]]; ok {
				return v
			}
			return ref
		})
	}
	return out
}

func TestCollectedCommandLinesParse(t *testing.T) {
	for _, line := range loadCommandLines(t) {
		t.Run(line.Name, func(t *testing.T) {
			if line.Source == "" || len(line.Args) == 0 {
				t.Fatal("entry without source or args")
			}
			_, err := parseFlags(expandArgs(line.Args, line.Env))
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
			for need := range strings.SplitSeq(line.Needs, ",") {
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
			for _, arg := range expandArgs(line.Args, line.Env) {
				name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
				if name == "enable-capacity" || name == "node-deployment" {
					continue
				}
				args = append(args, strings.ReplaceAll(arg, "VolumeAttributesClass=true", "VolumeAttributesClass=false"))
			}
			if _, err := parseFlags(args); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}
