package features

import (
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/component-base/featuregate"
)

// DisableUnservedVolumeAttributesClass turns VolumeAttributesClass off when
// the command line left it at its default and the API server does not serve
// storage.k8s.io/v1 VolumeAttributesClasses (Kubernetes before 1.34), as
// upstream v6 does: claims there cannot name one, and the class GET would
// fail for every claim. It reports whether it turned the gate off. A
// discovery error other than NotFound leaves the gate as it is.
func DisableUnservedVolumeAttributesClass(gate featuregate.MutableVersionedFeatureGate, client discovery.DiscoveryInterface) (bool, error) {
	if gate.ExplicitlySet(VolumeAttributesClass) || !gate.Enabled(VolumeAttributesClass) {
		return false, nil
	}
	served, err := volumeAttributesClassServed(client)
	if err != nil || served {
		return false, nil
	}
	if err := gate.Set(string(VolumeAttributesClass) + "=false"); err != nil {
		return false, fmt.Errorf("turning off feature gate %s: %w", VolumeAttributesClass, err)
	}
	return true, nil
}

func volumeAttributesClassServed(client discovery.DiscoveryInterface) (bool, error) {
	resources, err := client.ServerResourcesForGroupVersion(storagev1.SchemeGroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, r := range resources.APIResources {
		if r.Kind == "VolumeAttributesClass" {
			return true, nil
		}
	}
	return false, nil
}
