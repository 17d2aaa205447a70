package main

import (
	"context"
	"reflect"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
)

// VolumeAttachments are listed and watched only for a driver with
// PUBLISH_UNPUBLISH_VOLUME: without it the sidecar must start, and its
// caches sync, under upstream's RBAC without the VolumeAttachment rule.
func TestAttachmentsWatchedOnlyForDriversThatPublish(t *testing.T) {
	for _, tc := range []struct {
		name        string
		caps        rpc.ControllerCapabilitySet
		wantWatched bool
	}{
		{"create only", rpc.ControllerCapabilitySet{csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME: true}, false},
		{"publish", rpc.ControllerCapabilitySet{
			csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME:     true,
			csi.ControllerServiceCapability_RPC_PUBLISH_UNPUBLISH_VOLUME: true,
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			factory := newInformerFactory(client)
			// What newControllers asks the factory for besides.
			factory.Core().V1().PersistentVolumeClaims().Informer()
			lister := attachmentLister(klog.Background(), factory, tc.caps)
			if (lister != nil) != tc.wantWatched {
				t.Fatalf("lister %v, want one: %v", lister, tc.wantWatched)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer factory.Shutdown()
			defer cancel()
			factory.Start(ctx.Done())
			synced := factory.WaitForCacheSync(ctx.Done())
			_, started := synced[reflect.TypeFor[*storagev1.VolumeAttachment]()]
			if started != tc.wantWatched {
				t.Errorf("VolumeAttachment informer started: %v, want %v (started: %v)", started, tc.wantWatched, synced)
			}
			listed := false
			for _, a := range client.Actions() {
				if a.GetResource().Resource == "volumeattachments" {
					listed = true
				}
			}
			if listed != tc.wantWatched {
				t.Errorf("VolumeAttachments requested: %v, want %v (actions %v)", listed, tc.wantWatched, client.Actions())
			}
		})
	}
}
