//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// The claim-metadata flags and the records of a claim's request, spelled out
// as users see them rather than imported from pkg/controller.
const (
	// readableNameTemplate names a volume after its claim; the test works
	// the names out by hand (readableVolumeName).
	readableNameTemplate       = "{{.Namespace}}-{{.Name}}-{{.UIDShort}}"
	flagReadableNames          = "--volume-name-template=" + readableNameTemplate
	flagClaimParameters        = "--claim-parameter-templates"
	annVolumeNameTemplate      = "provisioner.storage.kubernetes.io/volume-name-template"
	annParameterClaimMetadata  = "provisioner.storage.kubernetes.io/parameter-claim-metadata"
	defaultVolumeNameMaxLength = 63
	// readableVolumeNamePattern matches the names readableNameTemplate
	// gives the claims of the default namespace, where these tests make
	// them: the namespace, the claim's name and 8 hex digits.
	readableVolumeNamePattern = `default-[a-z0-9-]+-[0-9a-f]{8}\b`
)

// readableVolumeName is the name readableNameTemplate gives the driver for
// a claim, worked out by hand: namespace, name and the first 8 hex digits
// of the UID without its dashes, joined by '-'. The tests' claim names hold
// only [a-z0-9-], which the sidecar keeps, and are short enough never to be
// cut.
func readableVolumeName(pvc *corev1.PersistentVolumeClaim) string {
	return pvc.Namespace + "-" + pvc.Name + "-" + strings.ReplaceAll(string(pvc.UID), "-", "")[:8]
}

// recognizeReadableVolumeNames makes the driver-log readers of
// driver_calls_test.go (readCreateVolumeLog, readDeleteVolumeLog and every
// wait and account built on them) recognize the names of
// readableNameTemplate as well as the default pvc-<UID>, until the test
// ends. They find a volume's name in a log line with volumeNameRE, which
// knows the default form only. The e2e tests never run in parallel (none
// calls t.Parallel), so swapping the package variable for the duration of a
// test is safe.
func recognizeReadableVolumeNames(t *testing.T) {
	t.Helper()
	defaultNames := volumeNameRE
	volumeNameRE = regexp.MustCompile(defaultNames.String() + "|" + readableVolumeNamePattern)
	t.Cleanup(func() { volumeNameRE = defaultNames })
}

func withLabels(labels map[string]string) func(*corev1.PersistentVolumeClaim) {
	return func(pvc *corev1.PersistentVolumeClaim) { pvc.Labels = maps.Clone(labels) }
}

// patchClaimLabel sets one label of a claim, even one being deleted.
func patchClaimLabel(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name, key, value string) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{key: value}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("label PVC %s/%s %s=%s: %v", namespace, name, key, value, err)
	}
}

// driverVolumeNamed returns the driver's volume of the name, if it holds one.
func driverVolumeNamed(vols []mockdriver.Volume, name string) (mockdriver.Volume, bool) {
	for _, v := range vols {
		if v.Name == name {
			return v, true
		}
	}
	return mockdriver.Volume{}, false
}

