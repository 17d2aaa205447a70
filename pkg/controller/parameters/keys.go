// Package parameters interprets StorageClass parameters for the provisioner:
// it separates the keys reserved for the provisioner from those passed to the
// CSI driver, and resolves the secret references of the seven secret kinds.
//
// The rules follow kubernetes-csi/external-provisioner (v5.1.0 to v6.3.0)
// so that existing StorageClasses keep working unchanged.
package parameters

import "strings"

// Prefix marks parameter keys that belong to the provisioner. They are never
// passed to the CSI driver.
const Prefix = "csi.storage.k8s.io/"

// FSTypeKey selects the filesystem type of provisioned volumes.
const FSTypeKey = Prefix + "fstype"

// deprecatedFSTypeKey is matched case-insensitively ("fsType", "FSTYPE", ...).
// Unlike FSTypeKey it is also passed to the driver, as upstream always did.
const deprecatedFSTypeKey = "fstype"

// Extra create metadata: the provisioner adds these to the CreateVolume
// parameters when asked to. They are not accepted in a StorageClass.
const (
	PVCNameKey      = Prefix + "pvc/name"
	PVCNamespaceKey = Prefix + "pvc/namespace"
	PVNameKey       = Prefix + "pv/name"
)

// SecretKind names one of the CSI calls that may carry secrets. Its value is
// the key segment used in the StorageClass, e.g. "node-stage" for
// csi.storage.k8s.io/node-stage-secret-name.
type SecretKind string

// The secret kinds.
const (
	Provisioner       SecretKind = "provisioner"
	ControllerPublish SecretKind = "controller-publish"
	NodeStage         SecretKind = "node-stage"
	NodePublish       SecretKind = "node-publish"
	ControllerExpand  SecretKind = "controller-expand"
	NodeExpand        SecretKind = "node-expand"
	// ControllerModify is the secret of ControllerModifyVolume, which the
	// external-resizer calls with a VolumeAttributesClass change; the PV
	// carries it in annotations (AnnControllerModifySecretName), having no
	// field for it.
	ControllerModify SecretKind = "controller-modify"
)

// NameKey is the StorageClass key holding the secret name template.
func (k SecretKind) NameKey() string { return Prefix + string(k) + "-secret-name" }

// NamespaceKey is the StorageClass key holding the secret namespace template.
func (k SecretKind) NamespaceKey() string { return Prefix + string(k) + "-secret-namespace" }

// secretKeys lists the parameter keys of one kind of secret.
type secretKeys struct {
	kind                SecretKind
	name, namespace     string
	deprecatedName      string // "" when the kind has no deprecated keys
	deprecatedNamespace string
}

// defaultKind names the default secret keys; it is no SecretKind of a call.
const defaultKind SecretKind = "default"

// numKinds is the number of real secret kinds; slot numKinds holds the
// default secret, used by every kind that sets no keys of its own.
const numKinds = 7

// secretTable is in the order upstream resolves the kinds, which decides
// which error is reported first.
var secretTable = [numKinds + 1]secretKeys{
	{Provisioner, Provisioner.NameKey(), Provisioner.NamespaceKey(), "csiProvisionerSecretName", "csiProvisionerSecretNamespace"},
	{ControllerPublish, ControllerPublish.NameKey(), ControllerPublish.NamespaceKey(), "csiControllerPublishSecretName", "csiControllerPublishSecretNamespace"},
	{NodeStage, NodeStage.NameKey(), NodeStage.NamespaceKey(), "csiNodeStageSecretName", "csiNodeStageSecretNamespace"},
	{NodePublish, NodePublish.NameKey(), NodePublish.NamespaceKey(), "csiNodePublishSecretName", "csiNodePublishSecretNamespace"},
	{ControllerExpand, ControllerExpand.NameKey(), ControllerExpand.NamespaceKey(), "", ""},
	{NodeExpand, NodeExpand.NameKey(), NodeExpand.NamespaceKey(), "", ""},
	{ControllerModify, ControllerModify.NameKey(), ControllerModify.NamespaceKey(), "", ""},
	{defaultKind, Prefix + "secret-name", Prefix + "secret-namespace", "", ""},
}

const (
	provisionerSlot = 0
	defaultSlot     = numKinds
)

// slotOf returns the table index of kind.
func slotOf(kind SecretKind) (int, bool) {
	for i := range numKinds {
		if secretTable[i].kind == kind {
			return i, true
		}
	}
	return 0, false
}

// field says which of the four keys of a secretKeys entry a parameter is.
type field uint8

const (
	fieldName field = iota
	fieldNamespace
	fieldDeprecatedName
	fieldDeprecatedNamespace
)

type keySlot struct {
	slot  int
	field field
}

// secretKeyIndex maps every secret key, current or deprecated, to its slot.
var secretKeyIndex = func() map[string]keySlot {
	m := map[string]keySlot{}
	for i, k := range secretTable {
		m[k.name] = keySlot{i, fieldName}
		m[k.namespace] = keySlot{i, fieldNamespace}
		if k.deprecatedName != "" {
			m[k.deprecatedName] = keySlot{i, fieldDeprecatedName}
			m[k.deprecatedNamespace] = keySlot{i, fieldDeprecatedNamespace}
		}
	}
	return m
}()

// deprecatedSecretPrefix is shared by all deprecated secret keys; checking it
// first spares a map lookup for most driver parameters.
const deprecatedSecretPrefix = "csi"

func isDeprecatedFSType(key string) bool {
	return len(key) == len(deprecatedFSTypeKey) && strings.ToLower(key) == deprecatedFSTypeKey
}
