package framework

import (
	"context"
	"errors"
	"fmt"
	"time"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SnapshotReadyTimeout bounds WaitSnapshotReady: snapshot-controller,
// csi-snapshotter and the driver each act within a second or two, but every
// failed step is retried after a growing delay.
const SnapshotReadyTimeout = 2 * time.Minute

// errNoSnapshots is returned by the snapshot helpers of a stack started
// without SnapshotOptions.Enabled.
var errNoSnapshots = errors.New("the stack runs without snapshots: set StackOptions.Snapshots.Enabled")

// CreateSnapshot creates a VolumeSnapshot of a claim with the stack's
// VolumeSnapshotClass. WaitSnapshotReady returns it once it is cut.
func (s *Stack) CreateSnapshot(ctx context.Context, namespace, name, claimName string) error {
	if s.snapshots.client == nil {
		return errNoSnapshots
	}
	class := s.SnapshotClassName()
	snap := &snapv1.VolumeSnapshot{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: snapv1.VolumeSnapshotSpec{
			Source:                  snapv1.VolumeSnapshotSource{PersistentVolumeClaimName: &claimName},
			VolumeSnapshotClassName: &class,
		},
	}
	if _, err := s.snapshots.client.SnapshotV1().VolumeSnapshots(namespace).Create(ctx, snap, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create VolumeSnapshot %s/%s of claim %s: %w", namespace, name, claimName, err)
	}
	s.logger.V(2).Info("Created VolumeSnapshot", "namespace", namespace, "name", name, "claim", claimName, "class", class)
	return nil
}

// WaitSnapshotReady waits up to SnapshotReadyTimeout for a VolumeSnapshot to
// be ReadyToUse and returns it. A failed wait reports the snapshot's
// status.error, which is where snapshot-controller and csi-snapshotter say
// why a snapshot is not being cut, and fails at once if a component of the
// stack exited.
func (s *Stack) WaitSnapshotReady(ctx context.Context, namespace, name string) (*snapv1.VolumeSnapshot, error) {
	if s.snapshots.client == nil {
		return nil, errNoSnapshots
	}
	var ready *snapv1.VolumeSnapshot
	err := s.WaitFor(ctx, SnapshotReadyTimeout, "VolumeSnapshot "+namespace+"/"+name+" to be ready", func(ctx context.Context) (bool, error) {
		snap, err := s.snapshots.client.SnapshotV1().VolumeSnapshots(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := snap.Status
		if st != nil && st.ReadyToUse != nil && *st.ReadyToUse {
			ready = snap
			return true, nil
		}
		return false, snapshotNotReady(snap)
	})
	return ready, err
}

// snapshotNotReady says why a snapshot is not ready, as far as its status
// tells.
func snapshotNotReady(snap *snapv1.VolumeSnapshot) error {
	st := snap.Status
	switch {
	case st == nil:
		return errors.New("no status yet")
	case st.Error != nil && st.Error.Message != nil:
		return fmt.Errorf("status.error: %s", *st.Error.Message)
	case st.BoundVolumeSnapshotContentName == nil:
		return errors.New("not bound to a VolumeSnapshotContent yet")
	default:
		return fmt.Errorf("bound to %s, not ready to use yet", *st.BoundVolumeSnapshotContentName)
	}
}

// BoundSnapshotContent returns the VolumeSnapshotContent a VolumeSnapshot is
// bound to.
func (s *Stack) BoundSnapshotContent(ctx context.Context, namespace, name string) (*snapv1.VolumeSnapshotContent, error) {
	if s.snapshots.client == nil {
		return nil, errNoSnapshots
	}
	snap, err := s.snapshots.client.SnapshotV1().VolumeSnapshots(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if snap.Status == nil || snap.Status.BoundVolumeSnapshotContentName == nil {
		return nil, fmt.Errorf("VolumeSnapshot %s/%s is not bound to a VolumeSnapshotContent", namespace, name)
	}
	return s.snapshots.client.SnapshotV1().VolumeSnapshotContents().Get(ctx, *snap.Status.BoundVolumeSnapshotContentName, metav1.GetOptions{})
}

// SnapshotHandle returns the driver's id of the snapshot a VolumeSnapshot
// stands for: its bound content's status.snapshotHandle.
func (s *Stack) SnapshotHandle(ctx context.Context, namespace, name string) (string, error) {
	content, err := s.BoundSnapshotContent(ctx, namespace, name)
	if err != nil {
		return "", err
	}
	if content.Status == nil || content.Status.SnapshotHandle == nil {
		return "", fmt.Errorf("VolumeSnapshotContent %s of %s/%s has no snapshotHandle", content.Name, namespace, name)
	}
	return *content.Status.SnapshotHandle, nil
}
