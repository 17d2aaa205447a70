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
	total, _, err := samples(text, metric, labels...)
	return total, err
}

// metricValue is the value of a metric without labels.
func metricValue(text []byte, metric string) (float64, error) {
	v, n, err := samples(text, metric)
	if err == nil && n == 0 {
		err = fmt.Errorf("no metric %s", metric)
	}
	return v, err
}

// samples adds up the samples of a metric (with or without labels) whose
// labels contain every one of the given label pairs, and counts them.
func samples(text []byte, metric string, labels ...string) (total float64, n int, err error) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var labelSet, value string
		if rest, ok := strings.CutPrefix(line, metric+"{"); ok {
			if labelSet, value, ok = strings.Cut(rest, "} "); !ok {
				continue
			}
		} else if value, ok = strings.CutPrefix(line, metric+" "); !ok {
			continue
		}
		if !containsAll(labelSet, labels) {
			continue
		}
		v, err := strconv.ParseFloat(strings.Fields(value)[0], 64)
		if err != nil {
			return 0, n, fmt.Errorf("%s: %w", line, err)
		}
		total += v
		n++
	}
	return total, n, sc.Err()
}

func containsAll(labelSet string, labels []string) bool {
	for _, l := range labels {
		if !strings.Contains(labelSet, l) {
			return false
		}
	}
	return true
}
