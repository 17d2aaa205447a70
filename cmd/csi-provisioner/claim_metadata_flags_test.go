package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

func TestClaimMetadataFlagsAreKept(t *testing.T) {
	cfg, err := parseFlags([]string{
		"--volume-name-template={{.Namespace}}-{{.Name}}-{{.UIDShort}}",
		"--volume-name-max-length=40",
		"--claim-parameter-templates",
		"--claim-labels-to-volume=team,example.com/*",
		"--claim-labels-to-volume", "app.kubernetes.io/name",
	})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if cfg.volumeNameTemplate != "{{.Namespace}}-{{.Name}}-{{.UIDShort}}" || cfg.volumeNameMaxLength != 40 || !cfg.claimParameterTemplates {
		t.Errorf("template %q, max length %d, parameter templates %v", cfg.volumeNameTemplate, cfg.volumeNameMaxLength, cfg.claimParameterTemplates)
	}
	if want := []string{"team", "example.com/*", "app.kubernetes.io/name"}; !slices.Equal(cfg.claimLabelsToVolume, want) {
		t.Errorf("claim labels to volume %q, want %q", cfg.claimLabelsToVolume, want)
	}
}

func TestVolumeNameTemplatesThatNameEveryClaimApartAreAccepted(t *testing.T) {
	for _, args := range [][]string{
		{"--volume-name-template={{.UID}}"},
		{"--volume-name-template={{.Prefix}}-{{.UID}}", "--volume-name-prefix=fast.ssd"},
		{"--volume-name-template={{.Namespace}}-{{.Name}}-{{.UIDShort}}"},
		{"--volume-name-template=vol-{{.UIDShort}}-{{.Name}}-{{.Namespace}}", "--volume-name-max-length=32"},
		{"--volume-name-template={{.Namespace}}-{{.Name}}-{{.UIDShort}}", "--volume-name-max-length=253"},
		{"--volume-name-template={{.UID}}", "--volume-name-prefix=vol", "--volume-name-uuid-length=8"},
		// Without a template the maximum length bounds nothing.
		{"--volume-name-max-length=10"},
		{"--volume-name-max-length=-1"},
		{"--volume-name-template="},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if _, err := parseFlags(args); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

func TestBadClaimMetadataFlagsAreRefused(t *testing.T) {
	tests := []refusal{
		// Two claims could get one name, and share one backend volume.
		{[]string{"--volume-name-template={{.Name}}"}, "--volume-name-template"},
		{[]string{"--volume-name-template={{.Namespace}}-{{.Name}}"}, "--volume-name-template"},
		{[]string{"--volume-name-template={{.Name}}-{{.UIDShort}}"}, "--volume-name-template"},
		{[]string{"--volume-name-template=pvc-fixed"}, "--volume-name-template"},
		// Only text of [a-z0-9-] and plain fields.
		{[]string{"--volume-name-template=Vol-{{.UID}}"}, "--volume-name-template"},
		{[]string{"--volume-name-template=vol_{{.UID}}"}, "--volume-name-template"},
		{[]string{`--volume-name-template={{printf "%.8s" .UID}}-{{.Namespace}}-{{.Name}}`}, "--volume-name-template"},
		{[]string{"--volume-name-template={{if .UID}}{{.UID}}{{end}}"}, "--volume-name-template"},
		{[]string{"--volume-name-template={{.Labels}}-{{.UID}}"}, "--volume-name-template"},
		{[]string{"--volume-name-template={{.UID"}, "--volume-name-template"},
		{[]string{"--volume-name-template=   "}, "--volume-name-template"},
		{[]string{"--volume-name-template={{.UID}}\n"}, "--volume-name-template"},
		// Names must start and end with a letter or a digit.
		{[]string{"--volume-name-template=-{{.UID}}"}, "--volume-name-template"},
		{[]string{"--volume-name-template={{.UID}}-"}, "--volume-name-template"},
		{[]string{"--volume-name-max-length=many"}, "--volume-name-max-length"},
		{[]string{"--volume-name-template={{.UID}}", "--volume-name-prefix=PVC"}, "--volume-name-prefix"},
		{[]string{"--claim-labels-to-volume=kubernetes.io/hostname"}, "--claim-labels-to-volume"},
		{[]string{"--claim-labels-to-volume=app,topology.kubernetes.io/*"}, "--claim-labels-to-volume"},
		{[]string{"--claim-labels-to-volume=app", "--claim-labels-to-volume=k8s.io/x"}, "--claim-labels-to-volume"},
		{[]string{"--claim-labels-to-volume=node.kubernetes.io/instance-type"}, "--claim-labels-to-volume"},
		{[]string{"--claim-labels-to-volume=Bad Key"}, "--claim-labels-to-volume"},
		{[]string{"--claim-labels-to-volume=a*b"}, "--claim-labels-to-volume"},
		{[]string{"--claim-labels-to-volume=example..com/*"}, "--claim-labels-to-volume"},
		{[]string{"--claim-parameter-templates=maybe"}, "--claim-parameter-templates"},
	}
	requireRefused(t, tests)
}

// A template's names are cut to the maximum length with a 16-digit hash:
// below 32 too little of the name would be left to read.
func TestVolumeNameMaxLengthBelow32IsRefusedWithATemplate(t *testing.T) {
	for _, maxLength := range []string{"31", "16", "0", "-1"} {
		_, err := parseFlags([]string{"--volume-name-template={{.Namespace}}-{{.Name}}-{{.UIDShort}}", "--volume-name-max-length=" + maxLength})
		if err == nil {
			t.Fatalf("--volume-name-max-length=%s accepted", maxLength)
		}
		if !strings.Contains(err.Error(), "--volume-name-max-length must be at least 32, got "+maxLength) {
			t.Errorf("--volume-name-max-length=%s: %q does not say the maximum length is below 32", maxLength, err)
		}
	}
	if _, err := parseFlags([]string{"--volume-name-template={{.UID}}", "--volume-name-max-length=32"}); err != nil {
		t.Errorf("--volume-name-max-length=32 refused: %v", err)
	}
	if volumename.MinMaxLength != 32 {
		t.Errorf("MinMaxLength = %d", volumename.MinMaxLength)
	}
}

func TestClaimMetadataFlagErrorsAreReportedTogether(t *testing.T) {
	_, err := parseFlags([]string{"--volume-name-template={{.Name}}", "--claim-labels-to-volume=kubernetes.io/hostname", "--timeout=0"})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"--volume-name-template", "--claim-labels-to-volume", "--timeout"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("%q is not one line", err)
	}
}
