package controller

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
)

// releasedPV is the PV of driver that the test claim was bound to, now
// Released.
func releasedPV(driver string) *v1.PersistentVolume {
	return testutil.NewPV("pvc-"+testClaimUID, testutil.WithClass(testClass), testutil.WithCSI(driver, "handle-1"),
		testutil.ReleasedFrom(testNamespace, "db", ""))
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

// attachedToNode1 is a VolumeAttachment of the released PV on node-1.
func attachedToNode1() *storagev1.VolumeAttachment {
	pvName := "pvc-" + testClaimUID
	return &storagev1.VolumeAttachment{
		ObjectMeta: metav1.ObjectMeta{Name: "csi-abc"},
		Spec: storagev1.VolumeAttachmentSpec{
			Attacher: testDriver, NodeName: "node-1",
			Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pvName},
		},
	}
}

func TestDeleteRefusesWhileAttached(t *testing.T) {
	e := newEnv(t, envObjects{attachments: []*storagev1.VolumeAttachment{attachedToNode1()}})
	err := e.prov.Delete(context.Background(), releasedPV(testDriver))
	if err == nil || !strings.Contains(err.Error(), "attached to node node-1") {
		t.Fatalf("err = %v, want a refusal naming the node", err)
	}
	if len(e.csi.deletes) != 0 {
		t.Fatal("DeleteVolume must not be called while attached")
	}
}

func TestDeleteUsesDeletionSecretFromAnnotations(t *testing.T) {
	e := newEnv(t, envObjects{secrets: []*v1.Secret{testutil.NewSecret("vault", "del", map[string]string{"token": "abc"})}})
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
		secrets: []*v1.Secret{testutil.NewSecret(testNamespace, "db-creds", map[string]string{"token": "xyz"})},
	})
	if err := e.prov.Delete(context.Background(), releasedPV(testDriver)); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.deletes[0].Secrets; got["token"] != "xyz" {
		t.Fatalf("DeleteVolume secrets = %v, want the class's provisioner secret", got)
	}
}

// As upstream, a deletion secret that no longer exists does not keep the
// volume forever: DeleteVolume goes without secrets, and the PV gets a
// Warning event saying so.
func TestDeleteProceedsWithoutSecretThatIsGone(t *testing.T) {
	e := newEnv(t, envObjects{})
	pv := releasedPV(testDriver)
	parameters.SetDeletionSecretAnnotations(pv, &v1.SecretReference{Name: "gone", Namespace: "vault"})
	if err := e.prov.Delete(context.Background(), pv); err != nil {
		t.Fatal(err)
	}
	if len(e.csi.deletes) != 1 || len(e.csi.deletes[0].Secrets) != 0 {
		t.Fatalf("DeleteVolume calls %v, want one without secrets", e.csi.deletes)
	}
	events := e.events.Drain()
	if len(events) == 0 {
		t.Fatal("no event on the PV")
	}
	if ev := events[0]; !strings.HasPrefix(ev, "Warning "+ReasonDeletionSecretMissing) || !strings.Contains(ev, "vault/gone") {
		t.Errorf("event %q, want a %s warning naming the secret", ev, ReasonDeletionSecretMissing)
	}
}

// Any other failure to read the secret may pass, so the deletion is
// retried rather than sent without credentials.
func TestDeleteRetriesWhenTheSecretCannotBeRead(t *testing.T) {
	e := newEnv(t, envObjects{})
	testutil.FailNext(e.client, -1, apierrors.NewServiceUnavailable("etcd is restarting"), testutil.Verb("get"), testutil.On("secrets"))
	pv := releasedPV(testDriver)
	parameters.SetDeletionSecretAnnotations(pv, &v1.SecretReference{Name: "creds", Namespace: "vault"})
	if err := e.prov.Delete(context.Background(), pv); err == nil || !strings.Contains(err.Error(), "creds") {
		t.Fatalf("err = %v, want an error naming the secret", err)
	}
	if len(e.csi.deletes) != 0 {
		t.Fatal("DeleteVolume must not be called while the secret cannot be read")
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

// Without a VolumeAttachment lister (a driver without
// PUBLISH_UNPUBLISH_VOLUME, as upstream) a VolumeAttachment naming the PV
// does not hold DeleteVolume back.
func TestDeleteWithoutAttachmentListerIgnoresAttachments(t *testing.T) {
	e := newEnv(t, envObjects{attachments: []*storagev1.VolumeAttachment{attachedToNode1()}}, func(o *Options) {
		o.VolumeAttachmentLister = nil
	})
	if err := e.prov.Delete(context.Background(), releasedPV(testDriver)); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "handle-1" {
		t.Fatalf("deletes = %v, want DeleteVolume of handle-1", e.csi.deletes)
	}
}
