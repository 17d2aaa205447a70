package agent

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"
)

// filterReasons are the rejections that only say a device does not match a
// LocalVolumeSet's filter. They are logged, not reported by events: every
// disk of the node that the set does not want (the root disk, say) would
// otherwise get one.
var filterReasons = map[devices.Reason]bool{
	devices.WrongType: true, devices.WrongRotational: true, devices.TooSmall: true, devices.TooLarge: true,
	devices.WrongModel: true, devices.WrongVendor: true, devices.Removable: true, devices.MaxCountReached: true,
}

// syncOwner runs discovery for one owner: it selects the owner's devices on
// this node and makes a symlink and a PV for each selected device that has
// none yet. It never touches an existing PV, and does nothing for an owner
// being deleted or one whose node selector leaves this node out.
func (a *Agent) syncOwner(ctx context.Context, key Key) error {
	logger := klog.FromContext(ctx)
	reportPrefix := "reject/" + key.Kind + "/" + key.Namespace + "/" + key.Name + "/"
	o, err := a.getOwner(key)
	if err != nil {
		return err
	}
	if o == nil {
		a.forgetReports(reportPrefix)
		return nil
	}
	if o.deleting {
		logger.V(4).Info("Owner is being deleted: no new volumes for it")
		a.forgetReports(reportPrefix)
		return nil
	}
	node, err := a.nodes.Get(a.nodeName)
	if apierrors.IsNotFound(err) {
		logger.V(2).Info("Node object not found: no volumes until it exists")
		return nil
	}
	if err != nil {
		return err
	}
	selected, err := matchNodeSelector(o.nodeSelector, node)
	if err != nil {
		logger.Info("The owner's node selector has an invalid term", "err", err)
	}
	if !selected {
		logger.V(4).Info("Owner does not select this node")
		return nil
	}
	if len(o.jobs) == 0 {
		return nil
	}
	devs, err := devices.ListDevices(ctx, a.runner)
	if err != nil {
		return fmt.Errorf("list devices: %w", err)
	}
	cl, err := a.loadClaims()
	if err != nil {
		return err
	}
	var errs []error
	for _, j := range o.jobs {
		if err := a.provision(ctx, o, j, devs, cl, reportPrefix); err != nil {
			errs = append(errs, fmt.Errorf("storage class %s: %w", j.storageClass, err))
		}
	}
	return errors.Join(errs...)
}

// claims are the devices of this node already used by a local volume.
type claims struct {
	// byPath maps a PV's spec.local.path to the PV, for the PVs of this
	// node.
	byPath map[string]*corev1.PersistentVolume
	// byDevice maps a kernel device path to the symlink or PV path that
	// uses it.
	byDevice map[string]string
}

// loadClaims reads the PVs of this node from the cache and the symlinks
// under the symlink root from the host. Symlinks count as well as PVs: a
// symlink kept for a live owner after its PV went still reserves its disk
// for that owner, and a symlink made a moment ago has no PV in the cache
// yet.
func (a *Agent) loadClaims() (*claims, error) {
	cl := &claims{byPath: map[string]*corev1.PersistentVolume{}, byDevice: map[string]string{}}
	pvs, err := a.volumes.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	for _, pv := range pvs {
		if pv.Spec.Local == nil {
			continue
		}
		p := pv.Spec.Local.Path
		cl.byPath[p] = pv
		if k, err := a.fs.EvalSymlinks(p); err == nil {
			cl.byDevice[k] = p
		}
	}
	classes, err := a.fs.ReadDir(a.symlinkRoot)
	if errors.Is(err, iofs.ErrNotExist) {
		return cl, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read symlink root: %w", err)
	}
	for _, c := range classes {
		if !c.IsDir() {
			continue
		}
		dir := filepath.Join(a.symlinkRoot, c.Name())
		links, err := a.fs.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", dir, err)
		}
		for _, l := range links {
			if l.Type()&iofs.ModeSymlink == 0 {
				continue
			}
			p := filepath.Join(dir, l.Name())
			k, err := a.fs.EvalSymlinks(p)
			if err != nil {
				continue // a link to a disk that is gone claims nothing now
			}
			if _, ok := cl.byDevice[k]; !ok {
				cl.byDevice[k] = p
			}
		}
	}
	return cl, nil
}

