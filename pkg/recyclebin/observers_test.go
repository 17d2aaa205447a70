package recyclebin

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// changes counts the PV changes the API server made, by name, from a
// watch: a write that failed on its precondition changed nothing, so one
// change that carries all of a decision is one write.
type changes struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *changes) watch(t *testing.T, ctx context.Context, client *fake.Clientset) {
	t.Helper()
	w, err := client.CoreV1().PersistentVolumes().Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			if pv, ok := ev.Object.(*v1.PersistentVolume); ok && ev.Type == watch.Modified {
				c.mu.Lock()
				if c.n == nil {
					c.n = map[string]int{}
				}
				c.n[pv.Name]++
				c.mu.Unlock()
			}
		}
	}()
}

func (c *changes) of(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

// handOvers stands for the provisioning library: it records the PVs the
// controller hands to deletion.
type handOvers struct {
	mu  sync.Mutex
	pvs []*v1.PersistentVolume
}

func (h *handOvers) handOver(pv *v1.PersistentVolume) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pvs = append(h.pvs, pv.DeepCopy())
}

// all returns the PVs handed over so far, in order.
func (h *handOvers) all() []*v1.PersistentVolume {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*v1.PersistentVolume(nil), h.pvs...)
}

// volumeDeletions stands for the provisioner's deletion path: it records
// the PVs whose volume the controller deleted itself, and answers err.
type volumeDeletions struct {
	mu  sync.Mutex
	pvs []string
	err error
}

func (d *volumeDeletions) delete(_ context.Context, pv *v1.PersistentVolume) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pvs = append(d.pvs, pv.Name)
	return d.err
}

func (d *volumeDeletions) fail(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.err = err
}

// all returns the PVs whose volume was deleted so far, in order.
func (d *volumeDeletions) all() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.pvs...)
}

// results records what each sync asked of the loop, by PV name.
type results struct {
	mu    sync.Mutex
	byKey map[string][]reconcile.Result
}

func (r *results) add(name string, result reconcile.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKey == nil {
		r.byKey = map[string][]reconcile.Result{}
	}
	r.byKey[name] = append(r.byKey[name], result)
}

func (r *results) of(name string) []reconcile.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]reconcile.Result(nil), r.byKey[name]...)
}

// event is one event and the object it is on.
type event struct {
	// on is "PersistentVolume name" or "PersistentVolumeClaim ns/name".
	on string
	// line is record.FakeRecorder's: "Type Reason message".
	line string
}

// eventLog is a record.FakeRecorder that also says which object each
// event is on: the fake's lines do not (objects from a cache carry no
// kind), and a restore's events must be on the PV and on the claim.
type eventLog struct {
	mu     sync.Mutex
	fake   *record.FakeRecorder
	events []event
}

var _ record.EventRecorder = &eventLog{}

func newEventLog() *eventLog { return &eventLog{fake: record.NewFakeRecorder(1)} }

func (l *eventLog) Event(obj runtime.Object, eventtype, reason, message string) {
	l.Eventf(obj, eventtype, reason, "%s", message)
}

func (l *eventLog) Eventf(obj runtime.Object, eventtype, reason, messageFmt string, args ...interface{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fake.Eventf(obj, eventtype, reason, messageFmt, args...)
	l.events = append(l.events, event{on: objectName(obj), line: <-l.fake.Events})
}

func (l *eventLog) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventtype, reason, messageFmt string, args ...interface{}) {
	l.Eventf(obj, eventtype, reason, messageFmt, args...)
}

// with returns the events of reason, as "on: line".
func (l *eventLog) with(reason string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, ev := range l.events {
		if testutil.ReasonOf(ev.line) == reason {
			out = append(out, ev.on+": "+ev.line)
		}
	}
	return out
}

// all returns every event so far, as "on: line".
func (l *eventLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, ev := range l.events {
		out = append(out, ev.on+": "+ev.line)
	}
	return out
}

func objectName(obj runtime.Object) string {
	switch o := obj.(type) {
	case *v1.PersistentVolume:
		return "PersistentVolume " + o.Name
	case *v1.PersistentVolumeClaim:
		return "PersistentVolumeClaim " + o.Namespace + "/" + o.Name
	}
	return fmt.Sprintf("%T", obj)
}

// onVolume and onClaim prefix an expected event line with its object.
func onVolume(name, line string) string { return "PersistentVolume " + name + ": " + line }

func onClaim(namespace, name, line string) string {
	return "PersistentVolumeClaim " + namespace + "/" + name + ": " + line
}

// distinct drops repeats, keeping the first of each: a sync that refuses
// says so again on each sync.
func distinct(events []string) []string {
	var out []string
	for _, ev := range events {
		if !slices.Contains(out, ev) {
			out = append(out, ev)
		}
	}
	return out
}
