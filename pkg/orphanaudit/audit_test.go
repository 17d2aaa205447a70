package orphanaudit

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	testclock "k8s.io/utils/clock/testing"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
)

const (
	testDriver  = "test.csi-protect.io"
	abandonedAn = "provisioner.storage.kubernetes.io/abandoned-volume"
	grace       = 10 * time.Minute
)

// fakeDriver lists its volumes in pages of two.
type fakeDriver struct {
	csi.ControllerClient
	mu      sync.Mutex
	handles []string
	err     error
}

func (f *fakeDriver) ListVolumes(_ context.Context, req *csi.ListVolumesRequest, _ ...grpc.CallOption) (*csi.ListVolumesResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	start := 0
	if req.StartingToken != "" {
		for i, h := range f.handles {
			if h == req.StartingToken {
				start = i
			}
		}
	}
	resp := &csi.ListVolumesResponse{}
	end := min(start+2, len(f.handles))
	for _, h := range f.handles[start:end] {
		resp.Entries = append(resp.Entries, &csi.ListVolumesResponse_Entry{Volume: &csi.Volume{VolumeId: h, CapacityBytes: 1 << 30}})
	}
	if end < len(f.handles) {
		resp.NextToken = f.handles[end]
	}
	return resp, nil
}

type env struct {
	driver   *fakeDriver
	volumes  cache.Indexer
	claims   cache.Indexer
	clock    *testclock.FakeClock
	ctrl     *Controller
	metrics  *Metrics
	registry k8smetrics.KubeRegistry
	logs     ktesting.Buffer
	ctx      context.Context
}

func newEnv(t *testing.T, handles ...string) *env {
	t.Helper()
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	e := &env{
		driver:  &fakeDriver{handles: handles},
		volumes: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		claims:  cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		clock:   testclock.NewFakeClock(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)),
		metrics: NewMetrics(),
		ctx:     klog.NewContext(context.Background(), logger),
	}
	e.logs = logger.GetSink().(ktesting.Underlier).GetBuffer()
	e.registry = k8smetrics.NewKubeRegistry()
	e.registry.MustRegister(e.metrics.Registerables()...)
	ctrl, err := New(Options{
		CSIClient:    e.driver,
		Timeout:      time.Second,
		VolumeLister: corelisters.NewPersistentVolumeLister(e.volumes),
		ClaimLister:  corelisters.NewPersistentVolumeClaimLister(e.claims),
		VolumeHandle: func(pv *v1.PersistentVolume) string {
			if pv.Spec.CSI == nil || pv.Spec.CSI.Driver != testDriver {
				return ""
			}
			return pv.Spec.CSI.VolumeHandle
		},
		AbandonedVolumeAnnotation: abandonedAn,
		Interval:                  time.Minute,
		GracePeriod:               grace,
		Clock:                     e.clock,
		Metrics:                   e.metrics,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl = ctrl
	return e
}

func (e *env) pv(t *testing.T, name, driver, handle string) {
	t.Helper()
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}}}}
	if err := e.volumes.Add(pv); err != nil {
		t.Fatal(err)
	}
}

// audit runs one audit and checks it asks to run again after the interval.
func (e *env) audit(t *testing.T) {
	t.Helper()
	result, err := e.ctrl.sync(e.ctx, auditKey)
	if err != nil {
		t.Fatal(err)
	}
	if result != reconcile.RequeueAfter(time.Minute) {
		t.Fatalf("result %+v, want the next audit after the interval", result)
	}
}

func (e *env) orphaned(t *testing.T) float64 {
	t.Helper()
	return testutil.Metric(t, e.registry, "csi_provisioner_orphan_audit_orphaned_volumes")
}

func (e *env) reports(handle string) int {
	n := 0
	for line := range strings.SplitSeq(e.logs.String(), "\n") {
		if strings.Contains(line, "Orphaned volume") && strings.Contains(line, `handle="`+handle+`"`) {
			n++
		}
	}
	return n
}

