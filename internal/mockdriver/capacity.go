package mockdriver

import (
	"context"
	"math"
	"slices"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"k8s.io/klog/v2"
)

// PoolParameter is the CreateVolume and GetCapacity parameter (a
// StorageClass parameter) that selects one of Config.Pools, like a device
// class or volume group of a node-local driver. Without it, or with an
// empty value, the default pool of Config.Capacity is used.
const PoolParameter = "pool"

// defaultPool names the pool of Config.Capacity internally. Config.Pools
// cannot hold it since pool names must not be empty.
const defaultPool = ""

// unlimited is what GetCapacity reports for a pool without a size: int64
// has no infinity, and the CO must see room for any volume.
const unlimited int64 = math.MaxInt64

// The capacity model is that of node-local drivers such as TopoLVM or the
// LVM and ZFS drivers: every topology segment (every value of TopologyKey,
// i.e. every node) has its own copy of each pool, so a volume uses space
// only in the pool it was created in, on the node(s) it is accessible
// from. Without Config.Topology there is one copy of each pool, reachable
// from anywhere. The driver models every node the CO names, not only its
// own, since it models storage reachable from wherever the CO asks.

// capacityEnabled reports whether any pool has a size, which is when
// GET_CAPACITY is advertised.
func (d *Driver) capacityEnabled() bool {
	return d.capacity > 0 || len(d.pools) > 0
}

// poolOf is the pool a request or volume with these parameters uses.
func poolOf(params map[string]string) string {
	return params[PoolParameter]
}

// poolSize returns the size of one copy of a pool, 0 for the unlimited
// default pool, and whether the pool exists at all.
func (d *Driver) poolSize(pool string) (size int64, known bool) {
	if pool == defaultPool {
		return d.capacity, true
	}
	size, known = d.pools[pool]
	return size, known
}

// segmentOf names the pool copy a topology segment reaches: the node under
// TopologyKey. Segments without that key are ones the driver never places
// volumes in; ok is false for them.
func segmentOf(segments map[string]string) (node string, ok bool) {
	node = segments[TopologyKey]
	return node, node != ""
}

// segmentsOf names the pool copies a volume with accessible topology topo
// uses. Without Config.Topology that is the single copy "". A volume
// recorded without a node (created before Config.Topology was turned on)
// is taken to live on the driver's own node, since it has to be somewhere.
func (d *Driver) segmentsOf(topo []map[string]string) []string {
	if !d.topology {
		return []string{""}
	}
	var nodes []string
	for _, t := range topo {
		if node, ok := segmentOf(t); ok && !slices.Contains(nodes, node) {
			nodes = append(nodes, node)
		}
	}
	if len(nodes) == 0 {
		return []string{d.nodeID}
	}
	return nodes
}

// usedLocked is how many bytes the volumes in pool take on segment. d.mu
// must be held.
func (d *Driver) usedLocked(pool, segment string) int64 {
	var used int64
	for _, v := range d.state.Volumes {
		if poolOf(v.Parameters) == pool && slices.Contains(d.segmentsOf(v.AccessibleTopology), segment) {
			used += v.CapacityBytes
		}
	}
	return used
}

// availableLocked is the free space of a known pool on segment, unlimited
// for a pool without a size. It is never negative, even if a restart with
// a smaller size left the pool overcommitted. d.mu must be held.
func (d *Driver) availableLocked(pool, segment string) int64 {
	size, _ := d.poolSize(pool)
	if size == 0 {
		return unlimited
	}
	return max(size-d.usedLocked(pool, segment), 0)
}

// checkRoomLocked fails with ResourceExhausted unless size more bytes fit
// into pool on every segment of topo, as a volume accessible from several
// nodes takes space on each. d.mu must be held.
func (d *Driver) checkRoomLocked(pool string, topo []map[string]string, size int64) error {
	poolSize, _ := d.poolSize(pool)
	if poolSize == 0 {
		return nil
	}
	for _, segment := range d.segmentsOf(topo) {
		if free := d.availableLocked(pool, segment); size > free {
			return status.Errorf(codes.ResourceExhausted, "requested %d bytes, only %d of %d are free in pool %q on %q", size, free, poolSize, pool, segment)
		}
	}
	return nil
}

// GetCapacity answers for one pool on one segment: the pool of the
// PoolParameter, on the node named by AccessibleTopology, or on the
// driver's own node when none is given. The spec would have the total
// over all segments then, but a node-local driver run once per node (as
// for distributed provisioning) only knows its own node.
func (s *controllerServer) GetCapacity(ctx context.Context, req *csi.GetCapacityRequest) (*csi.GetCapacityResponse, error) {
	d := s.d
	logger := klog.FromContext(ctx)
	if !d.capacityEnabled() {
		return nil, status.Error(codes.Unimplemented, "GetCapacity needs a configured capacity or pool")
	}
	pool := poolOf(req.GetParameters())
	segment := ""
	if d.topology {
		segment = d.nodeID
		if req.GetAccessibleTopology() != nil {
			var ok bool
			if segment, ok = segmentOf(req.GetAccessibleTopology().GetSegments()); !ok {
				logger.V(2).Info("Reporting no capacity for a topology without a node", "pool", pool, "topology", req.GetAccessibleTopology().GetSegments())
				return &csi.GetCapacityResponse{}, nil
			}
		}
	}
	for _, c := range req.GetVolumeCapabilities() {
		if validateCapability(c) != nil {
			// No volume can be created with capabilities the driver rejects.
			logger.V(2).Info("Reporting no capacity for unsupported capabilities", "pool", pool, "segment", segment)
			return &csi.GetCapacityResponse{}, nil
		}
	}
	if _, known := d.poolSize(pool); !known {
		// Like a StorageClass naming a device class the node lacks: no
		// volume fits, but the question itself is fine.
		logger.V(2).Info("Reporting no capacity for an unknown pool", "pool", pool, "segment", segment)
		return &csi.GetCapacityResponse{}, nil
	}

	d.mu.Lock()
	available := d.availableLocked(pool, segment)
	d.mu.Unlock()
	// Others fill and free a moving segment's pools (Config.Moving).
	if size, _ := d.poolSize(pool); available != unlimited {
		available = MovingCapacity(d.moving, segment, pool, available, size, d.moving.Now())
	}

	resp := &csi.GetCapacityResponse{AvailableCapacity: available}
	switch {
	case d.maxVolumeSize > 0:
		resp.MaximumVolumeSize = wrapperspb.Int64(min(available, d.maxVolumeSize))
	case available != unlimited:
		resp.MaximumVolumeSize = wrapperspb.Int64(available)
	}
	kv := []any{"pool", pool, "segment", segment, "available", available}
	if resp.MaximumVolumeSize != nil {
		kv = append(kv, "maximumVolumeSize", resp.MaximumVolumeSize.GetValue())
	}
	logger.V(2).Info("Reported capacity", kv...)
	return resp, nil
}
