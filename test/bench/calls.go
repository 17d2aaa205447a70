package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Drain is waited after a phase's end condition before the next phase
// starts, so that requests the phase caused but sent late (the events of
// the last claims) are counted in it.
const Drain = 2 * time.Second

// CallResult is the outcome of a batch of create or delete calls.
type CallResult struct {
	First, Last time.Time // first call issued, last call returned
	Failed      int
	FirstErr    error
}

// ForEach calls call for every name from workers goroutines, as fast as the
// API server answers. sent, if set, is told when each call is issued; done,
// if set, when each successful call returned.
func ForEach(ctx context.Context, names []string, workers int, call func(context.Context, string) error, sent, done func(string, time.Time)) CallResult {
	var (
		next   atomic.Int64
		mu     sync.Mutex
		result CallResult
		wg     sync.WaitGroup
	)
	result.First = time.Now()
	for range max(1, workers) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(names) || ctx.Err() != nil {
					return
				}
				if sent != nil {
					sent(names[i], time.Now())
				}
				err := call(ctx, names[i])
				now := time.Now()
				mu.Lock()
				if err != nil {
					result.Failed++
					if result.FirstErr == nil {
						result.FirstErr = err
					}
				} else if done != nil {
					done(names[i], now)
				}
				if now.After(result.Last) {
					result.Last = now
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return result
}

// CreateClaims creates claim(name) for every name, as fast as the API
// server answers; sent and done are as in ForEach.
func CreateClaims(ctx context.Context, client kubernetes.Interface, names []string, workers int, claim func(name string) *corev1.PersistentVolumeClaim, sent, done func(string, time.Time)) CallResult {
	return ForEach(ctx, names, workers, func(ctx context.Context, name string) error {
		pvc := claim(name)
		_, err := client.CoreV1().PersistentVolumeClaims(pvc.Namespace).Create(ctx, pvc, metav1.CreateOptions{})
		return err
	}, sent, done)
}

// DeleteClaims deletes the claims of namespace, as fast as the API server
// answers; a claim already gone is no failure. sent is as in ForEach.
func DeleteClaims(ctx context.Context, client kubernetes.Interface, namespace string, names []string, workers int, sent func(string, time.Time)) CallResult {
	return ForEach(ctx, names, workers, func(ctx context.Context, name string) error {
		err := client.CoreV1().PersistentVolumeClaims(namespace).Delete(ctx, name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}, sent, nil)
}
