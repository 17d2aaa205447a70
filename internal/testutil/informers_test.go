package testutil

import (
	"context"
	"maps"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
)

func TestIndexerServesAListerOfFixedObjects(t *testing.T) {
	claims := corelisters.NewPersistentVolumeClaimLister(Indexer(t, NewClaim("apps", "db"), NewClaim("web", "cache")))
	if got, err := claims.PersistentVolumeClaims("apps").List(labels.Everything()); err != nil || len(got) != 1 || got[0].Name != "db" {
		t.Errorf("claims of apps %v, %v", got, err)
	}
}

// The informers have synced when StartInformers returns; WaitCached then
// follows a write, and the tracker and the cache agree.
func TestStartInformersAndWaitCached(t *testing.T) {
	ctx, _ := LoggingContext(t, 0)
	client := NewClientset(NewPV("pv"))
	factory := informers.NewSharedInformerFactory(client, 0)
	volumes := factory.Core().V1().PersistentVolumes().Informer().GetStore()
	StartInformers(t, ctx, factory)
	if _, ok, _ := volumes.GetByKey("pv"); !ok {
		t.Fatal("the cache does not hold the PV once started")
	}

	UpdatePV(t, client, "pv", func(pv *v1.PersistentVolume) { pv.Labels = map[string]string{"a": "b"} })
	WaitCached(t, 5*time.Second, volumes, "pv", PV(t, client, "pv").ResourceVersion)
	gvr := v1.SchemeGroupVersion.WithResource("persistentvolumes")
	if stored, cached := TrackerVersions(t, client.Tracker(), gvr, "PersistentVolume"), StoreVersions(volumes); !maps.Equal(stored, cached) {
		t.Errorf("the tracker holds %v, the cache %v", stored, cached)
	}

	if got := WaitCachedThat(t, 5*time.Second, volumes, "pv", func(pv *v1.PersistentVolume) bool { return pv.Labels["a"] == "b" }); got.Name != "pv" {
		t.Errorf("cached %+v", got)
	}
	Delete(t, client.CoreV1().PersistentVolumes(), "pv")
	WaitCached(t, 5*time.Second, volumes, "pv", "")

	f := &fatals{TB: t}
	WaitCached(f, 0, volumes, "pv", "7")
	if len(f.msgs) != 1 || f.msgs[0] != "timed out waiting for the cache to show pv at version 7: the cache has none" {
		t.Errorf("failures %q", f.msgs)
	}
}

func TestWatchesRecordsRegisteredWatches(t *testing.T) {
	client := NewClientset()
	var watches Watches
	watches.Record(client, client.Tracker())
	factory := informers.NewSharedInformerFactory(client, 0)
	factory.Core().V1().PersistentVolumes().Informer()
	ctx, _ := LoggingContext(t, 0)
	StartInformers(t, ctx, factory)
	Eventually(t, 5*time.Second, "the PV informer to watch", func() bool { return watches.Watching("persistentvolumes") })
	if watches.Watching("persistentvolumes", "nodes") {
		t.Error("nodes are watched without an informer")
	}
	// A watch through the reactor gets the tracker's events.
	w, err := client.CoreV1().Nodes().Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	Create(t, client.CoreV1().Nodes(), NewNode("n1"))
	select {
	case ev := <-w.ResultChan():
		if ev.Object.(*v1.Node).Name != "n1" {
			t.Errorf("event %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event of the node")
	}
}
