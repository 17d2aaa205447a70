package measure

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
)

// SaveCPUProfile writes the Go CPU profile of seconds served at url (a
// pprof endpoint, /debug/pprof/profile) to path, for `go tool pprof`. It
// returns once the profile is written, seconds later.
func SaveCPUProfile(ctx context.Context, url string, seconds int, path string) error {
	return SaveHeapProfile(ctx, url+"?seconds="+strconv.Itoa(seconds), path)
}

// SaveAPIServerCPUProfile writes kube-apiserver's CPU profile of seconds
// (its /debug/pprof/profile, on by default with --profiling) to path.
func SaveAPIServerCPUProfile(ctx context.Context, client kubernetes.Interface, seconds int, path string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(seconds)*time.Second+30*time.Second)
	defer cancel()
	data, err := client.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
		Param("seconds", strconv.Itoa(seconds)).Timeout(time.Duration(seconds)*time.Second + 20*time.Second).DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("kube-apiserver's CPU profile: %w", err)
	}
	return os.WriteFile(path, data, 0o644)
}
