package reconcile

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func claimVersion(rv string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: rv}}
}

var errConflict = apierrors.NewConflict(v1.Resource("persistentvolumeclaims"), "c", errors.New("modified"))

func TestOnFreshCopyDecidesAgainOnTheCopyReadAfterAConflict(t *testing.T) {
	var tried []string
	get := func(context.Context, *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
		return claimVersion("2"), nil
	}
	wrote, err := OnFreshCopy(context.Background(), claimVersion("1"), get, func(c *v1.PersistentVolumeClaim) (bool, error) {
		tried = append(tried, c.ResourceVersion)
		if c.ResourceVersion == "1" {
			return false, errConflict
		}
		return true, nil
	})
	if !wrote || err != nil || len(tried) != 2 || tried[1] != "2" {
		t.Errorf("wrote %v, err %v, tried versions %v; want a write on version 2", wrote, err, tried)
	}
}

func TestOnFreshCopyGivesUpOnAnObjectThatKeepsChanging(t *testing.T) {
	get := func(context.Context, *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
		return claimVersion("2"), nil
	}
	tries := 0
	wrote, err := OnFreshCopy(context.Background(), claimVersion("1"), get, func(*v1.PersistentVolumeClaim) (bool, error) {
		tries++
		return false, errConflict
	})
	if wrote || err == nil || tries != handOffAttempts {
		t.Errorf("wrote %v, err %v after %d tries; want an error after %d", wrote, err, tries, handOffAttempts)
	}
}

func TestOnFreshCopyTakesAnObjectGoneAsNoWrite(t *testing.T) {
	gone := apierrors.NewNotFound(v1.Resource("persistentvolumeclaims"), "c")
	get := func(context.Context, *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) { return nil, gone }
	wrote, err := OnFreshCopy(context.Background(), claimVersion("1"), get, func(*v1.PersistentVolumeClaim) (bool, error) { return false, errConflict })
	if wrote || err != nil {
		t.Errorf("wrote %v, err %v; want no write and no error", wrote, err)
	}
}

func TestHandOffEachCountsAndStopsWhenItsTimeIsUp(t *testing.T) {
	objs := []*v1.PersistentVolumeClaim{claimVersion("1"), claimVersion("2"), claimVersion("3")}
	done, notDone := HandOffEach(context.Background(), objs, func(_ context.Context, c *v1.PersistentVolumeClaim) (bool, error) {
		switch c.ResourceVersion {
		case "1":
			return true, nil
		case "2":
			return false, errors.New("refused")
		}
		return false, nil
	})
	if done != 1 || notDone != 2 {
		t.Errorf("done %d, not done %d; want 1 and 2", done, notDone)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := 0
	done, notDone = HandOffEach(ctx, objs, func(context.Context, *v1.PersistentVolumeClaim) (bool, error) { called++; return true, nil })
	if done != 0 || notDone != 3 || called != 0 {
		t.Errorf("after the deadline: done %d, not done %d, %d calls; want nothing done", done, notDone, called)
	}
}

func TestHandOffCachedHandsOffThePickedObjectsOfTheCache(t *testing.T) {
	list := func(labels.Selector) ([]*v1.PersistentVolumeClaim, error) {
		return []*v1.PersistentVolumeClaim{claimVersion("1"), claimVersion("2"), claimVersion("3")}, nil
	}
	var handed []string
	done, notDone, err := HandOffCached(context.Background(), list,
		func(c *v1.PersistentVolumeClaim) bool { return c.ResourceVersion != "2" },
		func(_ context.Context, c *v1.PersistentVolumeClaim) (bool, error) {
			handed = append(handed, c.ResourceVersion)
			return c.ResourceVersion == "1", nil
		})
	if err != nil || done != 1 || notDone != 1 || len(handed) != 2 || handed[1] != "3" {
		t.Errorf("done %d, not done %d, err %v, handed %v; want versions 1 and 3 handed, 1 done", done, notDone, err, handed)
	}

	refused := errors.New("refused")
	failing := func(labels.Selector) ([]*v1.PersistentVolumeClaim, error) { return nil, refused }
	if _, _, err := HandOffCached(context.Background(), failing, nil, nil); !errors.Is(err, refused) {
		t.Errorf("a list that fails: %v, want its error", err)
	}
}
