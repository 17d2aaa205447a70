package controller

import (
	"context"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Without a VolumeAttachment lister (a driver without
// PUBLISH_UNPUBLISH_VOLUME, as upstream) a VolumeAttachment naming the PV
// does not hold DeleteVolume back; TestDeleteRefusesWhileAttached is the
// case with one.
func TestDeleteWithoutAttachmentListerIgnoresAttachments(t *testing.T) {
	pvName := "pvc-" + testClaimUID
	va := &storagev1.VolumeAttachment{
		ObjectMeta: metav1.ObjectMeta{Name: "csi-abc"},
		Spec: storagev1.VolumeAttachmentSpec{
			Attacher: testDriver, NodeName: "node-1",
			Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pvName},
		},
	}
	e := newEnv(t, envObjects{attachments: []*storagev1.VolumeAttachment{va}}, func(o *Options) {
		o.VolumeAttachmentLister = nil
	})
	if err := e.prov.Delete(context.Background(), releasedPV(testDriver)); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "handle-1" {
		t.Fatalf("deletes = %v, want DeleteVolume of handle-1", e.csi.deletes)
	}
}
