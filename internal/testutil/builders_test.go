package testutil

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestNewClaimWithOptions(t *testing.T) {
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewClaim("apps", "db",
		WithClass("fast"), WithSize("10Gi"), WithAccessModes(v1.ReadWriteMany), WithVolumeMode(v1.PersistentVolumeBlock),
		WithClaimPhase(v1.ClaimPending), WithVolumeName("pv-1"), FromSnapshot("nightly"),
		WithFinalizers("a"), WithFinalizers("b"), WithAnnotation("k", "v"), WithLabel("app", "db"), DeletingSince(since),
		ClaimFunc(func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeAttributesClassName = &c.Name }),
	)
	if c.Namespace != "apps" || c.Name != "db" || c.UID != "uid-db" {
		t.Errorf("meta %+v", c.ObjectMeta)
	}
	if *c.Spec.StorageClassName != "fast" || c.Spec.Resources.Requests.Storage().String() != "10Gi" ||
		c.Spec.AccessModes[0] != v1.ReadWriteMany || *c.Spec.VolumeMode != v1.PersistentVolumeBlock || c.Spec.VolumeName != "pv-1" {
		t.Errorf("spec %+v", c.Spec)
	}
	if ref := c.Spec.DataSourceRef; ref == nil || *ref.APIGroup != "snapshot.storage.k8s.io" || ref.Kind != "VolumeSnapshot" || ref.Name != "nightly" {
		t.Errorf("data source %+v", ref)
	}
	if c.Status.Phase != v1.ClaimPending || len(c.Finalizers) != 2 || c.Annotations["k"] != "v" || c.Labels["app"] != "db" ||
		!c.DeletionTimestamp.Time.Equal(since) || *c.Spec.VolumeAttributesClassName != "db" {
		t.Errorf("claim %+v", c)
	}
	plain := NewClaim("apps", "plain")
	if plain.Spec.StorageClassName != nil || plain.Spec.Resources.Requests.Storage().String() != "1Gi" ||
		len(plain.Spec.AccessModes) != 1 || plain.Spec.AccessModes[0] != v1.ReadWriteOnce || plain.Status.Phase != "" {
		t.Errorf("a claim without options %+v", plain)
	}
}

func TestNewPVWithOptions(t *testing.T) {
	pv := NewPV("pv-1", WithCSI("csi.example.com", "h-1"), WithClass("fast"), WithSize("10Gi"),
		WithReclaimPolicy(v1.PersistentVolumeReclaimRetain), BoundTo("apps", "db", "uid-db"), WithNodeAffinity("zone", "a", "b"),
		WithUID("u"), WithResourceVersion("7"), Deleting())
	if pv.Spec.CSI.Driver != "csi.example.com" || pv.Spec.CSI.VolumeHandle != "h-1" || pv.Spec.StorageClassName != "fast" ||
		pv.Spec.Capacity.Storage().String() != "10Gi" || pv.Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimRetain {
		t.Errorf("spec %+v", pv.Spec)
	}
	ref := pv.Spec.ClaimRef
	if ref.Kind != "PersistentVolumeClaim" || ref.Namespace != "apps" || ref.Name != "db" || ref.UID != "uid-db" || pv.Status.Phase != v1.VolumeBound {
		t.Errorf("claimRef %+v, phase %s", ref, pv.Status.Phase)
	}
	if r := pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0]; r.Key != "zone" || len(r.Values) != 2 {
		t.Errorf("node affinity %+v", r)
	}
	if pv.UID != "u" || pv.ResourceVersion != "7" || pv.DeletionTimestamp == nil {
		t.Errorf("meta %+v", pv.ObjectMeta)
	}
	released := NewPV("pv-2", ReleasedFrom("apps", "db", "uid-db"), WithLocalPath("/mnt/disk"))
	if released.Status.Phase != v1.VolumeReleased || released.Spec.ClaimRef.Name != "db" || released.Spec.Local.Path != "/mnt/disk" {
		t.Errorf("released %+v", released)
	}
	plain := NewPV("pv-3", WithHostPath("/tmp"), WithVolumePhase(v1.VolumeFailed))
	if plain.Spec.HostPath.Path != "/tmp" || plain.Status.Phase != v1.VolumeFailed || plain.Spec.AccessModes[0] != v1.ReadWriteOnce ||
		plain.Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimDelete {
		t.Errorf("pv %+v", plain)
	}
}

