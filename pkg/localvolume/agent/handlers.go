package agent

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
)

// onOwner queues an owner that was added, changed or deleted (gone).
func (a *Agent) onOwner(obj interface{}, gone bool) {
	o, ok := ownerOf(obj)
	if !ok {
		return
	}
	a.loop.Add(ownerKey(o.kind, o.namespace, o.name))
	// A deleted or deleting owner changes what happens to its PVs that are
	// being deleted (their symlinks go).
	if o.deleting || gone {
		a.enqueueVolumesOf(o.kind, o.namespace, o.name)
	}
}

// onNodeUpdate queues every owner when the node's labels change: they
// decide which owners select the node. logger is Run's.
func (a *Agent) onNodeUpdate(logger klog.Logger, oldObj, newObj interface{}) {
	old, ok1 := oldObj.(*corev1.Node)
	cur, ok2 := newObj.(*corev1.Node)
	if ok1 && ok2 && labels.Equals(old.Labels, cur.Labels) {
		return
	}
	if h := a.getHostname(); ok2 && h != "" && cur.Labels[local.NodeLabel] != "" && cur.Labels[local.NodeLabel] != h {
		logger.Info("The node's hostname label changed; PVs keep the old one until the agent restarts",
			"old", h, "new", cur.Labels[local.NodeLabel])
	}
	a.enqueueAllOwners()
}

func (a *Agent) onPV(obj interface{}) {
	if pv, ok := obj.(*corev1.PersistentVolume); ok && a.isOurs(pv) {
		a.loop.Add(volumeKey(pv.Name))
	}
}

// onPVDelete: a PV gone frees its device for a new PV if its owner is
// alive, so discovery runs for the owner.
func (a *Agent) onPVDelete(obj interface{}) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if pv, ok := obj.(*corev1.PersistentVolume); ok && a.isOurs(pv) {
		a.loop.Add(ownerKey(pv.Labels[local.OwnerKindLabel], pv.Labels[local.OwnerNamespaceLabel], pv.Labels[local.OwnerNameLabel]))
	}
}

func (a *Agent) enqueueAllOwners() {
	lvs, _ := a.localVolumes.List(labels.Everything())
	for _, lv := range lvs {
		a.loop.Add(ownerKey(KindLocalVolume, lv.Namespace, lv.Name))
	}
	sets, _ := a.localVolumeSets.List(labels.Everything())
	for _, set := range sets {
		a.loop.Add(ownerKey(KindLocalVolumeSet, set.Namespace, set.Name))
	}
}

func (a *Agent) enqueueAllVolumes() {
	pvs, err := a.volumes.List(labels.Everything())
	if err != nil {
		return
	}
	for _, pv := range pvs {
		a.onPV(pv)
	}
}

func (a *Agent) enqueueVolumesOf(kind, namespace, name string) {
	pvs, err := a.volumes.List(labels.SelectorFromSet(labels.Set{
		local.OwnerKindLabel: kind, local.OwnerNamespaceLabel: namespace, local.OwnerNameLabel: name,
	}))
	if err != nil {
		return
	}
	for _, pv := range pvs {
		a.onPV(pv)
	}
}

// isOurs tells whether pv is a PV of this node created from an owner.
func (a *Agent) isOurs(pv *corev1.PersistentVolume) bool {
	l := pv.Labels
	h := a.getHostname()
	return h != "" && l[local.NodeLabel] == h &&
		l[local.OwnerKindLabel] != "" && l[local.OwnerNameLabel] != "" &&
		pv.Spec.Local != nil
}
