package testutil

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

func claim(finalizers ...string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "apps", Finalizers: finalizers}}
}

func TestCreateGivesUIDAndVersionAndWritesBumpIt(t *testing.T) {
	ctx := context.Background()
	client := NewClientset(claim())
	got, err := client.CoreV1().PersistentVolumeClaims("apps").Get(ctx, "db", metav1.GetOptions{})
	if err != nil || got.UID == "" || got.ResourceVersion == "" {
		t.Fatalf("got %+v, %v", got.ObjectMeta, err)
	}
	updated, err := client.CoreV1().PersistentVolumeClaims("apps").Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || updated.ResourceVersion == got.ResourceVersion {
		t.Fatalf("update: rv %q -> %q, %v", got.ResourceVersion, updated.ResourceVersion, err)
	}
	if _, err := client.CoreV1().PersistentVolumeClaims("apps").Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update of a stale copy: %v, want Conflict", err)
	}
}

func TestPinnedMergePatchConflictsOnAStaleVersionOrAnotherUID(t *testing.T) {
	ctx := context.Background()
	client := NewClientset(claim())
	claims := client.CoreV1().PersistentVolumeClaims("apps")
	got, _ := claims.Get(ctx, "db", metav1.GetOptions{})
	stale := `{"metadata":{"resourceVersion":"1","finalizers":["a"]}}`
	if _, err := claims.Patch(ctx, "db", types.MergePatchType, []byte(stale), metav1.PatchOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("stale version: %v", err)
	}
	otherUID := `{"metadata":{"uid":"someone-else","finalizers":["a"]}}`
	if _, err := claims.Patch(ctx, "db", types.MergePatchType, []byte(otherUID), metav1.PatchOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("other UID: %v", err)
	}
	fresh := `{"metadata":{"resourceVersion":"` + got.ResourceVersion + `","finalizers":["a"]}}`
	patched, err := claims.Patch(ctx, "db", types.MergePatchType, []byte(fresh), metav1.PatchOptions{})
	if err != nil || len(patched.Finalizers) != 1 || patched.ResourceVersion == got.ResourceVersion {
		t.Errorf("fresh patch: %+v, %v", patched.ObjectMeta, err)
	}
}

func TestDeleteWaitsForTheLastFinalizer(t *testing.T) {
	ctx := context.Background()
	client := NewClientset(claim("a"))
	claims := client.CoreV1().PersistentVolumeClaims("apps")
	if err := claims.Delete(ctx, "db", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := claims.Get(ctx, "db", metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp == nil {
		t.Fatalf("after delete: %+v, %v", got, err)
	}
	add := `{"metadata":{"finalizers":["a","b"]}}`
	if _, err := claims.Patch(ctx, "db", types.MergePatchType, []byte(add), metav1.PatchOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("adding a finalizer while deleting: %v, want Forbidden", err)
	}
	clear := `{"metadata":{"finalizers":[]}}`
	if _, err := claims.Patch(ctx, "db", types.MergePatchType, []byte(clear), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := claims.Get(ctx, "db", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after the last finalizer: %v, want NotFound", err)
	}
}

func TestInformerFollowsTheServersWrites(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	client := NewClientset(claim())
	factory := informers.NewSharedInformerFactory(client, 0)
	defer func() { cancel(); factory.Shutdown() }()
	claims := factory.Core().V1().PersistentVolumeClaims()
	informer := claims.Informer()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("no sync")
	}
	got, _ := client.CoreV1().PersistentVolumeClaims("apps").Get(ctx, "db", metav1.GetOptions{})
	got.Labels = map[string]string{"seen": "yes"}
	if _, err := client.CoreV1().PersistentVolumeClaims("apps").Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	Eventually(t, 5*time.Second, "the informer to see the update", func() bool {
		c, err := claims.Lister().PersistentVolumeClaims("apps").Get("db")
		return err == nil && c.Labels["seen"] == "yes"
	})
}

// A strategic-merge patch of a status subresource is pinned as a merge
// patch is, and changes the status alone.
func TestPinnedStrategicMergePatchOfStatusConflictsOnAStaleVersion(t *testing.T) {
	ctx := context.Background()
	c := claim()
	c.Status.Conditions = []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimResizing, Status: v1.ConditionTrue}}
	client := NewClientsetWithOptions(APIServerOptions{StatusSubresources: []string{"persistentvolumeclaims"}}, c)
	claims := client.CoreV1().PersistentVolumeClaims("apps")
	got, _ := claims.Get(ctx, "db", metav1.GetOptions{})
	patch := func(rv string) string {
		return `{"metadata":{"resourceVersion":"` + rv + `","labels":{"x":"y"}},"status":{"conditions":[{"type":"Mine","status":"True"}]}}`
	}
	if _, err := claims.Patch(ctx, "db", types.StrategicMergePatchType, []byte(patch("1")), metav1.PatchOptions{}, "status"); !apierrors.IsConflict(err) {
		t.Errorf("stale version: %v", err)
	}
	patched, err := claims.Patch(ctx, "db", types.StrategicMergePatchType, []byte(patch(got.ResourceVersion)), metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatalf("fresh patch: %v", err)
	}
	if len(patched.Status.Conditions) != 2 || len(patched.Labels) != 0 {
		t.Errorf("conditions %+v, labels %v; want both conditions and no label from a status patch", patched.Status.Conditions, patched.Labels)
	}
}

// A create gets a name for its generateName and a creationTimestamp, and
// no write changes the creationTimestamp.
func TestCreateGivesNameAndCreationTimestamp(t *testing.T) {
	ctx := context.Background()
	client := NewClientset()
	claims := client.CoreV1().PersistentVolumeClaims("apps")
	got, err := claims.Create(ctx, &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{GenerateName: "db-"}}, metav1.CreateOptions{})
	if err != nil || !strings.HasPrefix(got.Name, "db-") || len(got.Name) == len("db-") || got.CreationTimestamp.IsZero() {
		t.Fatalf("created %+v, %v", got.ObjectMeta, err)
	}
	got.CreationTimestamp = metav1.Time{}
	updated, err := claims.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || updated.CreationTimestamp.IsZero() {
		t.Errorf("an update without the creationTimestamp: %+v, %v", updated.ObjectMeta, err)
	}
	old := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	seeded := NewClientset(NewClaim("apps", "old", CreatedAt(old.Time)))
	if c := Get(t, seeded.CoreV1().PersistentVolumeClaims("apps"), "old"); !c.CreationTimestamp.Equal(&old) {
		t.Errorf("a seeded creationTimestamp became %v", c.CreationTimestamp)
	}
}

func TestPinOfReadsTheMetadataOfAPatch(t *testing.T) {
	pin, err := PinOf([]byte(`{"metadata":{"resourceVersion":"7","uid":"u-1","labels":{"a":"b"}}}`))
	if err != nil || pin != (Pin{ResourceVersion: "7", UID: "u-1"}) {
		t.Errorf("pin %+v, %v", pin, err)
	}
	if pin, err := PinOf([]byte(`{"metadata":{"labels":{"a":"b"}}}`)); err != nil || pin != (Pin{}) {
		t.Errorf("pin of an unpinned patch %+v, %v", pin, err)
	}
	if _, err := PinOf([]byte(`not json`)); err == nil {
		t.Error("no error for a patch that is not JSON")
	}
}
