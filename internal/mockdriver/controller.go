package mockdriver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
)

type controllerServer struct {
	csi.UnimplementedControllerServer
	d *Driver
}

func (s *controllerServer) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	types := []csi.ControllerServiceCapability_RPC_Type{
		csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME,
		csi.ControllerServiceCapability_RPC_LIST_VOLUMES,
		csi.ControllerServiceCapability_RPC_CLONE_VOLUME,
		csi.ControllerServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER,
	}
	if s.d.capacityEnabled() {
		types = append(types, csi.ControllerServiceCapability_RPC_GET_CAPACITY)
	}
	if s.d.snapshots {
		types = append(types, csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT, csi.ControllerServiceCapability_RPC_LIST_SNAPSHOTS)
	}
	if s.d.modifyVolume {
		types = append(types, csi.ControllerServiceCapability_RPC_MODIFY_VOLUME)
	}
	caps := make([]*csi.ControllerServiceCapability, len(types))
	for i, t := range types {
		caps[i] = &csi.ControllerServiceCapability{Type: &csi.ControllerServiceCapability_Rpc{
			Rpc: &csi.ControllerServiceCapability_RPC{Type: t},
		}}
	}
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: caps}, nil
}

func (s *controllerServer) CreateVolume(ctx context.Context, req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
	// Like most drivers, one operation per volume name at a time, as the
	// CSI spec recommends: a second call while the first still runs in
	// the backend is Aborted, and the CO retries it later.
	if _, running := s.d.creating.LoadOrStore(req.GetName(), true); running {
		return nil, status.Errorf(codes.Aborted, "an operation for volume %q is already in progress", req.GetName())
	}
	release := func() { s.d.creating.Delete(req.GetName()) }
	delay := s.d.faults.CreateDelay
	if s.d.hasVolumeNamed(req.GetName()) {
		// Like a backend, answer at once for a volume that is already made.
		delay = 0
	}
	if !s.d.faults.CreateOutlivesCaller {
		defer release()
		return runFaulted(ctx, s.d, delay, func() (*csi.CreateVolumeResponse, error) {
			return s.d.createVolume(ctx, req)
		})
	}
	// Like a backend that keeps creating after its client went away: the
	// volume appears even if the caller timed out or died meanwhile.
	type result struct {
		resp *csi.CreateVolumeResponse
		err  error
	}
	detached := context.WithoutCancel(ctx)
	done := make(chan result, 1)
	go func() {
		defer release()
		resp, err := runFaulted(detached, s.d, delay, func() (*csi.CreateVolumeResponse, error) {
			return s.d.createVolume(detached, req)
		})
		done <- result{resp, err}
	}()
	select {
	case r := <-done:
		return r.resp, r.err
	case <-ctx.Done():
		return nil, contextStatus(ctx)
	}
}

func (s *controllerServer) DeleteVolume(ctx context.Context, req *csi.DeleteVolumeRequest) (*csi.DeleteVolumeResponse, error) {
	return runFaulted(ctx, s.d, s.d.faults.DeleteDelay, func() (*csi.DeleteVolumeResponse, error) {
		return s.d.deleteVolume(ctx, req)
	})
}

