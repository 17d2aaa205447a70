package features

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

func discoveryServing(resources ...*metav1.APIResourceList) *fakediscovery.FakeDiscovery {
	return &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: resources}}
}

var (
	storageV1WithClasses = &metav1.APIResourceList{GroupVersion: "storage.k8s.io/v1", APIResources: []metav1.APIResource{
		{Name: "storageclasses", Kind: "StorageClass"},
		{Name: "volumeattributesclasses", Kind: "VolumeAttributesClass"},
	}}
	storageV1WithoutClasses = &metav1.APIResourceList{GroupVersion: "storage.k8s.io/v1", APIResources: []metav1.APIResource{
		{Name: "storageclasses", Kind: "StorageClass"},
	}}
)

func TestVolumeAttributesClassStaysOnWhereServed(t *testing.T) {
	gate := New()
	disabled, err := DisableUnservedVolumeAttributesClass(gate, discoveryServing(storageV1WithClasses))
	if err != nil || disabled || !gate.Enabled(VolumeAttributesClass) {
		t.Errorf("disabled=%v err=%v enabled=%v, want the gate left on", disabled, err, gate.Enabled(VolumeAttributesClass))
	}
}

func TestVolumeAttributesClassTurnsOffWhereNotServed(t *testing.T) {
	for name, client := range map[string]*fakediscovery.FakeDiscovery{
		"kind missing":          discoveryServing(storageV1WithoutClasses),
		"group version missing": discoveryServing(),
	} {
		t.Run(name, func(t *testing.T) {
			gate := New()
			disabled, err := DisableUnservedVolumeAttributesClass(gate, client)
			if err != nil || !disabled || gate.Enabled(VolumeAttributesClass) {
				t.Errorf("disabled=%v err=%v enabled=%v, want the gate turned off", disabled, err, gate.Enabled(VolumeAttributesClass))
			}
		})
	}
}

func TestVolumeAttributesClassSetOnTheCommandLineIsKept(t *testing.T) {
	gate := New()
	if err := gate.Set("VolumeAttributesClass=true"); err != nil {
		t.Fatal(err)
	}
	disabled, err := DisableUnservedVolumeAttributesClass(gate, discoveryServing(storageV1WithoutClasses))
	if err != nil || disabled || !gate.Enabled(VolumeAttributesClass) {
		t.Errorf("disabled=%v err=%v enabled=%v, want an explicit setting kept", disabled, err, gate.Enabled(VolumeAttributesClass))
	}
}

func TestVolumeAttributesClassKeptOnDiscoveryError(t *testing.T) {
	client := discoveryServing()
	client.PrependReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	gate := New()
	disabled, err := DisableUnservedVolumeAttributesClass(gate, client)
	if err != nil || disabled || !gate.Enabled(VolumeAttributesClass) {
		t.Errorf("disabled=%v err=%v enabled=%v, want the gate left on", disabled, err, gate.Enabled(VolumeAttributesClass))
	}
}
