package framework

import (
	"fmt"
	"net"
	"sync"
)

// handedOut are the ports this process has handed out. A port is free
// from its check until its program binds it, and the kernel may hand it
// out again meanwhile: a test that picks the sidecar's --http-endpoint
// before it starts a cluster would otherwise get etcd's port now and then.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// freePorts returns n distinct TCP ports on 127.0.0.1 that were free a moment
// ago and that this process has not handed out before. All listeners are
// held until every port is chosen so the kernel cannot hand out the same one
// twice; a port can still be taken by another process before the program
// binds it, which on a test machine is rare enough that the start-up error
// is simply reported.
func freePorts(n int) ([]int, error) {
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	handedOut.Lock()
	defer handedOut.Unlock()
	ports := make([]int, 0, n)
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		// Held open, a port handed out before is not offered again.
		listeners = append(listeners, l)
		port := l.Addr().(*net.TCPAddr).Port
		if handedOut.ports[port] {
			continue
		}
		ports = append(ports, port)
	}
	for _, port := range ports {
		handedOut.ports[port] = true
	}
	return ports, nil
}

// portFree reports whether 127.0.0.1:port can be listened on, which after Stop
// shows that no process of the cluster still holds it.
func portFree(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago, for a
// listener a test asks a component for, such as the sidecar's
// --http-endpoint.
func FreePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}
