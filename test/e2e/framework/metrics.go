package framework

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// MetricValue returns the value of the counter, gauge or untyped metric, or
// the number of observations of the histogram, called name in text, a scrape in the Prometheus text exposition format,
// for the one series whose labels include every pair in labels (nil for an
// unlabelled metric). It is an error if text does not parse, if it has no
// metric called name, or if not exactly one series matches: a metric that is
// missing never reads as zero.
func MetricValue(text []byte, name string, labels map[string]string) (float64, error) {
	family, err := metricFamily(text, name)
	if err != nil {
		return 0, err
	}
	var matches []*dto.Metric
	for _, m := range family.GetMetric() {
		if metricHasLabels(m, labels) {
			matches = append(matches, m)
		}
	}
	switch len(matches) {
	case 1:
	case 0:
		return 0, fmt.Errorf("metric %s has no series with labels %v", name, labels)
	default:
		return 0, fmt.Errorf("metric %s has %d series with labels %v, want 1", name, len(matches), labels)
	}
	m := matches[0]
	switch family.GetType() {
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue(), nil
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue(), nil
	case dto.MetricType_UNTYPED:
		return m.GetUntyped().GetValue(), nil
	case dto.MetricType_HISTOGRAM:
		return float64(m.GetHistogram().GetSampleCount()), nil
	default:
		return 0, fmt.Errorf("metric %s is a %s, not a counter, gauge, untyped metric or histogram", name, family.GetType())
	}
}

// ScrapeMetric reads the metrics endpoint url, in the text exposition
// format, and returns MetricValue of name and labels. It is an error if the
// endpoint does not answer with 200 OK.
func ScrapeMetric(ctx context.Context, url, name string, labels map[string]string) (float64, error) {
	body, err := Scrape(ctx, url)
	if err != nil {
		return 0, err
	}
	v, err := MetricValue(body, name, labels)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", url, err)
	}
	return v, nil
}

// Scrape reads the metrics endpoint url in the text exposition format. It
// is an error if the endpoint does not answer with 200 OK.
func Scrape(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	return body, nil
}

// MetricSum adds up every series of the gauge or counter called name in
// text; a metric that is missing is an error, not zero.
func MetricSum(text []byte, name string) (float64, error) {
	family, err := metricFamily(text, name)
	if err != nil {
		return 0, err
	}
	sum := 0.0
	for _, m := range family.GetMetric() {
		switch family.GetType() {
		case dto.MetricType_COUNTER:
			sum += m.GetCounter().GetValue()
		case dto.MetricType_GAUGE:
			sum += m.GetGauge().GetValue()
		default:
			return 0, fmt.Errorf("metric %s is a %s, not a counter or gauge", name, family.GetType())
		}
	}
	return sum, nil
}

// metricHasLabels tells whether m has every label pair in want.
func metricHasLabels(m *dto.Metric, want map[string]string) bool {
	for name, value := range want {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				found = l.GetValue() == value
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// metricFamily parses text, a scrape in the text exposition format, and
// returns the family of the metric called name; a metric that is missing
// is an error.
func metricFamily(text []byte, name string) (*dto.MetricFamily, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("parse metrics: %w", err)
	}
	family, ok := families[name]
	if !ok {
		return nil, fmt.Errorf("no metric %s", name)
	}
	return family, nil
}
