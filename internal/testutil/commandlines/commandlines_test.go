package commandlines

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestExpandedArgsDoWhatTheKubeletDoes(t *testing.T) {
	c := CommandLine{
		Env:  map[string]string{"ADDRESS": "/csi/csi.sock", "NS": "kube-system"},
		Args: []string{"--csi-address=$(ADDRESS)", "--leader-election-namespace=$(NS)", "--x=$(UNSET)", "--v=5"},
	}
	want := []string{"--csi-address=/csi/csi.sock", "--leader-election-namespace=kube-system", "--x=$(UNSET)", "--v=5"}
	if got := c.ExpandedArgs(); !slices.Equal(got, want) {
		t.Errorf("ExpandedArgs() = %q, want %q", got, want)
	}
}

func TestFlagName(t *testing.T) {
	for arg, want := range map[string]string{"--v=5": "v", "-v": "v", "--enable-capacity": "enable-capacity", "value": ""} {
		if got := FlagName(arg); got != want {
			t.Errorf("FlagName(%q) = %q, want %q", arg, got, want)
		}
	}
}

func TestLoadRefusesAnEntryWithoutSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lines.yaml")
	if err := os.WriteFile(path, []byte("- name: x\n  args: [\"--v=2\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil {
		t.Error("an entry without source was accepted")
	}
}

func TestLoadRefusesUnknownFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lines.yaml")
	if err := os.WriteFile(path, []byte("- name: x\n  source: s\n  args: [\"--v=2\"]\n  arg: [\"typo\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil {
		t.Error("an unknown field was accepted")
	}
}

func TestTheCollectedFileLoads(t *testing.T) {
	lines, err := Load("../../../cmd/csi-provisioner/testdata/command-lines.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 20 {
		t.Errorf("only %d command lines collected", len(lines))
	}
}
