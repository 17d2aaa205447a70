package framework

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// DriverRequestVerbosity is the mock driver's -v at which it logs every
// request it receives, with the method and the request (secrets stripped).
// DriverCalls.Requests and CreateRequests need it; the driver keeps its call
// counters in memory only, so its log is the one record another process
// can read.
const DriverRequestVerbosity = 5

// volumeNameRE finds a volume name made of the default prefix and a claim
// UID, which is how the sidecar names the volumes it asks for.
var volumeNameRE = regexp.MustCompile(`pvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// DriverCalls is what a mock driver's log says about the calls it served.
type DriverCalls struct {
	// Requests counts the requests received, by CSI method
	// ("CreateVolume"), including those still running. Needs the driver
	// at DriverRequestVerbosity.
	Requests map[string]int
	// CreateRequests counts the CreateVolume requests received, by volume
	// name. Needs DriverRequestVerbosity.
	CreateRequests map[string]int
	// Created counts "Created volume": how often the backend made a new
	// volume of a name (-v=2, the framework's default, or more).
	Created map[string]int
	// Existed counts "Volume already exists": a CreateVolume of a name
	// answered with the volume an earlier call made (-v=2).
	Existed map[string]int
	// Deleted counts "Deleted volume", by name (-v=2).
	Deleted map[string]int
	// Succeeded and Failed count the replies, by method, at any -v, for
	// the methods that change something (CreateVolume, DeleteVolume, the
	// snapshot and publish calls). They do not name the volume.
	Succeeded map[string]int
	Failed    map[string]int
}

// NewDriverCalls returns empty counts, e.g. to Add several drivers' to.
func NewDriverCalls() *DriverCalls {
	return &DriverCalls{
		Requests:       map[string]int{},
		CreateRequests: map[string]int{},
		Created:        map[string]int{},
		Existed:        map[string]int{},
		Deleted:        map[string]int{},
		Succeeded:      map[string]int{},
		Failed:         map[string]int{},
	}
}

// ReadDriverCalls parses a mock driver's log (Process.LogFile of a
// driver), all of its starts.
func ReadDriverCalls(logFile string) (*DriverCalls, error) {
	f, err := os.Open(logFile)
	if err != nil {
		return nil, fmt.Errorf("read driver log: %w", err)
	}
	defer f.Close()
	c := NewDriverCalls()
	sc := bufio.NewScanner(f)
	// A request line holds the whole request.
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		method := logValue(line, "method")
		if method == "" {
			continue
		}
		switch {
		case strings.Contains(line, `"Request"`):
			c.Requests[method]++
			if method == "CreateVolume" {
				if name := volumeNameRE.FindString(line); name != "" {
					c.CreateRequests[name]++
				}
			}
		case strings.Contains(line, `"Call succeeded"`):
			c.Succeeded[method]++
		case strings.Contains(line, `"Call failed"`):
			c.Failed[method]++
		case strings.Contains(line, `"Created volume"`):
			c.Created[logValue(line, "name")]++
		case strings.Contains(line, `"Volume already exists"`):
			c.Existed[logValue(line, "name")]++
		case strings.Contains(line, `"Deleted volume"`):
			c.Deleted[logValue(line, "name")]++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read driver log %s: %w", logFile, err)
	}
	return c, nil
}

// logValue returns the value of key="value" in a klog text line, or "".
func logValue(line, key string) string {
	_, rest, ok := strings.Cut(line, " "+key+`="`)
	if !ok {
		return ""
	}
	value, _, _ := strings.Cut(rest, `"`)
	return value
}

// Add adds other's counts to c, to count over several drivers.
func (c *DriverCalls) Add(other *DriverCalls) {
	for _, m := range []struct{ dst, src map[string]int }{
		{c.Requests, other.Requests},
		{c.CreateRequests, other.CreateRequests},
		{c.Created, other.Created},
		{c.Existed, other.Existed},
		{c.Deleted, other.Deleted},
		{c.Succeeded, other.Succeeded},
		{c.Failed, other.Failed},
	} {
		for k, v := range m.src {
			m.dst[k] += v
		}
	}
}

// NodeDriverCalls reads the log of a node's driver (StackOptions.Nodes).
func (s *Stack) NodeDriverCalls(node string) (*DriverCalls, error) {
	return ReadDriverCalls(s.node(node).driver.LogFile())
}

// AllNodeDriverCalls adds up the logs of every node's driver.
func (s *Stack) AllNodeDriverCalls() (*DriverCalls, error) {
	total := NewDriverCalls()
	for _, n := range s.nodes {
		c, err := ReadDriverCalls(n.driver.LogFile())
		if err != nil {
			return nil, err
		}
		total.Add(c)
	}
	return total, nil
}