// An option used for several objects gives each its own copy.
func TestOptionsShareNothingBetweenObjects(t *testing.T) {
	modes := WithAccessModes(v1.ReadWriteOnce)
	a, b := NewClaim("apps", "a", modes), NewClaim("apps", "b", modes)
	a.Spec.AccessModes[0] = v1.ReadOnlyMany
	if b.Spec.AccessModes[0] != v1.ReadWriteOnce {
		t.Errorf("b's access modes changed with a's: %v", b.Spec.AccessModes)
	}
	size := WithSize("5Gi")
	c, d := NewPV("c", size), NewPV("d", size)
	c.Spec.Capacity[v1.ResourceStorage] = resource.MustParse("7Gi")
	if got := d.Spec.Capacity.Storage().String(); got != "5Gi" {
		t.Errorf("d's capacity %s, want 5Gi", got)
	}
}

func TestNewClassWithOptions(t *testing.T) {
	c := NewClass("local", "csi.example.com", WithBindingMode(storagev1.VolumeBindingWaitForFirstConsumer),
		WithParameters(map[string]string{"pool": "ssd"}), WithReclaimPolicy(v1.PersistentVolumeReclaimRetain), WithAnnotation("a", "b"))
	if c.Provisioner != "csi.example.com" || *c.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer ||
		c.Parameters["pool"] != "ssd" || *c.ReclaimPolicy != v1.PersistentVolumeReclaimRetain || c.Annotations["a"] != "b" {
		t.Errorf("class %+v", c)
	}
}

func TestNodeBuilders(t *testing.T) {
	node := NewNode("n1", WithLabels(map[string]string{"zone": "a"}))
	if node.Name != "n1" || node.Labels["zone"] != "a" {
		t.Errorf("node %+v", node)
	}
	csiNode := NewCSINode("n1", map[string][]string{"b.example.com": {"zone"}, "a.example.com": nil})
	if d := csiNode.Spec.Drivers; len(d) != 2 || d[0].Name != "a.example.com" || d[1].NodeID != "n1" || d[1].TopologyKeys[0] != "zone" {
		t.Errorf("CSINode drivers %+v", d)
	}
	owner := metav1.OwnerReference{Kind: "StatefulSet", Name: "db"}
	pod := NewPod("apps", "db-0", OnNode("n1"), UsingClaims("data", "logs"), WithOwner(owner))
	if pod.Spec.NodeName != "n1" || len(pod.Spec.Volumes) != 2 || pod.Spec.Volumes[1].Name != "volb" ||
		pod.Spec.Volumes[1].PersistentVolumeClaim.ClaimName != "logs" || pod.OwnerReferences[0].Name != "db" {
		t.Errorf("pod %+v", pod)
	}
	secret := NewSecret("apps", "creds", map[string]string{"user": "me"})
	if string(secret.Data["user"]) != "me" || secret.UID != types.UID("uid-creds") {
		t.Errorf("secret %+v", secret)
	}
	snap := NewSnapshot("apps", "nightly", WithFinalizers("f"), CreatedAt(time.Unix(10, 0)))
	if snap.Namespace != "apps" || snap.Finalizers[0] != "f" || snap.CreationTimestamp.Unix() != 10 {
		t.Errorf("snapshot %+v", snap)
	}
	if objs := Objects(node, node); len(objs) != 2 {
		t.Errorf("objects %v", objs)
	}
}