// With --claim-parameter-templates, --claim-labels-to-volume and a readable
// --volume-name-template, a claim's labels and annotations reach the
// driver's parameters as the class names them (anything else with a '$'
// unchanged), the driver gets the readable name while the PV keeps
// pvc-<UID>, the PV gets exactly the selected labels (never a Kubernetes
// domain's), and the records of the request leave the claim with the
// finalizer once it is bound. A claim that lacks a label the class reads
// gets no CreateVolume, only a ProvisioningFailed event naming the label,
// and is provisioned once it is labelled.
func TestClaimMetadataReachesDriverAndVolume(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		// Every request logged: a claim that must get no CreateVolume is
		// checked against the driver's log.
		Driver: framework.DriverOptions{Verbosity: driverRequestVerbosity},
		Sidecar: framework.SidecarOptions{ExtraArgs: []string{
			flagClaimParameters,
			"--claim-labels-to-volume=team,example.com/*",
			flagReadableNames,
		}},
	})
	recognizeReadableVolumeNames(t)
	createStorageClass(ctx, t, s, "templated", withParameters(map[string]string{
		"team":    "${pvc.labels['team']}",
		"owner":   "${pvc.annotations['example.com/owner']}",
		"claim":   "${pvc.namespace}/${pvc.name}",
		"literal": "$HOME-${other}",
	}))

	t.Run("rendered", func(t *testing.T) {
		pvc := createClaim(ctx, t, s, "default", "meta", "templated",
			withLabels(map[string]string{
				"team":                        "payments",
				"example.com/cost-centre":     "cc-42",
				"topology.kubernetes.io/zone": "zone-a",
				"other":                       "x",
			}),
			withAnnotation("example.com/owner", "alice"))
		volume := readableVolumeName(pvc)
		_, pv := waitForClaimBound(ctx, t, s, "default", "meta")

		if want := "pvc-" + string(pvc.UID); pv.Name != want {
			t.Errorf("PV is named %s, want %s: the template names the driver's volume, not the PV", pv.Name, want)
		}
		v, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle)
		if !ok {
			t.Fatalf("the driver has no volume %s, the handle of PV %s", pv.Spec.CSI.VolumeHandle, pv.Name)
		}
		if v.Name != volume {
			t.Errorf("the driver's volume is named %q, want %q", v.Name, volume)
		}
		wantParams := map[string]string{
			"team":    "payments",
			"owner":   "alice",
			"claim":   "default/meta",
			"literal": "$HOME-${other}",
		}
		if !maps.Equal(v.Parameters, wantParams) {
			t.Errorf("CreateVolume parameters %v, want %v", v.Parameters, wantParams)
		}
		wantLabels := map[string]string{"team": "payments", "example.com/cost-centre": "cc-42"}
		if !maps.Equal(pv.Labels, wantLabels) {
			t.Errorf("PV labels %v, want %v", pv.Labels, wantLabels)
		}
		// The driver's log is read by name below: it must know this one.
		l, err := readCreateVolumeLog(s)
		if err != nil {
			t.Fatal(err)
		}
		if l.received[volume] != 1 || l.created[volume] != 1 {
			t.Errorf("the driver's log shows %d CreateVolume(s) received and %d volume(s) created for %s, want 1 and 1", l.received[volume], l.created[volume], volume)
		}

		waitFor(ctx, t, s, "the bound claim to lose its request records and finalizer", func(ctx context.Context) (bool, error) {
			got, err := s.Client().CoreV1().PersistentVolumeClaims("default").Get(ctx, "meta", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			var left []string
			for _, key := range []string{annVolumeNameTemplate, annParameterClaimMetadata} {
				if value, ok := got.Annotations[key]; ok {
					left = append(left, fmt.Sprintf("%s=%s", key, value))
				}
			}
			if hasFinalizer(got, provisioningProtection) {
				left = append(left, "finalizer "+provisioningProtection)
			}
			return len(left) == 0, fmt.Errorf("still has %v", left)
		})
	})

	t.Run("missing_label", func(t *testing.T) {
		pvc := createClaim(ctx, t, s, "default", "unlabelled", "templated",
			withLabels(map[string]string{"other": "x"}),
			withAnnotation("example.com/owner", "bob"))
		volume := readableVolumeName(pvc)

		ev := waitForClaimEvent(ctx, t, s, "default", "unlabelled", corev1.EventTypeWarning, "ProvisioningFailed")
		if !strings.Contains(ev.Message, `label "team"`) {
			t.Errorf("ProvisioningFailed event does not name the missing label %q: %q", "team", ev.Message)
		}
		l, err := readCreateVolumeLog(s)
		if err != nil {
			t.Fatal(err)
		}
		if n := l.received[volume]; n != 0 {
			t.Errorf("the driver received %d CreateVolume(s) for %s, whose claim lacks a label its class reads", n, volume)
		}
		if v, ok := driverVolumeNamed(driverVolumes(t, s), volume); ok {
			t.Errorf("the driver holds volume %s (%s) for a claim that lacks a label its class reads", volume, v.ID)
		}

		labelled := time.Now()
		patchClaimLabel(ctx, t, s, "default", "unlabelled", "team", "x")
		_, pv := waitForClaimBound(ctx, t, s, "default", "unlabelled")
		t.Logf("bound %s after the label was added", time.Since(labelled).Round(100*time.Millisecond))
		v, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle)
		switch {
		case !ok:
			t.Fatalf("the driver has no volume %s, the handle of PV %s", pv.Spec.CSI.VolumeHandle, pv.Name)
		case v.Name != volume:
			t.Errorf("the driver's volume is named %q, want %q", v.Name, volume)
		}
		wantParams := map[string]string{
			"team":    "x",
			"owner":   "bob",
			"claim":   "default/unlabelled",
			"literal": "$HOME-${other}",
		}
		if !maps.Equal(v.Parameters, wantParams) {
			t.Errorf("CreateVolume parameters %v, want %v", v.Parameters, wantParams)
		}
		if want := map[string]string{"team": "x"}; !maps.Equal(pv.Labels, want) {
			t.Errorf("PV labels %v, want %v", pv.Labels, want)
		}
	})
}

