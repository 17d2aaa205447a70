package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// etcdClient talks to etcd's JSON gateway (/v3/...), which needs no client
// library: only the head revision and a compaction are asked for.
type etcdClient struct {
	url  string
	http *http.Client
}

func newEtcdClient(url string) *etcdClient {
	return &etcdClient{url: url, http: &http.Client{Timeout: 10 * time.Second}}
}

// revision is etcd's head revision.
func (c *etcdClient) revision(ctx context.Context) (int64, error) {
	var out struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	// Any key will do: the header carries the store's revision. "/" in
	// base64, with a limit so nothing is read.
	if err := c.post(ctx, "/v3/kv/range", map[string]any{"key": "Lw==", "limit": 1}, &out); err != nil {
		return 0, err
	}
	return strconv.ParseInt(out.Header.Revision, 10, 64)
}

// compact drops every revision before rev, so a watch that starts from an
// older one ends with 410 Gone.
func (c *etcdClient) compact(ctx context.Context, rev int64) error {
	err := c.post(ctx, "/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}, nil)
	if err != nil && strings.Contains(err.Error(), "required revision has been compacted") {
		// kube-apiserver compacted past it meanwhile.
		return nil
	}
	return err
}

func (c *etcdClient) post(ctx context.Context, path string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd %s: %s: %s", path, resp.Status, bytes.TrimSpace(reply))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(reply, out)
}
