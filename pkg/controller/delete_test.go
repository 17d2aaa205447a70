package controller

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
)

func releasedPV(driver string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + testClaimUID},
		Spec: v1.PersistentVolumeSpec{
			StorageClassName:       testClass,
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: "handle-1"}},
			ClaimRef:               &v1.ObjectReference{Namespace: testNamespace, Name: "db"},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeReleased},
	}
}

func TestDeleteCallsDeleteVolumeWithHandle(t *testing.T) {
	e := newEnv(t, envObjects{})
	if err := e.prov.Delete(context.Background(), releasedPV(testDriver)); err != nil {
		t.Fatal(err)
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "handle-1" {
		t.Fatalf("deletes = %v, want handle-1", e.csi.deletes)
	}
}

func TestDeleteRefusesWhileAttached(t *testing.T) {
	pvName := "pvc-" + testClaimUID
	va := &storagev1.VolumeAttachment{
		ObjectMeta: metav1.ObjectMeta{Name: "csi-abc"},
		Spec: storagev1.VolumeAttachmentSpec{
			Attacher: testDriver, NodeName: "node-1",
			Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pvName},
		},
	}
	e := newEnv(t, envObjects{attachments: []*storagev1.VolumeAttachment{va}})
	err := e.prov.Delete(context.Background(), releasedPV(testDriver))
	if err == nil || !strings.Contains(err.Error(), "attached to node node-1") {
		t.Fatalf("err = %v, want a refusal naming the node", err)
	}
	if len(e.csi.deletes) != 0 {
		t.Fatal("DeleteVolume must not be called while attached")
	}
}

func TestDeleteUsesDeletionSecretFromAnnotations(t *testing.T) {
	e := newEnv(t, envObjects{secrets: []*v1.Secret{newSecret("vault", "del", map[string]string{"token": "abc"})}})
	pv := releasedPV(testDriver)
	parameters.SetDeletionSecretAnnotations(pv, &v1.SecretReference{Name: "del", Namespace: "vault"})
	if err := e.prov.Delete(context.Background(), pv); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.deletes[0].Secrets; got["token"] != "abc" {
		t.Fatalf("DeleteVolume secrets = %v, want the deletion secret", got)
	}
}

func TestDeleteFallsBackToClassSecretTemplate(t *testing.T) {
	class := newClass(map[string]string{
		"csi.storage.k8s.io/provisioner-secret-name":      "${pvc.name}-creds",
		"csi.storage.k8s.io/provisioner-secret-namespace": "${pvc.namespace}",
	})
	e := newEnv(t, envObjects{
		classes: []*storagev1.StorageClass{class},
		secrets: []*v1.Secret{newSecret(testNamespace, "db-creds", map[string]string{"token": "xyz"})},
	})
	if err := e.prov.Delete(context.Background(), releasedPV(testDriver)); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.deletes[0].Secrets; got["token"] != "xyz" {
		t.Fatalf("DeleteVolume secrets = %v, want the class's provisioner secret", got)
	}
}

func TestDeleteWaitsForMissingDeletionSecret(t *testing.T) {
	e := newEnv(t, envObjects{})
	pv := releasedPV(testDriver)
	parameters.SetDeletionSecretAnnotations(pv, &v1.SecretReference{Name: "gone", Namespace: "vault"})
	if err := e.prov.Delete(context.Background(), pv); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("err = %v, want an error naming the missing secret", err)
	}
	if len(e.csi.deletes) != 0 {
		t.Fatal("DeleteVolume must not be called without its secret")
	}
}

func TestDeleteTreatsNotFoundAsDeleted(t *testing.T) {
	e := newEnv(t, envObjects{})
	e.csi.deleteErr = status.Error(codes.NotFound, "no such volume")
	if err := e.prov.Delete(context.Background(), releasedPV(testDriver)); err != nil {
		t.Fatalf("err = %v, want success for a volume already gone", err)
	}
}

func TestDeleteReportsDriverFailure(t *testing.T) {
	e := newEnv(t, envObjects{})
	e.csi.deleteErr = status.Error(codes.Internal, "backend down")
	if err := e.prov.Delete(context.Background(), releasedPV(testDriver)); err == nil || !strings.Contains(err.Error(), "backend down") {
		t.Fatalf("err = %v, want the driver error", err)
	}
}

func TestDeleteIgnoresOtherDriversAndNonCSIVolumes(t *testing.T) {
	e := newEnv(t, envObjects{})
	nonCSI := releasedPV(testDriver)
	nonCSI.Spec.CSI = nil
	for _, pv := range []*v1.PersistentVolume{releasedPV("other.example.com"), nonCSI} {
		if _, ok := e.prov.Delete(context.Background(), pv).(*controller.IgnoredError); !ok {
			t.Fatalf("Delete(%v) must be ignored", pv.Spec.CSI)
		}
	}
	if len(e.csi.deletes) != 0 {
		t.Fatal("no DeleteVolume for volumes of others")
	}
}
