package controller

import (
	"context"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/controller/library"
	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
)

// ReasonDeletionSecretMissing is the Warning event on a PV whose volume is
// deleted without secrets because its deletion secret no longer exists.
const ReasonDeletionSecretMissing = "DeletionSecretMissing"

// Delete deletes the volume behind a released PV with DeleteVolume. With a
// VolumeAttachment lister it refuses while the volume is still attached to a
// node: deleting it then would pull storage from under a running workload.
// A failure that is a wait (that one, a DeleteVolume to be retried) is
// noted, so that the library's event of it is Normal (see isWait).
func (p *Provisioner) Delete(ctx context.Context, pv *v1.PersistentVolume) error {
	if pv == nil {
		return &controller.IgnoredError{Reason: "no volume"}
	}
	err := p.delete(ctx, pv)
	p.noteWait(ctx, pv.UID, library.ReasonVolumeFailedDelete, err)
	return err
}

func (p *Provisioner) delete(ctx context.Context, pv *v1.PersistentVolume) error {
	pv, migrated, err := p.csiVolume(ctx, pv)
	if err != nil {
		return err
	}
	if pv.Spec.CSI == nil {
		return &controller.IgnoredError{Reason: "not a CSI volume"}
	}
	if pv.Spec.CSI.Driver != p.opts.DriverName {
		return &controller.IgnoredError{Reason: fmt.Sprintf("volume of driver %q", pv.Spec.CSI.Driver)}
	}
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "PV", pv.Name, "handle", pv.Spec.CSI.VolumeHandle)
	if ok, err := p.OwnsVolume(pv); err != nil {
		return err
	} else if !ok {
		return &controller.IgnoredError{Reason: "PV was not provisioned on this node"}
	}

	if node, err := p.attachedTo(pv.Name); err != nil {
		return err
	} else if node != "" {
		return &stillAttachedError{pv: pv.Name, node: node}
	}

	ref, err := parameters.DeletionSecretRef(ctx, pv, p.classParameters(ctx, migrated))
	if err != nil {
		return fmt.Errorf("deletion secret of persistentvolume %s: %w", pv.Name, err)
	}
	credentials, err := parameters.FetchSecret(ctx, p.opts.Client.CoreV1(), ref)
	switch {
	case apierrors.IsNotFound(err):
		// The secret is gone for good, so waiting would keep the volume
		// forever; upstream deletes without it, and so do we, saying so.
		// Any other error may pass, so it is retried.
		logger.Info("Deleting the volume without its deletion secret, which no longer exists", "secret", ref.Namespace+"/"+ref.Name)
		p.opts.EventRecorder.Eventf(pv, v1.EventTypeWarning, ReasonDeletionSecretMissing,
			"Deleting the volume without secrets: deletion secret %s/%s not found", ref.Namespace, ref.Name)
		credentials = nil
	case err != nil:
		return fmt.Errorf("deletion secret of persistentvolume %s: %w", pv.Name, err)
	}

	callCtx, cancel := context.WithTimeout(withMigrated(ctx, migrated), p.opts.Timeout)
	defer cancel()
	_, err = p.opts.CSIClient.DeleteVolume(callCtx, &csi.DeleteVolumeRequest{
		VolumeId: pv.Spec.CSI.VolumeHandle,
		Secrets:  credentials,
	})
	if err != nil && !isNotFound(err) {
		// The driver's error as it is, as upstream: the library's
		// VolumeFailedDelete event carries it, and users' alerts match it.
		logger.V(2).Info("DeleteVolume failed", "err", err)
		return err
	}
	if ref := pv.Spec.ClaimRef; ref != nil {
		p.calls.Forget(ref.UID)
	}
	p.library.VolumeDeleted(pv.UID)
	logger.V(2).Info("Volume deleted")
	return nil
}

// attachedTo returns the node a VolumeAttachment still attaches pv to, ""
// without a lister: the driver does not attach volumes, and nothing watches
// VolumeAttachments then.
func (p *Provisioner) attachedTo(pvName string) (string, error) {
	if p.opts.VolumeAttachmentLister == nil {
		return "", nil
	}
	attachments, err := p.opts.VolumeAttachmentLister.List(labels.Everything())
	if err != nil {
		return "", err
	}
	for _, va := range attachments {
		if name := va.Spec.Source.PersistentVolumeName; name != nil && *name == pvName {
			return va.Spec.NodeName, nil
		}
	}
	return "", nil
}

// classParameters reads a class's parameters for the deletion-secret fallback
// of PVs created without the deletion-secret annotations; those of an
// in-tree PV come from its class translated, as at provisioning.
func (p *Provisioner) classParameters(ctx context.Context, migrated bool) parameters.ClassParametersFunc {
	return func(name string) (map[string]string, error) {
		class, err := p.opts.ClassLister.Get(name)
		if err != nil {
			return nil, err
		}
		if migrated {
			if class, _, err = p.csiClass(ctx, class); err != nil {
				return nil, err
			}
		}
		return class.Parameters, nil
	}
}

func isNotFound(err error) bool {
	return status.Code(err) == codes.NotFound
}

// OwnsVolume reports whether this sidecar is the one to delete pv's volume:
// always, but with --node-deployment only the sidecar of the node the
// volume was made on, whose driver alone can delete it.
func (p *Provisioner) OwnsVolume(pv *v1.PersistentVolume) (bool, error) {
	if p.node == nil {
		return true, nil
	}
	ok, err := volumeAccessible(pv.Spec.NodeAffinity, p.node.NodeName, p.node.NodeInfo.GetAccessibleTopology())
	if err != nil {
		return false, fmt.Errorf("checking the node affinity of persistentvolume %s: %w", pv.Name, err)
	}
	return ok, nil
}
