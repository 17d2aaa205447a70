package framework

import "testing"

// A port once handed out is not handed out again, though its check's
// listener is closed and the kernel may offer it anew: one picked for a
// sidecar before a cluster starts must not become etcd's.
func TestFreePortsNeverHandsOutAPortTwice(t *testing.T) {
	seen := map[int]bool{}
	for range 300 {
		port, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[port] {
			t.Fatalf("port %d handed out twice", port)
		}
		seen[port] = true
	}
	ports, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range ports {
		if seen[port] {
			t.Errorf("port %d handed out twice", port)
		}
	}
}
