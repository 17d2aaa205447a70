package pvcprotection

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// The requests of the freshness check.

// noSuchPod cannot be the name of a pod: names are DNS subdomains, which
// have no underscore. A list selecting it is empty on any cluster size.
const noSuchPod = "pvc_protection_freshness_probe"

// consistentPodVersion returns a resourceVersion at least as new as every
// pod write the API server accepted before this call. A list without a
// resourceVersion is a consistent read; selecting a name no pod can have
// keeps the answer empty, so the request is tiny whatever the namespace
// holds.
func consistentPodVersion(ctx context.Context, client kubernetes.Interface, namespace string) (string, error) {
	list, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("metadata.name", noSuchPod).String(),
	})
	if err != nil {
		return "", fmt.Errorf("read the current pod resourceVersion of namespace %s: %w", namespace, err)
	}
	if err := checkResourceVersion(list.ResourceVersion); err != nil {
		return "", fmt.Errorf("pod list of namespace %s: %w", namespace, err)
	}
	return list.ResourceVersion, nil
}

// errExpired marks a watch that could not start from the requested version.
var errExpired = errors.New("resourceVersion too old to watch from")

func isExpired(err error) bool {
	return errors.Is(err, errExpired) || apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// replayPodEvents watches the namespace's pods from resourceVersion from
// until it sees an event or bookmark at or past target, and returns the
// resourceVersion of the last pod event at or before target: once the pod
// index has applied it, it holds every pod of the namespace written up to
// target. "" means there was no such event, so the index has all of them
// already.
func replayPodEvents(ctx context.Context, client kubernetes.Interface, namespace, from, target string) (string, error) {
	last := ""
	for attempt := 0; attempt < watchAttempts; attempt++ {
		reached, seen, lastEvent, err := watchOnce(ctx, client, namespace, from, target)
		if lastEvent != "" {
			last = lastEvent
		}
		if err != nil || reached {
			return last, err
		}
		// The watch ended before the API server's watch cache reached
		// target; go on from where it stopped.
		if seen != "" {
			from = seen
		}
	}
	return "", fmt.Errorf("pod watch of namespace %s did not reach resourceVersion %s after %d attempts", namespace, target, watchAttempts)
}

// watchOnce is one replay watch. It returns whether it reached target, the
// last resourceVersion it saw and the last pod event at or before target.
func watchOnce(ctx context.Context, client kubernetes.Interface, namespace, from, target string) (reached bool, seen, lastEvent string, err error) {
	timeout := watchTimeoutSeconds
	// The server ends the watch; this only guards against one that never
	// does.
	ctx, cancel := context.WithTimeout(ctx, time.Duration(timeout)*time.Second+10*time.Second)
	defer cancel()
	w, err := client.CoreV1().Pods(namespace).Watch(ctx, metav1.ListOptions{
		ResourceVersion:     from,
		AllowWatchBookmarks: true,
		TimeoutSeconds:      &timeout,
	})
	if err != nil {
		return false, "", "", fmt.Errorf("watch pods of namespace %s from %s: %w", namespace, from, err)
	}
	defer w.Stop()
	for {
		var ev watch.Event
		var ok bool
		select {
		case ev, ok = <-w.ResultChan():
		case <-ctx.Done():
			return false, seen, lastEvent, ctx.Err()
		}
		if !ok {
			return false, seen, lastEvent, nil
		}
		if ev.Type == watch.Error {
			err := apierrors.FromObject(ev.Object)
			if isExpired(err) {
				err = fmt.Errorf("%w: %w", errExpired, err)
			}
			return false, seen, lastEvent, fmt.Errorf("watch pods of namespace %s from %s: %w", namespace, from, err)
		}
		obj, err := meta.Accessor(ev.Object)
		if err != nil {
			return false, seen, lastEvent, fmt.Errorf("watch pods of namespace %s: unexpected %s event: %w", namespace, ev.Type, err)
		}
		rv := obj.GetResourceVersion()
		cmp, err := resourceversion.CompareResourceVersion(rv, target)
		if err != nil {
			return false, seen, lastEvent, fmt.Errorf("watch pods of namespace %s: %s event: %w", namespace, ev.Type, err)
		}
		seen = rv
		if ev.Type != watch.Bookmark && cmp <= 0 {
			// Events come in resourceVersion order: this one is the
			// newest so far.
			lastEvent = rv
		}
		if cmp >= 0 {
			return true, seen, lastEvent, nil
		}
	}
}

// listPods is the fallback: all pods of the namespace, live, the way
// kube-controller-manager checks every batch. Only what the rules read is
// kept.
func listPods(ctx context.Context, client kubernetes.Interface, namespace string) (*livePods, error) {
	list, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list pods of namespace %s: %w", namespace, err)
	}
	return livePodsOf(list), nil
}

// listSmallNamespace lists at most limit pods of the namespace, live (a
// consistent read). A namespace holding more gives no pods, only the list's
// resourceVersion, which is consistent either way.
func listSmallNamespace(ctx context.Context, client kubernetes.Interface, namespace string, limit int64) (_ *livePods, resourceVersion string, _ error) {
	list, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{Limit: limit})
	if err != nil {
		return nil, "", fmt.Errorf("list pods of namespace %s: %w", namespace, err)
	}
	if err := checkResourceVersion(list.ResourceVersion); err != nil {
		return nil, "", fmt.Errorf("pod list of namespace %s: %w", namespace, err)
	}
	if list.Continue != "" {
		return nil, list.ResourceVersion, nil
	}
	return livePodsOf(list), list.ResourceVersion, nil
}

// livePodsOf indexes a live list by claim, keeping only what the rules read.
func livePodsOf(list *v1.PodList) *livePods {
	live := &livePods{resourceVersion: list.ResourceVersion, byClaim: map[string][]*v1.Pod{}}
	for i := range list.Items {
		trimmed, _ := TrimPod(&list.Items[i])
		pod := trimmed.(*v1.Pod)
		for j := range pod.Spec.Volumes {
			name := claimNameOf(pod, &pod.Spec.Volumes[j])
			if name != "" && !slices.Contains(live.byClaim[name], pod) {
				live.byClaim[name] = append(live.byClaim[name], pod)
			}
		}
	}
	return live
}
