package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/controller/library"
	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
	"github.com/csi-protect/external-provisioner/pkg/controller/topology"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// Provision creates a volume for a claim with CreateVolume and returns its PV.
//
// Every error before CreateVolume returns ProvisioningNoChange: a previous
// call may still be running in the driver, and only a driver answer may say
// that nothing is being created. An infeasible answer (InvalidArgument)
// holds the claim back, see holdInfeasible. A failure that is a wait is
// noted, so that the library's event of it is Normal (see isWait).
func (p *Provisioner) Provision(ctx context.Context, o controller.ProvisionOptions) (*v1.PersistentVolume, controller.ProvisioningState, error) {
	pv, state, err := p.provision(ctx, o)
	if o.PVC == nil {
		return pv, state, err
	}
	// Recorded on return, once an infeasible hold is in place: the
	// record's notice is what tells the hold to its readers.
	defer p.recordDriverOutcome(o.PVC, pv, err)
	if state != controller.ProvisioningReschedule {
		// Only the library's reschedule update may use it.
		p.library.ForgetFinalizerWrite(o.PVC.UID)
	}
	if state == controller.ProvisioningFinished && o.StorageClass != nil && isInfeasible(err) {
		return nil, state, p.holdInfeasible(ctx, o.PVC, o.StorageClass, err)
	}
	p.noteWait(ctx, o.PVC.UID, library.ReasonProvisioningFailed, err)
	return pv, state, err
}