func TestVolumeNothingAccountsForIsReportedOnceAfterTheGracePeriod(t *testing.T) {
	e := newEnv(t, "vol-pv", "vol-orphan", "vol-abandoned")
	e.pv(t, "pv-1", testDriver, "vol-pv")
	claim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "db", Annotations: map[string]string{abandonedAn: "vol-abandoned"}}}
	if err := e.claims.Add(claim); err != nil {
		t.Fatal(err)
	}

	e.audit(t)
	if got := e.orphaned(t); got != 0 || e.reports("vol-orphan") != 0 {
		t.Fatalf("orphaned %v, reports %d before the grace period", got, e.reports("vol-orphan"))
	}
	e.clock.Step(grace)
	e.audit(t)
	e.clock.Step(time.Minute)
	e.audit(t)
	if got := e.orphaned(t); got != 1 {
		t.Errorf("orphaned = %v, want 1", got)
	}
	if n := e.reports("vol-orphan"); n != 1 {
		t.Errorf("vol-orphan reported %d times, want once", n)
	}
	for _, h := range []string{"vol-pv", "vol-abandoned"} {
		if n := e.reports(h); n != 0 {
			t.Errorf("%s, which is accounted for, reported %d times", h, n)
		}
	}
}

func TestPVStoredWithinTheGracePeriodIsNeverReported(t *testing.T) {
	e := newEnv(t, "vol-new")
	e.audit(t)
	e.clock.Step(grace / 2)
	e.pv(t, "pv-late", testDriver, "vol-new")
	e.audit(t)
	e.clock.Step(grace)
	e.audit(t)
	if n := e.reports("vol-new"); n != 0 || e.orphaned(t) != 0 {
		t.Errorf("a volume whose PV came late was reported %d times", n)
	}
}

func TestPVOfAnotherDriverDoesNotAccount(t *testing.T) {
	e := newEnv(t, "vol-1")
	e.pv(t, "pv-other", "other.csi.io", "vol-1")
	e.audit(t)
	e.clock.Step(grace)
	e.audit(t)
	if e.reports("vol-1") != 1 {
		t.Error("a handle another driver's PV names must not account for this driver's volume")
	}
}

func TestVolumeGoneOrAccountedForLeavesTheCount(t *testing.T) {
	e := newEnv(t, "vol-a", "vol-b", "vol-c")
	e.audit(t)
	e.clock.Step(grace)
	e.audit(t)
	if got := e.orphaned(t); got != 3 {
		t.Fatalf("orphaned = %v, want 3", got)
	}
	e.driver.mu.Lock()
	e.driver.handles = []string{"vol-b", "vol-c"}
	e.driver.mu.Unlock()
	e.pv(t, "pv-c", testDriver, "vol-c")
	e.audit(t)
	if got := e.orphaned(t); got != 1 {
		t.Errorf("orphaned = %v, want only vol-b", got)
	}
}

func TestListFailureIsRetriedAndCounted(t *testing.T) {
	e := newEnv(t, "vol-1")
	e.driver.err = errors.New("unavailable")
	if _, err := e.ctrl.sync(e.ctx, auditKey); err == nil {
		t.Fatal("a failed ListVolumes must fail the audit, so that it is retried")
	}
	if v := testutil.Metric(t, e.registry, "csi_provisioner_orphan_audit_audits_total", "result", "error"); v != 1 {
		t.Errorf("audits_total{result=error} = %v", v)
	}
}

// Many drivers make a volume's handle from its name: the report then says
// whose the volume is, so that an operator knows whom to ask.
func TestAReportNamesTheUnboundClaimWhoseVolumeNameTheHandleHolds(t *testing.T) {
	e := newEnv(t, "backend/apps-db-0b6d5fa4", "backend/apps-web-1c2d3e4f", "backend/someone-elses")
	e.ctrl.opts.DriverVolumeName = func(claim *v1.PersistentVolumeClaim) (string, error) {
		return claim.Namespace + "-" + claim.Name + "-" + string(claim.UID)[:8], nil
	}
	for _, claim := range []*v1.PersistentVolumeClaim{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "db", UID: "0b6d5fa4-54c3"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web", UID: "1c2d3e4f-0000"}, Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimBound}},
	} {
		if err := e.claims.Add(claim); err != nil {
			t.Fatal(err)
		}
	}
	e.audit(t)
	e.clock.Step(grace)
	e.audit(t)
	lines := map[string]string{}
	for line := range strings.SplitSeq(e.logs.String(), "\n") {
		for _, h := range e.driver.handles {
			if strings.Contains(line, "Orphaned volume") && strings.Contains(line, `handle="`+h+`"`) {
				lines[h] = line
			}
		}
	}
	if got := lines["backend/apps-db-0b6d5fa4"]; !strings.Contains(got, `namedForPVC="apps/db"`) {
		t.Errorf("report %q does not name claim apps/db", got)
	}
	for _, h := range []string{"backend/apps-web-1c2d3e4f", "backend/someone-elses"} {
		if got := lines[h]; got == "" || strings.Contains(got, "namedForPVC") {
			t.Errorf("report %q: a bound claim's name or no name is not whose the volume is", got)
		}
	}
}
