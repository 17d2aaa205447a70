package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// footprintClass is the class of the cached pairs.
const footprintClass = "bench-immediate"

// footprintPair is pair i as the memory benchmark (test/bench/memory)
// leaves it in the API: a Bound claim and its PV of the driver, with what
// the API server adds (UID, resource version, managed fields).
func footprintPair(i int) (v1.PersistentVolumeClaim, v1.PersistentVolume) {
	name := fmt.Sprintf("pvc-00000000-0000-4000-8000-%012d", i)
	uid := types.UID(fmt.Sprintf("00000000-0000-4000-9000-%012d", i))
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	size := resource.MustParse("10Gi")
	mode := v1.PersistentVolumeFilesystem
	claim := v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("data-%05d", i), Namespace: "bench-cached", UID: uid,
			ResourceVersion: strconv.Itoa(1000 + 3*i), CreationTimestamp: created,
			Annotations: map[string]string{
				"pv.kubernetes.io/bind-completed":               "yes",
				"pv.kubernetes.io/bound-by-controller":          "yes",
				"volume.kubernetes.io/storage-provisioner":      testDriverName,
				"volume.beta.kubernetes.io/storage-provisioner": testDriverName,
			},
			Finalizers:    []string{"kubernetes.io/pvc-protection"},
			ManagedFields: benchManagedFields(),
		},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: ptr.To(footprintClass),
			VolumeMode:       &mode,
			VolumeName:       name,
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: size}},
		},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:       v1.ClaimBound,
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Capacity:    v1.ResourceList{v1.ResourceStorage: size},
		},
	}
	pv := v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: types.UID(fmt.Sprintf("00000000-0000-4000-a000-%012d", i)),
			ResourceVersion: strconv.Itoa(1001 + 3*i), CreationTimestamp: created,
			Annotations: map[string]string{
				"pv.kubernetes.io/provisioned-by":                            testDriverName,
				"volume.kubernetes.io/provisioner-deletion-secret-name":      "",
				"volume.kubernetes.io/provisioner-deletion-secret-namespace": "",
			},
			Finalizers:    []string{"external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection"},
			ManagedFields: benchManagedFields(),
		},
		Spec: v1.PersistentVolumeSpec{
			AccessModes:                   []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Capacity:                      v1.ResourceList{v1.ResourceStorage: size},
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			StorageClassName:              footprintClass,
			VolumeMode:                    &mode,
			ClaimRef: &v1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: claim.Namespace, Name: claim.Name,
				UID: claim.UID, ResourceVersion: claim.ResourceVersion,
			},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver:       testDriverName,
				VolumeHandle: "projects/bench/zones/zone-a/disks/" + name,
				VolumeAttributes: map[string]string{
					"storage.kubernetes.io/csiProvisionerIdentity": "1763700000000-" + strconv.Itoa(1000+i%9000) + "-" + testDriverName,
					"pool":     "pool-" + strconv.Itoa(i%4),
					"replicas": "3",
					"tier":     "standard",
				},
			}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound, LastPhaseTransitionTime: &created},
	}
	return claim, pv
}

// footprintLists are n pairs and their class, encoded.
func footprintLists(t *testing.T, n int) map[string]encodedList {
	claims := &v1.PersistentVolumeClaimList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	volumes := &v1.PersistentVolumeList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for i := range n {
		c, pv := footprintPair(i)
		claims.Items = append(claims.Items, c)
		volumes.Items = append(volumes.Items, pv)
	}
	classes := &storagev1.StorageClassList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []storagev1.StorageClass{{
		ObjectMeta:        metav1.ObjectMeta{Name: footprintClass, UID: "class-uid", ResourceVersion: "1"},
		Provisioner:       testDriverName,
		ReclaimPolicy:     ptr.To(v1.PersistentVolumeReclaimDelete),
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingImmediate),
	}}}
	lists := map[string]encodedList{}
	for resource, list := range map[string]k8sruntime.Object{
		"persistentvolumeclaims": claims, "persistentvolumes": volumes, "storageclasses": classes,
	} {
		l, err := encodeList(list)
		if err != nil {
			t.Fatal(err)
		}
		lists[resource] = l
	}
	return lists
}

