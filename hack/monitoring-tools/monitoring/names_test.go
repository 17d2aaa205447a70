package monitoring

import (
	"slices"
	"testing"
)

func TestMetricNames(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum(rate(a_total{x="1"}[5m])) / sum(rate(b_total[5m]))`:          {"a_total", "b_total"},
		`histogram_quantile(0.99, sum by (le) (rate(h_bucket[5m]))) > 1`:  {"h_bucket"},
		`{__name__="by_matcher", job="x"} or by_name offset 5m`:           {"by_matcher", "by_name"},
		`max without (instance, pod) (g) == 0 and on() vector(1)`:         {"g"},
		`sum(rate(a_total[5m])) + sum(rate(a_total{instance=~"$i"}[1h]))`: {"a_total"},
	} {
		got, err := MetricNames(expr)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: names %v, want %v", expr, got, want)
		}
	}
	for _, expr := range []string{`{job="x"}`, `{__name__=~"a.*"}`, `sum(`} {
		if got, err := MetricNames(expr); err == nil {
			t.Errorf("%s: names %v, want an error", expr, got)
		}
	}
}

func TestFromGrafana(t *testing.T) {
	got := FromGrafana(`rate(a{d=~"$driver"}[$__rate_interval]) + rate(b[${__interval}])`)
	if want := `rate(a{d=~"$driver"}[5m]) + rate(b[5m])`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestVariableSelector(t *testing.T) {
	for q, want := range map[string]string{
		`label_values(m{a=~"$b"}, instance)`: `m{a=~"$b"}`,
		`label_values(m, driver_name)`:       `m`,
	} {
		if got, ok := VariableSelector(q); !ok || got != want {
			t.Errorf("%s: %q %v, want %q", q, got, ok, want)
		}
	}
	for _, q := range []string{`label_values(driver_name)`, `query_result(up)`} {
		if got, ok := VariableSelector(q); ok {
			t.Errorf("%s: selector %q, want none", q, got)
		}
	}
}

func TestPrometheusRuleWrapsTheGroups(t *testing.T) {
	got, err := PrometheusRule([]byte("# comment\n\ngroups:\n  - name: g\n    rules:\n      - alert: A\n        expr: |\n          up\n\n          == 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := prometheusRuleHeader + "  groups:\n    - name: g\n      rules:\n        - alert: A\n          expr: |\n            up\n\n            == 0\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := PrometheusRule([]byte("rules: []\n")); err == nil {
		t.Error("a file without groups was wrapped")
	}
}
