package cleanup

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
)

// CRInformerFactory hands out the informers of LocalVolumes and
// LocalVolumeSets, as unstructured objects. A
// k8s.io/client-go/dynamic/dynamicinformer.DynamicSharedInformerFactory
// satisfies it, so a caller that has one passes it as it is (and starts it
// after New, as for any shared factory).
type CRInformerFactory interface {
	ForResource(gvr schema.GroupVersionResource) informers.GenericInformer
}

// ownResync is the resync period of the informers the controller makes for
// itself. A resync only re-enqueues objects whose finalizer or device count
// is not at rest, so it is a cheap safety net behind the PV and Node events.
const ownResync = 10 * time.Minute
