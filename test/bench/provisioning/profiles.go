package provisioning

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// profileArgs are the flags that serve CPU profiles, when the run
// profiles: for the sidecar an endpoint on a free port and pprof (upstream
// has both), for kube-apiserver its profiling, which the framework turns
// off.
func (r *runner) profileArgs() (sidecar, apiserver []string, _ error) {
	if r.opts.CPUProfileDir == "" {
		return nil, nil, nil
	}
	port, err := framework.FreePort()
	if err != nil {
		return nil, nil, err
	}
	r.pprofURL = fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile", port)
	return []string{fmt.Sprintf("--http-endpoint=127.0.0.1:%d", port), "--enable-pprof"}, []string{"--profiling=true"}, nil
}

// startProfiles starts the CPU profiles of the sidecar and kube-apiserver;
// the returned function waits for them and records what failed as a
// problem of the run. Nothing happens when the run does not profile.
func (r *runner) startProfiles(ctx context.Context) (wait func()) {
	if r.opts.CPUProfileDir == "" {
		return func() {}
	}
	secs := max(r.opts.CPUProfileSeconds, 1)
	variant := strings.ReplaceAll(r.variant.Name, " ", "-")
	path := func(component string) string {
		return filepath.Join(r.opts.CPUProfileDir, fmt.Sprintf("cpu-%s-%02d-%s-%s.pb.gz", r.opts.ProfileTag, r.result.Order, variant, component))
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = measure.SaveCPUProfile(ctx, r.pprofURL, secs, path("sidecar")) })
	wg.Go(func() { errs[1] = measure.SaveAPIServerCPUProfile(ctx, r.client, secs, path("kube-apiserver")) })
	return func() {
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				r.problem("CPU profile: %v", err)
			}
		}
	}
}
