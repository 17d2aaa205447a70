package agent

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"
)

// errWipeRefused: the device of a released PV is not safe to wipe now. The
// PV is synced again with backoff.
var errWipeRefused = errors.New("wipe refused")

// syncVolume brings one PV of this node a step further: a released PV is
// wiped and deleted, a PV being deleted loses its symlink (if its owner is
// going) and its finalizer.
func (a *Agent) syncVolume(ctx context.Context, name string) error {
	pv, err := a.volumes.Get(name)
	if apierrors.IsNotFound(err) {
		a.forgetReports("pv/" + name + "/")
		return nil
	}
	if err != nil {
		return err
	}
	if !a.isOurs(pv) {
		return nil
	}
	if pv.DeletionTimestamp != nil {
		// Never wiped: it was either cleaned already (the agent deletes a
		// PV only after wiping it) or released by the control plane
		// without ever being bound.
		return a.finishDeletion(ctx, pv)
	}
	if (pv.Status.Phase == corev1.VolumeReleased || pv.Status.Phase == corev1.VolumeFailed) &&
		pv.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimDelete {
		return a.clean(ctx, pv)
	}
	return nil
}

// clean wipes a released PV's device, recording the wipe on the PV, and
// deletes the PV.
//
// The record makes a restart safe. AnnotationWipeStarted is written before
// the wipe, with a patch pinned to the resourceVersion the decision was
// made on: if the PV changed since (bound again, say), the patch fails and
// nothing is wiped. AnnotationWiped is written after the wipe succeeded, and
// a PV carrying it is never wiped again, only deleted. A PV carrying
// AnnotationWipeStarted without AnnotationWiped was being wiped when the
// agent stopped: if the device still carries a signature the wipe did not
// get through and is run to completion; if it carries none, the wipe had
// finished and only its record is written. So a device is never wiped
// twice. Either way nothing is lost: the PV has stayed Released all along
// (it is only wiped in that phase, and the patches would fail had it
// changed), so no claim can have written to the device since.
//
// The decision is made on the PV as the API server has it now, not on the
// informer's copy: the cache can lag behind the agent's own writes, and a
// copy that does not show AnnotationWiped yet would make a retry (of a
// failed delete, say) wipe again. A GET is a quorum read; wipes are rare.
func (a *Agent) clean(ctx context.Context, cached *corev1.PersistentVolume) error {
	logger := klog.FromContext(ctx)
	pv, err := a.client.CoreV1().PersistentVolumes().Get(ctx, cached.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the released PV: %w", err)
	}
	if pv.UID != cached.UID || !a.isOurs(pv) || pv.DeletionTimestamp != nil ||
		(pv.Status.Phase != corev1.VolumeReleased && pv.Status.Phase != corev1.VolumeFailed) ||
		pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		// Changed since the cache saw it; its update event brings it back.
		logger.V(4).Info("PV changed: not cleaning it on this sync")
		return nil
	}
	if _, done := pv.Annotations[AnnotationWiped]; !done {
		kname, err := a.checkBeforeWipe(ctx, pv)
		if err != nil {
			return err
		}
		resumed := false
		if started, ok := pv.Annotations[AnnotationWipeStarted]; ok {
			logger.Info("Resuming a wipe interrupted by a restart", "device", kname, "recorded", started)
			resumed = true
		} else {
			pv, err = a.annotate(ctx, pv, AnnotationWipeStarted, kname)
			if err != nil {
				return fmt.Errorf("record the wipe start: %w", err)
			}
		}
		finished := false
		if resumed {
			if finished, err = a.wipeFinished(ctx, kname); err != nil {
				return err
			}
		}
		if finished {
			logger.Info("The interrupted wipe had finished: recording it without wiping again", "device", kname)
		} else if err := a.wipe(ctx, pv, kname); err != nil {
			return err
		}
		pv, err = a.annotate(ctx, pv, AnnotationWiped, kname)
		if err != nil {
			// The wipe is done but not recorded: the next sync finds
			// wipe-started alone and a device without signatures, and
			// only records it.
			return fmt.Errorf("record the wipe: %w", err)
		}
	}
	err = a.client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &pv.UID, ResourceVersion: &pv.ResourceVersion},
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete the cleaned PV: %w", err)
	}
	a.metrics.VolumesDeleted.Inc()
	a.forgetReports("pv/" + pv.Name + "/")
	logger.V(2).Info("Deleted the cleaned PV")
	return nil
}

