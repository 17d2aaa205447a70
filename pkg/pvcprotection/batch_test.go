package pvcprotection

import (
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// deleteBatch sets up n unused claims deleted together and syncs them from
// several workers at once.
func deleteBatch(t *testing.T, n int, cacheRV string, api *apiServer) *env {
	t.Helper()
	var claims []*v1.PersistentVolumeClaim
	for _, name := range claimNames("c", n) {
		claims = append(claims, deleting(newClaim(name)))
	}
	e := newEnv(t, setup{claims: claims, cacheRV: cacheRV, realFreshness: true})
	// Hold the first check until every worker has asked for one, so that
	// they overlap.
	api.block = make(chan struct{})
	go func() {
		for api.probes.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		close(api.block)
	}()
	api.install(e.client)
	for _, c := range claims {
		e.ctrl.onClaim(c)
	}
	keys := e.queued()
	if len(keys) != n {
		t.Fatalf("queued %d claims, want %d", len(keys), n)
	}
	work := make(chan string)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			for key := range work {
				// A claim still tracked is not ready yet: the controller
				// would requeue it.
				for i := 0; i < 100 && (i == 0 || e.ctrl.hasState(key)); i++ {
					if err := e.ctrl.sync(t.Context(), key); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
	return e
}

func TestBatchCostsOneWatchAndNoPodList(t *testing.T) {
	api := &apiServer{current: "20", watches: [][]watch.Event{{bookmark("20")}}}
	e := deleteBatch(t, 200, "10", api)
	if p, w, l := api.probes.Load(), api.watchCalls.Load(), api.lists.Load(); p != 1 || w != 1 || l != 0 {
		t.Fatalf("200 deletions cost %d probes, %d watches, %d pod lists; want 1, 1, 0", p, w, l)
	}
	if n := len(e.patches()); n != 200 {
		t.Fatalf("%d claims released, want 200", n)
	}
	if got := e.metric("freshness_checks_total", resultWatch); got != 1 {
		t.Errorf("watch checks = %v", got)
	}
	if got := e.metric("live_pod_lists_total"); got != 0 {
		t.Errorf("live pod lists = %v", got)
	}
}

func TestBatchWithFreshCacheCostsOneProbe(t *testing.T) {
	api := &apiServer{current: "20"}
	e := deleteBatch(t, 200, "25", api)
	if p, w, l := api.probes.Load(), api.watchCalls.Load(), api.lists.Load(); p != 1 || w != 0 || l != 0 {
		t.Fatalf("200 deletions cost %d probes, %d watches, %d pod lists; want 1, 0, 0", p, w, l)
	}
	if got := e.metric("freshness_checks_total", resultCache); got != 1 {
		t.Errorf("cache checks = %v", got)
	}
	if n := len(e.patches()); n != 200 {
		t.Fatalf("%d claims released, want 200", n)
	}
}
