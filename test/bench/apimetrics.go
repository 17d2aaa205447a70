package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes"
)

// podListBytes returns the bytes kube-apiserver has sent in answer to pod
// LIST requests since it started, from its apiserver_response_sizes
// histogram. Watches are not in it.
func podListBytes(ctx context.Context, admin kubernetes.Interface) (float64, error) {
	body, err := admin.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("read kube-apiserver metrics: %w", err)
	}
	return sumSamples(body, "apiserver_response_sizes_sum", `resource="pods"`, `verb="LIST"`)
}

// sumSamples adds up the samples of a metric in Prometheus text format
// whose labels contain every one of the given label pairs.
func sumSamples(text []byte, metric string, labels ...string) (float64, error) {
	var total float64
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, metric+"{")
		if !ok {
			continue
		}
		labelSet, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		matches := true
		for _, l := range labels {
			if !strings.Contains(labelSet, l) {
				matches = false
				break
			}
		}
		if !matches {
			continue
		}
		v, err := strconv.ParseFloat(strings.Fields(value)[0], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", line, err)
		}
		total += v
	}
	return total, sc.Err()
}
