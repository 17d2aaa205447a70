package mockdriver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
	"k8s.io/klog/v2"
)

// Snapshot is one snapshot as the driver stores it. Snapshots use no
// capacity: the pools of Config.Capacity and Config.Pools count volumes
// only.
type Snapshot struct {
	Name           string `json:"name"`
	ID             string `json:"id"`
	SourceVolumeID string `json:"sourceVolumeID"`
	// SizeBytes is the source volume's capacity at snapshot time; a
	// restore needs at least that much.
	SizeBytes int64 `json:"sizeBytes"`
	// DataID is the source volume's DataID at snapshot time, which every
	// volume restored from the snapshot gets.
	DataID       string    `json:"dataID"`
	CreationTime time.Time `json:"creationTime"`
	// ReadyToUse is always true: the driver cuts snapshots at once.
	ReadyToUse bool              `json:"readyToUse"`
	Parameters map[string]string `json:"parameters,omitempty"`
	// SecretKeys are the names of the secrets CreateSnapshot received.
	// Values are never stored.
	SecretKeys []string `json:"secretKeys,omitempty"`
	// Seq orders snapshots by creation, for paging (from the volumes'
	// counter, so one number never names two objects).
	Seq uint64 `json:"seq"`
}

func (s Snapshot) clone() Snapshot {
	s.Parameters = maps.Clone(s.Parameters)
	s.SecretKeys = slices.Clone(s.SecretKeys)
	return s
}

func (s *state) snapshotByName(name string) *Snapshot {
	return find(s.Snapshots, func(sn Snapshot) bool { return sn.Name == name })
}

func (s *state) snapshotByID(id string) *Snapshot {
	return find(s.Snapshots, func(sn Snapshot) bool { return sn.ID == id })
}

func (s *state) addSnapshot(sn Snapshot) {
	sn.Seq = s.takeSeq()
	s.Snapshots = append(s.Snapshots, sn)
}

func (s *state) removeSnapshot(id string) {
	s.Snapshots = slices.DeleteFunc(s.Snapshots, func(sn Snapshot) bool { return sn.ID == id })
}

// validateSnapshots checks the snapshots of a loaded file; seqs are the
// sequence numbers the volumes use.
func (s *state) validateSnapshots(seqs map[uint64]bool) error {
	ids := map[string]bool{}
	names := map[string]bool{}
	for i, sn := range s.Snapshots {
		switch {
		case sn.ID == "" || sn.Name == "" || sn.SourceVolumeID == "":
			return fmt.Errorf("snapshot %d has an empty id, name or source volume", i)
		case ids[sn.ID]:
			return fmt.Errorf("snapshot id %q appears twice", sn.ID)
		case names[sn.Name]:
			return fmt.Errorf("snapshot name %q appears twice", sn.Name)
		case sn.Seq == 0 || sn.Seq >= s.NextSeq || seqs[sn.Seq]:
			return fmt.Errorf("snapshot %q has invalid sequence number %d", sn.ID, sn.Seq)
		case sn.SizeBytes < 0:
			return fmt.Errorf("snapshot %q has negative size", sn.ID)
		case sn.DataID == "":
			return fmt.Errorf("snapshot %q has no data id", sn.ID)
		}
		ids[sn.ID], names[sn.Name], seqs[sn.Seq] = true, true, true
	}
	return nil
}

// ReadSnapshots returns the snapshots stored in a driver's state file, for
// processes that inspect a driver they do not run, as ReadVolumes does for
// volumes. A missing file holds no snapshots.
func ReadSnapshots(path string) ([]Snapshot, error) {
	st, err := loadState(path)
	if err != nil {
		return nil, err
	}
	return st.Snapshots, nil
}

func (s *controllerServer) CreateSnapshot(ctx context.Context, req *csi.CreateSnapshotRequest) (*csi.CreateSnapshotResponse, error) {
	if !s.d.snapshots {
		return nil, status.Error(codes.Unimplemented, "snapshots are disabled")
	}
	delay := s.d.faults.SnapshotDelay
	if s.d.hasSnapshotNamed(req.GetName()) {
		// As CreateVolume: a snapshot already cut is reported at once.
		delay = 0
	}
	return runFaulted(ctx, s.d, delay, func() (*csi.CreateSnapshotResponse, error) {
		return s.d.createSnapshot(ctx, req)
	})
}