func (p *Provisioner) provision(ctx context.Context, o controller.ProvisionOptions) (*v1.PersistentVolume, controller.ProvisioningState, error) {
	claim, class := o.PVC, o.StorageClass
	if claim == nil || class == nil {
		return nil, controller.ProvisioningFinished, errors.New("provision called without a claim or a StorageClass")
	}
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "PVC", klog.KObj(claim), "StorageClass", class.Name)
	ctx = klog.NewContext(ctx, logger)

	if !p.driver().IsProvisioner(class.Provisioner) {
		return nil, controller.ProvisioningFinished, &controller.IgnoredError{Reason: fmt.Sprintf("StorageClass %s names provisioner %q", class.Name, class.Provisioner)}
	}
	if class.Provisioner == p.opts.MigratedFrom && !p.ServesClaim(claim) {
		// The PV controller hands an in-tree class's claim to the CSI
		// driver only when migration is on for it; as upstream, a claim
		// it did not hand over is left alone.
		return nil, controller.ProvisioningFinished, &controller.IgnoredError{Reason: fmt.Sprintf(
			"PVC annotated with external-provisioner name %s does not match provisioner driver name %s. This could mean the PVC is not migrated",
			driverscope.ClaimProvisioner(claim), p.opts.DriverName)}
	}
	protect := p.opts.Features.ProvisioningProtection
	if protect && claim.DeletionTimestamp != nil {
		// The protection controller finishes or undoes whatever may have
		// been started for a claim being deleted; nothing new starts here.
		return nil, controller.ProvisioningFinished, &controller.IgnoredError{Reason: "the claim is being deleted"}
	}
	if p.node != nil {
		// The same check ran in ShouldProvision, but may have failed.
		owned, err := p.checkNode(ctx, claim, class)
		if err != nil {
			return nil, controller.ProvisioningNoChange, fmt.Errorf("node check failed: %w", err)
		}
		if !owned {
			return nil, controller.ProvisioningNoChange, &controller.IgnoredError{
				Reason: fmt.Sprintf("not responsible for provisioning claim %s: it is not assigned to node %q", klog.KObj(claim), p.node.NodeName),
			}
		}
		// Topology comes from the local driver alone, not from the Node.
		o.SelectedNode = p.node.node
	}
	if err := p.leaveToPopulator(claim); err != nil {
		return nil, controller.ProvisioningFinished, err
	}
	attributesClass := p.attributesClassName(claim)
	if err := p.checkModifyVolume(attributesClass); err != nil {
		return nil, controller.ProvisioningFinished, err
	}
	req, prep, err := p.prepare(ctx, o)
	if err != nil {
		return nil, prepareState(err), err
	}
	if req.MutableParameters, err = p.mutableParameters(ctx, attributesClass); err != nil {
		return nil, prepareState(err), err
	}
	// Checked here, not in prepare: a replay of an earlier call must
	// rebuild its request whatever became of the source since.
	if src := prep.sources.claim; src != nil && src.DeletionTimestamp != nil {
		return nil, controller.ProvisioningNoChange, cloneSourceDeleted(src)
	}
	if err := restorableWhileDeleted(prep.sources.snapshot); err != nil {
		return nil, controller.ProvisioningNoChange, err
	}

	previous, ok := p.calls.Begin(claim.UID)
	if !ok {
		return nil, controller.ProvisioningNoChange, &callRunningError{claim: klog.KObj(claim).String()}
	}
	outcome := previous
	defer func() { p.calls.End(claim.UID, outcome) }()

	if protect {
		if err := p.protectClaim(ctx, claim, restoredHandle(req), prep.records); err != nil {
			return nil, controller.ProvisioningNoChange, err
		}
	}
	if prep.sources.claim != nil {
		if err := p.protectCloneSource(ctx, prep.sources.claim); err != nil {
			return nil, controller.ProvisioningNoChange, err
		}
	}
	if snapshot := prep.sources.snapshot; snapshot != nil {
		// Counted before the finalizer is written, so that the snapshot
		// protection controller never sees it unread while the call runs.
		source := cache.MetaObjectToName(snapshot)
		p.opts.SnapshotReaders.Begin(source)
		defer p.opts.SnapshotReaders.End(source)
		if err := p.protectSnapshotSource(ctx, claim, snapshot); err != nil {
			return nil, controller.ProvisioningNoChange, err
		}
	}

	logger.V(4).Info("Calling CreateVolume", "volume", req.Name, "requiredBytes", req.CapacityRange.GetRequiredBytes())
	callCtx, cancel := context.WithTimeout(withMigrated(ctx, prep.migrated), p.opts.Timeout)
	resp, err := p.opts.CSIClient.CreateVolume(callCtx, req)
	cancel()
	if err != nil {
		state := provisioningState(err, o.SelectedNode != nil && p.opts.topologyEnabled())
		outcome = outcomeOf(state)
		logger.V(2).Info("CreateVolume failed", "volume", req.Name, "state", state, "err", err)
		// The driver's status alone, as upstream reports it.
		return nil, state, err
	}
	volume := resp.GetVolume()
	if err := p.checkCreated(req, volume); err != nil {
		state, err := p.undoCreate(ctx, req, volume, err)
		outcome = outcomeOf(state)
		return nil, state, err
	}
	outcome = provisionstate.Created

	capacity := volume.CapacityBytes
	if capacity == 0 {
		// Zero means the driver does not know; the request was honoured.
		capacity = req.CapacityRange.GetRequiredBytes()
	}
	pv := p.buildPV(pvSpec{
		name:         prep.pvName,
		claim:        claim,
		class:        class.Name,
		reclaim:      reclaimPolicy(class.ReclaimPolicy),
		mountOptions: class.MountOptions,
		fsType:       prep.fsType,
		capacity:     capacity,
		volume:       volume,
		secrets:      prep.secrets,
		topology:     prep.topology,
		attributes:   attributesClass,
	})
	if prep.migrated {
		inTree, err := inTreeVolume(pv)
		if err != nil {
			state, err := p.undoCreate(withMigrated(ctx, true), req, volume, err)
			outcome = outcomeOf(state)
			return nil, state, err
		}
		pv = inTree
	}
	logger.V(2).Info("Volume created", "volume", req.Name, "PV", prep.pvName, "handle", volume.VolumeId, "capacityBytes", capacity, "migrated", prep.migrated)
	return pv, controller.ProvisioningFinished, nil
}