func (a *Agent) provision(ctx context.Context, o *owner, j job, devs []devices.Device, cl *claims, reportPrefix string) error {
	logger := klog.FromContext(ctx)
	sel, err := a.checker.Select(ctx, devs, j.request)
	if err != nil {
		return fmt.Errorf("select devices: %w", err)
	}
	owned := 0
	if j.maxCount > 0 {
		pvs, err := a.volumes.List(labels.SelectorFromSet(ownerLabels(o, a.getHostname())))
		if err != nil {
			return err
		}
		owned = len(pvs)
	}
	var errs []error
	for _, s := range sel.Selected {
		reportPath := s.RequestedPath
		if reportPath == "" {
			reportPath = s.Device.KName
		}
		linkName := filepath.Base(s.StableName)
		path, err := devices.SymlinkPath(a.symlinkRoot, j.storageClass, linkName)
		if err != nil {
			a.reject(o, reportPrefix, reportPath, ReasonSymlinkFailed, err.Error())
			continue
		}
		if _, ok := cl.byPath[path]; ok {
			continue // the device has its PV: leave it
		}
		if other, ok := cl.byDevice[s.Device.KName]; ok && other != path {
			logger.V(2).Info("Device already used by another local volume", "device", s.Device.KName, "usedBy", other)
			a.reject(o, reportPrefix, reportPath, "AlreadyUsed", fmt.Sprintf("already used by %s", other))
			continue
		}
		if j.maxCount > 0 && owned >= j.maxCount {
			logger.V(4).Info("Device not used: maxDeviceCount reached", "device", s.Device.KName, "maxDeviceCount", j.maxCount)
			continue
		}
		a.forgetReports(reportPrefix + reportPath + "/")
		if err := devices.EnsureSymlink(a.fs, a.symlinkRoot, j.storageClass, linkName, s.StableName); err != nil {
			a.reject(o, reportPrefix, reportPath, ReasonSymlinkFailed, err.Error())
			errs = append(errs, err)
			continue
		}
		cl.byDevice[s.Device.KName] = path
		pv := a.newPV(o, j, s, path)
		_, err = a.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
		switch {
		case apierrors.IsAlreadyExists(err):
			// Created by an earlier sync whose PV the cache does not show
			// yet: the deterministic name makes this a no-op.
			owned++
			continue
		case err != nil:
			a.recorder.Eventf(o.ref, corev1.EventTypeWarning, ReasonCreateFailed,
				"Cannot create PV %s for device %s on node %s: %v", pv.Name, s.StableName, a.nodeName, err)
			errs = append(errs, fmt.Errorf("create PV %s: %w", pv.Name, err))
			continue
		}
		owned++
		a.metrics.VolumesCreated.Inc()
		logger.V(2).Info("Created local PV", "PV", pv.Name, "device", s.Device.KName, "stableName", s.StableName, "path", path)
		a.recorder.Eventf(o.ref, corev1.EventTypeNormal, ReasonVolumeCreated,
			"Created PV %s for device %s (%s) on node %s", pv.Name, s.StableName, s.Device.KName, a.nodeName)
	}
	for _, r := range sel.Rejected {
		if r.Device != nil {
			if usedBy, ok := cl.byDevice[r.Device.KName]; ok {
				// One of ours, in use by its pod or holding its data: what
				// Select says about it is no news.
				logger.V(5).Info("Device in use by a local volume", "device", r.Device.KName, "usedBy", usedBy, "reason", r.Reason)
				continue
			}
		}
		if j.request.Filter != nil && filterReasons[r.Reason] {
			logger.V(5).Info("Device does not match the filter", "device", r.Path, "reason", r.Reason, "message", r.Message)
			continue
		}
		logger.V(2).Info("Device rejected", "device", r.Path, "reason", r.Reason, "message", r.Message)
		a.reject(o, reportPrefix, r.Path, string(r.Reason), r.Message)
	}
	return errors.Join(errs...)
}

// reject emits one DeviceRejected event per owner, device and reason.
func (a *Agent) reject(o *owner, reportPrefix, path, reason, message string) {
	a.reportOnce(reportPrefix+path+"/"+reason, func() {
		a.recorder.Eventf(o.ref, corev1.EventTypeWarning, ReasonDeviceRejected,
			"Device %s on node %s not used: %s: %s", path, a.nodeName, reason, message)
	})
}

func ownerLabels(o *owner, hostname string) labels.Set {
	return labels.Set{
		local.OwnerKindLabel:      o.kind,
		local.OwnerNameLabel:      o.name,
		local.OwnerNamespaceLabel: o.namespace,
		local.NodeLabel:           hostname,
	}
}

// newPV is the PV of a selected device.
func (a *Agent) newPV(o *owner, j job, s devices.Selected, path string) *corev1.PersistentVolume {
	hostname := a.getHostname()
	mode := j.volumeMode
	src := &corev1.LocalVolumeSource{Path: path}
	if mode == corev1.PersistentVolumeFilesystem && j.fsType != "" {
		fsType := j.fsType
		src.FSType = &fsType
	}
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:   PVName(a.nodeName, path),
			Labels: ownerLabels(o, hostname),
			Annotations: map[string]string{
				AnnotationDeviceKernelPath: s.Device.KName,
				AnnotationDeviceStableName: s.StableName,
			},
			Finalizers: []string{local.SymlinkDeleterFinalizer},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{
				corev1.ResourceStorage: *resource.NewQuantity(s.Device.SizeBytes, resource.BinarySI),
			},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: src},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              j.storageClass,
			VolumeMode:                    &mode,
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: local.NodeLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{hostname},
				}}}},
			}},
		},
	}
}