func (d *Driver) createVolume(ctx context.Context, req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
	logger := klog.FromContext(ctx)
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "volume name is missing")
	}
	access, err := capabilitiesAccessType(req.GetVolumeCapabilities())
	if err != nil {
		return nil, err
	}
	if err := d.checkMutableParameters(req.GetMutableParameters()); err != nil {
		return nil, err
	}
	size, err := requestedSize(req.GetCapacityRange())
	if err != nil {
		return nil, err
	}
	source, err := d.sourceOf(req.GetVolumeContentSource())
	if err != nil {
		return nil, err
	}
	sourceID := source.volumeID

	d.mu.Lock()
	defer d.mu.Unlock()

	// Idempotency comes first: a retry must succeed even if, say, the clone
	// source has been deleted since the first call.
	if existing := d.state.volumeByName(req.GetName()); existing != nil {
		if err := d.compatible(existing, req, access, source); err != nil {
			return nil, err
		}
		logger.V(2).Info("Volume already exists", "name", existing.Name, "volumeID", existing.ID)
		return &csi.CreateVolumeResponse{Volume: toCSIVolume(*existing)}, nil
	}

	pool := poolOf(req.GetParameters())
	if _, known := d.poolSize(pool); !known {
		return nil, status.Errorf(codes.InvalidArgument, "unknown pool %q in parameter %s", pool, PoolParameter)
	}
	var topology []map[string]string
	dataID := ""
	if id := source.snapshotID; id != "" {
		snap := d.state.snapshotByID(id)
		if snap == nil {
			return nil, status.Errorf(codes.NotFound, "source snapshot %s does not exist", id)
		}
		// A restore holds all of the snapshot's data, so it needs at least
		// the snapshot's size. Unlike a clone it is not grown past an
		// explicit required size: the spec names a volume smaller than its
		// snapshot as OutOfRange, and a CO that skipped its own restore-size
		// check should see that. Without a required size, the driver picks.
		if size < snap.SizeBytes {
			if limit := req.GetCapacityRange().GetLimitBytes(); limit > 0 && snap.SizeBytes > limit {
				return nil, status.Errorf(codes.OutOfRange, "source snapshot %s has %d bytes, more than the limit of %d", id, snap.SizeBytes, limit)
			}
			if req.GetCapacityRange().GetRequiredBytes() > 0 {
				return nil, status.Errorf(codes.OutOfRange, "source snapshot %s has %d bytes, more than the %d requested", id, snap.SizeBytes, size)
			}
			size = snap.SizeBytes
		}
		dataID = snap.DataID
	}
	if sourceID != "" {
		source := d.state.volumeByID(sourceID)
		if source == nil {
			return nil, status.Errorf(codes.NotFound, "source volume %s does not exist", sourceID)
		}
		if source.AccessType != access {
			return nil, status.Errorf(codes.InvalidArgument, "source volume %s has access type %s, not %s", sourceID, source.AccessType, access)
		}
		if source.CapacityBytes > size {
			// A clone holds all of its source's data, so it cannot be smaller.
			if limit := req.GetCapacityRange().GetLimitBytes(); limit > 0 && source.CapacityBytes > limit {
				return nil, status.Errorf(codes.OutOfRange, "source volume %s has %d bytes, more than the limit of %d", sourceID, source.CapacityBytes, limit)
			}
			size = source.CapacityBytes
		}
		dataID = source.DataID
		if d.topology && len(source.AccessibleTopology) > 0 {
			// The data lives where the source is.
			topology = source.clone().AccessibleTopology
			if !accessibleFrom(topology, req.GetAccessibilityRequirements()) {
				return nil, status.Errorf(codes.ResourceExhausted, "source volume %s is not accessible from the requisite topology", sourceID)
			}
		}
	}
	if d.topology && topology == nil {
		if topology = d.chooseTopology(req.GetAccessibilityRequirements()); topology == nil {
			return nil, status.Error(codes.ResourceExhausted, "no requisite topology names a node under "+TopologyKey)
		}
	}
	if d.maxVolumeSize > 0 && size > d.maxVolumeSize {
		return nil, status.Errorf(codes.OutOfRange, "requested %d bytes, the maximum volume size is %d", size, d.maxVolumeSize)
	}
	if err := d.checkRoomLocked(pool, topology, size); err != nil {
		return nil, err
	}

	id, err := d.newVolumeID()
	if err != nil {
		return nil, status.Errorf(codes.Internal, "generating volume id: %v", err)
	}
	if dataID == "" {
		if dataID, err = randomID("data-"); err != nil {
			return nil, status.Errorf(codes.Internal, "generating data id: %v", err)
		}
	}
	vol := Volume{
		Name:               req.GetName(),
		ID:                 id,
		CapacityBytes:      size,
		Parameters:         maps.Clone(req.GetParameters()),
		MutableParameters:  maps.Clone(req.GetMutableParameters()),
		SourceVolumeID:     sourceID,
		SourceSnapshotID:   source.snapshotID,
		DataID:             dataID,
		AccessType:         access,
		AccessModes:        accessModes(req.GetVolumeCapabilities()),
		AccessibleTopology: topology,
		SecretKeys:         sortedKeys(req.GetSecrets()),
	}
	if err := d.mutateLocked(func(s *state) { s.addVolume(vol) }); err != nil {
		return nil, err
	}
	created := d.state.volumeByID(id)
	logger.V(2).Info("Created volume", "name", created.Name, "volumeID", created.ID, "bytes", created.CapacityBytes, "pool", pool, "topology", created.AccessibleTopology, "sourceVolume", sourceID, "sourceSnapshot", source.snapshotID)
	return &csi.CreateVolumeResponse{Volume: toCSIVolume(*created)}, nil
}

