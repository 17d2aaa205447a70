package provisionstate

import v1 "k8s.io/api/core/v1"

const (
	// SnapshotAPIGroup and SnapshotKind name a VolumeSnapshot data source.
	SnapshotAPIGroup = "snapshot.storage.k8s.io"
	SnapshotKind     = "VolumeSnapshot"
	claimKind        = "PersistentVolumeClaim"
)

// DataSource is what a claim asks its volume to be filled from.
type DataSource struct {
	APIGroup  string
	Kind      string
	Name      string
	Namespace string
}

// IsClaim tells whether the source is a claim to clone.
func (d DataSource) IsClaim() bool { return d.APIGroup == "" && d.Kind == claimKind }

// IsSnapshot tells whether the source is a VolumeSnapshot to restore.
func (d DataSource) IsSnapshot() bool {
	return d.APIGroup == SnapshotAPIGroup && d.Kind == SnapshotKind
}

// DataSourceOf returns the claim's data source, nil when it has none.
// dataSourceRef wins over dataSource: it is the newer field, it may name
// another namespace, and the API server mirrors one into the other when
// only one is set.
func DataSourceOf(claim *v1.PersistentVolumeClaim) *DataSource {
	if ref := claim.Spec.DataSourceRef; ref != nil {
		ds := &DataSource{Kind: ref.Kind, Name: ref.Name, Namespace: claim.Namespace}
		if ref.APIGroup != nil {
			ds.APIGroup = *ref.APIGroup
		}
		if ref.Namespace != nil && *ref.Namespace != "" {
			ds.Namespace = *ref.Namespace
		}
		return ds
	}
	if ref := claim.Spec.DataSource; ref != nil {
		ds := &DataSource{Kind: ref.Kind, Name: ref.Name, Namespace: claim.Namespace}
		if ref.APIGroup != nil {
			ds.APIGroup = *ref.APIGroup
		}
		return ds
	}
	return nil
}

// ClonedClaim returns the namespace and name of the claim a claim clones,
// and false when it clones none.
func ClonedClaim(claim *v1.PersistentVolumeClaim) (namespace, name string, ok bool) {
	ds := DataSourceOf(claim)
	if ds == nil || !ds.IsClaim() {
		return "", "", false
	}
	return ds.Namespace, ds.Name, true
}

// RestoredSnapshot returns the namespace and name of the VolumeSnapshot a
// claim is restored from, and false when it restores none.
func RestoredSnapshot(claim *v1.PersistentVolumeClaim) (namespace, name string, ok bool) {
	ds := DataSourceOf(claim)
	if ds == nil || !ds.IsSnapshot() {
		return "", "", false
	}
	return ds.Namespace, ds.Name, true
}