// A claim deleted while its CreateVolume runs and no sidecar is up is
// replayed by the next sidecar with what its first attempt recorded, not
// with that sidecar's settings: here the next one has another
// --volume-name-template, and the claim's label that a parameter reads has
// changed meanwhile. The replay finds the volume of the first attempt under
// its readable name, with its parameters, and deletes it; it never asks the
// driver for a volume under the new template's name. Nothing is left.
func TestChangedNameTemplateReplaysTheRecordedRequest(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{
			CreateDelay:          3 * time.Second,
			CreateOutlivesCaller: true,
			Verbosity:            driverRequestVerbosity,
		},
		Sidecar: framework.SidecarOptions{ExtraArgs: []string{flagReadableNames, flagClaimParameters}},
	})
	recognizeReadableVolumeNames(t)
	createStorageClass(ctx, t, s, "templated", withParameters(map[string]string{"team": "${pvc.labels['team']}"}))
	pvc := createClaim(ctx, t, s, "default", "replayed", "templated", withLabels(map[string]string{"team": "a"}))
	volume := readableVolumeName(pvc)
	// What the next sidecar's template would name the volume.
	const nextTemplate = "{{.Prefix}}-{{.UID}}"
	nextName := "pvc-" + string(pvc.UID)

	waitForCreateVolumeReceived(ctx, t, s, volume)
	got := getClaim(ctx, t, s, "default", "replayed")
	if !hasFinalizer(got, provisioningProtection) {
		t.Fatalf("CreateVolume was sent for a claim without the %s finalizer: %v", provisioningProtection, got.Finalizers)
	}
	var spec struct {
		Template  string `json:"template"`
		Prefix    string `json:"prefix"`
		MaxLength int    `json:"maxLength"`
	}
	if err := json.Unmarshal([]byte(got.Annotations[annVolumeNameTemplate]), &spec); err != nil {
		t.Fatalf("annotation %s=%q: %v", annVolumeNameTemplate, got.Annotations[annVolumeNameTemplate], err)
	}
	if spec.Template != readableNameTemplate || spec.Prefix != "pvc" || spec.MaxLength != defaultVolumeNameMaxLength {
		t.Errorf("annotation %s records %+v, want template %q, prefix pvc, maxLength %d", annVolumeNameTemplate, spec, readableNameTemplate, defaultVolumeNameMaxLength)
	}
	if want, rec := `{"labels":{"team":"a"}}`, got.Annotations[annParameterClaimMetadata]; rec != want {
		t.Errorf("annotation %s=%q, want %q", annParameterClaimMetadata, rec, want)
	}

	if err := s.Sidecar().Kill(); err != nil {
		t.Fatalf("kill the sidecar: %v", err)
	}
	deleteClaim(ctx, t, s, "default", "replayed")
	// Rendered now, the parameter would differ from the first attempt's,
	// which the driver refuses for the same name.
	patchClaimLabel(ctx, t, s, "default", "replayed", "team", "b")

	// The backend finishes the call its dead caller made.
	vols := waitForDriverVolumes(ctx, t, s, 1)
	if vols[0].Name != volume || vols[0].Parameters["team"] != "a" {
		t.Fatalf("the backend created %s with parameters %v, want %s with team=a", vols[0].Name, vols[0].Parameters, volume)
	}
	requireHeld(ctx, t, s, "default", "replayed", "deleted while no sidecar runs")

	if _, err := s.StartSidecar(ctx, framework.SidecarOptions{ExtraArgs: []string{
		"--volume-name-template=" + nextTemplate, flagClaimParameters,
	}}); err != nil {
		t.Fatalf("start the sidecar with template %s: %v", nextTemplate, err)
	}
	ids := waitForAbandonedVolumeDeleted(ctx, t, s, "default", "replayed", vols[0])
	if n := len(ids[nextName]); n != 0 {
		t.Errorf("the backend made %d volume(s) under the new template's name %s", n, nextName)
	}
	l, err := readCreateVolumeLog(s)
	if err != nil {
		t.Fatal(err)
	}
	if n := l.received[nextName]; n != 0 {
		t.Errorf("the driver received %d CreateVolume(s) for %s, the new template's name of the volume", n, nextName)
	}
	// The first attempt's and the replay's.
	if n := l.received[volume]; n < 2 {
		t.Errorf("the driver received %d CreateVolume(s) for %s, want the first attempt's and the replay's", n, volume)
	}
}
