package main

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/pkg/intern"
)

// cacheValues holds the values the cached claims and PVs share (see
// pkg/intern): one table for the process, since a namespace, a class or a
// driver name repeats across kinds.
var cacheValues = intern.New(intern.Options{})

// shareMeta gives an object's metadata the shared copies of what repeats
// across objects. Names, UIDs and resource versions are each object's own
// and stay as they are.
func shareMeta(t *intern.Table, m *metav1.ObjectMeta) {
	m.Namespace = intern.String(t, m.Namespace)
	m.Labels = intern.Map(t, m.Labels)
	m.Annotations = intern.Map(t, m.Annotations)
	m.Finalizers = intern.Slice(t, m.Finalizers)
}

// shareClaim shares what claims repeat: of a bound claim, its requests and
// its annotations are most of its size.
func shareClaim(t *intern.Table, c *v1.PersistentVolumeClaim) {
	shareMeta(t, &c.ObjectMeta)
	s := &c.Spec
	s.AccessModes = intern.Slice(t, s.AccessModes)
	s.Resources.Requests = intern.ResourceList(t, s.Resources.Requests)
	s.Resources.Limits = intern.ResourceList(t, s.Resources.Limits)
	s.StorageClassName = intern.Pointer(t, s.StorageClassName)
	s.VolumeMode = intern.Pointer(t, s.VolumeMode)
	s.VolumeAttributesClassName = intern.Pointer(t, s.VolumeAttributesClassName)
	if d := s.DataSource; d != nil {
		d.APIGroup = intern.Pointer(t, d.APIGroup)
		d.Kind = intern.String(t, d.Kind)
	}
	if d := s.DataSourceRef; d != nil {
		d.APIGroup = intern.Pointer(t, d.APIGroup)
		d.Kind = intern.String(t, d.Kind)
		d.Namespace = intern.Pointer(t, d.Namespace)
	}
	c.Status.Phase = intern.String(t, c.Status.Phase)
}

// shareVolume shares what PVs repeat: of a bound PV, its capacity and its
// annotations are most of its size.
func shareVolume(t *intern.Table, pv *v1.PersistentVolume) {
	shareMeta(t, &pv.ObjectMeta)
	s := &pv.Spec
	s.Capacity = intern.ResourceList(t, s.Capacity)
	s.AccessModes = intern.Slice(t, s.AccessModes)
	s.PersistentVolumeReclaimPolicy = intern.String(t, s.PersistentVolumeReclaimPolicy)
	s.StorageClassName = intern.String(t, s.StorageClassName)
	s.MountOptions = intern.Slice(t, s.MountOptions)
	s.VolumeMode = intern.Pointer(t, s.VolumeMode)
	s.VolumeAttributesClassName = intern.Pointer(t, s.VolumeAttributesClassName)
	s.NodeAffinity = intern.NodeAffinity(t, s.NodeAffinity)
	if r := s.ClaimRef; r != nil {
		r.Kind = intern.String(t, r.Kind)
		r.APIVersion = intern.String(t, r.APIVersion)
		r.Namespace = intern.String(t, r.Namespace)
	}
	if csi := s.CSI; csi != nil {
		csi.Driver = intern.String(t, csi.Driver)
		csi.FSType = intern.String(t, csi.FSType)
		for _, ref := range []*v1.SecretReference{csi.ControllerPublishSecretRef, csi.NodeStageSecretRef,
			csi.NodePublishSecretRef, csi.ControllerExpandSecretRef, csi.NodeExpandSecretRef} {
			if ref != nil {
				ref.Name = intern.String(t, ref.Name)
				ref.Namespace = intern.String(t, ref.Namespace)
			}
		}
	}
	pv.Status.Phase = intern.String(t, pv.Status.Phase)
}
