package measure

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
)

// GoMemory is the Go runtime's own account of a process's memory, in
// bytes, from its metrics: Sys is everything the runtime got from the
// system, HeapInuse the heap spans in use; RSS minus Sys is roughly the
// binary's mapped code and data.
type GoMemory struct {
	HeapAlloc int64 `json:"heapAlloc"`
	HeapInuse int64 `json:"heapInuse"`
	Sys       int64 `json:"sys"`
}

// GoMemory reads the Go runtime's go_memstats_* of a scrape; a metric
// missing is an error.
func (m Metrics) GoMemory() (GoMemory, error) {
	var g GoMemory
	for _, f := range []struct {
		name string
		dst  *int64
	}{
		{"go_memstats_heap_alloc_bytes", &g.HeapAlloc},
		{"go_memstats_heap_inuse_bytes", &g.HeapInuse},
		{"go_memstats_sys_bytes", &g.Sys},
	} {
		v, err := m.Value(f.name)
		if err != nil {
			return g, err
		}
		*f.dst = int64(v)
	}
	return g, nil
}

// SaveHeapProfile writes the Go heap profile served at url (a pprof
// endpoint, /debug/pprof/heap) to path, for `go tool pprof`.
func SaveHeapProfile(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
