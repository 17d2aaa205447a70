package capacity

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

var everything = labels.Everything()

// RefreshClass queues the objects of a class in every segment.
func (c *Controller) RefreshClass(name string) {
	for _, segment := range c.segments.keys() {
		c.enqueue(Key{Segment: segment, Class: name})
	}
}

// RefreshVolume queues the objects of the segments a volume is in, for
// every class of the driver: classes may share a pool. A volume without
// node affinity refreshes its class everywhere.
func (c *Controller) RefreshVolume(pv *v1.PersistentVolume, class string) {
	if pv == nil || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		if class != "" {
			c.RefreshClass(class)
		}
		return
	}
	classes, err := c.classes.List(everything)
	if err != nil {
		return
	}
	for _, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		segment, ok := termSegment(term)
		if !ok {
			continue
		}
		if _, known := c.segments.get(segment.Key()); !known {
			continue
		}
		for _, sc := range classes {
			if c.wanted(sc) {
				c.enqueue(Key{Segment: segment.Key(), Class: sc.Name})
			}
		}
	}
}

// Provisioner is what the provisioning library drives. Every optional
// interface the library looks for is in it, so that the wrapper hides none.
type Provisioner interface {
	libcontroller.Provisioner
	libcontroller.BlockProvisioner
	libcontroller.Qualifier
	libcontroller.DeletionGuard
}

// refreshingProvisioner refreshes capacity right after a volume is created
// or deleted, instead of at the next poll.
type refreshingProvisioner struct {
	Provisioner
	c *Controller
}

// WithRefresh wraps p so that capacity follows its creates and deletes.
func WithRefresh(p Provisioner, c *Controller) Provisioner {
	return &refreshingProvisioner{Provisioner: p, c: c}
}

func (r *refreshingProvisioner) Provision(ctx context.Context, o libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
	pv, state, err := r.Provisioner.Provision(ctx, o)
	class := ""
	if o.StorageClass != nil {
		class = o.StorageClass.Name
	}
	switch {
	case err == nil && pv != nil:
		r.c.RefreshVolume(pv, class)
	case state != libcontroller.ProvisioningNoChange && class != "":
		// A failed create (out of space, say) may mean the published
		// capacity is wrong: refresh it so the scheduler picks elsewhere.
		r.c.RefreshClass(class)
	}
	return pv, state, err
}

func (r *refreshingProvisioner) Delete(ctx context.Context, pv *v1.PersistentVolume) error {
	err := r.Provisioner.Delete(ctx, pv)
	if err == nil {
		r.c.RefreshVolume(pv, pv.Spec.StorageClassName)
	}
	return err
}