// errNoContentSource: the driver answered a clone or restore with a volume
// of no content source, which may be empty. Upstream's text.
var errNoContentSource = errors.New("volume content source missing")

// checkCreated refuses a driver answer that does not give what was asked,
// in upstream's words where upstream checks it too.
func (p *Provisioner) checkCreated(req *csi.CreateVolumeRequest, volume *csi.Volume) error {
	if volume == nil || volume.VolumeId == "" {
		return fmt.Errorf("driver %s returned no volume id for volume %s", p.opts.DriverName, req.Name)
	}
	if required := req.CapacityRange.GetRequiredBytes(); volume.CapacityBytes != 0 && volume.CapacityBytes < required {
		return fmt.Errorf("created volume capacity %v less than requested capacity %v", volume.CapacityBytes, required)
	}
	if req.VolumeContentSource != nil && volume.ContentSource == nil {
		return errNoContentSource
	}
	return nil
}

// undoCreate deletes a volume the driver created wrongly. If that fails the
// volume may still exist, so the lib must come back (InBackground) and the
// retry finds it again by name. The texts are upstream's (Provision).
func (p *Provisioner) undoCreate(ctx context.Context, req *csi.CreateVolumeRequest, volume *csi.Volume, cause error) (controller.ProvisioningState, error) {
	if volume == nil || volume.VolumeId == "" {
		return controller.ProvisioningInBackground, cause
	}
	callCtx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	_, err := p.opts.CSIClient.DeleteVolume(callCtx, &csi.DeleteVolumeRequest{VolumeId: volume.VolumeId, Secrets: req.Secrets})
	if err != nil && !isNotFound(err) {
		cleanup := "Cleanup"
		if errors.Is(cause, errNoContentSource) {
			cleanup = "cleanup" // sic: upstream spells this one so
		}
		return controller.ProvisioningInBackground, fmt.Errorf("%v. %s of volume %s failed, volume is orphaned: %w", cause, cleanup, req.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Deleted the volume the driver created wrongly", "volume", req.Name, "handle", volume.VolumeId, "cause", cause)
	return controller.ProvisioningFinished, cause
}

// outcomeOf is what a provisioning state says about the driver: only a
// state that promises nothing is running or created is final.
func outcomeOf(state controller.ProvisioningState) provisionstate.CallState {
	if state == controller.ProvisioningFinished || state == controller.ProvisioningReschedule {
		return provisionstate.Final
	}
	return provisionstate.Unknown
}

// prepared is what prepare derives from a claim before CreateVolume.
type prepared struct {
	fsType   string
	secrets  pvSecrets
	topology bool
	sources  sources
	// migrated: the class is the in-tree plugin's, translated.
	migrated bool
	// pvName is the PV's name; the request's Name is the driver's.
	pvName string
	// records say what the request was made with, for the claim.
	records requestRecords
}

func (p *Provisioner) prepare(ctx context.Context, o controller.ProvisionOptions) (*csi.CreateVolumeRequest, *prepared, error) {
	claim := o.PVC
	// Everything below reads the class as the driver does.
	class, migrated, err := p.csiClass(ctx, o.StorageClass)
	if err != nil {
		return nil, nil, err
	}
	if claim.Spec.Selector != nil {
		return nil, nil, errors.New("claim Selector is not supported")
	}
	params, err := parameters.Parse(class.Parameters)
	if err != nil {
		return nil, nil, err
	}
	// Upstream only logs these, on every attempt; no event.
	for _, warning := range params.Warnings {
		klog.FromContext(ctx).Info("StorageClass uses a deprecated parameter", "warning", warning)
	}
	names, nameRecord, err := p.volumeNames(claim)
	if err != nil {
		return nil, nil, err
	}
	driverParams, paramRecord, err := p.driverParameters(claim, params.DriverParameters, names.pv)
	if err != nil {
		return nil, nil, err
	}
	requested, ok := claim.Spec.Resources.Requests[v1.ResourceStorage]
	if !ok {
		return nil, nil, errors.New("claim does not request storage")
	}
	if requested.Sign() < 0 {
		return nil, nil, fmt.Errorf("claim requests a negative size %s", requested.String())
	}

	prep := &prepared{fsType: params.FSType, migrated: migrated, pvName: names.pv, records: requestRecords{}}
	prep.records.set(provisionstate.AnnVolumeNameTemplate, nameRecord)
	prep.records.set(provisionstate.AnnParameterClaimMetadata, paramRecord)
	if prep.fsType == "" {
		prep.fsType = p.opts.DefaultFSType
	}
	if isBlock(claim) {
		prep.fsType = ""
	}
	capabilities, err := volumeCapabilities(claim, prep.fsType, class.MountOptions,
		p.opts.ControllerCapabilities[csi.ControllerServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER])
	if err != nil {
		return nil, nil, err
	}

	req := &csi.CreateVolumeRequest{
		Name:               names.driver,
		Parameters:         driverParams,
		VolumeCapabilities: capabilities,
		CapacityRange:      &csi.CapacityRange{RequiredBytes: requested.Value()},
	}
	if p.opts.ExtraCreateMetadata {
		req.Parameters = withExtraMetadata(req.Parameters, claim, names.pv)
	}

	if prep.secrets, req.Secrets, err = p.secrets(ctx, params, names.pv, claim); err != nil {
		return nil, nil, err
	}

	if p.topologyEnabled() {
		prep.topology = true
		req.AccessibilityRequirements, err = topology.Requirements(ctx, p.topologyRequest(claim, class, o.SelectedNode))
		if isNoCSINode(err) {
			// Upstream's text, alone: prepareState sends the claim back
			// to the scheduler.
			return nil, nil, err
		}
		if err != nil {
			// Upstream's prefix (controller.go prepareProvision).
			return nil, nil, fmt.Errorf("error generating accessibility requirements: %w", err)
		}
	}

	if req.VolumeContentSource, prep.sources, err = p.contentSource(ctx, claim, class.Name); err != nil {
		return nil, nil, err
	}
	return req, prep, nil
}

// prepareState is the state after an error before CreateVolume. Errors that
// were true from the first attempt (the class is immutable) cannot hide a
// call still running in the driver and are final; any other may follow an
// earlier timed-out call, so the previous state stays.
func prepareState(err error) controller.ProvisioningState {
	if isNoCSINode(err) {
		// As upstream: the driver is not on the selected node (yet), so
		// the scheduler may pick another one.
		return controller.ProvisioningReschedule
	}
	var ignored *controller.IgnoredError
	var otherDriver errOtherDriversClass
	var translation errTranslation
	if errors.As(err, &ignored) || errors.As(err, &otherDriver) || errors.As(err, &translation) ||
		errors.Is(err, parameters.ErrUnknownKey) || errors.Is(err, parameters.ErrFSTypeConflict) {
		return controller.ProvisioningFinished
	}
	return controller.ProvisioningNoChange
}

func (p *Provisioner) topologyEnabled() bool { return p.opts.topologyEnabled() }

// topologyEnabled: the gate is on and the driver reports topology.
func (o *Options) topologyEnabled() bool {
	return o.Features.Topology &&
		o.PluginCapabilities[csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS]
}

// withExtraMetadata returns a copy of params with the claim and PV names.
func withExtraMetadata(params map[string]string, claim *v1.PersistentVolumeClaim, pvName string) map[string]string {
	out := make(map[string]string, len(params)+3)
	maps.Copy(out, params)
	out[parameters.PVCNameKey] = claim.Name
	out[parameters.PVCNamespaceKey] = claim.Namespace
	out[parameters.PVNameKey] = pvName
	return out
}

func reclaimPolicy(policy *v1.PersistentVolumeReclaimPolicy) v1.PersistentVolumeReclaimPolicy {
	if policy == nil {
		return v1.PersistentVolumeReclaimDelete
	}
	return *policy
}
