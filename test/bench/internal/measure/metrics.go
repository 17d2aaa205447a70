package measure

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Metrics are the metric families of a scrape in the Prometheus text
// format, by name.
type Metrics map[string]*dto.MetricFamily

// ParseMetrics reads a scrape in the Prometheus text format.
func ParseMetrics(text []byte) (Metrics, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("parse metrics: %w", err)
	}
	return fams, nil
}

// Scrape reads a /metrics endpoint, giving up after timeout: a process
// being restarted does not answer at all.
func Scrape(ctx context.Context, url string, timeout time.Duration) (Metrics, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	text, err := framework.Scrape(ctx, url)
	if err != nil {
		return nil, err
	}
	return ParseMetrics(text)
}

// Sum adds up the samples of the series of a metric whose labels have
// exactly the given values (a label the series lacks has the value ""); the
// series' other labels do not matter. name is a family's name, or a
// histogram's or summary's name with _sum or _count for that sample. A
// metric that is not in the scrape is an error; a metric without a matching
// series adds up to zero.
func (m Metrics) Sum(name string, labels map[string]string) (float64, error) {
	fam, sample, err := m.family(name)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, s := range fam.GetMetric() {
		if !hasLabels(s, labels) {
			continue
		}
		v, ok := sampleValue(s, sample)
		if !ok {
			return 0, fmt.Errorf("metric %s: a %s has no sample %q", name, fam.GetType(), sample)
		}
		total += v
	}
	return total, nil
}

// Value is the value of a metric with a single series, such as the Go
// runtime's go_memstats_*. A metric that is not in the scrape, or that has
// several series, is an error.
func (m Metrics) Value(name string) (float64, error) {
	fam, sample, err := m.family(name)
	if err != nil {
		return 0, err
	}
	if n := len(fam.GetMetric()); n != 1 {
		return 0, fmt.Errorf("metric %s has %d series, want 1", name, n)
	}
	v, ok := sampleValue(fam.GetMetric()[0], sample)
	if !ok {
		return 0, fmt.Errorf("metric %s: a %s has no sample %q", name, fam.GetType(), sample)
	}
	return v, nil
}

// family finds the family of a sample name and which of its samples the
// name is: "" for the family's own value, "_sum" or "_count" for those of a
// histogram or summary.
func (m Metrics) family(name string) (*dto.MetricFamily, string, error) {
	if fam, ok := m[name]; ok {
		return fam, "", nil
	}
	for _, suffix := range []string{"_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		if fam, ok := m[base]; ok {
			switch fam.GetType() {
			case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM, dto.MetricType_SUMMARY:
				return fam, suffix, nil
			}
		}
	}
	return nil, "", fmt.Errorf("no metric %s", name)
}

func hasLabels(s *dto.Metric, want map[string]string) bool {
	for name, value := range want {
		got := ""
		for _, l := range s.GetLabel() {
			if l.GetName() == name {
				got = l.GetValue()
				break
			}
		}
		if got != value {
			return false
		}
	}
	return true
}

// sampleValue is a series' value: sample "" of a counter, gauge or
// untyped metric, "_sum" or "_count" of a histogram or summary.
func sampleValue(s *dto.Metric, sample string) (float64, bool) {
	switch sample {
	case "":
		switch {
		case s.Counter != nil:
			return s.Counter.GetValue(), true
		case s.Gauge != nil:
			return s.Gauge.GetValue(), true
		case s.Untyped != nil:
			return s.Untyped.GetValue(), true
		}
	case "_sum":
		switch {
		case s.Histogram != nil:
			return s.Histogram.GetSampleSum(), true
		case s.Summary != nil:
			return s.Summary.GetSampleSum(), true
		}
	case "_count":
		switch {
		case s.Histogram != nil:
			return float64(s.Histogram.GetSampleCount()), true
		case s.Summary != nil:
			return float64(s.Summary.GetSampleCount()), true
		}
	}
	return 0, false
}
