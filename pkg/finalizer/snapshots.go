package finalizer

import (
	"context"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	snapclient "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VolumeSnapshots writes to VolumeSnapshots with a pinned update: upstream
// external-provisioner v6.3's ClusterRole grants update on them, not patch.
func VolumeSnapshots(client snapclient.Interface) Target {
	return Update("VolumeSnapshot", func(ctx context.Context, snapshot *snapv1.VolumeSnapshot) error {
		_, err := client.SnapshotV1().VolumeSnapshots(snapshot.Namespace).Update(ctx, snapshot, metav1.UpdateOptions{})
		return err
	})
}
