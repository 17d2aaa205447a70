package pvcprotection

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestMetricsAreRegisteredUnderTheirNames(t *testing.T) {
	m := NewMetrics()
	registry := testutil.NewRegistry(m)
	m.HeldClaims.Set(2)
	m.FinalizersAdded.Inc()
	m.FinalizersRemoved.Inc()
	m.FreshnessChecks.WithLabelValues(resultCache).Inc()
	m.LivePodLists.Inc()
	for _, want := range []string{
		"csi_provisioner_pvc_protection_held_claims",
		"csi_provisioner_pvc_protection_finalizers_added_total",
		"csi_provisioner_pvc_protection_finalizers_removed_total",
		"csi_provisioner_pvc_protection_freshness_checks_total",
		"csi_provisioner_pvc_protection_live_pod_lists_total",
	} {
		if _, ok := testutil.MetricValue(t, registry, want); !ok {
			t.Errorf("%s not exported", want)
		}
	}
}

func TestMetricValuesFollowTheWork(t *testing.T) {
	late := withRV(newPod("late", testNode, "used"), "15")
	api := &apiServer{current: "20", watches: [][]watch.Event{{podEvent(watch.Added, late), bookmark("20")}}}
	used, free := newClaim("used", testutil.Deleting()), newClaim("free", testutil.Deleting())
	missing := newClaim("missing")
	missing.Finalizers = nil
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{used, free, missing}, cacheRV: "10", realFreshness: true})
	api.install(e.Client)
	for _, c := range []*v1.PersistentVolumeClaim{used, free, missing} {
		e.ctrl.onClaim(c)
	}
	testutil.AddTo(t, e.ctrl.pods, late)
	e.mustSync("used")
	e.mustSync("free")
	e.mustSync("missing")

	for name, want := range map[string]float64{
		"held_claims":            1,
		"finalizers_added_total": 1,
		// free only: used is held.
		"finalizers_removed_total": 1,
		"live_pod_lists_total":     0,
	} {
		if got := e.metric(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := e.metric("freshness_checks_total", resultWatch); got != 1 {
		t.Errorf("freshness_checks_total{result=%q} = %v, want 1", resultWatch, got)
	}
	for _, result := range []string{resultCache, resultList} {
		if e.metric("freshness_checks_total", result) != 0 {
			t.Errorf("freshness_checks_total{result=%q} counted, want not", result)
		}
	}
}

func TestNilMetricsAreFine(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("data", testutil.Deleting())}, pods: []*v1.Pod{newPod("p", testNode, "data")}})
	ctrl, err := New(Options{
		Client: e.Client, ClaimInformer: e.Informers.Core().V1().PersistentVolumeClaims(),
		PodInformer: e.Informers.Core().V1().Pods(), AllClaims: true,
		EventRecorder: e.Events,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctrl.fresh = e.fresh
	// A hold sets the gauge of the private metrics.
	if _, err := ctrl.sync(t.Context(), key("data")); err != nil {
		t.Fatal(err)
	}
	if n := ctrl.holds.Len(); n != 1 {
		t.Fatalf("held claims %d", n)
	}
	if ev := e.Events.Drain(); len(ev) != 1 || !strings.HasPrefix(ev[0], "Normal DeletionHeldByPod ") {
		t.Errorf("events %q, want the hold", ev)
	}
}
