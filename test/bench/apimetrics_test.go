package bench

import "testing"

func TestSumSamplesAddsMatchingSeriesOnly(t *testing.T) {
	text := []byte(`# HELP apiserver_response_sizes Response size distribution in bytes.
# TYPE apiserver_response_sizes histogram
apiserver_response_sizes_sum{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 1500
apiserver_response_sizes_sum{component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 2.5e+03
apiserver_response_sizes_sum{component="apiserver",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1"} 99
apiserver_response_sizes_sum{component="apiserver",group="",resource="persistentvolumeclaims",scope="namespace",subresource="",verb="LIST",version="v1"} 77
apiserver_response_sizes_count{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 3
`)
	got, err := sumSamples(text, "apiserver_response_sizes_sum", `resource="pods"`, `verb="LIST"`)
	if err != nil {
		t.Fatal(err)
	}
	if got != 4000 {
		t.Errorf("got %v, want 4000", got)
	}
}
