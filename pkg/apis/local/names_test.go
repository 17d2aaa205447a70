package local

import "testing"

// The names are a wire contract with local-storage-operator and with PVs
// already in clusters: a change here is a breaking change.
func TestNames(t *testing.T) {
	for got, want := range map[string]string{
		GroupName:                      "local.storage.openshift.io",
		LocalVolumeProtectionFinalizer: "storage.openshift.com/local-volume-protection",
		SymlinkDeleterFinalizer:        "storage.openshift.com/lso-symlink-deleter",
		OwnerKindLabel:                 "storage.openshift.com/owner-kind",
		OwnerNameLabel:                 "storage.openshift.com/owner-name",
		OwnerNamespaceLabel:            "storage.openshift.com/owner-namespace",
		NodeLabel:                      "kubernetes.io/hostname",
		ConditionDeletionBlocked:       "DeletionBlocked",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