// wipe erases the signatures of the device kname of pv.
func (a *Agent) wipe(ctx context.Context, pv *corev1.PersistentVolume, kname string) error {
	klog.FromContext(ctx).V(2).Info("Wiping the device of a released PV", "device", kname, "path", pv.Spec.Local.Path)
	if err := a.wiper.Wipe(ctx, kname); err != nil {
		a.metrics.Wipes.WithLabelValues(WipeResultFailed).Inc()
		a.recorder.Eventf(pv, corev1.EventTypeWarning, ReasonWipeFailed, "Wiping %s on node %s failed: %v", kname, a.nodeName, err)
		return fmt.Errorf("wipe %s: %w", kname, err)
	}
	a.metrics.Wipes.WithLabelValues(WipeResultOK).Inc()
	a.recorder.Eventf(pv, corev1.EventTypeNormal, ReasonVolumeWiped, "Wiped %s on node %s", kname, a.nodeName)
	return nil
}

// wipeFinished tells whether an interrupted wipe of kname got through: the
// device carries no signature any more.
func (a *Agent) wipeFinished(ctx context.Context, kname string) (bool, error) {
	sig, err := a.checker.Prober.Probe(ctx, kname)
	if err != nil {
		return false, fmt.Errorf("look for signatures left on %s: %w", kname, err)
	}
	return !sig.HasSignature(), nil
}

// checkBeforeWipe finds the device of pv through its symlink and asks the
// Checker whether it may be wiped now (Force: the PV's own data is there by
// design). It returns the kernel path to wipe, or an error wrapping
// errWipeRefused after reporting why on the PV.
func (a *Agent) checkBeforeWipe(ctx context.Context, pv *corev1.PersistentVolume) (string, error) {
	path := pv.Spec.Local.Path
	refuse := func(reason, msg string) (string, error) {
		a.metrics.Wipes.WithLabelValues(WipeResultRefused).Inc()
		a.reportOnce("pv/"+pv.Name+"/"+reason, func() {
			a.recorder.Eventf(pv, corev1.EventTypeWarning, ReasonWipeRefused,
				"Not wiping the device of %s on node %s: %s: %s", path, a.nodeName, reason, msg)
		})
		return "", fmt.Errorf("%w: %s: %s", errWipeRefused, reason, msg)
	}
	if _, _, ok := a.splitSymlinkPath(path); !ok {
		return refuse("NotOurPath", fmt.Sprintf("not a symlink under %s", a.symlinkRoot))
	}
	fi, err := a.fs.Lstat(path)
	if err != nil {
		return refuse("NoSymlink", err.Error())
	}
	if fi.Mode()&iofs.ModeSymlink == 0 {
		return refuse("NotSymlink", "not a symlink")
	}
	target, err := a.fs.Readlink(path)
	if err != nil {
		return refuse("NoSymlink", err.Error())
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	devs, err := devices.ListDevices(ctx, a.runner)
	if err != nil {
		return "", fmt.Errorf("list devices: %w", err)
	}
	sel, err := a.checker.Select(ctx, devs, devices.Request{Paths: []string{target}, Force: true})
	if err != nil {
		return "", fmt.Errorf("check the device: %w", err)
	}
	if len(sel.Selected) != 1 {
		if len(sel.Rejected) > 0 {
			r := sel.Rejected[0]
			return refuse(string(r.Reason), fmt.Sprintf("%s: %s", target, r.Message))
		}
		return refuse("CheckFailed", target+" was not selected")
	}
	a.forgetReports("pv/" + pv.Name + "/")
	return sel.Selected[0].Device.KName, nil
}

// splitSymlinkPath splits <root>/<storageClass>/<name>; ok is false for any
// other path.
func (a *Agent) splitSymlinkPath(p string) (storageClass, name string, ok bool) {
	name = filepath.Base(p)
	dir := filepath.Dir(p)
	storageClass = filepath.Base(dir)
	want, err := devices.SymlinkPath(a.symlinkRoot, storageClass, name)
	if err != nil || want != p {
		return "", "", false
	}
	return storageClass, name, true
}

// annotate sets one annotation with a merge patch pinned to pv's
// resourceVersion and UID, and returns the PV as written.
func (a *Agent) annotate(ctx context.Context, pv *corev1.PersistentVolume, key, value string) (*corev1.PersistentVolume, error) {
	patch, err := finalizer.Patch(pv, finalizer.Change{SetAnnotations: map[string]string{key: value}})
	if err != nil || patch == nil {
		return pv, err
	}
	return a.client.CoreV1().PersistentVolumes().Patch(ctx, pv.Name, types.MergePatchType, patch, metav1.PatchOptions{})
}