var (
	queueDepth = regexp.MustCompile(`(?m)^workqueue_depth\{[^}]*\} (\d+)`)
	queueAdds  = regexp.MustCompile(`(?m)^workqueue_adds_total\{[^}]*\} (\d+)`)
)

// TestCacheFootprint's settings, in the environment; the parent hands its
// children their own.
const (
	footprintPairsEnv   = "CACHE_FOOTPRINT_PAIRS"
	footprintOutEnv     = "CACHE_FOOTPRINT_OUT"
	footprintProfileEnv = "CACHE_FOOTPRINT_PROFILE"
)

// TestCacheFootprint measures the live heap a cached pair of the memory
// benchmark costs the sidecar with the shipped settings, in process and
// without a cluster: a child with CACHE_FOOTPRINT_PAIRS pairs served by a
// fake API server and one with none each start the sidecar, wait until it
// is idle and read the live heap (less the server's encoded lists); the
// difference over the pairs is logged. With CACHE_FOOTPRINT_PROFILE=FILE the
// larger child writes a heap profile of every allocation there:
//
//	CACHE_FOOTPRINT_PAIRS=4000 go test -run '^TestCacheFootprint$' -v ./cmd/csi-provisioner
func TestCacheFootprint(t *testing.T) {
	if out := os.Getenv(footprintOutEnv); out != "" && os.Getenv(childProcessEnv) == t.Name() {
		pairs, _ := strconv.Atoi(os.Getenv(footprintPairsEnv))
		measureFootprint(t, pairs, out, os.Getenv(footprintProfileEnv))
		return
	}
	pairs, _ := strconv.Atoi(os.Getenv(footprintPairsEnv))
	if pairs <= 0 {
		t.Skip(footprintPairsEnv + " not set")
	}
	dir := t.TempDir()
	live := func(n int, profile string) int64 {
		out := filepath.Join(dir, strconv.Itoa(n))
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
		cmd.Env = append(os.Environ(), childProcessEnv+"="+t.Name(), footprintOutEnv+"="+out,
			footprintPairsEnv+"="+strconv.Itoa(n), footprintProfileEnv+"="+profile)
		if log, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child with %d pairs: %v\n%s", n, err, log)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		heap, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return heap
	}
	none, full := live(0, ""), live(pairs, os.Getenv(footprintProfileEnv))
	t.Logf("live heap: %d bytes with no pair cached, %d with %d pairs: %d bytes per pair",
		none, full, pairs, (full-none)/int64(pairs))
}

// measureFootprint runs the sidecar on pairs cached pairs until it is idle
// and writes its live heap, less the fake API server's lists, to out.
func measureFootprint(t *testing.T, pairs int, out, profile string) {
	if profile != "" {
		runtime.MemProfileRate = 1
	}
	api := newFakeAPIServer(t)
	api.lists = footprintLists(t, pairs)
	var encoded int
	for _, l := range api.lists {
		encoded += len(l.json) + len(l.protobuf)
	}
	addr := freeAddress(t)
	stop := startRun(t, api, provisioningDriver(), "--http-endpoint="+addr, "--feature-gates=ProvisioningProtection=true")
	eventually(t, "the caches to sync", func() bool {
		return api.sawWatch("persistentvolumeclaims") && api.sawWatch("persistentvolumes")
	})
	idle := func() bool {
		_, body := get("http://" + addr + "/metrics")
		if !strings.Contains(body, "workqueue_depth") {
			return false
		}
		for _, m := range queueDepth.FindAllStringSubmatch(body, -1) {
			if m[1] != "0" {
				return false
			}
		}
		return true
	}
	// Every cached claim and PV goes through the library's queues once
	// after the list: the queues are done with them once that many adds
	// were counted and they are empty again.
	eventually(t, "every claim and PV through the queues, and the queues empty", func() bool {
		_, body := get("http://" + addr + "/metrics")
		adds := 0
		for _, m := range queueAdds.FindAllStringSubmatch(body, -1) {
			n, _ := strconv.Atoi(m[1])
			adds += n
		}
		return adds >= 2*pairs && idle()
	})
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := os.WriteFile(out, []byte(strconv.FormatInt(int64(ms.HeapAlloc)-int64(encoded), 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := stop(true); err != nil {
		t.Fatal(err)
	}
}
