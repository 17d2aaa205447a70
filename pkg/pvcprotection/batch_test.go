package pvcprotection

import (
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// batchWorkers sync the claims of a batch at once.
const batchWorkers = 8

// deleteBatch sets up n unused claims deleted together and syncs them from
// several workers at once.
func deleteBatch(t *testing.T, n int, cacheRV string, api *apiServer) *env {
	t.Helper()
	var claims []*v1.PersistentVolumeClaim
	for _, name := range claimNames("c", n) {
		claims = append(claims, newClaim(name, testutil.Deleting()))
	}
	e := newEnv(t, setup{claims: claims, cacheRV: cacheRV, realFreshness: true})
	// Hold the first check until every worker has asked for one, so that
	// they overlap.
	api.block = make(chan struct{})
	api.install(e.Client)
	for _, c := range claims {
		e.ctrl.onClaim(c)
	}
	keys := e.queued()
	if len(keys) != n {
		t.Fatalf("queued %d claims, want %d", len(keys), n)
	}
	work := make(chan cache.ObjectName, len(keys))
	for _, k := range keys {
		name, err := cache.ParseObjectName(k)
		if err != nil {
			t.Fatal(err)
		}
		work <- name
	}
	close(work)
	var wg sync.WaitGroup
	for range batchWorkers {
		wg.Go(func() {
			for key := range work {
				// A claim still tracked is not ready yet: the controller
				// would requeue it.
				for i := 0; i < 100 && (i == 0 || e.ctrl.hasState(key)); i++ {
					if _, err := e.ctrl.sync(t.Context(), key); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	// Every worker's first claim asks for a check, and the first one stays
	// in its probe until released: once all have asked, they overlap.
	e.Eventually(t, "every worker to ask for a check", func() bool { return e.asked.calls.Load() >= batchWorkers })
	close(api.block)
	wg.Wait()
	return e
}

func TestBatchCostsOneWatchAndNoPodList(t *testing.T) {
	api := &apiServer{current: "20", watches: [][]watch.Event{{bookmark("20")}}}
	e := deleteBatch(t, 200, "10", api)
	if got := api.requests(); got != "1 probes, 1 watches, 0 lists" {
		t.Fatalf("200 deletions cost %s; want one probe and one watch", got)
	}
	if n := len(e.writes()); n != 200 {
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
	if got := api.requests(); got != "1 probes, 0 watches, 0 lists" {
		t.Fatalf("200 deletions cost %s; want one probe", got)
	}
	if got := e.metric("freshness_checks_total", resultCache); got != 1 {
		t.Errorf("cache checks = %v", got)
	}
	if n := len(e.writes()); n != 200 {
		t.Fatalf("%d claims released, want 200", n)
	}
}
