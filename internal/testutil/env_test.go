package testutil

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
)

type runs struct {
	total *metrics.Counter
}

func (r runs) Registerables() []metrics.Registerable { return []metrics.Registerable{r.total} }

// An env holds its objects, registers its metrics, starts its informers
// with their caches synced and runs a controller until the test ends.
func TestEnvRunsAControllerOverItsInformers(t *testing.T) {
	m := runs{total: metrics.NewCounter(&metrics.CounterOpts{Name: "runs_total", Help: "h"})}
	trimmed := informers.WithTransform(func(obj any) (any, error) {
		if c, ok := obj.(*v1.PersistentVolumeClaim); ok {
			c.Annotations = nil
		}
		return obj, nil
	})
	e := NewEnv(t, EnvOptions{
		Objects:            Objects(NewClaim("apps", "db", WithAnnotation("big", "x"))),
		StatusSubresources: []string{"persistentvolumeclaims"},
		InformerOptions:    []informers.SharedInformerOption{trimmed},
		Metrics:            []MetricSet{m},
	})
	claims := e.Informers.Core().V1().PersistentVolumeClaims()
	claims.Informer()
	e.StartInformers(t)
	cached, err := claims.Lister().PersistentVolumeClaims("apps").Get("db")
	if err != nil || cached.Annotations != nil {
		t.Fatalf("cached %+v, %v; want the trimmed claim", cached, err)
	}

	e.Run(t, func(ctx context.Context) {
		klog.FromContext(ctx).Error(nil, "ran")
		m.total.Inc()
		e.Events.Event(cached, v1.EventTypeNormal, "Ran", "once")
		<-ctx.Done()
	})
	e.Eventually(t, "the run", func() bool { return e.Registry.Value(t, "runs_total") == 1 })
	if got := e.Events.WithReason("Ran"); len(got) != 1 {
		t.Errorf("events %q", got)
	}
	if got := e.Logs.Errors(); len(got) != 1 || got[0] != "ran" {
		t.Errorf("error logs %q", got)
	}
	if e.Timeout == 0 {
		t.Error("no default timeout")
	}
}

func TestEnvTakesAClientOfTheTestsOwn(t *testing.T) {
	client := fake.NewClientset(NewPV("pv"))
	e := NewEnv(t, EnvOptions{Client: client})
	if e.Client != client || PV(t, e.Client, "pv").ResourceVersion != "" {
		t.Error("the env made a client of its own")
	}
}
