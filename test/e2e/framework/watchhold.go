package framework

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// WatchHoldProxy is a reverse proxy in front of kube-apiserver that can
// hold back the watch events of one resource, as a lagging watch does: a
// client that goes through it keeps a stale copy of those objects in its
// informers, while its requests and its other watches go on. It presents
// kube-apiserver's own serving certificate, so a kubeconfig needs only its
// server changed; credentials pass through. Watches of the resource are
// asked for in JSON, so that the proxy can tell their events apart.
type WatchHoldProxy struct {
	resource string
	server   *httptest.Server

	mu      sync.Mutex
	changed *sync.Cond
	holding bool
	streams map[*watchStream]bool
}

// WatchEvent is one event of a held watch, as kube-apiserver sent it.
type WatchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// watchStream is one watch of the resource: events read from
// kube-apiserver wait in queue until they may go to the client.
type watchStream struct {
	queue []WatchEvent
	// releasable counts the queue's first events that Deliver let go.
	releasable int
	// ended is set once kube-apiserver's side ended.
	ended bool
}

// StartWatchHoldProxy starts a proxy that can hold the watch events of
// resource (plural, e.g. "persistentvolumeclaims").
func (c *Cluster) StartWatchHoldProxy(resource string) (*WatchHoldProxy, error) {
	target, err := url.Parse(c.host)
	if err != nil {
		return nil, err
	}
	upstreamTLS, err := rest.TLSConfigFor(&rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: c.caPEM}})
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(c.servingCert, c.servingKey)
	if err != nil {
		return nil, err
	}
	p := &WatchHoldProxy{resource: resource, streams: map[*watchStream]bool{}}
	p.changed = sync.NewCond(&p.mu)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			if p.isHeldWatch(r.In) {
				r.Out.Header.Set("Accept", "application/json")
			}
		},
		Transport:      &http.Transport{TLSClientConfig: upstreamTLS, ForceAttemptHTTP2: true},
		FlushInterval:  -1,
		ModifyResponse: p.interpose,
	}
	p.server = httptest.NewUnstartedServer(proxy)
	p.server.EnableHTTP2 = true
	p.server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	p.server.StartTLS()
	return p, nil
}

// URL is the proxy's address, for a kubeconfig's server.
func (p *WatchHoldProxy) URL() string { return p.server.URL }

// Hold keeps every event of the resource's watches from now on from its
// clients, until Deliver or Release.
func (p *WatchHoldProxy) Hold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holding = true
}

// Deliver lets go, in each watch, the held events from the first one on
// for as long as deliver accepts them, and keeps holding from the first it
// refuses. It returns how many it let go.
func (p *WatchHoldProxy) Deliver(deliver func(WatchEvent) bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for s := range p.streams {
		for s.releasable < len(s.queue) && deliver(s.queue[s.releasable]) {
			s.releasable++
			n++
		}
	}
	p.changed.Broadcast()
	return n
}

// Release stops holding and lets every held event go, in order.
func (p *WatchHoldProxy) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holding = false
	p.changed.Broadcast()
}

// Held counts the events held back now.
func (p *WatchHoldProxy) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.heldLocked()
}

// WaitHeld waits until at least n events are held back, or ctx ends.
func (p *WatchHoldProxy) WaitHeld(ctx context.Context, n int) error {
	// Wake the wait below when ctx ends; every change of a queue wakes it
	// too.
	stop := context.AfterFunc(ctx, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.changed.Broadcast()
	})
	defer stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.heldLocked() < n {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%d event(s) held, want %d: %w", p.heldLocked(), n, err)
		}
		p.changed.Wait()
	}
	return nil
}

// heldLocked counts the events held back; p.mu is held.
func (p *WatchHoldProxy) heldLocked() int {
	n := 0
	for s := range p.streams {
		n += len(s.queue) - s.releasable
	}
	return n
}

// Close stops the proxy and ends the watches through it.
func (p *WatchHoldProxy) Close() {
	p.Release()
	p.server.CloseClientConnections()
	p.server.Close()
}

func (p *WatchHoldProxy) isHeldWatch(r *http.Request) bool {
	watch := r.URL.Query().Get("watch")
	return (watch == "true" || watch == "1") && strings.HasSuffix(r.URL.Path, "/"+p.resource)
}

// interpose puts a held watch's events through a stream the proxy
// controls.
func (p *WatchHoldProxy) interpose(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK || !p.isHeldWatch(resp.Request) {
		return nil
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("a watch of %s answered in %q, not JSON", p.resource, ct)
	}
	s := &watchStream{}
	p.mu.Lock()
	p.streams[s] = true
	p.mu.Unlock()
	upstream := resp.Body
	reader, writer := io.Pipe()
	go p.readEvents(s, upstream)
	go p.writeEvents(s, writer, upstream)
	resp.Body = reader
	return nil
}

func (p *WatchHoldProxy) readEvents(s *watchStream, upstream io.Reader) {
	dec := json.NewDecoder(upstream)
	for {
		var ev WatchEvent
		err := dec.Decode(&ev)
		p.mu.Lock()
		if err != nil {
			s.ended = true
		} else {
			s.queue = append(s.queue, ev)
		}
		p.changed.Broadcast()
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// writeEvents passes the events on as they may go; once the client is gone
// it closes kube-apiserver's side too.
func (p *WatchHoldProxy) writeEvents(s *watchStream, client *io.PipeWriter, upstream io.Closer) {
	defer func() {
		p.mu.Lock()
		delete(p.streams, s)
		p.mu.Unlock()
		upstream.Close()
	}()
	for {
		p.mu.Lock()
		for !(len(s.queue) > 0 && (!p.holding || s.releasable > 0)) && !(s.ended && len(s.queue) == 0) {
			p.changed.Wait()
		}
		if len(s.queue) == 0 {
			p.mu.Unlock()
			client.Close()
			return
		}
		ev := s.queue[0]
		s.queue = s.queue[1:]
		if s.releasable > 0 {
			s.releasable--
		}
		p.mu.Unlock()
		data, err := json.Marshal(ev)
		if err == nil {
			_, err = client.Write(append(data, '\n'))
		}
		if err != nil {
			client.CloseWithError(err)
			return
		}
	}
}
