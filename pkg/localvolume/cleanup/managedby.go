package cleanup

import (
	"encoding/json"
)

// ManagedByAnnotation marks a LocalVolume or LocalVolumeSet whose finalizer
// this controller added. local-storage-operator uses the same finalizer on
// the same kinds, so with the feature off only marked objects lose it: a
// cluster that also runs that operator keeps its finalizers.
const ManagedByAnnotation = "local.storage.csi-protect.io/cleanup-managed-by"

const managedByValue = "csi-provisioner"

// withManagedBy adds to a finalizer merge patch the marker annotation, or
// its removal when value is nil, so both change in one write.
func withManagedBy(patch []byte, value *string) ([]byte, error) {
	var p map[string]any
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, err
	}
	meta, _ := p["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		p["metadata"] = meta
	}
	var v any
	if value != nil {
		v = *value
	}
	meta["annotations"] = map[string]any{ManagedByAnnotation: v}
	return json.Marshal(p)
}
