// Package commandlines reads the collected csi-provisioner command lines
// (cmd/csi-provisioner/testdata/command-lines.yaml): the container args of
// upstream external-provisioner's manifests and of widely deployed drivers'
// manifests. The flag-parsing test and the e2e start-up test both use it.
package commandlines

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// CommandLine is one collected entry.
type CommandLine struct {
	Name   string            `json:"name"`
	Source string            `json:"source"`
	Image  string            `json:"provisioner-image"`
	Env    map[string]string `json:"env"`
	Args   []string          `json:"args"`
}

// Load reads and checks the file at path.
func Load(path string) ([]CommandLine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []CommandLine
	if err := yaml.UnmarshalStrict(data, &lines); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, line := range lines {
		if line.Name == "" || line.Source == "" || len(line.Args) == 0 {
			return nil, fmt.Errorf("%s: entry %q without name, source or args", path, line.Name)
		}
	}
	return lines, nil
}

// envReference is Kubernetes' $(VAR) syntax in container args.
var envReference = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// ExpandedArgs does what the kubelet does to container args: $(VAR) becomes
// the value of the entry's env variable, and a reference to an undefined
// variable stays as written.
func (c CommandLine) ExpandedArgs() []string {
	out := make([]string, len(c.Args))
	for i, arg := range c.Args {
		out[i] = envReference.ReplaceAllStringFunc(arg, func(ref string) string {
			if v, ok := c.Env[envReference.FindStringSubmatch(ref)[1]]; ok {
				return v
			}
			return ref
		})
	}
	return out
}

// FlagName is the name of the flag arg sets ("--v=5" and "-v" give "v"), or
// "" for an argument that is not a flag.
func FlagName(arg string) string {
	if !strings.HasPrefix(arg, "-") {
		return ""
	}
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name
}