func (s *controllerServer) DeleteSnapshot(ctx context.Context, req *csi.DeleteSnapshotRequest) (*csi.DeleteSnapshotResponse, error) {
	if !s.d.snapshots {
		return nil, status.Error(codes.Unimplemented, "snapshots are disabled")
	}
	return runFaulted(ctx, s.d, 0, func() (*csi.DeleteSnapshotResponse, error) {
		return s.d.deleteSnapshot(ctx, req)
	})
}

// Snapshots returns a copy of the existing snapshots in creation order.
func (d *Driver) Snapshots() []Snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	return cloneAll(d.state.Snapshots)
}

func (d *Driver) hasSnapshotNamed(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state.snapshotByName(name) != nil
}

func (d *Driver) createSnapshot(ctx context.Context, req *csi.CreateSnapshotRequest) (*csi.CreateSnapshotResponse, error) {
	switch {
	case req.GetName() == "":
		return nil, status.Error(codes.InvalidArgument, "snapshot name is missing")
	case req.GetSourceVolumeId() == "":
		return nil, status.Error(codes.InvalidArgument, "source volume id is missing")
	}
	d.mu.Lock()
	defer d.mu.Unlock()

	// Idempotent by name, as the spec asks.
	if existing := d.state.snapshotByName(req.GetName()); existing != nil {
		if existing.SourceVolumeID != req.GetSourceVolumeId() {
			return nil, status.Errorf(codes.AlreadyExists, "snapshot %q already exists (id %s) of volume %s", existing.Name, existing.ID, existing.SourceVolumeID)
		}
		klog.FromContext(ctx).V(2).Info("Snapshot already exists", "name", existing.Name, "snapshotID", existing.ID)
		return &csi.CreateSnapshotResponse{Snapshot: toCSISnapshot(*existing)}, nil
	}
	source := d.state.volumeByID(req.GetSourceVolumeId())
	if source == nil {
		return nil, status.Errorf(codes.NotFound, "source volume %s does not exist", req.GetSourceVolumeId())
	}
	id, err := d.newSnapshotID()
	if err != nil {
		return nil, status.Errorf(codes.Internal, "generating snapshot id: %v", err)
	}
	snap := Snapshot{
		Name:           req.GetName(),
		ID:             id,
		SourceVolumeID: source.ID,
		SizeBytes:      source.CapacityBytes,
		DataID:         source.DataID,
		// UTC without a monotonic reading, so it equals itself read back.
		CreationTime: time.Now().UTC().Round(0),
		ReadyToUse:   true,
		Parameters:   maps.Clone(req.GetParameters()),
		SecretKeys:   sortedKeys(req.GetSecrets()),
	}
	if err := d.mutateLocked(func(s *state) { s.addSnapshot(snap) }); err != nil {
		return nil, err
	}
	created := d.state.snapshotByID(id)
	klog.FromContext(ctx).V(2).Info("Created snapshot", "name", created.Name, "snapshotID", id, "sourceVolume", source.ID, "bytes", created.SizeBytes)
	return &csi.CreateSnapshotResponse{Snapshot: toCSISnapshot(*created)}, nil
}

func (d *Driver) deleteSnapshot(ctx context.Context, req *csi.DeleteSnapshotRequest) (*csi.DeleteSnapshotResponse, error) {
	id := req.GetSnapshotId()
	if id == "" {
		return nil, status.Error(codes.InvalidArgument, "snapshot id is missing")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state.snapshotByID(id) == nil {
		// Idempotent: the snapshot may be gone already.
		klog.FromContext(ctx).V(2).Info("Snapshot does not exist, nothing to delete", "snapshotID", id)
		return &csi.DeleteSnapshotResponse{}, nil
	}
	if err := d.mutateLocked(func(s *state) { s.removeSnapshot(id) }); err != nil {
		return nil, err
	}
	klog.FromContext(ctx).V(2).Info("Deleted snapshot", "snapshotID", id)
	return &csi.DeleteSnapshotResponse{}, nil
}

// newSnapshotID returns a random id no existing snapshot has, random for
// the reason newVolumeID gives.
func (d *Driver) newSnapshotID() (string, error) {
	for {
		id, err := randomID("snap-")
		if err != nil || d.state.snapshotByID(id) == nil {
			return id, err
		}
	}
}

func toCSISnapshot(sn Snapshot) *csi.Snapshot {
	return &csi.Snapshot{
		SnapshotId:     sn.ID,
		SourceVolumeId: sn.SourceVolumeID,
		SizeBytes:      sn.SizeBytes,
		CreationTime:   timestamppb.New(sn.CreationTime),
		ReadyToUse:     sn.ReadyToUse,
	}
}