// compatible decides whether a CreateVolume for an existing name may return
// that volume; otherwise the spec requires AlreadyExists.
func (d *Driver) compatible(v *Volume, req *csi.CreateVolumeRequest, access string, source contentSource) error {
	mismatch := func(what string) error {
		return status.Errorf(codes.AlreadyExists, "volume %q already exists (id %s) with a different %s", v.Name, v.ID, what)
	}
	switch {
	case !fitsRange(v.CapacityBytes, req.GetCapacityRange()):
		return mismatch("capacity")
	case v.AccessType != access:
		return mismatch("access type")
	case !maps.Equal(v.Parameters, req.GetParameters()):
		return mismatch("parameter set")
	case v.SourceVolumeID != source.volumeID || v.SourceSnapshotID != source.snapshotID:
		return mismatch("content source")
	case d.topology && !accessibleFrom(v.AccessibleTopology, req.GetAccessibilityRequirements()):
		return mismatch("accessible topology")
	}
	return nil
}

func (d *Driver) deleteVolume(ctx context.Context, req *csi.DeleteVolumeRequest) (*csi.DeleteVolumeResponse, error) {
	logger := klog.FromContext(ctx)
	id := req.GetVolumeId()
	if id == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id is missing")
	}

	d.mu.Lock()
	defer d.mu.Unlock()

	vol := d.state.volumeByID(id)
	if vol == nil {
		// Deleting is idempotent: the volume may be gone already.
		logger.V(2).Info("Volume does not exist, nothing to delete", "volumeID", id)
		return &csi.DeleteVolumeResponse{}, nil
	}
	if pubs := d.state.publicationsOf(id); len(pubs) > 0 {
		return nil, status.Errorf(codes.FailedPrecondition, "volume %s is still published at %s", id, pubs[0].TargetPath)
	}
	deletion := Deletion{VolumeID: id, Name: vol.Name, SecretKeys: sortedKeys(req.GetSecrets())}
	if err := d.mutateLocked(func(s *state) {
		s.removeVolume(id)
		s.recordDeletion(deletion)
	}); err != nil {
		return nil, err
	}
	logger.V(2).Info("Deleted volume", "name", deletion.Name, "volumeID", id)
	return &csi.DeleteVolumeResponse{}, nil
}

func (s *controllerServer) ValidateVolumeCapabilities(ctx context.Context, req *csi.ValidateVolumeCapabilitiesRequest) (*csi.ValidateVolumeCapabilitiesResponse, error) {
	id := req.GetVolumeId()
	if id == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id is missing")
	}
	access, err := capabilitiesAccessType(req.GetVolumeCapabilities())
	if err != nil {
		return nil, err
	}

	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	vol := s.d.state.volumeByID(id)
	if vol == nil {
		return nil, status.Errorf(codes.NotFound, "volume %s does not exist", id)
	}
	// Unsupported but well-formed requests are answered without
	// confirmation, as the spec asks, rather than with an error.
	if vol.AccessType != access {
		return &csi.ValidateVolumeCapabilitiesResponse{Message: "volume " + id + " has access type " + vol.AccessType + ", not " + access}, nil
	}
	if len(req.GetParameters()) > 0 && !maps.Equal(vol.Parameters, req.GetParameters()) {
		return &csi.ValidateVolumeCapabilitiesResponse{Message: "parameters differ from those the volume was created with"}, nil
	}
	return &csi.ValidateVolumeCapabilitiesResponse{Confirmed: &csi.ValidateVolumeCapabilitiesResponse_Confirmed{
		VolumeContext:      req.GetVolumeContext(),
		VolumeCapabilities: req.GetVolumeCapabilities(),
		Parameters:         req.GetParameters(),
	}}, nil
}

// newVolumeID returns a random id not used by any existing volume. Random
// rather than sequential ids keep a driver restarted without a state file
// from reusing ids the CO still remembers.
func (d *Driver) newVolumeID() (string, error) {
	for {
		id, err := randomID("mock-")
		if err != nil {
			return "", err
		}
		if d.state.volumeByID(id) == nil {
			return id, nil
		}
	}
}

// randomID is prefix and 16 random hex digits.
func randomID(prefix string) (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return prefix + hex.EncodeToString(b), nil
}

func toCSIVolume(v Volume) *csi.Volume {
	out := &csi.Volume{
		VolumeId:           v.ID,
		CapacityBytes:      v.CapacityBytes,
		AccessibleTopology: toCSITopology(v.AccessibleTopology),
	}
	switch {
	case v.SourceVolumeID != "":
		out.ContentSource = &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Volume{
			Volume: &csi.VolumeContentSource_VolumeSource{VolumeId: v.SourceVolumeID},
		}}
	case v.SourceSnapshotID != "":
		out.ContentSource = &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Snapshot{
			Snapshot: &csi.VolumeContentSource_SnapshotSource{SnapshotId: v.SourceSnapshotID},
		}}
	}
	return out
}
