package testutil

import (
	"context"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
)

// The helpers below serve a benchmark of one sync, which measures the
// controller rather than the fakes around it.

// QuietContext is a context whose logger drops everything.
func QuietContext() context.Context {
	return klog.NewContext(context.Background(), logr.Discard())
}

// AnswerWith makes the fake answer every request of verb on resource with
// obj at once, without its tracker, whose JSON round trips would cost more
// than the sync. The fake still records each request.
func AnswerWith(f Reactors, verb, resource string, obj runtime.Object) {
	f.PrependReactor(verb, resource, func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, obj, nil
	})
}
